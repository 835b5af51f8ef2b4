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

/*
 * Count @len more unpacked bytes against the file's budget: a few KiB of
 * zstd may claim gigabytes, and a section may be pointed at many times.
 */
static int unpack_budget(struct uet_dat *d, uint64_t len)
{
	if (len > UET_DAT_UNPACK_MAX - d->unpacked_bytes)
		return -EFBIG;
	d->unpacked_bytes += len;
	return 0;
}

/*
 * @zlen bytes at @z unpacked into a new buffer of exactly @len bytes, kept
 * in @d.  Return: 0, -ENOTSUP (not zstd, or no libzstd), -EFBIG (over the
 * budget), -EINVAL, -ENOMEM.
 */
static int unpack(struct uet_dat *d, const void *z, size_t zlen, size_t len, uint8_t **ret)
{
	uint8_t *out;
	int e;

	if (strcmp(d->compression, "zstd") != 0)
		return -ENOTSUP;
	e = unpack_budget(d, len);
	if (e < 0)
		return e;
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
 * The pages of one CPU from a compressed file, @size bytes at @off:
 * "<u32 chunks>" then per chunk "<u32 size><u32 unpacked size><data>",
 * unpacked into one buffer.
 */
static int unpack_cpu(struct uet_dat *d, uint64_t off, uint64_t size, struct uet_dat_cpu *cpu)
{
	struct cur c = { d->buf + off, (size_t)size, 0, false };
	uint32_t n;
	uint64_t total = 0;
	size_t at;
	uint8_t *out;
	int e;

	n = (uint32_t)get(&c, 4);
	at = c.pos;
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		uint32_t zlen = (uint32_t)get(&c, 4);

		total += get(&c, 4);
		take(&c, zlen);
	}
	if (c.bad)
		return -EINVAL;
	e = unpack_budget(d, total);
	if (e < 0)
		return e;
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
	struct uet_dat_text *n = d->formats;

	if (d->nformats >= UET_DAT_FORMATS_MAX)
		return -E2BIG;
	/* Room doubles at each power of two: many small formats cost no quadratic copying. */
	if (!(d->nformats & (d->nformats - 1))) {
		n = realloc(d->formats, (d->nformats ? d->nformats * 2 : 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
	}
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

/* Bytes of one CPU's entry in a BUFFER option: cpu, offset, size. */
#define BUFFER_CPU_ENTRY 20

/* Where one CPU's data lies in the file. */
struct span {
	uint64_t off, size;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Whether the non-empty spans of @s overlap (sorts them): CPUs sharing
 * their pages would replay the same records once per CPU, a file of a few
 * KiB growing into a report without end.
 */
static bool spans_overlap(struct span *s, unsigned int n)
{
	uint64_t end = 0;

	qsort(s, n, sizeof(*s), span_cmp);
	for (unsigned int i = 0; i < n; i++) {
		if (!s[i].size)
			continue;
		if (s[i].off < end)
			return true;
		end = s[i].off + s[i].size;
	}
	return false;
}

static int read_buffer_option(struct uet_dat *d, struct cur *o, char *err, size_t errlen)
{
	uint64_t fly = get(o, 8);
	const char *name = getstr(o);
	unsigned int page_size, ncpus;
	struct span *spans;
	struct cur sec;
	int e;

	getstr(o);	/* clock */
	page_size = (unsigned int)get(o, 4);
	ncpus = (unsigned int)get(o, 4);
	if (o->bad)
		return -EINVAL;
	if (name[0])
		return 0;	/* instances other than the top one: not ours */
	/* A page holds at least its header; the option holds every CPU's entry. */
	if (page_size < UET_DAT_PAGE_HDR) {
		snprintf(err, errlen, "buffer option: page size %u", page_size);
		return -EINVAL;
	}
	if (ncpus > (o->len - o->pos) / BUFFER_CPU_ENTRY) {
		snprintf(err, errlen, "buffer option: %u CPUs in %zu bytes", ncpus, o->len);
		return -EINVAL;
	}
	e = open_section(d, fly, OPT_BUFFER, &sec);
	if (e < 0)
		return e;
	d->cpus = calloc(ncpus ? ncpus : 1, sizeof(*d->cpus));
	/* Twice: in the option's order, and a copy sorted by offset. */
	spans = calloc(ncpus ? 2 * (size_t)ncpus : 1, sizeof(*spans));
	if (!d->cpus || !spans) {
		free(spans);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < ncpus; i++) {
		d->cpus[i].cpu = (unsigned int)get(o, 4);
		spans[i].off = get(o, 8);
		spans[i].size = get(o, 8);
		/*
		 * Compressed, the size leaves out the count of chunks before
		 * them; an empty CPU has neither.
		 */
		if (strcmp(d->compression, "none") != 0 && spans[i].size &&
		    spans[i].size <= UINT64_MAX - 4)
			spans[i].size += 4;
		if (spans[i].off > d->len || spans[i].size > d->len - spans[i].off) {
			snprintf(err, errlen, "buffer option: data of CPU %u past the end of the file",
				 d->cpus[i].cpu);
			free(spans);
			return -EINVAL;
		}
	}
	memcpy(spans + ncpus, spans, ncpus * sizeof(*spans));
	if (spans_overlap(spans + ncpus, ncpus)) {
		snprintf(err, errlen, "buffer option: CPUs whose data overlap");
		free(spans);
		return -EINVAL;
	}
	d->page_size = page_size;
	d->ncpus = ncpus;
	for (unsigned int i = 0; i < ncpus; i++) {
		if (strcmp(d->compression, "none") != 0 && spans[i].size) {
			e = unpack_cpu(d, spans[i].off, spans[i].size, &d->cpus[i]);
			if (e < 0)
				break;
		} else {
			d->cpus[i].data = d->buf + spans[i].off;
			d->cpus[i].size = spans[i].size;
		}
	}
	free(spans);
	return e;
}

static void no_unpack(const struct uet_dat *d, char *err, size_t errlen)
{
	snprintf(err, errlen, "compressed with %s: %s (trace-cmd convert --compression none)",
		 d->compression,
		 strcmp(d->compression, "zstd") ? "not supported"
						: "this userevents was built without libzstd");
}

/*
 * Whether option @id (a section id) is met for the first time.  A file has
 * one of each: reading, and unpacking, a section again for every option
 * that points at it would cost without end.
 */
static bool once(struct uet_dat *d, uint16_t id)
{
	unsigned int bit = 1u << (id - SEC_STRINGS);
	bool first = !(d->seen & bit);

	d->seen |= bit;
	return first;
}

static int read_options(struct uet_dat *d, uint64_t off, char *err, size_t errlen)
{
	for (int sections = 0; off && sections < 64; sections++) {
		struct cur c;
		uint64_t next = 0;
		int e = open_section(d, off, 0, &c);

		if (e < 0) {
			snprintf(err, errlen, "%s options section at %llu",
				 off >= d->len ? "truncated file: no" : "bad", (unsigned long long)off);
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
			if ((id == SEC_FTRACE_EVENTS || id == SEC_EVENT_FORMATS) && once(d, id)) {
				e = read_formats(d, get(&o, 8), id == SEC_FTRACE_EVENTS);
			} else if (id == SEC_CMDLINES && once(d, id)) {
				struct cur s;

				e = open_section(d, get(&o, 8), SEC_CMDLINES, &s);
				if (e == 0) {
					uint64_t n = get(&s, 8);
					const void *t = take(&s, (size_t)n);

					d->cmdlines = t ? strndup(t, (size_t)n) : NULL;
					if (t && !d->cmdlines)
						e = -ENOMEM;
				}
			} else if (id == OPT_BUFFER && !d->cpus) {
				e = read_buffer_option(d, &o, err, errlen);
			}
			if (e == -ENOTSUP) {
				no_unpack(d, err, errlen);
				return e;
			}
			if (e == -EFBIG) {
				snprintf(err, errlen, "compressed data unpacking to more than %llu MiB",
					 (unsigned long long)(UET_DAT_UNPACK_MAX >> 20));
				return e;
			}
			if (e == -E2BIG) {
				snprintf(err, errlen, "more than %u event formats",
					 (unsigned int)UET_DAT_FORMATS_MAX);
				return e;
			}
			if (e == -ENOMEM) {
				snprintf(err, errlen, "%s", strerror(ENOMEM));
				return e;
			}
			if (e < 0) {
				if (errlen && !err[0])
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

/* Index the file in @d->buf; on failure the caller frees @d. */
static int parse(struct uet_dat *d, char *err, size_t errlen)
{
	struct cur c = { d->buf, d->len, 0, false };
	int e;

	if (errlen)
		err[0] = '\0';
	if (d->len < sizeof(magic) || memcmp(take(&c, sizeof(magic)), magic, sizeof(magic))) {
		snprintf(err, errlen, "not a trace.dat file");
		return -EINVAL;
	}
	if (strcmp(getstr(&c), "7") != 0) {
		snprintf(err, errlen, "trace.dat version other than 7 (trace-cmd convert --file-version 7)");
		return -ENOTSUP;
	}
	if (get(&c, 1) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) || get(&c, 1) != sizeof(long)) {
		snprintf(err, errlen, "recorded on a machine of another byte order or long size");
		return -ENOTSUP;
	}
	d->page_size = (unsigned int)get(&c, 4);
	snprintf(d->compression, sizeof(d->compression), "%s", getstr(&c));
	getstr(&c);
	if (strcmp(d->compression, "none") != 0) {
#ifdef HAVE_ZSTD
		bool can = strcmp(d->compression, "zstd") == 0;
#else
		bool can = false;
#endif
		if (!can) {
			no_unpack(d, err, errlen);
			return -ENOTSUP;
		}
	}
	e = read_options(d, get(&c, 8), err, errlen);
	if (e < 0)
		return e;
	if (c.bad) {
		snprintf(err, errlen, "truncated header");
		return -EINVAL;
	}
	return 0;
}

int uet_dat_read_mem(const void *buf, size_t len, struct uet_dat *ret, char *err, size_t errlen)
{
	struct uet_dat d = { 0 };
	int e;

	d.buf = malloc(len ? len : 1);
	if (!d.buf) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (len)
		memcpy(d.buf, buf, len);
	d.len = len;
	e = parse(&d, err, errlen);
	if (e < 0) {
		uet_dat_free(&d);
		return e;
	}
	*ret = d;
	return 0;
}

int uet_dat_read(const char *path, struct uet_dat *ret, char *err, size_t errlen)
{
	struct uet_dat d = { 0 };
	struct stat st;
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
	e = parse(&d, err, errlen);
	if (e < 0) {
		uet_dat_free(&d);
		return e;
	}
	*ret = d;
	return 0;
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
