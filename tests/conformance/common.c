// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: the helpers every section uses: output (errno names, quoting),
 * tracefs files and directories, registrations and their cleanup, payload
 * specs, writes and trace lines.
 */
#include "conformance.h"

const char *root = "/sys/kernel/tracing";
const char *only_sections;
char big[BIG];		/* file contents being shown */
char tracebuf[BIG];	/* the trace file */
int ctl_fd = -1;		/* user_events_data with no events of its own, for DIAG_IOCSDEL */
bool context_shown;
long page_size;

/* Enable words: every registration gets a slot of its own. */
uint64_t words[64] __attribute__((aligned(64)));
unsigned int next_word;

/* ---- output ---------------------------------------------------------------- */

static const struct {
	int value;
	const char *name;
} errnos[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" }, { EINTR, "EINTR" },
	{ EIO, "EIO" }, { ENXIO, "ENXIO" }, { E2BIG, "E2BIG" }, { EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { ENODEV, "ENODEV" }, { ENOTDIR, "ENOTDIR" },
	{ EISDIR, "EISDIR" }, { EINVAL, "EINVAL" }, { ENFILE, "ENFILE" }, { EMFILE, "EMFILE" },
	{ ENOTTY, "ENOTTY" }, { EFBIG, "EFBIG" }, { ENOSPC, "ENOSPC" }, { ESPIPE, "ESPIPE" },
	{ EROFS, "EROFS" }, { EPIPE, "EPIPE" }, { ERANGE, "ERANGE" },
	{ ENAMETOOLONG, "ENAMETOOLONG" }, { ENOSYS, "ENOSYS" }, { ENOTEMPTY, "ENOTEMPTY" },
	{ ELOOP, "ELOOP" }, { ENODATA, "ENODATA" }, { EOVERFLOW, "EOVERFLOW" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { EADDRINUSE, "EADDRINUSE" }, { ECANCELED, "ECANCELED" },
};

const char *errname(int err)
{
	static char other[24];

	for (size_t i = 0; i < ARRAY_SIZE(errnos); i++)
		if (errnos[i].value == err)
			return errnos[i].name;
	snprintf(other, sizeof(other), "E#%d", err);
	return other;
}

/* "0", a byte count, or an errno name, for a value that is >= 0 or -errno. */
const char *res(long r)
{
	static char buf[4][32];
	static unsigned int i;
	char *b = buf[i++ % 4];

	if (r < 0)
		return errname((int)-r);
	snprintf(b, 32, "%ld", r);
	return b;
}

bool section(const char *name)
{
	const char *p = only_sections;
	size_t n = strlen(name);

	if (!p)
		return true;
	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

void begin(const char *name)
{
	printf("\n# section %s\n", name);
}

/*
 * Bytes outside 0x20..0x7e are printed as \xNN and '\' as "\\"; a tab stays
 * a tab outside quotes (format files are full of them); inside quotes '"' is
 * "\"" and a tab is \x09.
 */
void put_esc(const char *s, size_t n, bool quoted)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\' || (quoted && c == '"'))
			printf("\\%c", c);
		else if (c == '\t' && !quoted)
			putchar(c);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

void put_quoted(const char *s)
{
	putchar('"');
	put_esc(s, strlen(s), true);
	putchar('"');
}

void put_hex(const void *p, size_t n)
{
	const unsigned char *b = p;

	if (!n)
		putchar('-');
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

/* ---- files ------------------------------------------------------------------- */

const char *tpath(const char *rel)
{
	static char buf[4][4096];
	static unsigned int i;
	char *b = buf[i++ % 4];

	if (snprintf(b, 4096, "%s/%s", root, rel) >= 4096)
		b[0] = '\0';	/* too long: open() then fails with ENOENT */
	return b;
}

ssize_t slurp(const char *rel, char *buf, size_t cap)
{
	size_t len = 0;
	int fd, err;

	fd = open(tpath(rel), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);

		if (n < 0) {
			err = errno;
			close(fd);
			return -err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap - 1)
			break;
	}
	buf[len] = '\0';
	close(fd);
	return (ssize_t)len;
}

/* Opens @rel with @flags, writes @text; bytes written or -errno (of open or write). */
ssize_t put_file(const char *rel, const char *text, int flags)
{
	ssize_t n;
	int fd, err;

	fd = open(tpath(rel), flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = errno;
	close(fd);
	return n < 0 ? -err : n;
}

/*
 * name_args of the event whose format file is being shown.  Linux 6.12 never
 * sets ftrace_event_field.len for user events (the field is kmalloc()ed), so
 * for a char[N] or __rel_loc field the format file prints "NAME[<whatever
 * the allocator left there>]": usually "NAME[]", sometimes a large number.
 * Such lines are shown as "NAME[]" and the raw line follows as
 * "~garbage-len ID LINE".
 */
const char *format_name_args;

/* Whether @name_args declares @fname (@flen bytes) with a type that holds '[' (not __data_loc). */
bool declared_array_field(const char *name_args, const char *fname, size_t flen)
{
	const char *p = name_args ? strchr(name_args, ' ') : NULL;

	while (p && *p) {
		const char *f = p + strspn(p, " ;");
		const char *fe = f + strcspn(f, ";");
		const char *last = fe;

		p = fe;
		while (last > f && last[-1] == ' ')
			last--;
		if (last == f || !strncmp(f, "struct ", 7) || !strncmp(f, "__data_loc", 10))
			continue;
		{
			const char *nm = last;

			while (nm > f && nm[-1] != ' ')
				nm--;
			if ((size_t)(last - nm) == flen && !strncmp(nm, fname, flen) &&
			    memchr(f, '[', (size_t)(nm - f)))
				return true;
		}
	}
	return false;
}

/* Rewrites "\tfield:TYPE NAME[N];" to "NAME[]" when N is the kernel's uninitialised len. */
bool normalise_field_len(char *line, size_t len, size_t *ret_len)
{
	char *semi, *open, *q;

	if (len < 7 || strncmp(line, "\tfield:", 7))
		return false;
	semi = memchr(line, ';', len);
	if (!semi || semi[-1] != ']')
		return false;
	open = semi - 1;
	while (open > line && open[-1] >= '0' && open[-1] <= '9')
		open--;
	if (open == semi - 1 || open[-1] != '[')
		return false;
	q = open - 1;
	while (q > line && q[-1] != ' ')
		q--;
	if (!declared_array_field(format_name_args, q, (size_t)(open - 1 - q)))
		return false;
	memmove(open, semi - 1, (size_t)(line + len - (semi - 1)));
	*ret_len = len - (size_t)(semi - 1 - open);
	return true;
}

bool vary_id_line(const char *line, size_t len)
{
	return len >= 4 && !strncmp(line, "ID: ", 4);
}

bool vary_trace_header(const char *line, size_t len)
{
	(void)len;
	return strstr(line, "#P:") != NULL && !strncmp(line, "# entries-in-buffer", 19);
}

/* The trace file: its records (pid, timestamp) and the entries line vary. */
bool vary_trace_file(const char *line, size_t len)
{
	return !len || line[0] != '#' || vary_trace_header(line, len);
}

bool vary_all(const char *line, size_t len)
{
	(void)line;
	(void)len;
	return true;
}

/*
 * A text block:
 *   text ID PATH
 *   | line            (~| for a line that varies)
 *   end               (end-no-newline when the text does not end in '\n')
 * or "text ID PATH => ERRNO" when the file cannot be read.
 */
void show_text(const char *id, const char *rel, const char *text, ssize_t n, vary_fn vary)
{
	const char *p, *end;

	printf("text %s ", id);
	put_esc(rel, strlen(rel), false);
	if (n < 0) {
		printf(" => %s\n", errname((int)-n));
		return;
	}
	putchar('\n');
	p = text;
	end = text + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[4096];
		size_t shown = len;

		if (format_name_args && len < sizeof(line)) {
			memcpy(line, p, len);
			if (normalise_field_len(line, len, &shown) && shown != len) {
				printf("| ");
				put_esc(line, shown, false);
				printf("\n~garbage-len %s ", id);
				put_esc(p, len, false);
				putchar('\n');
				p += len + (nl ? 1 : 0);
				continue;
			}
		}
		printf("%s| ", vary && vary(p, len) ? "~" : "");
		put_esc(p, len, false);
		putchar('\n');
		p += len + (nl ? 1 : 0);
	}
	printf("%s\n", n > 0 && text[n - 1] != '\n' ? "end-no-newline" : "end");
}

void show_file(const char *id, const char *rel, vary_fn vary)
{
	ssize_t n = slurp(rel, big, sizeof(big));

	show_text(id, rel, big, n, vary);
}

/* One line with the file's content when it is a single short line. */
void show_value(const char *id, const char *rel)
{
	ssize_t n = slurp(rel, big, sizeof(big));

	printf("value %s ", id);
	put_esc(rel, strlen(rel), false);
	if (n < 0) {
		printf(" => %s\n", errname((int)-n));
		return;
	}
	printf(" = \"");
	put_esc(big, (size_t)n, true);
	printf("\"\n");
}

const char *type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "dir";
	if (S_ISREG(m))
		return "file";
	if (S_ISLNK(m))
		return "link";
	return "other";
}

void show_stat(const char *id, const char *rel)
{
	struct stat st;

	printf("stat %s ", id);
	put_esc(rel, strlen(rel), false);
	if (stat(tpath(rel), &st)) {
		printf(" => %s\n", errname(errno));
		return;
	}
	printf(" %s mode=%04o size=%lld\n", type_name(st.st_mode), (unsigned int)(st.st_mode & 07777),
	       (long long)st.st_size);
}

int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of a directory ("." and ".." left out); count or -errno. */
int list_dir(const char *rel, char ***ret)
{
	char **names = NULL;
	struct dirent *d;
	int n = 0;
	DIR *dir;

	dir = opendir(tpath(rel));
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		names = realloc(names, sizeof(*names) * (size_t)(n + 1));
		names[n++] = strdup(d->d_name);
	}
	closedir(dir);
	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	*ret = names;
	return n;
}

void free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* "ls ID DIR" then one stat line per entry. */
void show_dir(const char *id, const char *rel)
{
	char **names;
	char sub[4096];
	int n = list_dir(rel, &names);

	printf("ls %s %s", id, rel);
	if (n < 0) {
		printf(" => %s\n", errname(-n));
		return;
	}
	printf(" entries=%d\n", n);
	for (int i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", rel, names[i]);
		show_stat(id, sub);
	}
	free_list(names, n);
}

void clear_trace(void)
{
	int fd = open(tpath("trace"), O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

/* ---- registration ------------------------------------------------------------ */

uint64_t *take_word(void)
{
	uint64_t *w = &words[next_word++ % ARRAY_SIZE(words)];

	*w = 0;
	return w;
}

int open_data(void)
{
	int fd = open(tpath("user_events_data"), O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("fatal: open user_events_data: %s\n", errname(errno));
		exit(1);
	}
	return fd;
}

int ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int unreg(int fd, uint64_t addr, uint8_t bit)
{
	struct user_unreg u = { .size = sizeof(u), .disable_bit = bit, .disable_addr = addr };

	return ioc(fd, DIAG_IOCSUNREG, &u);
}

/*
 * Waits until no event is called @name: the kernel destroys an event whose
 * last reference went away from a work queue, so a name is not free again
 * at once.  DIAG_IOCSDEL also removes persistent leftovers.
 */
void wait_gone(const char *name)
{
	if (strlen(name) >= UE_NAME_MAX_DEL)
		return;
	for (int i = 0; i < 3000; i++) {
		int r = ioc(ctl_fd, DIAG_IOCSDEL, (void *)name);

		if (r == 0 || r == -ENOENT)
			return;
		if (r != -EBUSY)
			break;
		usleep(1000);
	}
	printf("~warn: event ");
	put_quoted(name);
	printf(" still exists\n");
}

/* The registered name in a name_args: up to the first ' ' or ':'. */
void name_of(const char *name_args, char *buf, size_t len)
{
	size_t n = strcspn(name_args, " :");

	if (n >= len)
		n = len - 1;
	memcpy(buf, name_args, n);
	buf[n] = '\0';
}
void ctx_open(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = open_data();
}

void ctx_track(struct ctx *c, const char *name_args)
{
	char name[600];

	name_of(name_args, name, sizeof(name));
	for (int i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], name))
			return;
	if (c->nnames < (int)ARRAY_SIZE(c->names))
		strcpy(c->names[c->nnames++], name);
}

void ctx_enabler(struct ctx *c, int fd, uint64_t addr, uint8_t bit)
{
	if (c->nen < (int)ARRAY_SIZE(c->en)) {
		c->en[c->nen].fd = fd;
		c->en[c->nen].addr = addr;
		c->en[c->nen].bit = bit;
		c->nen++;
	}
}

void ctx_close(struct ctx *c)
{
	for (int i = 0; i < c->nen; i++)
		unreg(c->en[i].fd, c->en[i].addr, c->en[i].bit);
	close(c->fd);
	for (int i = 0; i < c->nnames; i++)
		wait_gone(c->names[i]);
}

void print_reg(const char *id, const char *name_args, unsigned int flags, int r, uint32_t idx)
{
	printf("reg %s ", id);
	if (name_args)
		put_quoted(name_args);
	else
		printf("-");
	printf(" flags=%u => %s write_index=", flags, res(r));
	if (r)
		printf("-\n");
	else
		printf("%u\n", idx);
}

/* A registration with a fresh enable word (4 bytes, bit 0); tracks name and enabler. */
int ctx_reg(struct ctx *c, const char *id, const char *name_args, uint16_t flags,
		   uint32_t *ret_idx, uint64_t **ret_word)
{
	uint64_t *w = take_word();
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = 0,
		.enable_size = 4,
		.flags = flags,
		.enable_addr = (uint64_t)(uintptr_t)w,
		.name_args = (uint64_t)(uintptr_t)name_args,
	};
	int r = ioc(c->fd, DIAG_IOCSREG, &reg);

	ctx_track(c, name_args);
	if (!r)
		ctx_enabler(c, c->fd, reg.enable_addr, 0);
	print_reg(id, name_args, flags, r, reg.write_index);
	if (ret_idx)
		*ret_idx = reg.write_index;
	if (ret_word)
		*ret_word = w;
	return r;
}

