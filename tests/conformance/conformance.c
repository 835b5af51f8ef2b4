// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: drives user_events through the real ABI (user_events_data,
 * tracefs files, dynamic_events) at a tracefs root and prints, one fact per
 * line, everything it observes, so the reference kernel and usereventsd can
 * be compared with diff.  Lines starting with '~' vary between runs.
 * The output format is described in tests/conformance/README.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <userevents/abi.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BIG (1 << 20)
#define MAX_PAYLOAD 8192
/* DIAG_IOCSDEL reads at most this many bytes of name (kernel MAX_EVENT_DESC). */
#define UE_NAME_MAX_DEL 512

static const char *root = "/sys/kernel/tracing";
static const char *only_sections;
static char big[BIG];		/* file contents being shown */
static char tracebuf[BIG];	/* the trace file */
static int ctl_fd = -1;		/* user_events_data with no events of its own, for DIAG_IOCSDEL */
static bool context_shown;
static long page_size;

/* Enable words: every registration gets a slot of its own. */
static uint64_t words[64] __attribute__((aligned(64)));
static unsigned int next_word;

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

static const char *errname(int err)
{
	static char other[24];

	for (size_t i = 0; i < ARRAY_SIZE(errnos); i++)
		if (errnos[i].value == err)
			return errnos[i].name;
	snprintf(other, sizeof(other), "E#%d", err);
	return other;
}

/* "0", a byte count, or an errno name, for a value that is >= 0 or -errno. */
static const char *res(long r)
{
	static char buf[4][32];
	static unsigned int i;
	char *b = buf[i++ % 4];

	if (r < 0)
		return errname((int)-r);
	snprintf(b, 32, "%ld", r);
	return b;
}

static bool section(const char *name)
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

static void begin(const char *name)
{
	printf("\n# section %s\n", name);
}

/*
 * Bytes outside 0x20..0x7e are printed as \xNN and '\' as "\\"; a tab stays
 * a tab outside quotes (format files are full of them); inside quotes '"' is
 * "\"" and a tab is \x09.
 */
static void put_esc(const char *s, size_t n, bool quoted)
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

static void put_quoted(const char *s)
{
	putchar('"');
	put_esc(s, strlen(s), true);
	putchar('"');
}

