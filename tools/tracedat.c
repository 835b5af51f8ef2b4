// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tools/tracedat: trace-cmd's trace.dat version 7: the initial header, the
 * header-info, ftrace-events, event-formats, kallsyms, printk and cmdlines
 * sections, one flyrecord buffer, the options section that points at them,
 * and the strings section.  Written uncompressed; read compressed with zstd
 * too (sections and CPU data chunks) when libzstd was found at build time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "tracedat.h"

/* Section and option ids of trace-cmd.dat.v7(5), and the section flag. */
enum {
	SEC_FL_COMPRESSED = 1,
	OPT_DONE = 0,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_CPUCOUNT = 8,
	OPT_VERSION = 9,
	SEC_STRINGS = 15,
	SEC_HEADER_INFO = 16,
	SEC_FTRACE_EVENTS = 17,
	SEC_EVENT_FORMATS = 18,
	SEC_KALLSYMS = 19,
	SEC_PRINTK = 20,
	SEC_CMDLINES = 21,
};

static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/* A growing byte buffer; a failed allocation sticks until the end. */
struct bytes {
	uint8_t *p;
	size_t len, cap;
	bool failed;
};

static void put(struct bytes *b, const void *data, size_t len)
{
	if (b->failed)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *np;

		while (cap < b->len + len)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->failed = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

/* Numbers go in the host's order: the header says which that is. */
static void put16(struct bytes *b, uint16_t v) { put(b, &v, 2); }
static void put32(struct bytes *b, uint32_t v) { put(b, &v, 4); }
static void put64(struct bytes *b, uint64_t v) { put(b, &v, 8); }
static void putstr(struct bytes *b, const char *s) { put(b, s, strlen(s) + 1); }

static void set64(struct bytes *b, size_t at, uint64_t v)
{
	if (!b->failed)
		memcpy(b->p + at, &v, 8);
}

/* Section header; returns where its size goes (set64() it when known). */
static size_t section(struct bytes *b, uint16_t id, uint32_t desc)
{
	size_t at;

	put16(b, id);
	put16(b, 0);
	put32(b, desc);
	at = b->len;
	put64(b, 0);
	return at;
}

static void section_end(struct bytes *b, size_t size_at)
{
	set64(b, size_at, b->len - (size_at + 8));
}

static void option(struct bytes *b, uint16_t id, const void *data, uint32_t len)
{
	put16(b, id);
	put32(b, len);
	put(b, data, len);
}

static void option64(struct bytes *b, uint16_t id, uint64_t v)
{
	option(b, id, &v, 8);
}

static int write_all(int fd, const void *p, size_t len)
{
	const uint8_t *c = p;

	while (len) {
		ssize_t n = write(fd, c, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The selected clock of a trace_clock file ("local [mono] boot" -> mono). */
static void clock_name(const struct uet_dat_text *t, char *out, size_t len)
{
	const char *o = t->text ? memchr(t->text, '[', t->len) : NULL;
	const char *c = o ? memchr(o, ']', t->len - (size_t)(o - t->text)) : NULL;

	if (o && c && (size_t)(c - o) < len)
		snprintf(out, len, "%.*s", (int)(c - o - 1), o + 1);
	else
		snprintf(out, len, "local");
}

/* The descriptions of the sections, offsets into the strings section. */
static const char strings[] = "headers\0ftrace events\0events format\0kallsyms\0printk\0"
			      "command lines\0options\0flyrecord data\0";

static uint32_t str_id(const char *s)
{
	for (size_t i = 0; i < sizeof(strings) - 1; i += strlen(strings + i) + 1)
		if (strcmp(strings + i, s) == 0)
			return (uint32_t)i;
	return 0;
}

int uet_dat_write(int fd, const struct uet_dat_meta *m, FILE **cpu_data, unsigned int page_size)
{
	struct bytes b = { 0 };
	uint64_t off_hdr, off_ftrace, off_formats, off_kallsyms, off_printk, off_cmdlines, off_fly;
	uint64_t *cpu_off = NULL, *cpu_size = NULL, pos;
	size_t at, opts_at;
	char clock[32];
	uint32_t ncpus = m->ncpus;
	int e = 0;

	cpu_off = calloc(ncpus + 1, sizeof(*cpu_off));
	cpu_size = calloc(ncpus + 1, sizeof(*cpu_size));
	if (!cpu_off || !cpu_size) {
		e = -ENOMEM;
		goto out;
	}

	put(&b, magic, sizeof(magic));
	putstr(&b, "7");
	put(&b, (uint8_t[]){ __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ }, 1);
	put(&b, (uint8_t[]){ sizeof(long) }, 1);
	put32(&b, page_size);
	putstr(&b, "none");
	putstr(&b, "");
	opts_at = b.len;
	put64(&b, 0);

	off_hdr = b.len;
	at = section(&b, SEC_HEADER_INFO, str_id("headers"));
	putstr(&b, "header_page");
	put64(&b, m->header_page.len);
	put(&b, m->header_page.text, m->header_page.len);
	putstr(&b, "header_event");
	put64(&b, m->header_event.len);
	put(&b, m->header_event.text, m->header_event.len);
	section_end(&b, at);

	off_ftrace = b.len;
	at = section(&b, SEC_FTRACE_EVENTS, str_id("ftrace events"));
	put32(&b, (uint32_t)m->nftrace);
	for (size_t i = 0; i < m->nftrace; i++) {
		put64(&b, m->ftrace[i].len);
		put(&b, m->ftrace[i].text, m->ftrace[i].len);
	}
	section_end(&b, at);

	off_formats = b.len;
	at = section(&b, SEC_EVENT_FORMATS, str_id("events format"));
	{
		uint32_t nsys = 0;
		size_t nsys_at = b.len;

		put32(&b, 0);
		for (size_t i = 0; i < m->nformats;) {
			size_t j = i;

			while (j < m->nformats && strcmp(m->formats[j].system, m->formats[i].system) == 0)
				j++;
			putstr(&b, m->formats[i].system);
			put32(&b, (uint32_t)(j - i));
			for (; i < j; i++) {
				put64(&b, m->formats[i].len);
				put(&b, m->formats[i].text, m->formats[i].len);
			}
			nsys++;
		}
		if (!b.failed)
			memcpy(b.p + nsys_at, &nsys, 4);
	}
	section_end(&b, at);

	off_kallsyms = b.len;
	at = section(&b, SEC_KALLSYMS, str_id("kallsyms"));
	put32(&b, 0);
	section_end(&b, at);

	off_printk = b.len;
	at = section(&b, SEC_PRINTK, str_id("printk"));
	put32(&b, 0);
	section_end(&b, at);

	off_cmdlines = b.len;
	at = section(&b, SEC_CMDLINES, str_id("command lines"));
	put64(&b, m->cmdlines.len);
	put(&b, m->cmdlines.text, m->cmdlines.len);
	section_end(&b, at);

	/* The flyrecord buffer: its pages start on a page boundary of the file. */
	off_fly = b.len;
	at = section(&b, OPT_BUFFER, str_id("flyrecord data"));
	pos = (b.len + page_size - 1) / page_size * page_size;
	for (uint32_t c = 0; c < ncpus; c++) {
		long sz = 0;

		if (cpu_data && cpu_data[c]) {
			if (fflush(cpu_data[c]) != 0 || (sz = ftell(cpu_data[c])) < 0) {
				e = -errno;
				goto out;
			}
		}
		cpu_off[c] = pos;
		cpu_size[c] = (uint64_t)sz;
		pos += (uint64_t)sz;
	}
	set64(&b, at, pos - (at + 8));
	if (b.failed) {
		e = -ENOMEM;
		goto out;
	}
	e = write_all(fd, b.p, b.len);
	if (e < 0)
		goto out;
	for (uint32_t c = 0; c < ncpus; c++) {
		char page[4096];
		size_t n;

		if (!cpu_size[c])
			continue;
		if (lseek(fd, (off_t)cpu_off[c], SEEK_SET) < 0) {
			e = -errno;
			goto out;
		}
		rewind(cpu_data[c]);
		while ((n = fread(page, 1, sizeof(page), cpu_data[c])) > 0) {
			e = write_all(fd, page, n);
			if (e < 0)
				goto out;
		}
		if (ferror(cpu_data[c])) {
			e = -EIO;
			goto out;
		}
	}

	/* The options, after the data; the initial header points at them. */
	b.len = 0;
	section(&b, 0, str_id("options"));
	option64(&b, SEC_HEADER_INFO, off_hdr);
	option64(&b, SEC_FTRACE_EVENTS, off_ftrace);
	option64(&b, SEC_EVENT_FORMATS, off_formats);
	option64(&b, SEC_KALLSYMS, off_kallsyms);
	option64(&b, SEC_PRINTK, off_printk);
	option64(&b, SEC_CMDLINES, off_cmdlines);
	if (m->trace_clock.text) {
		/* The option holds a string: the file's text, NUL-terminated. */
		put16(&b, OPT_TRACECLOCK);
		put32(&b, (uint32_t)m->trace_clock.len + 1);
		put(&b, m->trace_clock.text, m->trace_clock.len);
		put(&b, "", 1);
	}
	option(&b, OPT_VERSION, "userevents", sizeof("userevents"));
	option(&b, OPT_CPUCOUNT, &ncpus, 4);
	{
		struct bytes buf = { 0 };

		clock_name(&m->trace_clock, clock, sizeof(clock));
		put64(&buf, off_fly);
		putstr(&buf, "");
		putstr(&buf, clock);
		put32(&buf, page_size);
		put32(&buf, ncpus);
		for (uint32_t c = 0; c < ncpus; c++) {
			put32(&buf, c);
			put64(&buf, cpu_off[c]);
			put64(&buf, cpu_size[c]);
		}
		if (buf.failed)
			b.failed = true;
		else
			option(&b, OPT_BUFFER, buf.p, (uint32_t)buf.len);
		free(buf.p);
	}
	option64(&b, OPT_DONE, 0);
	set64(&b, 8, b.len - 16);
	at = section(&b, SEC_STRINGS, 0);
	put(&b, strings, sizeof(strings) - 1);
	section_end(&b, at);
	if (b.failed) {
		e = -ENOMEM;
		goto out;
	}
	if (lseek(fd, (off_t)pos, SEEK_SET) < 0) {
		e = -errno;
		goto out;
	}
	e = write_all(fd, b.p, b.len);
	if (e < 0)
		goto out;
	if (pwrite(fd, &pos, 8, (off_t)opts_at) != 8)
		e = errno ? -errno : -EIO;
out:
	free(b.p);
	free(cpu_off);
	free(cpu_size);
	return e;
}

/* Reading: bounds-checked cursors over the file in memory. */
struct cur {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
};

static const void *take(struct cur *c, size_t n)
{
	const void *r;

	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return NULL;
	}
	r = c->p + c->pos;
	c->pos += n;
	return r;
}

static uint64_t get(struct cur *c, size_t n)
{
	const void *p = take(c, n);
	uint64_t v = 0;
	uint32_t v32;
	uint16_t v16;

	if (!p)
		return 0;
	if (n == 1) {
		v = *(const uint8_t *)p;
	} else if (n == 2) {
		memcpy(&v16, p, 2);
		v = v16;
	} else if (n == 4) {
		memcpy(&v32, p, 4);
		v = v32;
	} else {
		memcpy(&v, p, 8);
	}
	return v;
}

static const char *getstr(struct cur *c)
{
	const char *s = (const char *)c->p + c->pos;
	const void *nul;

	if (c->bad || c->pos >= c->len || !(nul = memchr(s, '\0', c->len - c->pos))) {
		c->bad = true;
		return "";
	}
	c->pos = (size_t)((const uint8_t *)nul - c->p) + 1;
	return s;
}

/* Keep @p (malloc()ed) until uet_dat_free(); frees it on failure. */
static int keep(struct uet_dat *d, void *p)
{
	void **n = realloc(d->unpacked, (d->nunpacked + 1) * sizeof(*n));

	if (!n) {
		free(p);
		return -ENOMEM;
	}
	d->unpacked = n;
	n[d->nunpacked++] = p;
	return 0;
}

/* Most bytes one compressed block may claim to unpack to (a section, a chunk). */
#define UNPACK_MAX (UINT32_C(1) << 30)

/*
 * @zlen bytes at @z unpacked into a new buffer of exactly @len bytes, kept
 * in @d.  Return: 0, -ENOTSUP (not zstd, or no libzstd), -EINVAL, -ENOMEM.
 */
static int unpack(struct uet_dat *d, const void *z, size_t zlen, size_t len, uint8_t **ret)
{
	uint8_t *out;

	if (strcmp(d->compression, "zstd") != 0)
		return -ENOTSUP;
	if (len > UNPACK_MAX)
		return -EINVAL;
	out = malloc(len ? len : 1);
	if (!out)
		return -ENOMEM;
#ifdef HAVE_ZSTD
	{
		size_t n = ZSTD_decompress(out, len, z, zlen);

		if (ZSTD_isError(n) || n != len) {
			free(out);
			return -EINVAL;
		}
	}
#else
	(void)z;
	(void)zlen;
	free(out);
	return -ENOTSUP;
#endif
	*ret = out;
	return keep(d, out);
}

/*
 * Cursor over a section's body at @off, checking its id; a compressed body
 * ("<u32 size><u32 unpacked size><data>") is unpacked first.
 */
static int open_section(struct uet_dat *d, uint64_t off, uint16_t id, struct cur *ret)
{
	struct cur c = { d->buf, d->len, 0, false };
	uint64_t size;
	uint16_t flags;

	if (off > d->len)
		return -EINVAL;
	c.pos = (size_t)off;
	if (get(&c, 2) != id)
		return -EINVAL;
	flags = (uint16_t)get(&c, 2);
	get(&c, 4);
	size = get(&c, 8);
	if (c.bad || size > c.len - c.pos)
		return -EINVAL;
	*ret = (struct cur){ c.p + c.pos, (size_t)size, 0, false };
	/* A flyrecord buffer's flag says its CPU data comes in chunks (unpack_cpu()). */
	if ((flags & SEC_FL_COMPRESSED) && id != OPT_BUFFER) {
		uint32_t zlen = (uint32_t)get(ret, 4), len = (uint32_t)get(ret, 4);
		const void *z = take(ret, zlen);
		uint8_t *out;
		int e;

		if (!z)
			return -EINVAL;
		e = unpack(d, z, zlen, len, &out);
		if (e < 0)
			return e;
		*ret = (struct cur){ out, len, 0, false };
	}
	return 0;
}

/*
 * The pages of one CPU from a compressed file: "<u32 chunks>" then per
 * chunk "<u32 size><u32 unpacked size><data>", unpacked into one buffer.
 */
static int unpack_cpu(struct uet_dat *d, uint64_t off, struct uet_dat_cpu *cpu)
{
	struct cur c = { d->buf, d->len, (size_t)off, false };
	uint32_t n;
	uint64_t total = 0;
	size_t at;
	uint8_t *out;

	if (off > d->len)
		return -EINVAL;
	n = (uint32_t)get(&c, 4);
	at = c.pos;
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		uint32_t zlen = (uint32_t)get(&c, 4);

		total += get(&c, 4);
		take(&c, zlen);
	}
	if (c.bad || total > UNPACK_MAX)
		return -EINVAL;
	out = malloc(total ? (size_t)total : 1);
	if (!out)
		return -ENOMEM;
	if (keep(d, out) < 0)
		return -ENOMEM;
	c.pos = at;
	total = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t zlen = (uint32_t)get(&c, 4), len = (uint32_t)get(&c, 4);
		const void *z = take(&c, zlen);
#ifdef HAVE_ZSTD
		size_t got = ZSTD_decompress(out + total, len, z, zlen);

		if (ZSTD_isError(got) || got != len)
			return -EINVAL;
#else
		(void)z;
		return -ENOTSUP;
#endif
		total += len;
	}
	cpu->data = out;
	cpu->size = total;
	return 0;
}

static int add_format(struct uet_dat *d, const char *system, const void *text, size_t len)
{
	struct uet_dat_text *n = realloc(d->formats, (d->nformats + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	d->formats = n;
	n[d->nformats].system = system;
	n[d->nformats].text = (char *)text;
	n[d->nformats].len = len;
	d->nformats++;
	return 0;
}

static int read_formats(struct uet_dat *d, uint64_t off, bool ftrace)
{
	struct cur c;
	uint32_t nsys;
	int e = open_section(d, off, ftrace ? SEC_FTRACE_EVENTS : SEC_EVENT_FORMATS, &c);

	if (e < 0)
		return e;
	nsys = ftrace ? 1 : (uint32_t)get(&c, 4);
	for (uint32_t s = 0; s < nsys && !c.bad; s++) {
		const char *system = ftrace ? "ftrace" : getstr(&c);
		uint32_t n = (uint32_t)get(&c, 4);

		for (uint32_t i = 0; i < n && !c.bad; i++) {
			uint64_t len = get(&c, 8);
			const void *t = take(&c, (size_t)len);

			if (t && (e = add_format(d, system, t, (size_t)len)) < 0)
				return e;
		}
	}
	return c.bad ? -EINVAL : 0;
}

static int read_buffer_option(struct uet_dat *d, struct cur *o)
{
	uint64_t fly = get(o, 8);
	const char *name = getstr(o);
	struct cur sec;
	int e;

	getstr(o);	/* clock */
	d->page_size = (unsigned int)get(o, 4);
	d->ncpus = (unsigned int)get(o, 4);
	if (o->bad || name[0] || d->ncpus > 4096)
		return o->bad ? -EINVAL : 0;	/* instances other than the top one: not ours */
	e = open_section(d, fly, OPT_BUFFER, &sec);
	if (e < 0)
		return e;
	d->cpus = calloc(d->ncpus ? d->ncpus : 1, sizeof(*d->cpus));
	if (!d->cpus)
		return -ENOMEM;
	for (unsigned int i = 0; i < d->ncpus; i++) {
		uint64_t off, size;

		d->cpus[i].cpu = (unsigned int)get(o, 4);
		off = get(o, 8);
		size = get(o, 8);
		if (o->bad || off > d->len || size > d->len - off)
			return -EINVAL;
		if (strcmp(d->compression, "none") != 0) {
			e = unpack_cpu(d, off, &d->cpus[i]);
			if (e < 0)
				return e;
		} else {
			d->cpus[i].data = d->buf + off;
			d->cpus[i].size = size;
		}
	}
	return o->bad ? -EINVAL : 0;
}

static void no_unpack(const struct uet_dat *d, char *err, size_t errlen)
{
	snprintf(err, errlen, "compressed with %s: %s (trace-cmd convert --compression none)",
		 d->compression,
		 strcmp(d->compression, "zstd") ? "not supported"
						: "this userevents was built without libzstd");
}

static int read_options(struct uet_dat *d, uint64_t off, char *err, size_t errlen)
{
	for (int sections = 0; off && sections < 64; sections++) {
		struct cur c;
		uint64_t next = 0;
		int e = open_section(d, off, 0, &c);

		if (e < 0) {
			snprintf(err, errlen, "bad options section at %llu", (unsigned long long)off);
			return e;
		}
		while (!c.bad && c.pos < c.len) {
			uint16_t id = (uint16_t)get(&c, 2);
			uint32_t len = (uint32_t)get(&c, 4);
			struct cur o = { take(&c, len), len, 0, false };

			if (c.bad)
				break;
			if (id == OPT_DONE) {
				next = get(&o, 8);
				break;
			}
			e = 0;
			if (id == SEC_FTRACE_EVENTS || id == SEC_EVENT_FORMATS)
				e = read_formats(d, get(&o, 8), id == SEC_FTRACE_EVENTS);
			else if (id == SEC_CMDLINES) {
				struct cur s;

				e = open_section(d, get(&o, 8), SEC_CMDLINES, &s);
				if (e == 0) {
					uint64_t n = get(&s, 8);
					const void *t = take(&s, (size_t)n);

					free(d->cmdlines);
					d->cmdlines = t ? strndup(t, (size_t)n) : NULL;
				}
			} else if (id == OPT_BUFFER && !d->cpus) {
				e = read_buffer_option(d, &o);
			}
			if (e == -ENOTSUP) {
				no_unpack(d, err, errlen);
				return e;
			}
			if (e < 0) {
				snprintf(err, errlen, "bad option %u", id);
				return e;
			}
		}
		if (c.bad) {
			snprintf(err, errlen, "truncated options section");
			return -EINVAL;
		}
		off = next;
	}
	return 0;
}

int uet_dat_read(const char *path, struct uet_dat *ret, char *err, size_t errlen)
{
	struct uet_dat d = { 0 };
	struct stat st;
	struct cur c;
	size_t got = 0;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		return e;
	}
	if (fstat(fd, &st) < 0 || !(d.buf = malloc((size_t)st.st_size + 1))) {
		e = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		close(fd);
		return e;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, d.buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			e = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "read: %s", strerror(-e));
			close(fd);
			free(d.buf);
			return e;
		}
		got += (size_t)n;
	}
	close(fd);
	d.len = got;
	c = (struct cur){ d.buf, d.len, 0, false };
	e = -EINVAL;
	if (d.len < sizeof(magic) || memcmp(take(&c, sizeof(magic)), magic, sizeof(magic))) {
		snprintf(err, errlen, "not a trace.dat file");
		goto fail;
	}
	if (strcmp(getstr(&c), "7") != 0) {
		snprintf(err, errlen, "trace.dat version other than 7 (trace-cmd convert --file-version 7)");
		e = -ENOTSUP;
		goto fail;
	}
	if (get(&c, 1) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) || get(&c, 1) != sizeof(long)) {
		snprintf(err, errlen, "recorded on a machine of another byte order or long size");
		e = -ENOTSUP;
		goto fail;
	}
	d.page_size = (unsigned int)get(&c, 4);
	snprintf(d.compression, sizeof(d.compression), "%s", getstr(&c));
	getstr(&c);
	if (strcmp(d.compression, "none") != 0) {
#ifdef HAVE_ZSTD
		bool can = strcmp(d.compression, "zstd") == 0;
#else
		bool can = false;
#endif
		if (!can) {
			no_unpack(&d, err, errlen);
			e = -ENOTSUP;
			goto fail;
		}
	}
	e = read_options(&d, get(&c, 8), err, errlen);
	if (e < 0)
		goto fail;
	if (c.bad) {
		snprintf(err, errlen, "truncated header");
		e = -EINVAL;
		goto fail;
	}
	*ret = d;
	return 0;
fail:
	uet_dat_free(&d);
	return e;
}

void uet_dat_free(struct uet_dat *d)
{
	for (size_t i = 0; i < d->nunpacked; i++)
		free(d->unpacked[i]);
	free(d->unpacked);
	free(d->buf);
	free(d->cpus);
	free(d->formats);
	free(d->cmdlines);
	memset(d, 0, sizeof(*d));
}