bool is_user_events_line(const char *p)
{
	return !strncmp(p, "user_events:", 12) || !strncmp(p, "user_events_multi:", 18);
}

/* "avail ID LINE" for each user_events line of available_events. */
void show_available(const char *id)
{
	ssize_t n = slurp("available_events", big, sizeof(big));
	char *p = big, *nl;

	if (n < 0) {
		printf("avail %s => %s\n", id, errname((int)-n));
		return;
	}
	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (is_user_events_line(p)) {
			printf("avail %s ", id);
			put_esc(p, (size_t)(nl - p), false);
			putchar('\n');
		}
		if (!*nl)
			break;
	}
}

/*
 * The texts of one event: format (the ID line varies), id, dynamic_events,
 * user_events_status and its available_events lines.
 */
void show_format(const char *id, const char *name_args, const char *system,
			const char *tp_name)
{
	char rel[4096];
	ssize_t n;

	snprintf(rel, sizeof(rel), "events/%s/%s/format", system, tp_name);
	format_name_args = name_args;
	show_file(id, rel, vary_id_line);
	format_name_args = NULL;
	snprintf(rel, sizeof(rel), "events/%s/%s/id", system, tp_name);
	n = slurp(rel, big, sizeof(big));
	if (n < 0)
		printf("id %s => %s\n", id, errname((int)-n));
	else
		printf("~id %s %s", id, big);
}