static void put_hex(const void *p, size_t n)
{
	const unsigned char *b = p;

	if (!n)
		putchar('-');
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

/* ---- files ------------------------------------------------------------------- */

static const char *tpath(const char *rel)
{
	static char buf[4][4096];
	static unsigned int i;
	char *b = buf[i++ % 4];

	if (snprintf(b, 4096, "%s/%s", root, rel) >= 4096)
		b[0] = '\0';	/* too long: open() then fails with ENOENT */
	return b;
}

static ssize_t slurp(const char *rel, char *buf, size_t cap)
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
static ssize_t put_file(const char *rel, const char *text, int flags)
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

typedef bool (*vary_fn)(const char *line, size_t len);

/*
 * name_args of the event whose format file is being shown.  Linux 6.12 never
 * sets ftrace_event_field.len for user events (the field is kmalloc()ed), so
 * for a char[N] or __rel_loc field the format file prints "NAME[<whatever
 * the allocator left there>]": usually "NAME[]", sometimes a large number.
 * Such lines are shown as "NAME[]" and the raw line follows as
 * "~garbage-len ID LINE".
 */
static const char *format_name_args;

/* Whether @name_args declares @fname (@flen bytes) with a type that holds '[' (not __data_loc). */
static bool declared_array_field(const char *name_args, const char *fname, size_t flen)
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
static bool normalise_field_len(char *line, size_t len, size_t *ret_len)
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

static bool vary_id_line(const char *line, size_t len)
{
	return len >= 4 && !strncmp(line, "ID: ", 4);
}

static bool vary_trace_header(const char *line, size_t len)
{
	(void)len;
	return strstr(line, "#P:") != NULL && !strncmp(line, "# entries-in-buffer", 19);
}

/* The trace file: its records (pid, timestamp) and the entries line vary. */
static bool vary_trace_file(const char *line, size_t len)
{
	return !len || line[0] != '#' || vary_trace_header(line, len);
}

static bool vary_all(const char *line, size_t len)
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
static void show_text(const char *id, const char *rel, const char *text, ssize_t n, vary_fn vary)
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

static void show_file(const char *id, const char *rel, vary_fn vary)
{
	ssize_t n = slurp(rel, big, sizeof(big));

	show_text(id, rel, big, n, vary);
}

/* One line with the file's content when it is a single short line. */
static void show_value(const char *id, const char *rel)
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

static const char *type_name(mode_t m)
{
	if (S_ISDIR(m))
		return "dir";
	if (S_ISREG(m))
		return "file";
	if (S_ISLNK(m))
		return "link";
	return "other";
}

static void show_stat(const char *id, const char *rel)
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of a directory ("." and ".." left out); count or -errno. */
static int list_dir(const char *rel, char ***ret)
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

static void free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* "ls ID DIR" then one stat line per entry. */
static void show_dir(const char *id, const char *rel)
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

static void clear_trace(void)
{
	int fd = open(tpath("trace"), O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

/* ---- registration ------------------------------------------------------------ */

static uint64_t *take_word(void)
{
	uint64_t *w = &words[next_word++ % ARRAY_SIZE(words)];

	*w = 0;
	return w;
}

static int open_data(void)
{
	int fd = open(tpath("user_events_data"), O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("fatal: open user_events_data: %s\n", errname(errno));
		exit(1);
	}
	return fd;
}

static int ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int unreg(int fd, uint64_t addr, uint8_t bit)
{
	struct user_unreg u = { .size = sizeof(u), .disable_bit = bit, .disable_addr = addr };

	return ioc(fd, DIAG_IOCSUNREG, &u);
}

/*
 * Waits until no event is called @name: the kernel destroys an event whose
 * last reference went away from a work queue, so a name is not free again
 * at once.  DIAG_IOCSDEL also removes persistent leftovers.
 */
static void wait_gone(const char *name)
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
static void name_of(const char *name_args, char *buf, size_t len)
{
	size_t n = strcspn(name_args, " :");

	if (n >= len)
		n = len - 1;
	memcpy(buf, name_args, n);
	buf[n] = '\0';
}

/* A case: one descriptor, its enablers and the names to wait for at the end. */
struct ctx {
	int fd;
	int nen;
	struct {
		int fd;
		uint64_t addr;
		uint8_t bit;
	} en[32];
	int nnames;
	char names[16][600];
};

static void ctx_open(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = open_data();
}

static void ctx_track(struct ctx *c, const char *name_args)
{
	char name[600];

	name_of(name_args, name, sizeof(name));
	for (int i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], name))
			return;
	if (c->nnames < (int)ARRAY_SIZE(c->names))
		strcpy(c->names[c->nnames++], name);
}

static void ctx_enabler(struct ctx *c, int fd, uint64_t addr, uint8_t bit)
{
	if (c->nen < (int)ARRAY_SIZE(c->en)) {
		c->en[c->nen].fd = fd;
		c->en[c->nen].addr = addr;
		c->en[c->nen].bit = bit;
		c->nen++;
	}
}

static void ctx_close(struct ctx *c)
{
	for (int i = 0; i < c->nen; i++)
		unreg(c->en[i].fd, c->en[i].addr, c->en[i].bit);
	close(c->fd);
	for (int i = 0; i < c->nnames; i++)
		wait_gone(c->names[i]);
}

static void print_reg(const char *id, const char *name_args, unsigned int flags, int r, uint32_t idx)
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
static int ctx_reg(struct ctx *c, const char *id, const char *name_args, uint16_t flags,
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

static bool is_user_events_line(const char *p)
{
	return !strncmp(p, "user_events:", 12) || !strncmp(p, "user_events_multi:", 18);
}

/* "avail ID LINE" for each user_events line of available_events. */
static void show_available(const char *id)
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
static void show_format(const char *id, const char *name_args, const char *system,
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

static void show_shared_texts(const char *id)
{
	show_file(id, "dynamic_events", NULL);
	show_file(id, "user_events_status", NULL);
	show_available(id);
}

static void show_event_texts(const char *id, const char *name_args, const char *system,
			     const char *tp_name)
{
	show_format(id, name_args, system, tp_name);
	show_shared_texts(id);
}

/* Events of a multi-format name: entries NAME.<hex> of events/user_events_multi. */
static void show_multi_texts(const char *id, const char *name_args, const char *name)
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

static void show_registered(const char *id, const char *name_args, uint16_t flags)
{
	char name[600];

	name_of(name_args, name, sizeof(name));
	if (flags & USER_EVENT_REG_MULTI_FORMAT)
		show_multi_texts(id, name_args, name);
	else
		show_event_texts(id, name_args, "user_events", name);
}

static int enable_event(const char *system, const char *tp_name, const char *val)
{
	char rel[4096];

	snprintf(rel, sizeof(rel), "events/%s/%s/enable", system, tp_name);
	return (int)put_file(rel, val, O_WRONLY);
}

/* "fwrite ID PATH "TEXT" => RESULT": a write to a tracefs control file. */
static ssize_t fwrite_show(const char *id, const char *rel, const char *text, int flags)
{
	ssize_t r = put_file(rel, text, flags);

	printf("fwrite %s ", id);
	put_esc(rel, strlen(rel), false);
	putchar(' ');
	put_quoted(text);
	printf(" => %s\n", res(r));
	return r;
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
static size_t spec_bytes(const char *spec, unsigned char *out)
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

enum how { HOW_WRITEV, HOW_WRITE };

static ssize_t write_event(int fd, int32_t idx, const void *payload, size_t len, enum how how)
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
static const char *event_part(const char *line)
{
	const char *p = strstr(line, "] ");

	if (!p)
		return NULL;
	p = strstr(p, ": ");
	return p ? p + 2 : NULL;
}

/* Whether a trace line starts a record: "<comm>-<pid> [NNN] ". */
static bool is_record_start(const char *line, size_t len)
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
static void show_trace_lines(const char *id)
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
static void do_write(const char *id, int fd, int32_t idx, const char *spec, enum how how)
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

/* ---- section: environment -------------------------------------------------------- */

static void sec_env(void)
{
	/* Only the user_events part of tracefs, the part usereventsd provides. */
	static const char *const files[] = {
		"README", "available_events", "buffer_size_kb", "dynamic_events", "events",
		"events/enable", "events/header_event", "events/header_page", "events/user_events",
		"events/user_events/enable", "events/user_events/filter", "options",
		"options/fields", "options/overwrite", "per_cpu", "per_cpu/cpu0",
		"per_cpu/cpu0/trace_pipe_raw", "set_event", "trace", "trace_pipe", "tracing_on",
		"user_events_data", "user_events_status",
	};

	begin("env");
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		show_stat("env", files[i]);
	show_file("env.empty", "user_events_status", NULL);
	show_file("env.empty", "dynamic_events", NULL);
	show_value("env", "tracing_on");
	show_value("env", "options/fields");
	show_value("env", "events/user_events/enable");
}

/* ---- section: parse ---------------------------------------------------------------- */

struct reg_case {
	const char *id;
	const char *name_args;
};

static const struct reg_case parse_cases[] = {
	/* every type the kernel knows */
	{ "parse.s8", "cfp_s8 s8 a" },
	{ "parse.u8", "cfp_u8 u8 a" },
	{ "parse.s16", "cfp_s16 s16 a" },
	{ "parse.u16", "cfp_u16 u16 a" },
	{ "parse.s32", "cfp_s32 s32 a" },
	{ "parse.u32", "cfp_u32 u32 a" },
	{ "parse.s64", "cfp_s64 s64 a" },
	{ "parse.u64", "cfp_u64 u64 a" },
	{ "parse.int", "cfp_int int a" },
	{ "parse.uint", "cfp_uint unsigned int a" },
	{ "parse.short", "cfp_short short a" },
	{ "parse.ushort", "cfp_ushort unsigned short a" },
	{ "parse.char", "cfp_char char a" },
	{ "parse.uchar", "cfp_uchar unsigned char a" },
	{ "parse.char4", "cfp_char4 char[4] a" },
	{ "parse.uchar4", "cfp_uchar4 unsigned char[4] a" },
	{ "parse.char-hex", "cfp_charx char[0x14] a" },
	{ "parse.uchar-hex", "cfp_ucharx unsigned char[0x14] a" },
	{ "parse.char-octal", "cfp_charo char[010] a" },
	{ "parse.char1", "cfp_char1 char[1] a" },
	{ "parse.char1024", "cfp_char1024 char[1024] a" },
	{ "parse.char1025", "cfp_char1025 char[1025] a" },
	{ "parse.char9999", "cfp_char9999 char[9999] a" },
	{ "parse.char0", "cfp_char0 char[0] a" },
	{ "parse.char-aa", "cfp_charaa char[aa] a" },
	{ "parse.char-longnum", "cfp_charln char[0x0000000000001] a" },
	{ "parse.char-7digits", "cfp_char7 char[0000020] a" },
	{ "parse.char-neg", "cfp_charneg char[-1] a" },
	{ "parse.char-empty", "cfp_charem char[] a" },
	{ "parse.char-nobracket", "cfp_charnb char[4 a" },
	{ "parse.char-space", "cfp_charsp char [4] a" },
	{ "parse.char-suffix", "cfp_charsf char[4]x a" },
	{ "parse.u8-array", "cfp_u8arr u8[4] a" },
	{ "parse.dloc-char", "cfp_dlc __data_loc char[] a" },
	{ "parse.dloc-uchar", "cfp_dluc __data_loc unsigned char[] a" },
	{ "parse.rloc-char", "cfp_rlc __rel_loc char[] a" },
	{ "parse.rloc-uchar", "cfp_rluc __rel_loc unsigned char[] a" },
	{ "parse.dloc-u8", "cfp_dlu8 __data_loc u8[] a" },
	{ "parse.rloc-u8", "cfp_rlu8 __rel_loc u8[] a" },
	{ "parse.dloc-u32", "cfp_dlu32 __data_loc u32[] a" },
	{ "parse.dloc-int", "cfp_dlint __data_loc int a" },
	{ "parse.dloc-char10", "cfp_dlc10 __data_loc char[10] a" },
	{ "parse.dloc-bare", "cfp_dlbare __data_loc a" },
	{ "parse.rloc-bare", "cfp_rlbare __rel_loc a" },
	{ "parse.dloc-unsigned-bare", "cfp_dlub __data_loc unsigned a" },
	{ "parse.struct20", "cfp_st20 struct foo bar 20" },
	{ "parse.struct1", "cfp_st1 struct foo bar 1" },
	{ "parse.struct0", "cfp_st0 struct foo bar 0" },
	{ "parse.struct-nosize", "cfp_stns struct foo bar" },
	{ "parse.struct-hexsize", "cfp_sthx struct foo bar 0x10" },
	{ "parse.struct-negsize", "cfp_stng struct foo bar -1" },
	{ "parse.struct-extra", "cfp_stex struct foo bar 4 5" },
	{ "parse.struct-dspace", "cfp_stds struct  foo bar 4" },
	{ "parse.struct-noname", "cfp_stnn struct foo" },
	{ "parse.struct-big", "cfp_stbig struct foo bar 65536" },
	/* rejected types */
	{ "parse.long", "cfp_long long a" },
	{ "parse.ulong", "cfp_ulong unsigned long a" },
	{ "parse.unknown", "cfp_unk foo a" },
	{ "parse.bool", "cfp_bool bool a" },
	{ "parse.upper", "cfp_upper U32 a" },
	{ "parse.unsigned-alone", "cfp_usa unsigned a" },
	{ "parse.unsigned-dspace", "cfp_usds unsigned  int a" },
	{ "parse.pointer", "cfp_ptr char * a" },
	/* field syntax */
	{ "parse.noname", "cfp_nn u32" },
	{ "parse.size-nonstruct", "cfp_szns u32 a 4" },
	{ "parse.size-char", "cfp_szch char a 20" },
	{ "parse.dspace", "cfp_dsp u32  a" },
	{ "parse.dspace-lead", "cfp_dspl  u32 a" },
	{ "parse.tspace", "cfp_tsp u32 a " },
	{ "parse.tsemi", "cfp_tsemi u32 a;" },
	{ "parse.tsemi-space", "cfp_tsemis u32 a; " },
	{ "parse.dsemi", "cfp_dsemi u32 a;;u32 b" },
	{ "parse.lsemi", "cfp_lsemi ;u32 a" },
	{ "parse.semi-only", "cfp_semio ;" },
	{ "parse.semi-space", "cfp_ssp u32 a; u32 b" },
	{ "parse.semi-spaces", "cfp_ssp2 u32 a;   u32 b" },
	{ "parse.space-semi", "cfp_sps u32 a ;u32 b" },
	{ "parse.tab-in-field", "cfp_tab u32\ta" },
	{ "parse.tab-after-name", "cfp_tabn\tu32 a" },
	{ "parse.newline", "cfp_nl u32 a\n" },
	{ "parse.dup-field", "cfp_dup u32 a;u32 a" },
	{ "parse.field-dash", "cfp_fdash u32 a-b" },
	{ "parse.field-brackets", "cfp_fbr u32 a[2]" },
	{ "parse.field-semi-type", "cfp_fst u32;a" },
	{ "parse.all-types",
	  "cfp_all s8 a;u8 b;s16 c;u16 d;s32 e;u32 f;s64 g;u64 h;int i;unsigned int j;short k;"
	  "unsigned short l;char m;unsigned char n;char[3] o;unsigned char[2] p;"
	  "__data_loc char[] q;__rel_loc char[] r;__data_loc u8[] s;struct x t 3" },
	{ "parse.readme",
	  "cfp_readme u32 a;s8 b;char[4] c;__rel_loc char[] s;u64 d;unsigned char e;"
	  "__data_loc u8[] arr;struct foo st 6" },
	/* names and flags */
	{ "parse.nofields", "cfp_nf" },
	{ "parse.name-space", "cfp_nsp " },
	{ "parse.name-spaces", "cfp_nsps    " },
	{ "parse.flag", "cfp_flag:flag u32 a" },
	{ "parse.flag-noargs", "cfp_flag2:BPF" },
	{ "parse.colon", "cfp_colon: u32 a" },
	{ "parse.colon-only", "cfp_colon2:" },
	{ "parse.name-dot", "cfp.dot u32 a" },
	{ "parse.name-dash", "cfp-dash u32 a" },
	{ "parse.name-slash", "cfp/slash u32 a" },
	{ "parse.name-star", "cfp_* u32 a" },
	{ "parse.name-utf8", "cfp_\xc3\xa9 u32 a" },
	{ "parse.name-space-inside", "cfp sp u32 a" },
	{ "parse.name-digit", "9cfp u32 a" },
	{ "parse.name-events", "enable u32 a" },
	{ "parse.spaces-only", "   " },
	{ "parse.empty", "" },
	{ "parse.leading-space", " cfp_lsp u32 a" },
};

/* name_args of exactly @total bytes: NAME, one u32 field with a long name. */
static void make_long_args(char *buf, size_t total, const char *name)
{
	size_t n = (size_t)snprintf(buf, total + 1, "%s u32 f", name);

	while (n < total)
		buf[n++] = 'x';
	buf[n] = '\0';
}

static void parse_one(const char *id, const char *name_args)
{
	struct ctx c;
	int r;

	ctx_open(&c);
	r = ctx_reg(&c, id, name_args, 0, NULL, NULL);
	if (!r)
		show_registered(id, name_args, 0);
	ctx_close(&c);
}

static void sec_parse(void)
{
	static char buf[2048];
	static const struct {
		const char *id;
		size_t len;
	} lens[] = {
		{ "parse.len255", 255 }, { "parse.len511", 511 },
		{ "parse.len512", 512 }, { "parse.len513", 513 },
	};
	static const struct {
		const char *id;
		size_t len;
	} names[] = {
		{ "parse.name255", 255 }, { "parse.name256", 256 }, { "parse.name511", 511 },
	};
	char many[600];
	size_t n;

	begin("parse");
	for (size_t i = 0; i < ARRAY_SIZE(parse_cases); i++)
		parse_one(parse_cases[i].id, parse_cases[i].name_args);

	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		char name[32];

		snprintf(name, sizeof(name), "cfp_l%zu", lens[i].len);
		make_long_args(buf, lens[i].len, name);
		parse_one(lens[i].id, buf);
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		memset(buf, 'n', names[i].len);
		memcpy(buf, "cfp_", 4);
		buf[names[i].len] = '\0';
		parse_one(names[i].id, buf);
	}

	/* 60 one-byte fields; 0 to 59 are "u8 fNN;" */
	n = (size_t)snprintf(many, sizeof(many), "cfp_many");
	for (int i = 0; i < 60; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%su8 f%02d", i ? ";" : " ", i);
	parse_one("parse.many-fields", many);
}

/* ---- section: match ---------------------------------------------------------------- */

static const struct {
	const char *id;
	const char *a, *b;
} match_cases[] = {
	{ "match.same", "cfm_a u32 a", "cfm_a u32 a" },
	{ "match.semi-space", "cfm_b u32 a;u32 b", "cfm_b u32 a; u32 b" },
	{ "match.semi-space-rev", "cfm_b2 u32 a; u32 b", "cfm_b2 u32 a;u32 b" },
	{ "match.tsemi", "cfm_c u32 a; u32 b", "cfm_c u32 a; u32 b;" },
	{ "match.dspace", "cfm_d u32 a", "cfm_d u32  a" },
	{ "match.lspace", "cfm_e u32 a", "cfm_e  u32 a" },
	{ "match.tspace", "cfm_e2 u32 a", "cfm_e2 u32 a " },
	{ "match.field-name", "cfm_f u32 a", "cfm_f u32 b" },
	{ "match.order", "cfm_g u32 a; u32 b", "cfm_g u32 b; u32 a" },
	{ "match.type", "cfm_h u64 a; u64 b", "cfm_h u32 a; u32 b" },
	{ "match.type-alias", "cfm_h2 int a", "cfm_h2 s32 a" },
	{ "match.struct", "cfm_i struct my_struct a 20", "cfm_i struct my_struct a 20" },
	{ "match.struct-field", "cfm_j struct my_struct a 20", "cfm_j struct my_struct b 20" },
	{ "match.struct-size", "cfm_k struct my_struct a 20", "cfm_k struct my_struct a 21" },
	{ "match.struct-name", "cfm_l struct my_struct a 20", "cfm_l struct other a 20" },
	{ "match.fewer", "cfm_m u32 a; u32 b", "cfm_m u32 a" },
	{ "match.more", "cfm_n u32 a", "cfm_n u32 a; u32 b" },
	{ "match.none-vs-field", "cfm_o", "cfm_o u32 a" },
	{ "match.field-vs-none", "cfm_p u32 a", "cfm_p" },
	{ "match.none-none", "cfm_q", "cfm_q" },
	{ "match.none-space", "cfm_r", "cfm_r " },
	{ "match.invalid-b", "cfm_s u32 a", "cfm_s u32" },
	{ "match.invalid-b-type", "cfm_s2 u32 a", "cfm_s2 long a" },
	{ "match.flag-b", "cfm_t u32 a", "cfm_t:x u32 a" },
	{ "match.unsigned-dspace", "cfm_u unsigned int a", "cfm_u unsigned  int a" },
	{ "match.space-before-semi", "cfm_v u32 a;u32 b", "cfm_v u32 a ;u32 b" },
	{ "match.char-hex", "cfm_w char[20] a", "cfm_w char[0x14] a" },
	{ "match.dsemi", "cfm_x u32 a;u32 b", "cfm_x u32 a;;u32 b" },
	{ "match.lsemi", "cfm_y u32 a", "cfm_y ;u32 a" },
	{ "match.tab", "cfm_z u32 a", "cfm_z u32\ta" },
	{ "match.dloc", "cfm_dl __data_loc char[] a", "cfm_dl __data_loc  char[] a" },
};

static void sec_match(void)
{
	begin("match");
	for (size_t i = 0; i < ARRAY_SIZE(match_cases); i++) {
		char ida[96], idb[96];
		struct ctx c;

		snprintf(ida, sizeof(ida), "%s.a", match_cases[i].id);
		snprintf(idb, sizeof(idb), "%s.b", match_cases[i].id);
		ctx_open(&c);
		ctx_reg(&c, ida, match_cases[i].a, 0, NULL, NULL);
		ctx_reg(&c, idb, match_cases[i].b, 0, NULL, NULL);
		ctx_close(&c);
	}
}

/* ---- section: reg (struct user_reg checks) ------------------------------------------- */

static void *unmapped_page(void)
{
	void *p = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	munmap(p, (size_t)page_size);
	return p;
}

struct reg_variant {
	const char *id;
	uint32_t size;		/* 0: sizeof(struct user_reg) */
	bool size_zero;		/* size really 0 */
	uint8_t enable_size;	/* 0: 4 */
	uint8_t bit;
	uint16_t flags;
	int addr_kind;		/* see reg_addr() */
	int addr_off;
	int name_kind;		/* 0 normal, 1 unmapped, 2 NULL, 3 no NUL within 512 */
	int tail;		/* for size > 32: 0 zero tail, 1 non-zero tail */
};

enum { ADDR_WORD, ADDR_UNMAPPED, ADDR_NULL, ADDR_KERNEL, ADDR_READONLY };

static const struct reg_variant reg_variants[] = {
	{ .id = "reg.ok" },
	{ .id = "reg.size-4097", .size = 4097 },
	{ .id = "reg.size-4096-zero-tail", .size = 4096 },
	{ .id = "reg.size-4096-nonzero-tail", .size = 4096, .tail = 1 },
	{ .id = "reg.size-40-zero-tail", .size = 40 },
	{ .id = "reg.size-40-nonzero-tail", .size = 40, .tail = 1 },
	{ .id = "reg.size-29-nonzero-tail", .size = 29, .tail = 1 },
	{ .id = "reg.size-32", .size = 32 },
	{ .id = "reg.size-28", .size = 28 },
	{ .id = "reg.size-27", .size = 27 },
	{ .id = "reg.size-24", .size = 24 },
	{ .id = "reg.size-4", .size = 4 },
	{ .id = "reg.size-0", .size_zero = true },
	{ .id = "reg.size-huge", .size = 0xffffffffu },
	{ .id = "reg.flags-persist", .flags = 1 },
	{ .id = "reg.flags-4", .flags = 4 },
	{ .id = "reg.flags-8", .flags = 8 },
	{ .id = "reg.flags-0x8000", .flags = 0x8000 },
	{ .id = "reg.enable_size-0", .enable_size = 0xff },
	{ .id = "reg.enable_size-1", .enable_size = 1 },
	{ .id = "reg.enable_size-2", .enable_size = 2 },
	{ .id = "reg.enable_size-3", .enable_size = 3 },
	{ .id = "reg.enable_size-5", .enable_size = 5 },
	{ .id = "reg.enable_size-8", .enable_size = 8 },
	{ .id = "reg.enable_size-9", .enable_size = 9 },
	{ .id = "reg.enable_size-16", .enable_size = 16 },
	{ .id = "reg.addr-misaligned-4", .addr_off = 2 },
	{ .id = "reg.addr-misaligned-4-by-1", .addr_off = 1 },
	{ .id = "reg.addr-misaligned-8", .enable_size = 8, .addr_off = 4 },
	{ .id = "reg.addr-4-in-upper-half", .addr_off = 4 },
	{ .id = "reg.bit-31-size-4", .bit = 31 },
	{ .id = "reg.bit-32-size-4", .bit = 32 },
	{ .id = "reg.bit-63-size-8", .enable_size = 8, .bit = 63 },
	{ .id = "reg.bit-64-size-8", .enable_size = 8, .bit = 64 },
	{ .id = "reg.bit-255-size-8", .enable_size = 8, .bit = 255 },
	{ .id = "reg.addr-unmapped", .addr_kind = ADDR_UNMAPPED },
	{ .id = "reg.addr-null", .addr_kind = ADDR_NULL },
	{ .id = "reg.addr-kernel", .addr_kind = ADDR_KERNEL },
	{ .id = "reg.addr-readonly", .addr_kind = ADDR_READONLY },
	{ .id = "reg.name-unmapped", .name_kind = 1 },
	{ .id = "reg.name-null", .name_kind = 2 },
	{ .id = "reg.name-no-nul", .name_kind = 3 },
	{ .id = "reg.bad-size-and-bad-flags", .size = 27, .flags = 4 },
	{ .id = "reg.bad-flags-and-bad-enable_size", .flags = 4, .enable_size = 3 },
	{ .id = "reg.bad-enable_size-and-misaligned", .enable_size = 3, .addr_off = 1 },
	{ .id = "reg.misaligned-and-bad-bit", .addr_off = 2, .bit = 40 },
	{ .id = "reg.bad-bit-and-bad-name", .bit = 40, .name_kind = 2 },
};

static uint64_t reg_addr(const struct reg_variant *v, uint64_t *word, void *ro)
{
	switch (v->addr_kind) {
	case ADDR_UNMAPPED:
		return (uint64_t)(uintptr_t)unmapped_page();
	case ADDR_NULL:
		return 0;
	case ADDR_KERNEL:
		return 0xffff888000000000ull;
	case ADDR_READONLY:
		return (uint64_t)(uintptr_t)ro;
	}
	return (uint64_t)(uintptr_t)word + (uint64_t)v->addr_off;
}

static void sec_reg(void)
{
	static unsigned char area[8192] __attribute__((aligned(8)));
	static char noterm[600];
	void *ro = mmap(NULL, (size_t)page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	begin("reg");
	memset(noterm, 'r', sizeof(noterm));
	for (size_t i = 0; i < ARRAY_SIZE(reg_variants); i++) {
		const struct reg_variant *v = &reg_variants[i];
		struct user_reg *reg = (struct user_reg *)area;
		uint64_t *w = take_word();
		const char *name_args = "cfr_ev u32 a";
		const char *shown = name_args;
		struct ctx c;
		int r;

		memset(area, 0, sizeof(area));
		reg->size = v->size_zero ? 0 : v->size ? v->size : sizeof(*reg);
		reg->enable_size = v->enable_size == 0xff ? 0 : v->enable_size ? v->enable_size : 4;
		reg->enable_bit = v->bit;
		reg->flags = v->flags;
		reg->enable_addr = reg_addr(v, w, ro);
		reg->name_args = (uint64_t)(uintptr_t)name_args;
		if (v->name_kind == 1) {
			reg->name_args = (uint64_t)(uintptr_t)unmapped_page();
			shown = NULL;
		} else if (v->name_kind == 2) {
			reg->name_args = 0;
			shown = NULL;
		} else if (v->name_kind == 3) {
			reg->name_args = (uint64_t)(uintptr_t)noterm;
			shown = NULL;
		}
		if (v->tail)
			area[reg->size - 1] = 1;

		ctx_open(&c);
		r = ioc(c.fd, DIAG_IOCSREG, area);
		if (!r)
			ctx_enabler(&c, c.fd, reg->enable_addr, reg->enable_bit);
		ctx_track(&c, name_args);
		print_reg(v->id, shown, v->flags, r, reg->write_index);
		if (!r)
			printf("word %s 0x%016" PRIx64 "\n", v->id, *w);
		ctx_close(&c);
	}

	{
		/* The ioctl argument itself unreadable. */
		struct ctx c;

		ctx_open(&c);
		printf("ioctl reg.arg-null => %s\n", res(ioc(c.fd, DIAG_IOCSREG, NULL)));
		printf("ioctl reg.arg-unmapped => %s\n",
		       res(ioc(c.fd, DIAG_IOCSREG, unmapped_page())));
		ctx_close(&c);
	}

	{
		/* Same address and bit twice, on one file and on two. */
		struct ctx c;
		uint64_t *w = take_word();
		struct user_reg reg = { .size = sizeof(reg), .enable_size = 4,
					.enable_addr = (uint64_t)(uintptr_t)w };
		int fd2;

		ctx_open(&c);
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup1 u32 a";
		print_reg("reg.addr-twice.first", "cfr_dup1 u32 a", 0, ioc(c.fd, DIAG_IOCSREG, &reg),
			  reg.write_index);
		ctx_enabler(&c, c.fd, reg.enable_addr, 0);
		ctx_track(&c, "cfr_dup1");
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup2 u32 a";
		ctx_track(&c, "cfr_dup2");
		print_reg("reg.addr-twice.other-event", "cfr_dup2 u32 a", 0,
			  ioc(c.fd, DIAG_IOCSREG, &reg), reg.write_index);
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup1 u32 a";
		print_reg("reg.addr-twice.same-event", "cfr_dup1 u32 a", 0,
			  ioc(c.fd, DIAG_IOCSREG, &reg), reg.write_index);
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup3 long a";
		ctx_track(&c, "cfr_dup3");
		print_reg("reg.addr-twice.bad-args", "cfr_dup3 long a", 0,
			  ioc(c.fd, DIAG_IOCSREG, &reg), reg.write_index);
		fd2 = open_data();
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup2 u32 a";
		print_reg("reg.addr-twice.other-file", "cfr_dup2 u32 a", 0,
			  ioc(fd2, DIAG_IOCSREG, &reg), reg.write_index);
		reg.enable_bit = 1;
		print_reg("reg.addr-twice.other-bit", "cfr_dup2 u32 a", 0,
			  ioc(fd2, DIAG_IOCSREG, &reg), reg.write_index);
		ctx_enabler(&c, fd2, reg.enable_addr, 1);
		reg.enable_size = 8;
		reg.enable_bit = 1;
		print_reg("reg.addr-twice.other-size", "cfr_dup2 u32 a", 0,
			  ioc(fd2, DIAG_IOCSREG, &reg), reg.write_index);
		unreg(fd2, reg.enable_addr, 1);
		close(fd2);
		ctx_close(&c);
	}

	{
		/* write_index: per file, one per event, the same event again gives the same index. */
		struct ctx c;
		int fd2;
		uint64_t *w;
		struct user_reg reg = { .size = sizeof(reg), .enable_size = 4 };

		ctx_open(&c);
		ctx_reg(&c, "reg.index.first", "cfr_i1 u32 a", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.second", "cfr_i2 u32 a", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.first-again", "cfr_i1 u32 a", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.first-again-spaces", "cfr_i1  u32 a;", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.third", "cfr_i3", 0, NULL, NULL);
		fd2 = open_data();
		w = take_word();
		reg.enable_addr = (uint64_t)(uintptr_t)w;
		reg.name_args = (uint64_t)(uintptr_t)"cfr_i2 u32 a";
		print_reg("reg.index.other-file", "cfr_i2 u32 a", 0, ioc(fd2, DIAG_IOCSREG, &reg),
			  reg.write_index);
		unreg(fd2, reg.enable_addr, 0);
		close(fd2);
		ctx_close(&c);
	}
	munmap(ro, (size_t)page_size);
}

/* ---- section: unreg ---------------------------------------------------------------- */

static void sec_unreg(void)
{
	static unsigned char area[8192] __attribute__((aligned(8)));
	struct user_unreg *u = (struct user_unreg *)area;
	struct ctx c;
	uint64_t *w;
	uint32_t idx;
	static const struct {
		const char *id;
		uint32_t size;
		int tail;
		uint8_t res1;
		uint16_t res2;
		int addr;	/* 0 registered, 1 unknown */
		uint8_t bit;
	} cases[] = {
		{ "unreg.size-4097", 4097, 0, 0, 0, 0, 0 },
		{ "unreg.size-15", 15, 0, 0, 0, 0, 0 },
		{ "unreg.size-0", 0, 0, 0, 0, 0, 0 },
		{ "unreg.size-24-nonzero-tail", 24, 1, 0, 0, 0, 0 },
		{ "unreg.reserved", 16, 0, 1, 0, 0, 0 },
		{ "unreg.reserved2", 16, 0, 0, 1, 0, 0 },
		{ "unreg.unknown-addr", 16, 0, 0, 0, 1, 0 },
		{ "unreg.unknown-bit", 16, 0, 0, 0, 0, 5 },
		{ "unreg.size-4096-zero-tail", 4096, 0, 0, 0, 0, 0 },
		{ "unreg.again", 16, 0, 0, 0, 0, 0 },
	};

	begin("unreg");
	ctx_open(&c);
	ctx_reg(&c, "unreg.setup", "cfu_ev u32 a", 0, &idx, &w);
	enable_event("user_events", "cfu_ev", "1");
	printf("word unreg.enabled 0x%016" PRIx64 "\n", *w);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(area, 0, sizeof(area));
		u->size = cases[i].size;
		u->__reserved = cases[i].res1;
		u->__reserved2 = cases[i].res2;
		u->disable_bit = cases[i].bit;
		u->disable_addr = cases[i].addr ? (uint64_t)(uintptr_t)&words[63]
						 : (uint64_t)(uintptr_t)w;
		if (cases[i].tail)
			area[cases[i].size - 1] = 1;
		printf("unreg %s => %s\n", cases[i].id, res(ioc(c.fd, DIAG_IOCSUNREG, area)));
		printf("word %s 0x%016" PRIx64 "\n", cases[i].id, *w);
	}
	printf("unreg unreg.arg-null => %s\n", res(ioc(c.fd, DIAG_IOCSUNREG, NULL)));
	/* After unregistering, the file still holds the event: writes work. */
	do_write("wr.after-unreg", c.fd, (int32_t)idx, "u32:7", HOW_WRITEV);
	enable_event("user_events", "cfu_ev", "0");
	c.nen = 0;
	ctx_close(&c);
}

/* ---- section: enable (the enable word) ------------------------------------------------ */

static void sec_enable(void)
{
	static const struct {
		const char *id;
		uint8_t size, bit;
		int off;
		uint64_t fill;
	} cases[] = {
		{ "enable.size4-bit0", 4, 0, 0, 0xa5a5a5a5a5a5a5a4ull },
		{ "enable.size4-bit31", 4, 31, 0, 0x5a5a5a5a5a5a5a5aull },
		{ "enable.size4-upper-bit31", 4, 31, 4, 0x0123456701234567ull },
		{ "enable.size8-bit0", 8, 0, 0, 0xfffffffffffffffeull },
		{ "enable.size8-bit63", 8, 63, 0, 0x7fffffffffffffffull },
		{ "enable.size8-bit33", 8, 33, 0, 0 },
	};
	struct ctx c;
	uint32_t idx;

	begin("enable");
	ctx_open(&c);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t *w = take_word();
		struct user_reg reg = {
			.size = sizeof(reg), .enable_size = cases[i].size, .enable_bit = cases[i].bit,
			.enable_addr = (uint64_t)(uintptr_t)w + (uint64_t)cases[i].off,
			.name_args = (uint64_t)(uintptr_t)"cfe_ev u32 a",
		};
		int r;

		*w = cases[i].fill;
		r = ioc(c.fd, DIAG_IOCSREG, &reg);
		print_reg(cases[i].id, "cfe_ev u32 a", 0, r, reg.write_index);
		ctx_track(&c, "cfe_ev");
		if (!r)
			ctx_enabler(&c, c.fd, reg.enable_addr, cases[i].bit);
		printf("word %s.registered 0x%016" PRIx64 "\n", cases[i].id, *w);
		fwrite_show(cases[i].id, "events/user_events/cfe_ev/enable", "1", O_WRONLY);
		printf("word %s.enabled 0x%016" PRIx64 "\n", cases[i].id, *w);
		show_value(cases[i].id, "events/user_events/cfe_ev/enable");
		show_file(cases[i].id, "user_events_status", NULL);
		fwrite_show(cases[i].id, "events/user_events/cfe_ev/enable", "0", O_WRONLY);
		printf("word %s.disabled 0x%016" PRIx64 "\n", cases[i].id, *w);
		show_value(cases[i].id, "events/user_events/cfe_ev/enable");
	}

	/* Registering an enabled event sets the bit at once; unregistering clears it. */
	fwrite_show("enable.before-reg", "events/user_events/cfe_ev/enable", "1", O_WRONLY);
	{
		uint64_t *w;

		ctx_reg(&c, "enable.reg-while-enabled", "cfe_ev u32 a", 0, &idx, &w);
		printf("word enable.reg-while-enabled 0x%016" PRIx64 "\n", *w);
		printf("unreg enable.unreg-while-enabled => %s\n",
		       res(unreg(c.fd, (uint64_t)(uintptr_t)w, 0)));
		printf("word enable.unreg-while-enabled 0x%016" PRIx64 "\n", *w);
	}
	/* Enable values other than 0 and 1. */
	{
		static const char *const vals[] = {
			"2", "-1", "", "1x", "0\n", " 1", "01", "1\n\n", "on",
		};

		for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
			char id[32];

			snprintf(id, sizeof(id), "enable.value-%zu", i);
			fwrite_show(id, "events/user_events/cfe_ev/enable", vals[i], O_WRONLY);
			show_value(id, "events/user_events/cfe_ev/enable");
		}
	}
	enable_event("user_events", "cfe_ev", "0");
	ctx_close(&c);

	/* events/user_events/enable and events/enable: 0, 1 and X. */
	ctx_open(&c);
	ctx_reg(&c, "enable.sys.a", "cfe_a u32 a", 0, NULL, NULL);
	ctx_reg(&c, "enable.sys.b", "cfe_b u32 a", 0, NULL, NULL);
	show_value("enable.sys-none", "events/user_events/enable");
	enable_event("user_events", "cfe_a", "1");
	show_value("enable.sys-one", "events/user_events/enable");
	show_value("enable.sys-one", "events/enable");
	show_file("enable.sys-one", "set_event", NULL);
	show_file("enable.sys-one", "user_events_status", NULL);
	enable_event("user_events", "cfe_b", "1");
	show_value("enable.sys-both", "events/user_events/enable");
	fwrite_show("enable.sys-off", "events/user_events/enable", "0", O_WRONLY);
	show_value("enable.sys-off", "events/user_events/enable");
	show_value("enable.sys-off", "events/user_events/cfe_a/enable");
	fwrite_show("enable.sys-on", "events/user_events/enable", "1", O_WRONLY);
	show_value("enable.sys-on", "events/user_events/cfe_b/enable");
	show_file("enable.sys-on", "set_event", NULL);
	fwrite_show("enable.sys-off2", "events/user_events/enable", "0", O_WRONLY);
	/* set_event: "system:event" enables, "!system:event" disables. */
	fwrite_show("enable.set_event-add", "set_event", "user_events:cfe_a", O_WRONLY | O_APPEND);
	show_value("enable.set_event-add", "events/user_events/cfe_a/enable");
	show_file("enable.set_event-add", "set_event", NULL);
	fwrite_show("enable.set_event-remove", "set_event", "!user_events:cfe_a", O_WRONLY | O_APPEND);
	show_value("enable.set_event-remove", "events/user_events/cfe_a/enable");
	fwrite_show("enable.set_event-system", "set_event", "user_events:*", O_WRONLY | O_APPEND);
	show_value("enable.set_event-system", "events/user_events/enable");
	fwrite_show("enable.set_event-trunc", "set_event", "", O_WRONLY | O_TRUNC);
	show_value("enable.set_event-trunc", "events/user_events/enable");
	ctx_close(&c);
}

/* ---- section: del ---------------------------------------------------------------- */

static void sec_del(void)
{
	struct ctx c;
	char longname[600];
	int r = 0;

	begin("del");
	printf("del del.unknown => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_nosuch")));
	printf("del del.empty => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "")));
	printf("del del.arg-null => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, NULL)));
	memset(longname, 'd', sizeof(longname));
	printf("del del.no-nul => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, longname)));

	ctx_open(&c);
	ctx_reg(&c, "del.busy.reg", "cfd_busy u32 a", 0, NULL, NULL);
	printf("del del.busy => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_busy")));
	printf("del del.busy-same-fd => %s\n", res(ioc(c.fd, DIAG_IOCSDEL, "cfd_busy")));
	printf("del del.with-fields => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_busy u32 a")));
	ctx_close(&c);

	/* A persistent event outlives its file; once unreferenced DIAG_IOCSDEL removes it. */
	ctx_open(&c);
	ctx_reg(&c, "del.persist.reg", "cfd_pers u32 a", USER_EVENT_REG_PERSIST, NULL, NULL);
	printf("del del.persist-open => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_pers")));
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	/* the enabler's reference is dropped after an RCU grace period */
	for (int i = 0; i < 3000; i++) {
		r = ioc(ctl_fd, DIAG_IOCSDEL, "cfd_pers");
		if (r != -EBUSY)
			break;
		usleep(1000);
	}
	printf("del del.persist-closed => %s\n", res(r));
	printf("del del.persist-again => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_pers")));
	show_file("del.persist-gone", "user_events_status", NULL);

	/* A non-persistent event goes away by itself once its last reference is dropped. */
	ctx_open(&c);
	ctx_reg(&c, "del.auto.reg", "cfd_auto u32 a", 0, NULL, NULL);
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	for (int i = 0; i < 3000; i++) {
		struct stat st;

		if (stat(tpath("events/user_events/cfd_auto"), &st))
			break;
		usleep(1000);
	}
	show_stat("del.auto-gone", "events/user_events/cfd_auto");
	printf("del del.auto-gone => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_auto")));
}

