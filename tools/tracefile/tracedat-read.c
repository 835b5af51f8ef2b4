// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace.dat v7 reader of userevents report (and of the fuzz target):
 * bounds-checked cursors over the file in memory, the options sections and
 * the sections they point at (event formats, cmdlines, the flyrecord
 * buffer), zstd-compressed sections and CPU data when built with libzstd.
 * Every size and offset a file claims is checked before use.  Which kind
 * a file is, trace.dat or perf.data, recording-read.c says, above this
 * reader and perfdata-read.c.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "tracedat.h"

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
	if ((flags & UET_DAT_SEC_FL_COMPRESSED) && id != UET_DAT_OPT_BUFFER) {
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
	int e = open_section(d, off, ftrace ? UET_DAT_SEC_FTRACE_EVENTS : UET_DAT_SEC_EVENT_FORMATS,
			     &c);

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
	const char *name = getstr(o), *clock = getstr(o);
	unsigned int page_size, ncpus;
	struct span *spans;
	struct cur sec;
	int e;

	page_size = (unsigned int)get(o, 4);
	ncpus = (unsigned int)get(o, 4);
	if (o->bad)
		return -EINVAL;
	if (name[0])
		return 0;	/* instances other than the top one: not ours */
	snprintf(d->clock, sizeof(d->clock), "%s", clock);
	/* A page holds at least its header; the option holds every CPU's entry. */
	if (page_size < UET_DAT_PAGE_HDR) {
		snprintf(err, errlen, "buffer option: page size %u", page_size);
		return -EINVAL;
	}
	if (ncpus > (o->len - o->pos) / BUFFER_CPU_ENTRY) {
		snprintf(err, errlen, "buffer option: %u CPUs in %zu bytes", ncpus, o->len);
		return -EINVAL;
	}
	e = open_section(d, fly, UET_DAT_OPT_BUFFER, &sec);
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
	unsigned int bit = 1u << (id - UET_DAT_SEC_STRINGS);
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
			if (id == UET_DAT_OPT_DONE) {
				next = get(&o, 8);
				break;
			}
			e = 0;
			if ((id == UET_DAT_SEC_FTRACE_EVENTS || id == UET_DAT_SEC_EVENT_FORMATS) && once(d, id)) {
				e = read_formats(d, get(&o, 8), id == UET_DAT_SEC_FTRACE_EVENTS);
			} else if (id == UET_DAT_SEC_CMDLINES && once(d, id)) {
				struct cur s;

				e = open_section(d, get(&o, 8), UET_DAT_SEC_CMDLINES, &s);
				if (e == 0) {
					uint64_t n = get(&s, 8);
					const void *t = take(&s, (size_t)n);

					d->cmdlines = t ? strndup(t, (size_t)n) : NULL;
					if (t && !d->cmdlines)
						e = -ENOMEM;
					/* Ours: the processes of the threads after them. */
					if (e == 0 && t && s.len - s.pos > sizeof(UET_DAT_TGIDS_TAG) &&
					    memcmp(s.p + s.pos, UET_DAT_TGIDS_TAG,
						   sizeof(UET_DAT_TGIDS_TAG)) == 0) {
						take(&s, sizeof(UET_DAT_TGIDS_TAG));
						n = get(&s, 8);
						t = take(&s, (size_t)n);
						d->tgids = t ? strndup(t, (size_t)n) : NULL;
						if (t && !d->tgids)
							e = -ENOMEM;
					}
				}
			} else if (id == UET_DAT_OPT_BUFFER && !d->cpus) {
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

/*
 * What a file that is no trace.dat holds, said in the refusal: most often
 * run -o's or stream's output, text or JSON lines, taken for a recording.
 */
static const char *what_it_is(const uint8_t *buf, size_t len)
{
	size_t i, n = len < 4096 ? len : 4096;

	for (i = 0; i < n && isspace(buf[i]); i++)
		;
	if (i == n)
		return "empty";
	if (buf[i] == '{' || buf[i] == '[')
		return "JSON, as stream --json writes";
	/* Bytes past ASCII are text too: UTF-8 (a string field's). */
	for (; i < n; i++)
		if (buf[i] < 0x80 && !isprint(buf[i]) && !isspace(buf[i]))
			return "not text either";
	return "text, as run -o and stream write";
}

/* Index the file in @d->buf; on failure the caller frees @d. */
int uet_dat_parse(struct uet_dat *d, char *err, size_t errlen)
{
	struct cur c = { d->buf, d->len, 0, false };
	int e;

	if (errlen)
		err[0] = '\0';
	if (d->len < UET_DAT_MAGIC_LEN ||
	    memcmp(take(&c, UET_DAT_MAGIC_LEN), UET_DAT_MAGIC, UET_DAT_MAGIC_LEN)) {
		snprintf(err, errlen, "not a trace.dat file (%s); "
			 "userevents record -o FILE -- CMD makes one report reads (or a perf.data)",
			 what_it_is(d->buf, d->len));
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

void uet_dat_free(struct uet_dat *d)
{
	for (size_t i = 0; i < d->nunpacked; i++)
		free(d->unpacked[i]);
	free(d->unpacked);
	free(d->buf);
	free(d->cpus);
	free(d->formats);
	free(d->cmdlines);
	free(d->tgids);
	memset(d, 0, sizeof(*d));
}