void show_shared_texts(const char *id)
{
	show_file(id, "dynamic_events", NULL);
	show_file(id, "user_events_status", NULL);
	show_available(id);
}

void show_event_texts(const char *id, const char *name_args, const char *system,
			     const char *tp_name)
{
	show_format(id, name_args, system, tp_name);
	show_shared_texts(id);
}

/* Events of a multi-format name: entries NAME.<hex> of events/user_events_multi. */
void show_multi_texts(const char *id, const char *name_args, const char *name)
{
	char **names;
	int n = list_dir("events/user_events_multi", &names);
	size_t len = strlen(name);

	if (n < 0) {
		printf("multi-dir %s => %s\n", id, errname(-n));
		return;
	}
	for (int i = 0; i < n; i++) {
		if (strncmp(names[i], name, len) || names[i][len] != '.')
			continue;
		printf("multi-dir %s %s\n", id, names[i]);
		show_format(id, name_args, "user_events_multi", names[i]);
	}
	free_list(names, n);
	show_shared_texts(id);
}

void show_registered(const char *id, const char *name_args, uint16_t flags)
{
	char name[600];

	name_of(name_args, name, sizeof(name));
	if (flags & USER_EVENT_REG_MULTI_FORMAT)
		show_multi_texts(id, name_args, name);
	else
		show_event_texts(id, name_args, "user_events", name);
}