/* ---- section: multi and persist --------------------------------------------------------- */

static void sec_multi(void)
{
	struct ctx c;
	int fd2;

	begin("multi");
	ctx_open(&c);
	ctx_reg(&c, "multi.first", "cfmf u32 a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	show_registered("multi.first", "cfmf u32 a", USER_EVENT_REG_MULTI_FORMAT);
	ctx_reg(&c, "multi.same", "cfmf u32 a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.same-spaces", "cfmf  u32 a;", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.other-format", "cfmf u64 a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.no-fields", "cfmf", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.single", "cfmf u16 a", 0, NULL, NULL);
	ctx_reg(&c, "multi.single-other", "cfmf u32 a", 0, NULL, NULL);
	ctx_reg(&c, "multi.bad-fields", "cfmf long a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.persist", "cfmf s8 a",
		USER_EVENT_REG_MULTI_FORMAT | USER_EVENT_REG_PERSIST, NULL, NULL);
	show_multi_texts("multi.all", NULL, "cfmf");
	show_dir("multi.all", "events/user_events_multi");
	show_stat("multi.all", "events/user_events_multi/enable");
	show_stat("multi.all", "events/user_events/cfmf");
	fd2 = open_data();
	{
		uint64_t *w = take_word();
		struct user_reg reg = { .size = sizeof(reg), .enable_size = 4,
					.enable_addr = (uint64_t)(uintptr_t)w,
					.flags = USER_EVENT_REG_MULTI_FORMAT,
					.name_args = (uint64_t)(uintptr_t)"cfmf u64 a" };

		print_reg("multi.other-file", "cfmf u64 a", reg.flags, ioc(fd2, DIAG_IOCSREG, &reg),
			  reg.write_index);
		unreg(fd2, reg.enable_addr, 0);
	}
	close(fd2);
	printf("del multi.del-busy => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfmf")));
	ctx_close(&c);
	show_file("multi.after", "user_events_status", NULL);
	show_dir("multi.after", "events/user_events_multi");

	/* PERSIST: the event stays after close and is found again by a later registration. */
	begin("persist");
	ctx_open(&c);
	ctx_reg(&c, "persist.first", "cfps u32 a", USER_EVENT_REG_PERSIST, NULL, NULL);
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	usleep(50000);
	show_file("persist.closed", "user_events_status", NULL);
	show_file("persist.closed", "dynamic_events", NULL);
	ctx_open(&c);
	ctx_reg(&c, "persist.again-no-flag", "cfps u32 a", 0, NULL, NULL);
	ctx_reg(&c, "persist.other-fields", "cfps u64 a", 0, NULL, NULL);
	ctx_reg(&c, "persist.other-fields-persist", "cfps u64 a", USER_EVENT_REG_PERSIST, NULL, NULL);
	ctx_close(&c);
	show_file("persist.deleted", "user_events_status", NULL);
}

/* ---- section: ioctl ---------------------------------------------------------------- */

static void sec_ioctl(void)
{
	struct user_reg reg = { .size = sizeof(reg) };
	int fd;

	begin("ioctl");
	fd = open_data();
	printf("ioctl ioctl.nr-3 => %s\n", res(ioc(fd, _IO(DIAG_IOC_MAGIC, 3), &reg)));
	printf("ioctl ioctl.zero => %s\n", res(ioc(fd, 0, &reg)));
	printf("ioctl ioctl.reg-struct-size => %s\n",
	       res(ioc(fd, _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg), &reg)));
	printf("ioctl ioctl.reg-no-dir => %s\n", res(ioc(fd, _IO(DIAG_IOC_MAGIC, 0), &reg)));
	printf("ioctl ioctl.other-magic => %s\n", res(ioc(fd, _IOWR('+', 0, struct user_reg *), &reg)));
	printf("ioctl ioctl.fionread => %s\n", res(ioc(fd, FIONREAD, &reg)));
	{
		char b[16];

		printf("read ioctl.read-data => %s\n", res(read(fd, b, sizeof(b)) < 0 ? -errno : 0));
	}
	close(fd);
	fd = open(tpath("user_events_status"), O_RDONLY | O_CLOEXEC);
	printf("ioctl ioctl.on-status => %s\n", res(ioc(fd, DIAG_IOCSREG, &reg)));
	close(fd);
}

/* ---- section: pay (payloads and trace lines) --------------------------------------------- */

struct pay_case {
	const char *id;
	const char *spec;
};

struct pay_group {
	const char *id;
	const char *name_args;
	uint16_t flags;
	const struct pay_case *cases;
};

static const struct pay_case pay_ints[] = {
	{ "zero", "z44" },
	{ "ones", "ff ff ffff ffff ffffffff ffffffff ffffffffffffffff ffffffffffffffff "
		  "ffffffff ffffffff ffff ffff ff ff" },
	{ "min", "80 80 u16:0x8000 u16:0x8000 u32:0x80000000 u32:0x80000000 "
		 "u64:0x8000000000000000 u64:0x8000000000000000 u32:0x80000000 u32:0x80000000 "
		 "u16:0x8000 u16:0x8000 80 80" },
	{ "max", "7f 7f u16:0x7fff u16:0x7fff u32:0x7fffffff u32:0x7fffffff "
		 "u64:0x7fffffffffffffff u64:0x7fffffffffffffff u32:0x7fffffff u32:0x7fffffff "
		 "u16:0x7fff u16:0x7fff 7f 7f" },
	{ "mixed", "01 02 u16:3 u16:-4 u32:-5 u32:6 u64:-7 u64:8 u32:-9 u32:10 u16:-11 u16:12 "
		   "\"A\" \"b\"" },
	{ "mixed.write", "01 02 u16:3 u16:-4 u32:-5 u32:6 u64:-7 u64:8 u32:-9 u32:10 u16:-11 "
			 "u16:12 \"A\" \"b\"" },
	{ "short", "z43" },
	{ "long", "z44 01 02 03 04" },
	{ "empty", "" },
	{ NULL, NULL },
};

static const struct pay_case pay_char[] = {
	{ "00", "00" }, { "01", "01" }, { "09", "09" }, { "0a", "0a" }, { "1f", "1f" },
	{ "20", "20" }, { "22", "22" }, { "27", "27" }, { "41", "41" }, { "5c", "5c" },
	{ "7e", "7e" }, { "7f", "7f" }, { "80", "80" }, { "9f", "9f" }, { "a0", "a0" },
	{ "a1", "a1" }, { "c0", "c0" }, { "d7", "d7" }, { "df", "df" }, { "f7", "f7" },
	{ "fb", "fb" }, { "ff", "ff" }, { "two-bytes", "41 42" },
	{ NULL, NULL },
};

static const struct pay_case pay_sstr[] = {
	{ "full", "\"abcd\" \"xyz\" \"q\"" },
	{ "nul", "\"ab\" 00 00 \"x\" 00 00 00" },
	{ "embedded-nul", "\"a\" 00 \"cd\" 00 \"yz\" 00" },
	{ "nonprint", "01 ff 7f 0a 80 09 00 1b" },
	{ "short", "\"abcd\" \"xyz\"" },
	{ NULL, NULL },
};

static const struct pay_case pay_dloc[] = {
	{ "good", "loc:12:6 \"hello\" 00" },
	{ "empty", "loc:12:1 00" },
	{ "len0", "loc:12:0" },
	{ "len0-off0", "loc:0:0" },
	{ "nonul", "loc:12:5 \"hello\"" },
	{ "oob", "loc:12:10 \"hello\" 00" },
	{ "oob-by-one", "loc:12:7 \"hello\" 00" },
	{ "trailing", "loc:12:6 \"hello\" 00 \"zz\"" },
	{ "skip", "loc:14:4 \"xx\" \"abc\" 00" },
	{ "embedded-nul", "loc:12:6 \"ab\" 00 \"cd\" 00" },
	{ "nonprint", "loc:12:4 01 ff 0a 00" },
	{ "offset-past", "loc:0x100:1 00" },
	{ "len-max", "loc:12:0xffff \"x\" 00" },
	{ "into-loc", "loc:8:4" },
	{ "into-loc-nonul", "loc:8:3" },
	{ "short", "0c 00" },
	{ NULL, NULL },
};

static const struct pay_case pay_dloc2[] = {
	{ "good", "loc:20:3 u32:7 loc:23:4 \"hi\" 00 \"abc\" 00" },
	{ "second-nonul", "loc:20:3 u32:7 loc:23:3 \"hi\" 00 \"abc\"" },
	{ "first-oob", "loc:20:30 u32:7 loc:23:4 \"hi\" 00 \"abc\" 00" },
	{ "same-data", "loc:20:3 u32:7 loc:20:3 \"hi\" 00" },
	{ "reversed", "loc:24:3 u32:7 loc:20:4 \"abc\" 00 \"hi\" 00" },
	{ NULL, NULL },
};

static const struct pay_case pay_rloc[] = {
	{ "good", "loc:0:6 \"hello\" 00" },
	{ "empty", "loc:0:1 00" },
	{ "len0", "loc:0:0" },
	{ "nonul", "loc:0:5 \"hello\"" },
	{ "oob", "loc:0:10 \"hello\" 00" },
	{ "skip", "loc:2:4 \"xx\" \"abc\" 00" },
	{ "offset-past", "loc:0x100:1 00" },
	{ "as-data-loc", "loc:12:6 \"hello\" 00" },
	{ NULL, NULL },
};

static const struct pay_case pay_dlu8[] = {
	{ "three", "loc:12:3 0a 0b 0c" },
	{ "empty", "loc:12:0" },
	{ "oob", "loc:12:4 0a" },
	{ "no-nul-needed", "loc:12:2 ff ff" },
	{ "into-loc", "loc:8:4" },
	{ NULL, NULL },
};

static const struct pay_case pay_dluc[] = {
	{ "good", "loc:12:4 \"abc\" 00" },
	{ "nonul", "loc:12:3 \"abc\"" },
	{ NULL, NULL },
};

static const struct pay_case pay_rlu8[] = {
	{ "three", "loc:0:3 0a 0b 0c" },
	{ "skip", "loc:1:2 ff 01 02" },
	{ "empty", "loc:0:0" },
	{ "oob", "loc:0:2 01" },
	{ NULL, NULL },
};

static const struct pay_case pay_dlu32[] = {
	{ "two", "loc:12:8 u32:1 u32:0xdeadbeef" },
	{ "odd-len", "loc:12:3 01 02 03" },
	{ NULL, NULL },
};

static const struct pay_case pay_struct[] = {
	{ "vals", "\"Z\" u16:0xfffe 01 02 03 u32:0x80000001 u64:0xfedcba9876543210 z20" },
	{ "nonprint", "ff u16:1 z3 u32:1 u64:1 z20" },
	{ NULL, NULL },
};

static const struct pay_case pay_readme[] = {
	{ "example", "u32:0xdeadbeef fb \"abc\" 00 loc:19:6 u64:1234567890123 \"Z\" loc:46:3 z6 "
		     "\"hello\" 00 0a 0b 0c" },
	{ NULL, NULL },
};

static const struct pay_case pay_nofield[] = {
	{ "empty", "" },
	{ "extra", "01 02 03" },
	{ NULL, NULL },
};

static const struct pay_case pay_min[] = {
	{ "short0", "" },
	{ "short7", "z7" },
	{ "exact", "u32:1 u32:2" },
	{ "long", "u32:1 u32:2 u32:3" },
	{ NULL, NULL },
};

static const struct pay_case pay_multi[] = {
	{ "v", "u32:42" },
	{ NULL, NULL },
};

static const struct pay_case pay_c4[] = {
	{ "abc", "\"abc\" 00" },
	{ "abcd", "\"abcd\"" },
	{ "a-nul-bc", "\"a\" 00 \"bc\"" },
	{ NULL, NULL },
};

static const struct pay_group pay_groups[] = {
	{ "pay.ints",
	  "cfw_ints s8 a;u8 b;s16 c;u16 d;s32 e;u32 f;s64 g;u64 h;int i;unsigned int j;short k;"
	  "unsigned short l;char m;unsigned char n", 0, pay_ints },
	{ "pay.char", "cfw_char char c", 0, pay_char },
	{ "pay.uchar", "cfw_uchar unsigned char c", 0, pay_char },
	{ "pay.c4", "cfw_c4 char[4] s", 0, pay_c4 },
	{ "pay.sstr", "cfw_sstr char[4] a;unsigned char[3] b;char[1] c", 0, pay_sstr },
	{ "pay.dloc", "cfw_dloc __data_loc char[] s", 0, pay_dloc },
	{ "pay.dloc2", "cfw_dloc2 __data_loc char[] a;u32 n;__data_loc char[] b", 0, pay_dloc2 },
	{ "pay.rloc", "cfw_rloc __rel_loc char[] s", 0, pay_rloc },
	{ "pay.dlu8", "cfw_dlu8 __data_loc u8[] arr", 0, pay_dlu8 },
	{ "pay.dluc", "cfw_dluc __data_loc unsigned char[] s", 0, pay_dluc },
	{ "pay.rlu8", "cfw_rlu8 __rel_loc u8[] arr", 0, pay_rlu8 },
	{ "pay.dlu32", "cfw_dlu32 __data_loc u32[] arr", 0, pay_dlu32 },
	{ "pay.dlint", "cfw_dlint __data_loc int v", 0, pay_dlu8 },
	{ "pay.struct",
	  "cfw_struct struct s1 a 1;struct s2 b 2;struct s3 c 3;struct s4 d 4;struct s8 e 8;"
	  "struct s20 f 20", 0, pay_struct },
	{ "pay.readme",
	  "cfw_readme u32 a;s8 b;char[4] c;__rel_loc char[] s;u64 d;unsigned char e;"
	  "__data_loc u8[] arr;struct foo st 6", 0, pay_readme },
	{ "pay.nofield", "cfw_nofield", 0, pay_nofield },
	{ "pay.min", "cfw_min u32 a;u32 b", 0, pay_min },
	{ "pay.multi", "cfw_multi u32 a", USER_EVENT_REG_MULTI_FORMAT, pay_multi },
};

/* The event directory of the event registered last with @name_args. */
static void tp_of(const char *name_args, uint16_t flags, char *system, char *tp_name, size_t len)
{
	char name[600];

	name_of(name_args, name, sizeof(name));
	strcpy(system, "user_events");
	snprintf(tp_name, len, "%s", name);
	if (flags & USER_EVENT_REG_MULTI_FORMAT) {
		char **names;
		int n = list_dir("events/user_events_multi", &names);
		size_t nl = strlen(name);

		strcpy(system, "user_events_multi");
		for (int i = 0; i < n; i++)
			if (!strncmp(names[i], name, nl) && names[i][nl] == '.')
				snprintf(tp_name, len, "%s", names[i]);
		if (n > 0)
			free_list(names, n);
	}
}

static void run_pay_group(const struct pay_group *g)
{
	char system[64], tp_name[600], id[128];
	struct ctx c;
	uint32_t idx;

	ctx_open(&c);
	if (ctx_reg(&c, g->id, g->name_args, g->flags, &idx, NULL)) {
		ctx_close(&c);
		return;
	}
	show_registered(g->id, g->name_args, g->flags);
	tp_of(g->name_args, g->flags, system, tp_name, sizeof(tp_name));
	enable_event(system, tp_name, "1");
	for (const struct pay_case *pc = g->cases; pc->id; pc++) {
		snprintf(id, sizeof(id), "%s/%s", g->id, pc->id);
		do_write(id, c.fd, (int32_t)idx, pc->spec,
			 strstr(pc->id, ".write") ? HOW_WRITE : HOW_WRITEV);
	}
	enable_event(system, tp_name, "0");
	ctx_close(&c);
}

/* Every byte value through a one-byte field: 4 events of 64 u8 fields. */
static void run_ctype(void)
{
	for (int ev = 0; ev < 4; ev++) {
		char name_args[512], id[64], spec[64 * 3 + 1], tp[32];
		struct ctx c;
		uint32_t idx;
		size_t n;

		snprintf(tp, sizeof(tp), "cfw_ctype%d", ev);
		n = (size_t)snprintf(name_args, sizeof(name_args), "%s", tp);
		for (int i = 0; i < 64; i++)
			n += (size_t)snprintf(name_args + n, sizeof(name_args) - n, "%su8 c%02x",
					      i ? ";" : " ", ev * 64 + i);
		for (int i = 0; i < 64; i++)
			snprintf(spec + 3 * i, 4, "%02x ", ev * 64 + i);
		snprintf(id, sizeof(id), "pay.ctype%d", ev);
		ctx_open(&c);
		if (!ctx_reg(&c, id, name_args, 0, &idx, NULL)) {
			show_registered(id, name_args, 0);
			enable_event("user_events", tp, "1");
			snprintf(id, sizeof(id), "pay.ctype%d/all", ev);
			do_write(id, c.fd, (int32_t)idx, spec, HOW_WRITEV);
			enable_event("user_events", tp, "0");
		}
		ctx_close(&c);
	}
}

/* The same records shown with options/fields off and on. */
static void run_fields_option(void)
{
	struct ctx c;
	uint32_t idx;

	ctx_open(&c);
	if (!ctx_reg(&c, "pay.fields", "cfw_fields u32 a;char[4] s;__data_loc char[] d", 0, &idx,
		     NULL)) {
		show_registered("pay.fields", "cfw_fields u32 a;char[4] s;__data_loc char[] d", 0);
		enable_event("user_events", "cfw_fields", "1");
		show_value("pay.fields/off", "options/fields");
		do_write("pay.fields/off", c.fd, (int32_t)idx, "u32:5 \"abc\" 00 loc:20:3 \"hi\" 00",
			 HOW_WRITEV);
		fwrite_show("pay.fields/set", "options/fields", "1", O_WRONLY);
		show_value("pay.fields/on", "options/fields");
		do_write("pay.fields/on", c.fd, (int32_t)idx, "u32:5 \"abc\" 00 loc:20:3 \"hi\" 00",
			 HOW_WRITEV);
		show_value("pay.fields/on", "trace_options");
		fwrite_show("pay.fields/unset", "options/fields", "0", O_WRONLY);
		show_value("pay.fields/restored", "options/fields");
		enable_event("user_events", "cfw_fields", "0");
	}
	ctx_close(&c);
}

static void sec_pay(void)
{
	begin("pay");
	for (size_t i = 0; i < ARRAY_SIZE(pay_groups); i++)
		run_pay_group(&pay_groups[i]);
	run_ctype();
	run_fields_option();
}

/* ---- section: wr (the write path: index, transport) --------------------------------- */