int enable_event(const char *system, const char *tp_name, const char *val)
{
	char rel[4096];

	snprintf(rel, sizeof(rel), "events/%s/%s/enable", system, tp_name);
	return (int)put_file(rel, val, O_WRONLY);
}

/* "fwrite ID PATH "TEXT" => RESULT": a write to a tracefs control file. */
ssize_t fwrite_show(const char *id, const char *rel, const char *text, int flags)
{
	ssize_t r = put_file(rel, text, flags);

	printf("fwrite %s ", id);
	put_esc(rel, strlen(rel), false);
	putchar(' ');
	put_quoted(text);
	printf(" => %s\n", res(r));
	return r;
}

/* An address where nothing is mapped (a page mapped, then unmapped). */
void *unmapped_page(void)
{
	void *p = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, (size_t)page_size);
	return p;
}

/* ---- payload specs ------------------------------------------------------------ */

/*
 * A payload written as text, tokens separated by spaces:
 *   ab            one byte (two hex digits)
 *   "text"        the bytes of text (no NUL added; \" and \\ escape)
 *   u16:N u32:N u64:N   little-endian integers (decimal, 0x hex, or -N)
 *   loc:OFF:LEN   a 32-bit dynamic location, LEN << 16 | OFF
 *   zN            N zero bytes
 */