static void sec_wr(void)
{
	struct ctx c;
	uint32_t idx;
	int fd2;

	begin("wr");
	ctx_open(&c);
	ctx_reg(&c, "wr.event", "cfx_wr u32 a", 0, &idx, NULL);
	ctx_reg(&c, "wr.event2", "cfx_wr2 u32 b", 0, NULL, NULL);
	do_write("wr.disabled", c.fd, (int32_t)idx, "u32:1", HOW_WRITEV);
	do_write("wr.disabled-bad-index", c.fd, 9, "u32:1", HOW_WRITEV);
	do_write("wr.disabled-short", c.fd, (int32_t)idx, "01", HOW_WRITEV);
	enable_event("user_events", "cfx_wr", "1");
	do_write("wr.enabled", c.fd, (int32_t)idx, "u32:1", HOW_WRITEV);
	do_write("wr.enabled.write", c.fd, (int32_t)idx, "u32:1", HOW_WRITE);
	show_file("wr.trace-file", "trace", vary_trace_file);
	clear_trace();
	show_file("wr.trace-empty", "trace", vary_trace_header);
	do_write("wr.index-2", c.fd, 2, "u32:1", HOW_WRITEV);
	do_write("wr.index-7", c.fd, 7, "u32:1", HOW_WRITEV);
	do_write("wr.index-max", c.fd, 0x7fffffff, "u32:1", HOW_WRITEV);
	do_write("wr.index-neg", c.fd, -1, "u32:1", HOW_WRITEV);
	do_write("wr.index-min", c.fd, INT32_MIN, "u32:1", HOW_WRITEV);
	do_write("wr.index-1-disabled-event", c.fd, 1, "u32:1", HOW_WRITEV);

	{
		/* Transport shapes of one and the same record. */
		uint32_t v = 0x11223344;
		unsigned char raw[8];
		struct iovec iov[8];
		ssize_t r;
		int32_t i32 = (int32_t)idx;

		memcpy(raw, &i32, 4);
		memcpy(raw + 4, &v, 4);

		clear_trace();
		r = write(c.fd, raw, 2);
		printf("write wr.short-index-2 %s => %s\n", "-", res(r < 0 ? -errno : r));
		show_trace_lines("wr.short-index-2");

		clear_trace();
		r = write(c.fd, raw, 0);
		printf("write wr.zero-length %s => %s\n", "-", res(r < 0 ? -errno : r));
		show_trace_lines("wr.zero-length");

		clear_trace();
		r = write(c.fd, raw, 4);
		printf("write wr.index-only %s => %s\n", "-", res(r < 0 ? -errno : r));
		show_trace_lines("wr.index-only");

		clear_trace();
		iov[0] = (struct iovec){ raw, 2 };
		iov[1] = (struct iovec){ raw + 2, 6 };
		r = writev(c.fd, iov, 2);
		printf("write wr.split-index 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.split-index");

		clear_trace();
		for (int i = 0; i < 8; i++)
			iov[i] = (struct iovec){ raw + i, 1 };
		r = writev(c.fd, iov, 8);
		printf("write wr.byte-iovs 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.byte-iovs");

		clear_trace();
		iov[0] = (struct iovec){ raw, 4 };
		iov[1] = (struct iovec){ NULL, 0 };
		iov[2] = (struct iovec){ raw + 4, 4 };
		r = writev(c.fd, iov, 3);
		printf("write wr.empty-iov 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.empty-iov");

		clear_trace();
		iov[0] = (struct iovec){ raw, 4 };
		iov[1] = (struct iovec){ unmapped_page(), 4 };
		r = writev(c.fd, iov, 2);
		printf("write wr.unmapped-payload - => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.unmapped-payload");

		clear_trace();
		r = pwrite(c.fd, raw, 8, 0);
		printf("write wr.pwrite-0 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.pwrite-0");

		clear_trace();
		r = pwrite(c.fd, raw, 8, 1);
		printf("write wr.pwrite-1 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.pwrite-1");

		clear_trace();
		iov[0] = (struct iovec){ raw, 8 };
		r = pwritev(c.fd, iov, 1, 4);
		printf("write wr.pwritev-4 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.pwritev-4");

		printf("lseek wr.lseek => %s\n",
		       res(lseek(c.fd, 10, SEEK_SET) < 0 ? -errno : 0));
		clear_trace();
		r = write(c.fd, raw, 8);
		printf("write wr.after-lseek 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.after-lseek");
	}

	/* write_index belongs to the file it was returned on. */
	fd2 = open_data();
	do_write("wr.other-file", fd2, (int32_t)idx, "u32:1", HOW_WRITEV);
	close(fd2);

	/* tracing_on 0: the event stays enabled, the write succeeds, nothing is recorded. */
	fwrite_show("wr.tracing-off", "tracing_on", "0", O_WRONLY);
	do_write("wr.tracing-off", c.fd, (int32_t)idx, "u32:2", HOW_WRITEV);
	fwrite_show("wr.tracing-on", "tracing_on", "1", O_WRONLY);
	do_write("wr.tracing-on", c.fd, (int32_t)idx, "u32:3", HOW_WRITEV);

	enable_event("user_events", "cfx_wr", "0");
	do_write("wr.disabled-again", c.fd, (int32_t)idx, "u32:1", HOW_WRITEV);
	ctx_close(&c);
}

/* ---- section: dyn (dynamic_events) ------------------------------------------------------ */

static void dyn(const char *id, const char *line)
{
	ssize_t r = put_file("dynamic_events", line, O_WRONLY | O_APPEND);

	printf("dyn %s ", id);
	put_quoted(line);
	printf(" => %s\n", res(r));
}

static void sec_dyn(void)
{
	static const char *const left[] = {
		"cfy_a", "cfy_b", "cfy_c", "cfy_d", "cfy_e", "cfy_h", "cfy_t", "cfy_s", "cfy_st",
		"cfy_m1", "cfy_m2", "cfy_m3", "cfy_m5", "cfy_busy", "cfy_long", "",
	};
	static char longline[5000];
	struct ctx c;
	size_t n;

	begin("dyn");
	dyn("dyn.create.a", "u:cfy_a u32 a");
	show_file("dyn.create.a", "dynamic_events", NULL);
	show_file("dyn.create.a", "user_events_status", NULL);
	show_event_texts("dyn.create.a", "cfy_a u32 a", "user_events", "cfy_a");
	dyn("dyn.create.a-again", "u:cfy_a u32 a");
	dyn("dyn.create.a-semi", "u:cfy_a u32 a;");
	dyn("dynreg.a-other-fields", "u:cfy_a u64 a");
	dyn("dyn.create.space-after-prefix", "u: cfy_b u32 a");
	dyn("dyn.create.nofields", "u:cfy_c");
	dyn("dyn.create.newline", "u:cfy_d u32 a; u32 b\n");
	dyn("dyn.create.comment", "u:cfy_e u32 a # a comment");
	dyn("dyn.create.flag", "u:cfy_f:flag u32 a");
	dyn("dyn.create.bad-type", "u:cfy_g long a");
	dyn("dyn.create.dspace", "u:cfy_h u32  a");
	dyn("dyn.create.tab-after-prefix", "u:\tcfy_t u32 a");
	dyn("dyn.create.empty-name", "u:");
	dyn("dyn.create.semi-nospace", "u:cfy_s u32 a;u32 b");
	dyn("dyn.create.struct", "u:cfy_st struct foo x 12;char[2] c");
	show_file("dyn.created", "dynamic_events", NULL);
	show_file("dyn.created", "user_events_status", NULL);

	dyn("dyn.delete.no-fields-given", "-:cfy_a");
	dyn("dyn.delete.fields", "-:cfy_a u32 a");
	dyn("dyn.delete.again", "-:cfy_a u32 a");
	dyn("dyn.delete.system", "-:user_events/cfy_b u32 a");
	dyn("dyn.delete.multi-system", "-:user_events_multi/cfy_d u32 a; u32 b");
	dyn("dyn.delete.wrong-system", "-:other/cfy_d u32 a; u32 b");
	dyn("dyn.delete.semi-nospace-d", "-:cfy_d u32 a;u32 b");
	dyn("dyn.delete.u-prefix", "-:u:cfy_c");
	dyn("dyn.delete.bang", "!u:cfy_c");
	dyn("dyn.delete.bang-no-colon", "!cfy_e");
	dyn("dyn.delete.dash-no-colon", "-cfy_e");
	dyn("dyn.delete.empty", "-:");
	dyn("dyn.delete.system-only", "-:user_events/");
	dyn("dyn.delete.bang-system", "!u:user_events/cfy_e u32 a");
	dyn("dyn.delete.system-of-nofields", "-:user_events/cfy_e");
	dyn("dyn.delete.wildcard", "-:cfy_*");
	dyn("dyn.delete.space", "-: cfy_h u32 a");
	dyn("dyn.delete.semi-nospace", "-:cfy_s u32 a;u32 b");
	dyn("dyn.delete.semi-space", "-:cfy_s u32 a; u32 b");
	dyn("dyn.delete.struct-no-size", "-:cfy_st struct foo x; char[2] c");
	dyn("dyn.delete.struct", "-:cfy_st struct foo x 12; char[2] c");
	show_file("dyn.deleted", "dynamic_events", NULL);

	/* Lines that are not user_events lines, or not lines. */
	dyn("dyn.other.kprobe", "p:cfy_kp cfy_no_such_symbol");
	dyn("dyn.other.unknown-type", "z:cfy_z u32 a");
	dyn("dyn.other.no-prefix", "cfy_np u32 a");
	dyn("dyn.other.U", "U:cfy_U u32 a");
	dyn("dyn.empty.line", "\n");
	dyn("dyn.empty.nothing", "");
	dyn("dyn.empty.comment", "# just a comment\n");
	dyn("dyn.empty.spaces", "   ");

	/* Several lines in one write, a failing line in the middle. */
	dyn("dynmulti.two", "u:cfy_m1 u32 a\nu:cfy_m2 u32 b\n");
	dyn("dynmulti.bad-second", "u:cfy_m3 u32 a\nu:cfy_m4 long b\nu:cfy_m5 u32 c\n");
	show_file("dynmulti", "dynamic_events", NULL);

	/* Longer than MAX_EVENT_DESC: dynamic_events has no such limit. */
	n = (size_t)snprintf(longline, sizeof(longline), "u:cfy_long");
	for (int i = 0; i < 80; i++)
		n += (size_t)snprintf(longline + n, sizeof(longline) - n, "%su32 field_%02d",
				      i ? ";" : " ", i);
	dyn("dyn.create.long", longline);
	printf("~len dyn.create.long %zu\n", n);
	show_format("dyn.create.long", longline + 2, "user_events", "cfy_long");
	/* One line longer than the write buffer. */
	n = (size_t)snprintf(longline, sizeof(longline), "u:cfy_huge u32 ");
	while (n < 4200)
		longline[n++] = 'h';
	longline[n] = '\0';
	dyn("dynwrite.over-4k", longline);

	/* A dynamic event is busy while a file holds it. */
	dyn("dyn.create.busy", "u:cfy_busy u32 a");
	ctx_open(&c);
	ctx_reg(&c, "dyn.busy.reg", "cfy_busy u32 a", 0, NULL, NULL);
	dyn("dynreg.delete-busy", "-:cfy_busy u32 a");
	{
		int fd = open(tpath("dynamic_events"), O_WRONLY | O_TRUNC | O_CLOEXEC);

		printf("trunc dyn.truncate.busy => %s\n", res(fd < 0 ? -errno : 0));
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	usleep(50000);
	show_file("dyn.before-truncate", "dynamic_events", NULL);
	{
		int fd = open(tpath("dynamic_events"), O_WRONLY | O_TRUNC | O_CLOEXEC);

		printf("trunc dyn.truncate => %s\n", res(fd < 0 ? -errno : 0));
		if (fd >= 0)
			close(fd);
	}
	show_file("dyn.after-truncate", "dynamic_events", NULL);
	show_file("dyn.after-truncate", "user_events_status", NULL);
	/* leftovers, should there be any */
	for (size_t i = 0; i < ARRAY_SIZE(left); i++)
		wait_gone(left[i]);
}

/* ---- section: status (several events at once) -------------------------------------------- */

static void sec_status(void)
{
	static const char *const names[] = {
		"cfs_alpha u32 a", "cfs_beta", "cfs_gamma u8 g", "cfs_delta u64 d", "cfs_epsilon s8 e",
		"cfs_zeta char[2] z", "a", "b", "zz_last u32 a",
	};
	struct ctx c;

	begin("status");
	ctx_open(&c);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char id[64];

		snprintf(id, sizeof(id), "status.%zu", i);
		ctx_reg(&c, id, names[i], 0, NULL, NULL);
	}
	enable_event("user_events", "cfs_gamma", "1");
	enable_event("user_events", "b", "1");
	show_file("status.several", "user_events_status", NULL);
	show_file("status.several", "dynamic_events", NULL);
	show_available("status.several");
	show_file("status.several", "set_event", NULL);
	show_dir("status.several", "events/user_events");
	show_dir("status.several", "events/user_events/cfs_alpha");
	show_file("status.several", "events/user_events/cfs_alpha/filter", NULL);
	show_file("status.several", "events/user_events/cfs_alpha/trigger", NULL);
	show_file("status.several", "events/user_events/filter", NULL);
	enable_event("user_events", "cfs_gamma", "0");
	enable_event("user_events", "b", "0");
	ctx_close(&c);
	show_file("status.empty-again", "user_events_status", NULL);
}

/* ---- section: filter ------------------------------------------------------------ */

/*
 * The event of the filter cases: every kind of field a filter treats
 * differently (widths and signedness, static, __data_loc and __rel_loc
 * strings, a struct, a non-string dynamic array).
 */
#define FILTER_EV "cff_ev u32 a;s32 b;u8 c;s8 d;u16 e;s16 f;u64 g;s64 h;char[8] s;" \
		  "__data_loc char[] dl;__rel_loc char[] rl;struct foo st 6;__data_loc u8[] arr"

/* The numbers, as they lie in the payload. */
struct __attribute__((packed)) cff_num {
	uint32_t a;
	int32_t b;
	uint8_t c;
	int8_t d;
	uint16_t e;
	int16_t f;
	uint64_t g;
	int64_t h;
};

struct __attribute__((packed)) cff_payload {
	struct cff_num n;
	char s[8];
	uint32_t dl, rl;
	uint8_t st[6];
	uint32_t arr;
	char dyn[96];
};

static const struct cff_rec {
	struct cff_num n;
	const char *s, *dl, *rl;
	uint8_t st0, narr;
} cff_recs[] = {
	{ { 1, -1, 0, -128, 0xffff, -2, 1ull << 40, -5 }, "hello", "foo", "barbaz", 1, 2 },
	{ { 2, 5, 255, 127, 1, 300, 0, 5 }, "help", "foobar", "", 0, 0 },
	{ { 0x10, -100, 7, 0, 2, -300, UINT64_MAX, INT64_MIN }, "hello123", "xfoo", "bar", 0, 1 },
	{ { 0xffffffff, 0, 1, 1, 3, 0, 7, 0 }, "", "", "BAR", 0, 0 },
	{ { 3, 3, 3, 3, 3, 3, 3, 3 }, "a*b", "f?o", "[x]", 3, 3 },
};

/* Payload bytes of a record: strings with their NUL, as programs write them. */
static size_t cff_build(const struct cff_rec *r, struct cff_payload *p)
{
	size_t dyn = 0, n;

	memset(p, 0, sizeof(*p));
	p->n = r->n;
	memcpy(p->s, r->s, strlen(r->s) < 8 ? strlen(r->s) + 1 : 8);
	p->st[0] = r->st0;
	/* __data_loc: offset from the record's start (8 bytes of common header). */
	n = strlen(r->dl) + 1;
	p->dl = (uint32_t)(n << 16 | (8 + offsetof(struct cff_payload, dyn) + dyn));
	memcpy(p->dyn + dyn, r->dl, n);
	dyn += n;
	/* __rel_loc: offset from the end of the field. */
	n = strlen(r->rl) + 1;
	p->rl = (uint32_t)(n << 16 | (offsetof(struct cff_payload, dyn) + dyn -
				     offsetof(struct cff_payload, rl) - 4));
	memcpy(p->dyn + dyn, r->rl, n);
	dyn += n;
	p->arr = (uint32_t)((uint32_t)r->narr << 16 | (8 + offsetof(struct cff_payload, dyn) + dyn));
	for (uint8_t i = 0; i < r->narr; i++)
		p->dyn[dyn++] = (char)(i + 1);
	return offsetof(struct cff_payload, dyn) + dyn;
}

/* Every record written; the trace shows the ones the filter let through. */
static void cff_write_all(const char *id, int fd, uint32_t idx)
{
	clear_trace();
	for (size_t i = 0; i < ARRAY_SIZE(cff_recs); i++) {
		struct cff_payload p;
		size_t len = cff_build(&cff_recs[i], &p);
		ssize_t r = write_event(fd, (int32_t)idx, &p, len, HOW_WRITEV);

		if (r < 0)
			printf("write %s.%zu => %s\n", id, i, res(r));
	}
	show_trace_lines(id);
}

static void sec_filter(void)
{
	static const char *const filters[] = {
		/* numbers, by width and sign */
		"a == 1", "a==1", "a != 1", "a < 3", "a <= 3", "a > 2", "a >= 0x10", "a == 010",
		"a == 4294967295", "a == -1", "a == 4294967296", "a & 0x12", "a & 0",
		"b < 0", "b == -1", "b > -50", "b == 0x80000000", "b == 2147483648", "b <= -2147483648",
		"c == 255", "c > 200", "c == 256", "c == -1", "d < 0", "d == -128", "d == 128",
		"d == 255", "e == 0xffff", "e & 1", "f < -100", "f >= 300",
		"g == 1099511627776", "g > 0", "g == 0xffffffffffffffff", "g == -1",
		"g == 18446744073709551616", "h < 0", "h == -9223372036854775808", "h > 4",
		"a == 1x", "a == x1", "a == 0x", "a == +1", "a == 1.5", "a == 0b1",
		/* combinations */
		"a == 1 && b == -1", "a == 1 || a == 2", "!(a == 1)", "!a == 1", "! a == 1",
		"(a == 1 || a == 2) && b > 0", "a == 1 && (b == 5 || c == 7)", "((a == 1))",
		"a > 1 && a < 4 || g == 0", "a == 1 || a == 2 && b == 5", "!(a == 1 || a == 2)",
		"!!(a == 1)", "(a == 1) || (c == 7) || (d == 1)",
		/* strings */
		"s == \"hello\"", "s == hello", "s == 'hello'", "s ~ \"hel*\"", "s ~ \"*lo\"",
		"s ~ \"*el*\"", "s ~ \"h?llo\"", "s ~ \"[h]ello\"", "s ~ \"[!h]*\"", "s != \"hello\"",
		"s == \"hello123\"", "s == \"hello1234\"", "s == \"\"", "s == \"a*b\"", "s ~ \"a*b\"",
		"s ~ \"*\"", "s ~ \"**\"", "s == hel*", "s ~ hel*",
		"dl == \"foo\"", "dl ~ \"foo*\"", "dl ~ \"*foo\"", "dl == \"f?o\"", "dl ~ \"f?o\"",
		"dl != foo", "dl == \"\"",
		"rl == bar", "rl ~ \"*a*\"", "rl == \"\"", "rl ~ \"[a-z]*\"", "rl ~ \"\\[x]\"",
		"s == \"he\\\"llo\"", "s == \"hello\" && dl == \"foo\"",
		/* "hello123" fills s[8]: the byte after it is dl's location, 0x42 'B' */
		"s ~ \"hello123B*\"", "s ~ \"hello123?\"", "s ~ \"hello123[B]\"", "s ~ \"*3B\"",
		"s ~ \"*123B*\"", "s == \"hello123B\"",
		/* the common and generic fields */
		"common_pid > 0", "common_pid == 0", "common_type > 0", "common_flags == 0",
		"common_preempt_count == 0", "CPU >= 0", "cpu < 4096", "CPU > 4096",
		"COMM ~ \"conf*\"", "comm == \"conformance\"", "comm ~ \"x*\"", "COMM == 1", "CPU == \"x\"",
		/* fields a filter does not compare as strings or numbers */
		"st == 0", "st != 0", "arr == 0", "arr > 0", "arr == \"x\"",
		/* refused */
		" ", "a", "a ==", "== 1", "a == 1 &&", "&& a == 1", "a === 1", "a = 1", "a ~ 1",
		"a ~ \"1\"", "s < \"x\"", "s & 1", "s > 1", "a == \"x\"", "a == x", "nosuch == 1",
		"(a == 1", "a == 1)", "((a == 1)", "a == 1 && s == \"unterminated", "s == 'x",
		"a == 99999999999999999999", "a == 1 ||| a == 2", "a == 1 &&& a == 2", "!", "()",
		"a == 1 b == 2", "a == 1 & b == 2", "a == 1 | b == 2", "a == 1 && || b == 2",
		"a == 1 && ()", "1 == a", "a == 1 == 1", "a != != 1", "a <> 1", "a =< 1", "!a",
		"a == 1 && !", "a == {1}", "CPU & 1", "comm < \"x\"",
		/* clearing, spaces and newlines */
		"a == 1\n", "  a == 1  ", "\ta\t==\t1\t", "a == 1\nb == 2", "0", " 0 ", "0\n", "00",
		"a == 0x0000000000000001",
	};
	char longstr[400], manypreds[8192];
	struct ctx c;
	uint32_t idx;

	begin("filter");
	ctx_open(&c);
	if (ctx_reg(&c, "filter.ev", FILTER_EV, 0, &idx, NULL) < 0) {
		ctx_close(&c);
		return;
	}
	show_file("filter.initial", "events/user_events/cff_ev/filter", NULL);
	enable_event("user_events", "cff_ev", "1");
	cff_write_all("filter.none", c.fd, idx);
	for (size_t i = 0; i < ARRAY_SIZE(filters); i++) {
		char id[32];

		snprintf(id, sizeof(id), "filter.%zu", i);
		fwrite_show(id, "events/user_events/cff_ev/filter", filters[i], O_WRONLY | O_TRUNC);
		show_file(id, "events/user_events/cff_ev/filter", NULL);
		cff_write_all(id, c.fd, idx);
	}

	/*
	 * A zero-length write: the kernel refuses it and shows "Error: (0)";
	 * FUSE sends usereventsd no request (docs/compat.md).
	 */
	fwrite_show("filter.zero-length", "events/user_events/cff_ev/filter", "",
		    O_WRONLY | O_TRUNC);

	/* An operand of 300 characters, and one filter of many terms. */
	memset(longstr, 'x', sizeof(longstr));
	memcpy(longstr, "s == \"", 6);
	snprintf(longstr + 306, sizeof(longstr) - 306, "\"");
	fwrite_show("filter.long-operand", "events/user_events/cff_ev/filter", longstr,
		    O_WRONLY | O_TRUNC);
	show_file("filter.long-operand", "events/user_events/cff_ev/filter", NULL);
	manypreds[0] = '\0';
	for (int i = 0; i < 300; i++)
		snprintf(manypreds + strlen(manypreds), sizeof(manypreds) - strlen(manypreds),
			 "%sa == %d", i ? "||" : "", i);
	fwrite_show("filter.many-terms", "events/user_events/cff_ev/filter", manypreds,
		    O_WRONLY | O_TRUNC);
	cff_write_all("filter.many-terms", c.fd, idx);
	/* A write of a page or more. */
	memset(manypreds, ' ', 5000);
	snprintf(manypreds + 5000, sizeof(manypreds) - 5000, "a == 1");
	fwrite_show("filter.page", "events/user_events/cff_ev/filter", manypreds,
		    O_WRONLY | O_TRUNC);
	show_file("filter.page", "events/user_events/cff_ev/filter", NULL);

	/* A filter set while the event is disabled holds once it is enabled. */
	fwrite_show("filter.set-disabled", "events/user_events/cff_ev/filter", "a == 2",
		    O_WRONLY | O_TRUNC);
	enable_event("user_events", "cff_ev", "0");
	fwrite_show("filter.set-disabled", "events/user_events/cff_ev/filter", "a == 3",
		    O_WRONLY | O_TRUNC);
	enable_event("user_events", "cff_ev", "1");
	cff_write_all("filter.set-disabled", c.fd, idx);
	fwrite_show("filter.clear", "events/user_events/cff_ev/filter", "0", O_WRONLY | O_TRUNC);
	show_file("filter.clear", "events/user_events/cff_ev/filter", NULL);

	/* The system's filter: set on every event that has the fields. */
	ctx_reg(&c, "filter.two", "cff_two u32 a", 0, NULL, NULL);
	ctx_reg(&c, "filter.three", "cff_three u64 z", 0, NULL, NULL);
	{
		static const char *const sys[] = {
			"a == 3", "z == 1", "a == 3 && z == 1", "nosuch == 1", "a ==", "0",
		};
		static const char *const evs[] = { "cff_ev", "cff_two", "cff_three" };

		for (size_t i = 0; i < ARRAY_SIZE(sys); i++) {
			char id[32];

			snprintf(id, sizeof(id), "filter.sys.%zu", i);
			fwrite_show(id, "events/user_events/filter", sys[i], O_WRONLY | O_TRUNC);
			show_file(id, "events/user_events/filter", NULL);
			for (size_t j = 0; j < ARRAY_SIZE(evs); j++) {
				char rel[128];

				snprintf(rel, sizeof(rel), "events/user_events/%s/filter", evs[j]);
				show_file(id, rel, NULL);
			}
			cff_write_all(id, c.fd, idx);
		}
	}

	/* A filter outlives a close and goes with the event. */
	fwrite_show("filter.before-del", "events/user_events/cff_ev/filter", "a == 1",
		    O_WRONLY | O_TRUNC);
	enable_event("user_events", "cff_ev", "0");
	ctx_close(&c);
	ctx_open(&c);
	if (ctx_reg(&c, "filter.again", FILTER_EV, 0, &idx, NULL) == 0)
		show_file("filter.again", "events/user_events/cff_ev/filter", NULL);
	ctx_close(&c);
}

/* ---- facts: what the daemon reproduces besides events ------------------------------------ */

static void facts_dir(const char *rel, int depth)
{
	char **names;
	char sub[4096];
	int n = list_dir(rel, &names);

	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		struct stat st;

		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		if (stat(tpath(sub), &st))
			continue;
		show_stat("facts.tree", sub);
		if (S_ISDIR(st.st_mode) && depth > 0)
			facts_dir(sub, depth - 1);
	}
	free_list(names, n);
}

static void facts_trace_pipe(const char *id)
{
	int fd = open(tpath("trace_pipe"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		printf("text %s trace_pipe => %s\n", id, errname(errno));
		return;
	}
	n = read(fd, big, sizeof(big) - 1);
	show_text(id, "trace_pipe", big, n < 0 ? -errno : n, vary_all);
	if (n >= 0) {
		big[n] = '\0';
		printf("trace-pipe-event %s ", id);
		if (event_part(big))
			put_esc(event_part(big), strcspn(event_part(big), "\n"), false);
		putchar('\n');
	}
	n = read(fd, big, sizeof(big) - 1);
	printf("read %s.again trace_pipe => %s\n", id, res(n < 0 ? -errno : n));
	close(fd);
}

static void run_facts(void)
{
	static const char *const values[] = {
		"tracing_on", "buffer_size_kb", "buffer_total_size_kb", "buffer_percent",
		"buffer_subbuf_size_kb", "trace_clock", "current_tracer", "saved_cmdlines_size",
		"tracing_cpumask", "timestamp_mode", "events/enable", "events/user_events/enable",
		"set_event_pid", "tracing_thresh",
	};
	static const char *const texts[] = {
		"events/header_page", "events/header_event", "trace_options", "available_tracers",
		"set_event", "dynamic_events", "user_events_status", "error_log",
	};
	struct ctx c;
	uint32_t idx;

	begin("facts.tree");
	facts_dir("", 0);
	facts_dir("options", 0);
	facts_dir("per_cpu", 1);
	facts_dir("events/user_events", 0);
	show_stat("facts.tree", "events/enable");
	show_stat("facts.tree", "events/header_page");
	show_stat("facts.tree", "events/header_event");

	begin("facts.values");
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		show_value("facts", values[i]);
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		show_file("facts", texts[i], NULL);

	begin("facts.options");
	{
		char **names;
		int n = list_dir("options", &names);

		for (int i = 0; i < n; i++) {
			char rel[512];

			snprintf(rel, sizeof(rel), "options/%s", names[i]);
			show_value("facts.options", rel);
		}
		if (n > 0)
			free_list(names, n);
	}

	begin("facts.trace");
	clear_trace();
	show_file("facts.trace-empty", "trace", vary_trace_header);
	ctx_open(&c);
	ctx_reg(&c, "facts.event", "cff_ev u32 a;char[4] s", 0, &idx, NULL);
	ctx_reg(&c, "facts.event2", "cff_ev2 u8 b", 0, NULL, NULL);
	show_dir("facts.event-dir", "events/user_events/cff_ev");
	{
		char **names;
		int n = list_dir("events/user_events/cff_ev", &names);

		for (int i = 0; i < n; i++) {
			char rel[512];

			snprintf(rel, sizeof(rel), "events/user_events/cff_ev/%s", names[i]);
			show_file("facts.event-file", rel,
				  strcmp(names[i], "id") ? vary_id_line : vary_all);
		}
		if (n > 0)
			free_list(names, n);
	}
	show_value("facts.disabled", "events/user_events/enable");
	enable_event("user_events", "cff_ev", "1");
	show_value("facts.mixed", "events/user_events/enable");
	show_value("facts.mixed", "events/enable");
	show_file("facts.mixed", "set_event", NULL);
	show_file("facts.mixed", "user_events_status", NULL);
	enable_event("user_events", "cff_ev2", "1");
	show_value("facts.all", "events/user_events/enable");
	show_value("facts.all", "events/enable");
	show_file("facts.all", "set_event", NULL);
	show_file("facts.enabled-event", "events/user_events/cff_ev/enable", NULL);
	enable_event("user_events", "cff_ev2", "0");
	do_write("facts.one", c.fd, (int32_t)idx, "u32:1 \"abc\" 00", HOW_WRITEV);
	show_file("facts.trace-one", "trace", vary_trace_file);
	do_write("facts.two", c.fd, (int32_t)idx, "u32:2 \"def\" 00", HOW_WRITEV);
	show_file("facts.trace-two", "trace", vary_trace_file);
	{
		/* Output options that change the trace line. */
		static const char *const opts[][2] = {
			{ "options/raw", "1" }, { "options/hex", "1" },
			{ "options/context-info", "0" }, { "options/irq-info", "0" },
			{ "options/latency-format", "1" }, { "options/record-tgid", "1" },
			{ "options/fields", "1" }, { "options/print-parent", "0" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
			char id[96];

			snprintf(id, sizeof(id), "facts.option.%s=%s", opts[i][0] + 8, opts[i][1]);
			fwrite_show(id, opts[i][0], opts[i][1], O_WRONLY);
			show_file(id, "trace", vary_trace_file);
			fwrite_show(id, opts[i][0], opts[i][1][0] == '1' ? "0" : "1", O_WRONLY);
		}
	}
	show_file("facts.saved_cmdlines", "saved_cmdlines", vary_all);
	show_file("facts.per_cpu-trace", "per_cpu/cpu0/trace", vary_trace_file);
	show_file("facts.per_cpu-stats", "per_cpu/cpu0/stats", vary_all);
	facts_trace_pipe("facts.trace_pipe");
	show_file("facts.trace-after-pipe", "trace", vary_trace_file);
	show_dir("facts.user_events-dir", "events/user_events");
	{
		int fd = open(tpath("trace"), O_WRONLY | O_CLOEXEC);
		ssize_t r = fd < 0 ? -errno : write(fd, "x", 1);

		printf("fwrite facts.trace-write-no-trunc trace \"x\" => %s\n",
		       res(r < 0 ? -errno : r));
		if (fd >= 0)
			close(fd);
	}
	{
		int fd = open(tpath("user_events_status"), O_WRONLY | O_CLOEXEC);
		ssize_t r = fd < 0 ? -errno : write(fd, "x", 1);

		printf("fwrite facts.status-write user_events_status \"x\" => %s\n",
		       res(r < 0 ? -errno : r));
		if (fd >= 0)
			close(fd);
	}
	{
		int fd = open(tpath("user_events_data"), O_RDONLY | O_CLOEXEC);
		char b[8];
		ssize_t r = fd < 0 ? -errno : read(fd, b, sizeof(b));

		printf("read facts.data-read => %s\n", res(r < 0 ? -errno : r));
		if (fd >= 0)
			close(fd);
	}
	enable_event("user_events", "cff_ev", "0");
	show_available("facts.available_events");
	{
		ssize_t n = slurp("available_events", big, sizeof(big));
		int lines = 0;

		for (ssize_t i = 0; i < n; i++)
			lines += big[i] == '\n';
		printf("~available_events-lines %d\n", lines);
		if (n > 0) {
			char *third = big;

			for (int i = 0; i < 3 && third; i++)
				third = strchr(third + 1, '\n');
			show_text("facts.available_events-head", "available_events", big,
				  third ? third + 1 - big : n, vary_all);
		}
	}
	ctx_close(&c);

	begin("facts.readme");
	show_file("facts.readme", "README", NULL);
}

/* ---- main ----------------------------------------------------------------------------- */

/* ---- section: trace_marker, trace_marker_raw ------------------------------------------ */

/*
 * Whether this caller can empty the trace (an unprivileged member cannot):
 * when not, the trace holds everything written before, and only the
 * results of writes are shown.
 */
static bool marker_traced;

/* Writes @n bytes of @data to the file @rel, opened for this write alone: bytes or -errno. */
static ssize_t marker_put(const char *rel, const void *data, size_t n)
{
	ssize_t r;
	int fd, err;

	fd = open(tpath(rel), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, data, n);
	err = errno;
	close(fd);
	return r < 0 ? -err : r;
}

/* "mark ID FILE HEX => RESULT" then the trace lines of a fresh buffer. */
static ssize_t mark_show(const char *id, const char *rel, const void *data, size_t n)
{
	ssize_t r;

	clear_trace();
	r = marker_put(rel, data, n);
	printf("mark %s %s ", id, rel);
	put_hex(data, n);
	printf(" => %s\n", res(r));
	if (marker_traced)
		show_trace_lines(id);
	return r;
}

/* Every line of trace that is not part of its header, as it is: lines without context. */
static void show_trace_body(const char *id)
{
	ssize_t n = slurp("trace", tracebuf, sizeof(tracebuf));
	char *p = tracebuf, *end;

	if (!marker_traced)
		return;
	if (n < 0) {
		printf("trace-body %s => %s\n", id, errname((int)-n));
		return;
	}
	end = tracebuf + n;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		if (*p != '#') {
			printf("trace-body %s ", id);
			put_esc(p, (size_t)(nl - p), false);
			putchar('\n');
		}
		p = nl + 1;
	}
}

/*
 * A large write of 'x's: its result and how many the trace line holds
 * ("tracing_mark_write: xxx...x\n" in full would be kilobytes).
 */
static void mark_big(const char *id, size_t n)
{
	static char xs[8192];
	const char *ev;
	ssize_t r, len;

	memset(xs, 'x', sizeof(xs));
	clear_trace();
	r = marker_put("trace_marker", xs, n);
	len = slurp("trace", tracebuf, sizeof(tracebuf));
	ev = len > 0 ? strstr(tracebuf, "tracing_mark_write: ") : NULL;
	printf("mark %s trace_marker x*%zu => %s", id, n, res(r));
	if (!marker_traced)
		putchar('\n');
	else if (ev)
		printf(" trace: tracing_mark_write: x*%zu%s\n", strspn(ev + 20, "x"),
		       ev[20 + strspn(ev + 20, "x")] == '\n' ? "\\x0a" : "");
	else
		printf(" trace: none\n");
}

/*
 * The raw_data lines: "# ID buf:" then every byte up to the record's end as
 * the ring reports it.  The kernel leaves older ring bytes after the written
 * ones: only the first @ndata bytes are compared, the count of the others
 * is ("+N").
 */
static void show_raw_lines(const char *id, size_t ndata)
{
	ssize_t n = slurp("trace", tracebuf, sizeof(tracebuf));
	char *p = tracebuf, *end;

	if (!marker_traced)
		return;
	if (n < 0) {
		printf("trace %s => %s\n", id, errname((int)-n));
		return;
	}
	end = tracebuf + n;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *ev, *buf;
		size_t shown = 0, rest = 0;

		if (!nl)
			nl = end;
		*nl = '\0';
		ev = *p == '#' ? NULL : event_part(p);
		buf = ev ? strstr(ev, " buf:") : NULL;
		if (buf) {
			printf("~trace-raw %s %s\n", id, ev);
			printf("trace %s %.*s buf:", id, (int)(buf - ev), ev);
			for (const char *b = buf + 5; *b == ' ' && b[1] && b[2]; b += 3) {
				if (shown < ndata) {
					printf(" %.2s", b + 1);
					shown++;
				} else {
					rest++;
				}
			}
			printf(" +%zu\n", rest);
		}
		p = nl + 1;
	}
}