size_t spec_bytes(const char *spec, unsigned char *out)
{
	const char *p = spec;
	size_t n = 0;

	while (*p) {
		if (*p == ' ') {
			p++;
			continue;
		}
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				out[n++] = (unsigned char)*p;
			}
			if (*p)
				p++;
		} else if (!strncmp(p, "u16:", 4) || !strncmp(p, "u32:", 4) || !strncmp(p, "u64:", 4)) {
			int bytes = p[1] == '1' ? 2 : p[1] == '3' ? 4 : 8;
			char *e;
			uint64_t v = strtoull(p + 4, &e, 0);

			if (p[4] == '-')
				v = (uint64_t)strtoll(p + 4, &e, 0);
			for (int i = 0; i < bytes; i++)
				out[n++] = (unsigned char)(v >> (8 * i));
			p = e;
		} else if (!strncmp(p, "loc:", 4)) {
			char *e;
			uint32_t off = (uint32_t)strtoul(p + 4, &e, 0);
			uint32_t len = (uint32_t)strtoul(e + 1, &e, 0);
			uint32_t v = len << 16 | off;

			memcpy(out + n, &v, 4);
			n += 4;
			p = e;
		} else if (*p == 'z') {
			char *e;
			unsigned long z = strtoul(p + 1, &e, 10);

			memset(out + n, 0, z);
			n += z;
			p = e;
		} else {
			char hex[3] = { p[0], p[1], 0 };

			out[n++] = (unsigned char)strtoul(hex, NULL, 16);
			p += 2;
		}
	}
	return n;
}

/* ---- writes and trace lines ----------------------------------------------------- */

ssize_t write_event(int fd, int32_t idx, const void *payload, size_t len, enum how how)
{
	static unsigned char buf[MAX_PAYLOAD + 4];
	struct iovec iov[2] = {
		{ .iov_base = &idx, .iov_len = sizeof(idx) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	ssize_t n;

	if (how == HOW_WRITE) {
		memcpy(buf, &idx, 4);
		memcpy(buf + 4, payload, len);
		n = write(fd, buf, len + 4);
	} else {
		n = writev(fd, iov, 2);
	}
	return n < 0 ? -errno : n;
}

/* The part of a trace line after "<comm>-<pid> [cpu] flags timestamp: ". */
const char *event_part(const char *line)
{
	const char *p = strstr(line, "] ");

	if (!p)
		return NULL;
	p = strstr(p, ": ");
	return p ? p + 2 : NULL;
}

/* Whether a trace line starts a record: "<comm>-<pid> [NNN] ". */
bool is_record_start(const char *line, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		size_t j = i + 2;

		if (line[i] != ' ' || line[i + 1] != '[')
			continue;
		while (j < len && line[j] >= '0' && line[j] <= '9')
			j++;
		if (j > i + 2 && j + 1 < len && line[j] == ']' && line[j + 1] == ' ')
			return true;
	}
	return false;
}

/*
 * "trace ID EVENT-PART" for every record of the trace file.  A string field
 * may hold a newline, which the kernel prints as is: lines that do not start
 * a record belong to the record before them (and show up as \x0a).
 */
void show_trace_lines(const char *id)
{
	ssize_t n = slurp("trace", tracebuf, sizeof(tracebuf));
	char *p = tracebuf, *end;

	if (n < 0) {
		printf("trace %s => %s\n", id, errname((int)-n));
		return;
	}
	end = tracebuf + n;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *rec_end;
		const char *ev;

		if (!nl)
			nl = end;
		if (*p == '#' || !is_record_start(p, (size_t)(nl - p))) {
			if (*p != '#')
				printf("~trace-stray %s %.*s\n", id, (int)(nl - p), p);
			p = nl + 1;
			continue;
		}
		/* extend over continuation lines */
		rec_end = nl;
		while (rec_end < end) {
			char *next = rec_end + 1;
			char *nnl;

			if (next >= end || *next == '#')
				break;
			nnl = memchr(next, '\n', (size_t)(end - next));
			if (!nnl)
				nnl = end;
			if (is_record_start(next, (size_t)(nnl - next)))
				break;
			rec_end = nnl;
		}
		*rec_end = '\0';
		if (!context_shown) {
			printf("~trace-line %s ", id);
			put_esc(p, strlen(p), false);
			putchar('\n');
			context_shown = true;
		}
		ev = event_part(p);
		printf("trace %s ", id);
		if (ev)
			put_esc(ev, strlen(ev), false);
		else
			printf("<unparsed>");
		putchar('\n');
		p = rec_end + 1;
	}
}

/* "write ID HEX => RESULT" then the trace lines it produced. */
void do_write(const char *id, int fd, int32_t idx, const char *spec, enum how how)
{
	static unsigned char payload[MAX_PAYLOAD];
	size_t len = spec_bytes(spec, payload);
	ssize_t r;

	clear_trace();
	r = write_event(fd, idx, payload, len, how);
	printf("write %s ", id);
	put_hex(payload, len);
	printf(" => %s\n", res(r));
	show_trace_lines(id);
}