/* "mark ID trace_marker_raw HEX => RESULT" and its raw_data line. */
static void mark_raw(const char *id, const void *data, size_t n)
{
	ssize_t r;

	clear_trace();
	r = marker_put("trace_marker_raw", data, n);
	printf("mark %s trace_marker_raw ", id);
	put_hex(data, n);
	printf(" => %s\n", res(r));
	show_raw_lines(id, n > 4 ? n - 4 : 0);
}

/*
 * The records trace_pipe_raw carries (its pages, all CPUs, consumed):
 * "rawrec ID type=T len=L pid=self|other BYTES", L the length the ring
 * stores, BYTES the record from offset 8 (print: the text after the ip,
 * which is a kernel address there) up to @nbytes of them, the rest being
 * whatever the ring held before.
 */
static void show_pipe_raw(const char *id, size_t nbytes)
{
	static unsigned char page[4096];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!marker_traced)
		return;
	for (long cpu = 0; cpu < ncpu && cpu < 1024; cpu++) {
		char rel[64];
		ssize_t n;
		uint64_t commit;
		size_t off = 16, end;
		int fd;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%ld/trace_pipe_raw", cpu);
		fd = open(tpath(rel), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, page, sizeof(page));
		close(fd);
		if (n < 16)
			continue;
		memcpy(&commit, page + 8, sizeof(commit));
		end = 16 + (size_t)(commit & 0xfffff);
		if (end > (size_t)n)
			end = (size_t)n;
		while (off + 4 <= end) {
			uint32_t h, type_len, len;
			const unsigned char *data;
			uint16_t type;
			int32_t pid;
			size_t skip;

			memcpy(&h, page + off, 4);
			type_len = h & 31;
			if (type_len == 29 || type_len == 0) {
				if (off + 8 > end)
					break;
				memcpy(&len, page + off + 4, 4);
			}
			if (type_len == 30 || type_len == 31) {
				off += 8;
				continue;
			}
			if (type_len == 29) {
				off += 4 + len;
				continue;
			}
			if (type_len == 0) {
				len -= 4;
				data = page + off + 8;
				off += 8 + len;
			} else {
				len = type_len * 4;
				data = page + off + 4;
				off += 4 + len;
			}
			if (off > end || len < 8)
				break;
			memcpy(&type, data, 2);
			memcpy(&pid, data + 4, 4);
			skip = type == 5 ? 16 : 8;
			printf("rawrec %s type=%u len=%u pid=%s ", id, type, len,
			       pid == getpid() ? "self" : "other");
			put_hex(data + skip, nbytes < len - skip ? nbytes : len - skip);
			putchar('\n');
		}
	}
}

static void sec_marker(void)
{
	static const struct {
		const char *id;
		const char *text;
		size_t n;
	} texts[] = {
		{ "marker.line", "phase 2\n", 8 },
		{ "marker.no-newline", "abc", 3 },
		{ "marker.newline", "\n", 1 },
		{ "marker.newlines", "x\n\n", 3 },
		{ "marker.lines", "one\ntwo\n", 8 },
		{ "marker.nul-inside", "a\0b", 3 },
		{ "marker.nul-after-newline", "abc\n\0", 5 },
		{ "marker.nul", "\0", 1 },
		{ "marker.bytes", "a\tb\r\x7f\xff", 6 },
		{ "marker.nine", "123456789", 9 },
		{ "marker.ten", "1234567890", 10 },
	};
	static const size_t big_sizes[] = { 4000, 4053, 4054, 4055, 4072, 4096, 4097, 5000, 8192 };
	static const struct {
		const char *id;
		const char *data;
		size_t n;
	} raws[] = {
		{ "marker.raw.3", "\1\2\3", 3 },
		{ "marker.raw.id", "\x34\x12\0\0", 4 },
		{ "marker.raw.id-1", "\x34\x12\0\0\xaa", 5 },
		{ "marker.raw.id-9", "\x78\x56\x34\x12" "abcdefghi", 13 },
		{ "marker.raw.id-12", "\x78\x56\x34\x12" "abcdefghijkl", 16 },
	};
	static char zeros[4096];
	struct ctx c;
	uint32_t idx;
	ssize_t r;
	int fd;

	begin("marker");
	fd = open(tpath("trace"), O_WRONLY | O_TRUNC | O_CLOEXEC);
	marker_traced = fd >= 0;
	printf("open marker.trace trace O_TRUNC => %s\n", fd < 0 ? errname(errno) : "0");
	if (fd >= 0)
		close(fd);
	show_stat("marker.files", "trace_marker");
	show_stat("marker.files", "trace_marker_raw");
	show_dir("marker.files", "events/ftrace/print");
	show_dir("marker.files", "events/ftrace/raw_data");
	show_file("marker.format", "events/ftrace/print/format", NULL);
	show_file("marker.format", "events/ftrace/print/id", NULL);
	show_file("marker.format", "events/ftrace/raw_data/format", NULL);
	show_file("marker.format", "events/ftrace/print/trigger", NULL);
	fwrite_show("marker.defaults", "options/markers", "1", O_WRONLY);
	fwrite_show("marker.defaults", "tracing_on", "1", O_WRONLY);

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		mark_show(texts[i].id, "trace_marker", texts[i].text, texts[i].n);
	/* The kernel records an empty write; FUSE sends none (docs/compat.md). */
	mark_show("marker.zero-length", "trace_marker", "", 0);
	for (size_t i = 0; i < ARRAY_SIZE(big_sizes); i++) {
		char id[32];

		snprintf(id, sizeof(id), "marker.big-%zu", big_sizes[i]);
		mark_big(id, big_sizes[i]);
	}

	/* trace_pipe shows the same line and consumes it. */
	clear_trace();
	r = marker_put("trace_marker", "piped\n", 6);
	printf("mark marker.pipe trace_marker \"piped\\x0a\" => %s\n", res(r));
	fd = marker_traced ? open(tpath("trace_pipe"), O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd >= 0) {
		ssize_t n = read(fd, tracebuf, sizeof(tracebuf) - 1);
		const char *ev;

		tracebuf[n > 0 ? n : 0] = '\0';
		ev = n > 0 ? event_part(tracebuf) : NULL;
		printf("pipe marker.pipe ");
		if (ev)
			put_esc(ev, strlen(ev), false);
		else
			printf("=> %s", n < 0 ? errname(errno) : "EOF");
		putchar('\n');
		close(fd);
	}
	if (marker_traced)
		show_trace_lines("marker.pipe-after");

	/*
	 * What trace_pipe_raw carries: the entry, the ip, the text, its NUL
	 * (one record at a time: records of one process may land on any CPU).
	 */
	clear_trace();
	marker_put("trace_marker", "phase 2\n", 8);
	show_pipe_raw("marker.pipe-raw", 9);
	marker_put("trace_marker", "hi", 2);
	show_pipe_raw("marker.pipe-raw", 4);
	marker_put("trace_marker", "a\0b", 3);
	show_pipe_raw("marker.pipe-raw", 5);
	marker_put("trace_marker_raw", "\x78\x56\x34\x12" "abcdefghi", 13);
	show_pipe_raw("marker.pipe-raw", 13);
	if (marker_traced)
		show_trace_lines("marker.pipe-raw-after");

	/* Markers and user events share the buffer, in the order written. */
	ctx_open(&c);
	if (ctx_reg(&c, "marker.ev", "cfm_ev u32 a", 0, &idx, NULL) == 0) {
		uint32_t v = 7;

		enable_event("user_events", "cfm_ev", "1");
		clear_trace();
		write_event(c.fd, (int32_t)idx, &v, sizeof(v), HOW_WRITE);
		marker_put("trace_marker", "between\n", 8);
		v = 8;
		write_event(c.fd, (int32_t)idx, &v, sizeof(v), HOW_WRITE);
		if (marker_traced)
			show_trace_lines("marker.mixed");
		/* events/enable does not gate markers. */
		fwrite_show("marker.events-off", "events/enable", "0", O_WRONLY);
		mark_show("marker.events-off", "trace_marker", "still\n", 6);
	}
	ctx_close(&c);

	/* Raw markers: a u32 id, then bytes. */
	for (size_t i = 0; i < ARRAY_SIZE(raws); i++)
		mark_raw(raws[i].id, raws[i].data, raws[i].n);
	mark_show("marker.raw.empty", "trace_marker_raw", "", 0);
	/* Bytes the kernel can copy without a fault: it copies with faults disabled. */
	memset(zeros, 0, sizeof(zeros));
	for (size_t n = 4056; n <= 4064; n += 2) {
		char id[32];

		snprintf(id, sizeof(id), "marker.raw.big-%zu", n);
		clear_trace();
		r = marker_put("trace_marker_raw", zeros, n);
		printf("mark %s trace_marker_raw z%zu => %s\n", id, n, res(r));
	}
	/*
	 * A page never touched: the kernel's copy fails (EFAULT) and records
	 * "<faulted>"; FUSE copies the bytes as any write (docs/compat.md).
	 */
	{
		void *fresh = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (fresh != MAP_FAILED) {
			clear_trace();
			r = marker_put("trace_marker", fresh, 4);
			printf("mark marker.unfaulted trace_marker z4 => %s\n", res(r));
			if (marker_traced)
				show_trace_lines("marker.unfaulted");
			munmap(fresh, (size_t)page_size);
		}
	}

	/* Tracing off: the ring takes nothing. */
	fwrite_show("marker.off", "tracing_on", "0", O_WRONLY);
	mark_show("marker.off", "trace_marker", "off\n", 4);
	mark_show("marker.off", "trace_marker_raw", "\x01\0\0\0ab", 6);
	mark_show("marker.off-short", "trace_marker_raw", "\1\2\3", 3);
	fwrite_show("marker.off", "tracing_on", "1", O_WRONLY);
	/* options/markers 0: refused before anything else. */
	fwrite_show("marker.nomarkers", "options/markers", "0", O_WRONLY);
	mark_show("marker.nomarkers", "trace_marker", "no\n", 3);
	mark_show("marker.nomarkers", "trace_marker_raw", "\x01\0\0\0ab", 6);
	fwrite_show("marker.nomarkers", "options/markers", "1", O_WRONLY);
	mark_show("marker.markers-again", "trace_marker", "yes\n", 4);

	/* Output options that change a print record's line. */
	fwrite_show("marker.msg-only", "options/printk-msg-only", "1", O_WRONLY);
	clear_trace();
	marker_put("trace_marker", "only\n", 5);
	marker_put("trace_marker", "two\n", 4);
	show_trace_body("marker.msg-only");
	fwrite_show("marker.msg-only", "options/trace_printk", "0", O_WRONLY);
	if (marker_traced)
		show_trace_lines("marker.msg-only-no-printk");
	fwrite_show("marker.msg-only", "options/trace_printk", "1", O_WRONLY);
	fwrite_show("marker.msg-only", "options/printk-msg-only", "0", O_WRONLY);
	fwrite_show("marker.no-context", "options/context-info", "0", O_WRONLY);
	clear_trace();
	marker_put("trace_marker", "noctx\n", 6);
	show_trace_body("marker.no-context");
	fwrite_show("marker.no-context", "options/context-info", "1", O_WRONLY);

	/* The file itself: no read method, no position. */
	fd = open(tpath("trace_marker"), O_RDONLY | O_CLOEXEC);
	printf("open marker.read trace_marker O_RDONLY => %s\n", fd < 0 ? errname(errno) : "0");
	if (fd >= 0) {
		r = read(fd, big, 16);
		printf("read marker.read trace_marker => %s\n", res(r < 0 ? -errno : r));
		close(fd);
	}
	fd = open(tpath("trace_marker"), O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		clear_trace();
		r = pwrite(fd, "pw\n", 3, 100);
		printf("pwrite marker.pwrite trace_marker => %s\n", res(r < 0 ? -errno : r));
		if (marker_traced)
			show_trace_lines("marker.pwrite");
		close(fd);
	}
	fd = open(tpath("trace_marker"), O_WRONLY | O_TRUNC | O_CLOEXEC);
	printf("open marker.trunc trace_marker O_TRUNC => %s\n", fd < 0 ? errname(errno) : "0");
	if (fd >= 0)
		close(fd);
	clear_trace();
}

/* ---- section trigger ------------------------------------------------------------ */

#define CFT_A "events/user_events/cft_a/"
#define CFT_B "events/user_events/cft_b/"

struct cft {
	struct ctx c;
	bool traced;	/* the trace can be cleared (not so for a member of the group) */
	uint32_t ia, ib;
	uint64_t *wa, *wb;
};

/* Four writes of a = 1..4 to cft_a, each followed by one to cft_b. */
static void cft_writes(const char *id, struct cft *t)
{
	for (uint32_t v = 1; v <= 4; v++) {
		ssize_t ra = write_event(t->c.fd, (int32_t)t->ia, &v, sizeof(v), HOW_WRITEV);
		ssize_t rb = write_event(t->c.fd, (int32_t)t->ib, &v, sizeof(v), HOW_WRITEV);

		printf("write %s a=%u cft_a => %s cft_b => %s\n", id, v, res(ra), res(rb));
	}
}

/*
 * One trigger on cft_a: set with O_APPEND, listed, run by four writes,
 * then removed with "!".  @a_on, @b_on and @trace_on are the states before.
 */
static void cft_case(struct cft *t, const char *id, const char *text, const char *a_on,
		     const char *b_on, const char *trace_on)
{
	char bang[256];
	ssize_t r;

	clear_trace();
	put_file("tracing_on", "1", O_WRONLY);
	put_file(CFT_A "enable", a_on, O_WRONLY);
	put_file(CFT_B "enable", b_on, O_WRONLY);
	put_file("tracing_on", trace_on, O_WRONLY);
	r = fwrite_show(id, CFT_A "trigger", text, O_WRONLY | O_APPEND);
	show_file(id, CFT_A "trigger", NULL);
	show_value(id, CFT_A "enable");
	show_value(id, CFT_B "enable");
	printf("word %s cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", id, *t->wa, *t->wb);
	cft_writes(id, t);
	show_value(id, "tracing_on");
	show_value(id, CFT_A "enable");
	show_value(id, CFT_B "enable");
	put_file("tracing_on", "1", O_WRONLY);
	if (t->traced)
		show_trace_lines(id);
	if (r > 0 && text[0] != '!') {
		snprintf(bang, sizeof(bang), "!%s", text);
		fwrite_show(id, CFT_A "trigger", bang, O_WRONLY | O_APPEND);
		show_file(id, CFT_A "trigger", NULL);
		show_value(id, CFT_A "enable");
		show_value(id, CFT_B "enable");
		printf("word %s cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", id, *t->wa,
		       *t->wb);
	}
}

static void sec_trigger(void)
{
	static const struct {
		const char *text, *a_on, *b_on, *trace_on;
	} cases[] = {
		{ "traceoff", "1", "0", "1" },
		{ "traceon", "1", "0", "1" },
		{ "traceoff:2", "1", "0", "1" },
		{ "traceoff:0", "1", "0", "1" },
		{ "traceoff if a == 3", "1", "0", "1" },
		{ "traceoff:1 if a > 1", "1", "0", "1" },
		{ "traceoff 0x2", "1", "0", "1" },
		{ "traceon", "1", "0", "0" },
		{ "traceon if a == 3", "1", "0", "0" },
		{ "traceon:1", "1", "0", "0" },
		{ "enable_event:user_events:cft_b", "1", "0", "1" },
		{ "enable_event:user_events:cft_b:1", "1", "0", "1" },
		{ "enable_event:user_events:cft_b if a == 3", "1", "0", "1" },
		{ "disable_event:user_events:cft_b", "1", "0", "1" },
		{ "disable_event:user_events:cft_b", "1", "1", "1" },
		{ "disable_event:user_events:cft_b if a == 2", "1", "1", "1" },
		{ "enable_event:user_events:cft_a", "1", "0", "1" },
		/* a trigger on an event that is not enabled: live, records discarded */
		{ "traceoff", "0", "0", "1" },
		{ "traceoff if a == 2", "0", "0", "1" },
		{ "enable_event:user_events:cft_b", "0", "0", "1" },
		{ "enable_event:user_events:cft_a", "0", "0", "1" },
		/* refused */
		{ "snapshot", "1", "0", "1" },
		{ "hist:keys=a", "1", "0", "1" },
		{ "bogus", "1", "0", "1" },
		{ "traceoff if nosuch == 1", "1", "0", "1" },
		{ "traceoff if a == ", "1", "0", "1" },
		{ "traceoff iff a == 1", "1", "0", "1" },
		{ "traceoff:x", "1", "0", "1" },
		{ "traceoff:08", "1", "0", "1" },
		{ "traceoff:99999999999999999999", "1", "0", "1" },
		{ "enable_event:user_events:cft_nosuch", "1", "0", "1" },
		{ "enable_event:cft_b", "1", "0", "1" },
		{ "enable_event", "1", "0", "1" },
		{ "enable_event:ftrace:print", "1", "0", "1" },
		{ "enable_event:user_events:cft_b:x", "1", "0", "1" },
		{ "!enable_event:user_events:cft_nosuch", "1", "0", "1" },
		{ "!traceoff", "1", "0", "1" },
		{ "!traceoff:x", "1", "0", "1" },
		{ "!!traceoff", "1", "0", "1" },
		{ "! traceoff", "1", "0", "1" },
		{ "!", "1", "0", "1" },
		{ "", "1", "0", "1" },
		{ " traceoff\n", "1", "0", "1" },
	};
	struct cft t;
	uint64_t *wm;
	uint32_t idx;
	ssize_t r;

	begin("trigger");
	r = put_file("trace", "", O_WRONLY | O_TRUNC);
	t.traced = r >= 0;
	printf("open trigger.trace trace O_TRUNC => %s\n", res(r));
	ctx_open(&t.c);
	if (ctx_reg(&t.c, "trigger.a", "cft_a u32 a", 0, &t.ia, &t.wa) < 0 ||
	    ctx_reg(&t.c, "trigger.b", "cft_b u32 a", 0, &t.ib, &t.wb) < 0) {
		ctx_close(&t.c);
		return;
	}
	show_file("trigger.initial", CFT_A "trigger", NULL);
	show_value("trigger.initial", CFT_A "enable");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char id[32];

		snprintf(id, sizeof(id), "trigger.%zu", i);
		cft_case(&t, id, cases[i].text, cases[i].a_on, cases[i].b_on, cases[i].trace_on);
	}

	/* Several triggers: one of a kind (and target) each, newest listed first. */
	put_file(CFT_A "enable", "1", O_WRONLY);
	put_file(CFT_B "enable", "0", O_WRONLY);
	fwrite_show("trigger.many", CFT_A "trigger", "traceoff:3", O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "enable_event:user_events:cft_b",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "traceoff", O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "traceon", O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "disable_event:user_events:cft_b",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "enable_event:user_events:cft_a:2",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_B "trigger", "disable_event:user_events:cft_a",
		    O_WRONLY | O_APPEND);
	show_file("trigger.many", CFT_A "trigger", NULL);
	show_file("trigger.many", CFT_B "trigger", NULL);
	show_value("trigger.many", CFT_A "enable");
	show_value("trigger.many", CFT_B "enable");
	/* "!traceon" removes the traceoff: they are one kind. */
	fwrite_show("trigger.many", CFT_A "trigger", "!traceon", O_WRONLY | O_APPEND);
	show_file("trigger.many", CFT_A "trigger", NULL);
	/* While a trigger aims at it, an event is in use. */
	printf("del trigger.many-del-b => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cft_b")));
	/* A write without O_APPEND adds too; O_TRUNC on open removes none of these. */
	fwrite_show("trigger.many", CFT_A "trigger", "traceon", O_WRONLY);
	show_file("trigger.many", CFT_A "trigger", NULL);
	r = put_file(CFT_B "trigger", "", O_WRONLY | O_TRUNC);
	printf("fwrite trigger.trunc-b => %s\n", res(r));
	show_file("trigger.trunc-b", CFT_B "trigger", NULL);
	show_file("trigger.trunc-b", CFT_A "trigger", NULL);
	show_value("trigger.trunc-b", CFT_A "enable");
	r = put_file(CFT_A "trigger", "", O_RDONLY | O_TRUNC);
	printf("fwrite trigger.trunc-rdonly => %s\n", res(r));
	show_file("trigger.trunc-rdonly", CFT_A "trigger", NULL);
	r = put_file(CFT_A "trigger", "", O_WRONLY | O_TRUNC);
	printf("fwrite trigger.trunc => %s\n", res(r));
	show_file("trigger.trunc", CFT_A "trigger", NULL);
	show_value("trigger.trunc", CFT_A "enable");
	show_value("trigger.trunc", CFT_B "enable");
	printf("word trigger.trunc cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", *t.wa, *t.wb);

	/* A persistent event nobody uses: its trigger keeps it. */
	fwrite_show("trigger.dyn", "dynamic_events", "u:cft_p u32 a", O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn", "events/user_events/cft_p/trigger", "traceoff",
		    O_WRONLY | O_APPEND);
	show_value("trigger.dyn", "events/user_events/cft_p/enable");
	fwrite_show("trigger.dyn-del", "dynamic_events", "-:cft_p u32 a", O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn", "events/user_events/cft_p/trigger", "!traceoff",
		    O_WRONLY | O_APPEND);
	show_value("trigger.dyn", "events/user_events/cft_p/enable");
	fwrite_show("trigger.dyn", CFT_A "trigger", "enable_event:user_events:cft_p",
		    O_WRONLY | O_APPEND);
	show_value("trigger.dyn-target", "events/user_events/cft_p/enable");
	fwrite_show("trigger.dyn-target-del", "dynamic_events", "-:cft_p u32 a",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn", CFT_A "trigger", "!enable_event:user_events:cft_p",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn-del", "dynamic_events", "-:cft_p u32 a", O_WRONLY | O_APPEND);

	/* What O_TRUNC left (it removes only hist triggers, which 6.12 lacks here). */
	fwrite_show("trigger.end", CFT_A "trigger", "!traceon", O_WRONLY | O_APPEND);
	fwrite_show("trigger.end", CFT_A "trigger", "!enable_event:user_events:cft_a",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.end", CFT_A "trigger", "!disable_event:user_events:cft_b",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.end", CFT_B "trigger", "!enable_event:user_events:cft_a",
		    O_WRONLY | O_APPEND);
	show_file("trigger.end", CFT_A "trigger", NULL);
	show_file("trigger.end", CFT_B "trigger", NULL);
	show_value("trigger.end", CFT_A "enable");
	show_value("trigger.end", CFT_B "enable");
	printf("word trigger.end cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", *t.wa, *t.wb);

	/* A multi-format event: its own triggers, and the target of cft_a's. */
	if (ctx_reg(&t.c, "trigger.m", "cft_m u32 a", USER_EVENT_REG_MULTI_FORMAT, &idx, &wm) == 0) {
		char **names, mdir[700] = "", rel[800], cmd[800];
		int n = list_dir("events/user_events_multi", &names);

		for (int i = 0; i < n; i++) {
			if (!strncmp(names[i], "cft_m.", 6))
				snprintf(mdir, sizeof(mdir), "%s", names[i]);
		}
		if (n >= 0)
			free_list(names, n);
		printf("multi-dir trigger.m %s\n", mdir);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/trigger", mdir);
		fwrite_show("trigger.m", rel, "traceoff if a == 2", O_WRONLY | O_APPEND);
		show_file("trigger.m", rel, NULL);
		snprintf(cmd, sizeof(cmd), "enable_event:user_events_multi:%s", mdir);
		fwrite_show("trigger.m-target", CFT_A "trigger", cmd, O_WRONLY | O_APPEND);
		show_file("trigger.m-target", CFT_A "trigger", NULL);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/enable", mdir);
		show_value("trigger.m", rel);
		printf("word trigger.m cft_m 0x%016" PRIx64 "\n", *wm);
		clear_trace();
		put_file("tracing_on", "1", O_WRONLY);
		put_file(CFT_A "enable", "1", O_WRONLY);
		for (uint32_t v = 1; v <= 3; v++) {
			ssize_t ra = write_event(t.c.fd, (int32_t)t.ia, &v, sizeof(v), HOW_WRITEV);
			ssize_t rm = write_event(t.c.fd, (int32_t)idx, &v, sizeof(v), HOW_WRITEV);

			printf("write trigger.m a=%u cft_a => %s cft_m => %s\n", v, res(ra), res(rm));
		}
		show_value("trigger.m", "tracing_on");
		show_value("trigger.m", rel);
		put_file("tracing_on", "1", O_WRONLY);
		if (t.traced)
			show_trace_lines("trigger.m");
		fwrite_show("trigger.m-again", CFT_A "trigger", cmd, O_WRONLY | O_APPEND);
		snprintf(cmd, sizeof(cmd), "!enable_event:user_events_multi:%s", mdir);
		fwrite_show("trigger.m", CFT_A "trigger", cmd, O_WRONLY | O_APPEND);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/trigger", mdir);
		fwrite_show("trigger.m", rel, "!traceoff", O_WRONLY | O_APPEND);
		show_file("trigger.m", rel, NULL);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/enable", mdir);
		show_value("trigger.m", rel);
		printf("word trigger.m cft_m 0x%016" PRIx64 "\n", *wm);
		/* Enabled by the trigger, it stays enabled without it. */
		put_file(rel, "0", O_WRONLY);
	}

	put_file("tracing_on", "1", O_WRONLY);
	put_file(CFT_A "enable", "0", O_WRONLY);
	put_file(CFT_B "enable", "0", O_WRONLY);
	clear_trace();
	ctx_close(&t.c);
}

static void usage(void)
{
	fprintf(stderr, "usage: conformance [-t TRACEFS] [-f] [-s SECTION[,SECTION...]]\n"
			"  -t  tracefs root (default /sys/kernel/tracing)\n"
			"  -f  print tracefs facts instead of the conformance cases\n"
			"  -s  run only these sections: env parse match reg unreg enable del multi\n"
			"      ioctl pay wr dyn status filter marker trigger\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct utsname u;
	bool facts = false;
	int opt;

	while ((opt = getopt(argc, argv, "t:fs:h")) != -1) {
		switch (opt) {
		case 't':
			root = optarg;
			break;
		case 'f':
			facts = true;
			break;
		case 's':
			only_sections = optarg;
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	uname(&u);
	printf("~uname-r %s\n", u.release);
	printf("# userevents conformance output (%s); lines starting with '~' vary\n",
	       facts ? "facts" : "cases");
	ctl_fd = open_data();
	clear_trace();

	if (facts) {
		printf("# What usereventsd reproduces besides the events themselves: modes of the\n"
		       "# tracefs files, their contents, the trace file's header and options, README.\n"
		       "# Line kinds (tests/conformance/README.md): stat ID PATH TYPE mode= size=;\n"
		       "# value ID PATH = \"TEXT\"; text ID PATH, then \"| \" lines, then end;\n"
		       "# fwrite ID PATH \"TEXT\" => RESULT; write/trace as in refkernel.out.\n");
		run_facts();
		printf("\n# done\n");
		return 0;
	}
	if (section("env"))
		sec_env();
	if (section("parse"))
		sec_parse();
	if (section("match"))
		sec_match();
	if (section("reg"))
		sec_reg();
	if (section("unreg"))
		sec_unreg();
	if (section("enable"))
		sec_enable();
	if (section("del"))
		sec_del();
	if (section("multi"))
		sec_multi();
	if (section("ioctl"))
		sec_ioctl();
	if (section("pay"))
		sec_pay();
	if (section("wr"))
		sec_wr();
	if (section("dyn"))
		sec_dyn();
	if (section("status"))
		sec_status();
	if (section("filter"))
		sec_filter();
	if (section("marker"))
		sec_marker();
	if (section("trigger"))
		sec_trigger();
	printf("\n# done\n");
	return 0;
}
