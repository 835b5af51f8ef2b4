// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace.dat v7 writer of userevents record: the pieces of the file
 * (initial header, header-info, ftrace-events, event-formats, kallsyms,
 * printk and cmdlines sections, the flyrecord buffer, the options and
 * strings sections) and two ways to lay them out: the live file, valid at
 * every commit while pages come in, and its compact copy.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracedat.h"

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

static int pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	const uint8_t *c = p;

	while (len) {
		ssize_t n = pwrite(fd, c, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += n;
		off += (uint64_t)n;
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


/* Where the header keeps the options' offset: after magic, "7", 2 bytes, page size, "none", "". */
#define OPTS_PTR_AT (UET_DAT_MAGIC_LEN + 2 + 2 + 4 + 5 + 1)

/* The initial header; it points at no options yet. */
static void put_initial_header(struct bytes *b, unsigned int page_size)
{
	put(b, UET_DAT_MAGIC, UET_DAT_MAGIC_LEN);
	putstr(b, "7");
	put(b, (uint8_t[]){ __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ }, 1);
	put(b, (uint8_t[]){ sizeof(long) }, 1);
	put32(b, page_size);
	putstr(b, "none");
	putstr(b, "");
	put64(b, 0);
}

static void put_header_info(struct bytes *b, const struct uet_dat_meta *m)
{
	size_t at = section(b, UET_DAT_SEC_HEADER_INFO, str_id("headers"));

	putstr(b, "header_page");
	put64(b, m->header_page.len);
	put(b, m->header_page.text, m->header_page.len);
	putstr(b, "header_event");
	put64(b, m->header_event.len);
	put(b, m->header_event.text, m->header_event.len);
	section_end(b, at);
}

static void put_ftrace_events(struct bytes *b, const struct uet_dat_meta *m)
{
	size_t at = section(b, UET_DAT_SEC_FTRACE_EVENTS, str_id("ftrace events"));

	put32(b, (uint32_t)m->nftrace);
	for (size_t i = 0; i < m->nftrace; i++) {
		put64(b, m->ftrace[i].len);
		put(b, m->ftrace[i].text, m->ftrace[i].len);
	}
	section_end(b, at);
}

/* The formats, grouped by system: m->formats holds each system's run in one piece. */
static void put_event_formats(struct bytes *b, const struct uet_dat_meta *m)
{
	size_t at = section(b, UET_DAT_SEC_EVENT_FORMATS, str_id("events format"));
	size_t nsys_at = b->len;
	uint32_t nsys = 0;

	put32(b, 0);
	for (size_t i = 0; i < m->nformats;) {
		size_t j = i;

		while (j < m->nformats && strcmp(m->formats[j].system, m->formats[i].system) == 0)
			j++;
		putstr(b, m->formats[i].system);
		put32(b, (uint32_t)(j - i));
		for (; i < j; i++) {
			put64(b, m->formats[i].len);
			put(b, m->formats[i].text, m->formats[i].len);
		}
		nsys++;
	}
	if (!b->failed)
		memcpy(b->p + nsys_at, &nsys, 4);
	section_end(b, at);
}

/* kallsyms and printk: no kernel symbols or formats, an empty list. */
static void put_empty_list(struct bytes *b, uint16_t id, const char *desc)
{
	size_t at = section(b, id, str_id(desc));

	put32(b, 0);
	section_end(b, at);
}

static void put_cmdlines(struct bytes *b, const struct uet_dat_meta *m)
{
	size_t at = section(b, UET_DAT_SEC_CMDLINES, str_id("command lines"));

	put64(b, m->cmdlines.len);
	put(b, m->cmdlines.text, m->cmdlines.len);
	if (m->tgids.text) {
		putstr(b, UET_DAT_TGIDS_TAG);
		put64(b, m->tgids.len);
		put(b, m->tgids.text, m->tgids.len);
	}
	section_end(b, at);
}

/* Where the sections are in the file. */
struct offsets {
	uint64_t hdr, ftrace, formats, kallsyms, printk, cmdlines, fly;
};

/* Where one CPU's pages are. */
struct span {
	uint64_t off, size;
};

/* Every metadata section, @b starting at file offset @base. */
static void put_metadata(struct bytes *b, uint64_t base, const struct uet_dat_meta *m,
			 struct offsets *o)
{
	o->hdr = base + b->len;
	put_header_info(b, m);
	o->ftrace = base + b->len;
	put_ftrace_events(b, m);
	o->formats = base + b->len;
	put_event_formats(b, m);
	o->kallsyms = base + b->len;
	put_empty_list(b, UET_DAT_SEC_KALLSYMS, "kallsyms");
	o->printk = base + b->len;
	put_empty_list(b, UET_DAT_SEC_PRINTK, "printk");
	o->cmdlines = base + b->len;
	put_cmdlines(b, m);
}

/* The BUFFER option: the top instance's flyrecord buffer and each CPU's pages. */
static void put_buffer_option(struct bytes *b, uint64_t fly, const struct uet_dat_meta *m,
			      unsigned int page_size, const struct span *cpus)
{
	struct bytes buf = { 0 };
	uint32_t ncpus = m->ncpus;
	char clock[32];

	clock_name(&m->trace_clock, clock, sizeof(clock));
	put64(&buf, fly);
	putstr(&buf, "");
	putstr(&buf, clock);
	put32(&buf, page_size);
	put32(&buf, ncpus);
	for (uint32_t c = 0; c < ncpus; c++) {
		put32(&buf, c);
		put64(&buf, cpus[c].off);
		put64(&buf, cpus[c].size);
	}
	if (buf.failed)
		b->failed = true;
	else
		option(b, UET_DAT_OPT_BUFFER, buf.p, (uint32_t)buf.len);
	free(buf.p);
}

/* The options section, then the strings section; its size depends on @m alone. */
static void put_options(struct bytes *b, const struct offsets *o, const struct uet_dat_meta *m,
			unsigned int page_size, const struct span *cpus)
{
	uint32_t ncpus = m->ncpus;
	size_t start = b->len, at;

	section(b, 0, str_id("options"));
	option64(b, UET_DAT_SEC_HEADER_INFO, o->hdr);
	option64(b, UET_DAT_SEC_FTRACE_EVENTS, o->ftrace);
	option64(b, UET_DAT_SEC_EVENT_FORMATS, o->formats);
	option64(b, UET_DAT_SEC_KALLSYMS, o->kallsyms);
	option64(b, UET_DAT_SEC_PRINTK, o->printk);
	option64(b, UET_DAT_SEC_CMDLINES, o->cmdlines);
	if (m->trace_clock.text) {
		/* The option holds a string: the file's text, NUL-terminated. */
		put16(b, UET_DAT_OPT_TRACECLOCK);
		put32(b, (uint32_t)m->trace_clock.len + 1);
		put(b, m->trace_clock.text, m->trace_clock.len);
		put(b, "", 1);
	}
	option(b, UET_DAT_OPT_VERSION, "userevents", sizeof("userevents"));
	option(b, UET_DAT_OPT_CPUCOUNT, &ncpus, 4);
	/* Each CPU's text with its NUL, as trace-cmd record writes them. */
	for (uint32_t c = 0; m->cpustats && c < ncpus; c++)
		if (m->cpustats[c].text)
			option(b, UET_DAT_OPT_CPUSTAT, m->cpustats[c].text,
			       (uint32_t)m->cpustats[c].len + 1);
	put_buffer_option(b, o->fly, m, page_size, cpus);
	option64(b, UET_DAT_OPT_DONE, 0);
	set64(b, start + 8, b->len - (start + 16));
	at = section(b, UET_DAT_SEC_STRINGS, 0);
	put(b, strings, sizeof(strings) - 1);
	section_end(b, at);
}

static uint64_t align_up(uint64_t v, unsigned int to)
{
	return (v + to - 1) / to * to;
}

/* Copy @len bytes at @from in @in to @to in @out (the same file: not overlapping). */
static int copy_range(int in, uint64_t from, int out, uint64_t to, uint64_t len)
{
	static uint8_t buf[65536];

	/* In the kernel first (no copy through us; shared extents where the file system can). */
	while (len) {
		loff_t f = (loff_t)from, t = (loff_t)to;
		ssize_t n = copy_file_range(in, &f, out, &t, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		from += (uint64_t)n;
		to += (uint64_t)n;
		len -= (uint64_t)n;
	}
	while (len) {
		ssize_t n = pread(in, buf, len < sizeof(buf) ? (size_t)len : sizeof(buf),
				  (off_t)from);
		int e;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		e = pwrite_all(out, buf, (size_t)n, to);
		if (e < 0)
			return e;
		from += (uint64_t)n;
		to += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* The first room of a CPU's region in the live file (a hole until written). */
#define REGION_START (UINT64_C(256) << 20)

/* A CPU's region in the live file: @size bytes of pages used of @cap. */
struct region {
	uint64_t off, cap, size;
};

struct uet_dat_writer {
	int fd;
	unsigned int page_size;
	unsigned int ncpus;
	struct offsets off;
	uint64_t end;			/* where the next region or section goes */
	uint64_t written;		/* the file's size as we wrote it */
	uint64_t fly_size_at;		/* the size field of the flyrecord section */
	uint64_t slot[2];		/* the two places of the options */
	size_t slot_len;
	unsigned int next;		/* the slot the next commit writes */
	struct region *cpu;
	struct span *spans;		/* scratch for the options */
	unsigned long long pages;
	uint64_t region_start;		/* a region's first room (REGION_START) */
};

/* Write @b at @off of the live file. */
static int wr(struct uet_dat_writer *w, const struct bytes *b, uint64_t off)
{
	int e;

	if (b->failed)
		return -ENOMEM;
	e = pwrite_all(w->fd, b->p, b->len, off);
	if (e == 0 && off + b->len > w->written)
		w->written = off + b->len;
	return e;
}

/* Append a section built by @put at the end of the live file; its offset in *@at. */
static int append(struct uet_dat_writer *w, const struct uet_dat_meta *m,
		  void (*put_fn)(struct bytes *b, const struct uet_dat_meta *m), uint64_t *at)
{
	struct bytes b = { 0 };
	int e;

	put_fn(&b, m);
	e = wr(w, &b, w->end);
	if (e == 0) {
		*at = w->end;
		w->end += b.len;
	}
	free(b.p);
	return e;
}

int uet_dat_writer_commit(struct uet_dat_writer *w, const struct uet_dat_meta *m,
			  unsigned int changed)
{
	struct bytes b = { 0 };
	uint64_t fly_size, at;
	int e = 0;

	if (changed & UET_DAT_FORMATS)
		e = append(w, m, put_event_formats, &w->off.formats);
	if (e == 0 && (changed & UET_DAT_CMDLINES))
		e = append(w, m, put_cmdlines, &w->off.cmdlines);
	if (e < 0)
		return e;
	/* The flyrecord section spans its regions; readers check it stays in the file. */
	fly_size = w->written - (w->fly_size_at + 8);
	e = pwrite_all(w->fd, &fly_size, 8, w->fly_size_at);
	for (unsigned int c = 0; c < w->ncpus; c++)
		w->spans[c] = (struct span){ w->cpu[c].off, w->cpu[c].size };
	put_options(&b, &w->off, m, w->page_size, w->spans);
	if (e == 0 && b.len > w->slot_len)
		e = -EOVERFLOW;
	at = w->slot[w->next];
	if (e == 0)
		e = wr(w, &b, at);
	free(b.p);
	/* The switch: one aligned 8-byte write, whole or not at all. */
	if (e == 0)
		e = pwrite_all(w->fd, &at, 8, OPTS_PTR_AT);
	if (e == 0)
		w->next ^= 1;
	return e;
}

int uet_dat_writer_open(struct uet_dat_writer **ret, int fd, const struct uet_dat_meta *m,
			unsigned int page_size)
{
	struct uet_dat_writer *w = calloc(1, sizeof(*w));
	struct bytes b = { 0 }, probe = { 0 };
	size_t at;
	int e = -ENOMEM;

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->page_size = page_size;
	w->ncpus = m->ncpus;
	w->region_start = REGION_START;
	w->cpu = calloc(m->ncpus + 1, sizeof(*w->cpu));
	w->spans = calloc(m->ncpus + 1, sizeof(*w->spans));
	if (!w->cpu || !w->spans)
		goto fail;
	put_initial_header(&b, page_size);
	put_metadata(&b, 0, m, &w->off);
	/* Two slots for the options: their size does not change with the offsets. */
	put_options(&probe, &w->off, m, page_size, w->spans);
	w->slot_len = probe.len;
	free(probe.p);
	w->slot[0] = b.len;
	w->slot[1] = b.len + w->slot_len;
	for (size_t i = 0; i < 2 * w->slot_len; i++)
		put(&b, "", 1);
	/* The flyrecord buffer: its pages start on a page boundary of the file. */
	w->off.fly = b.len;
	at = section(&b, UET_DAT_OPT_BUFFER, str_id("flyrecord data"));
	w->fly_size_at = at;
	/* Up to the first page boundary: a CPU without pages points there, inside the file. */
	while (b.len < align_up(b.len, page_size))
		put(&b, "", 1);
	w->end = b.len;
	for (unsigned int c = 0; c < m->ncpus; c++)
		w->cpu[c].off = w->end;
	e = wr(w, &b, 0);
	if (e == 0)
		e = uet_dat_writer_commit(w, m, 0);
	if (e < 0)
		goto fail;
	free(b.p);
	*ret = w;
	return 0;
fail:
	free(b.p);
	uet_dat_writer_free(w);
	return e;
}

/* Room for @len more bytes in @r: a region twice the size at the end, the pages copied. */
static int region_grow(struct uet_dat_writer *w, struct region *r, size_t len)
{
	/*
	 * Sparse: a region's room costs no disk until written, so it starts
	 * large and grows fourfold, and moving its pages (a copy in the way of
	 * the pages still to come) is rare.
	 */
	uint64_t cap = r->cap ? 4 * r->cap : w->region_start;
	uint64_t off = align_up(w->end, w->page_size);
	int e;

	while (cap < r->size + len)
		cap *= 2;
	e = copy_range(w->fd, r->off, w->fd, off, r->size);
	if (e < 0)
		return e;
	if (off + r->size > w->written)
		w->written = off + r->size;
	/* The last commit still points at the old region, left as it is. */
	r->off = off;
	r->cap = cap;
	w->end = off + cap;
	return 0;
}

int uet_dat_writer_page(struct uet_dat_writer *w, unsigned int cpu, const void *page, size_t len)
{
	struct region *r;
	int e;

	if (cpu >= w->ncpus)
		return -EINVAL;
	r = &w->cpu[cpu];
	if (r->size + len > r->cap) {
		e = region_grow(w, r, len);
		if (e < 0)
			return e;
	}
	e = pwrite_all(w->fd, page, len, r->off + r->size);
	if (e < 0)
		return e;
	r->size += len;
	if (r->off + r->size > w->written)
		w->written = r->off + r->size;
	w->pages++;
	return 0;
}

/*
 * The compact file's head into @b (header, metadata, the flyrecord section
 * with its size), the CPUs' pages laid out after it in w->spans; returns
 * where the data ends (the options go there).
 */
static uint64_t compact_head(struct uet_dat_writer *w, const struct uet_dat_meta *m,
			     struct bytes *b, struct offsets *o)
{
	uint64_t pos;
	size_t at;

	put_initial_header(b, w->page_size);
	put_metadata(b, 0, m, o);
	o->fly = b->len;
	at = section(b, UET_DAT_OPT_BUFFER, str_id("flyrecord data"));
	pos = align_up(b->len, w->page_size);
	for (unsigned int c = 0; c < w->ncpus; c++) {
		w->spans[c] = (struct span){ pos, w->cpu[c].size };
		pos += w->cpu[c].size;
	}
	set64(b, at, pos - (at + 8));
	return pos;
}

uint64_t uet_dat_writer_compact_size(struct uet_dat_writer *w, const struct uet_dat_meta *m)
{
	struct bytes b = { 0 };
	struct offsets o;
	uint64_t pos = compact_head(w, m, &b, &o);

	b.len = 0;
	put_options(&b, &o, m, w->page_size, w->spans);
	pos = b.failed ? UINT64_MAX : pos + b.len;
	free(b.p);
	return pos;
}

int uet_dat_writer_compact(struct uet_dat_writer *w, const struct uet_dat_meta *m, int fd)
{
	struct bytes b = { 0 };
	struct offsets o;
	uint64_t pos = compact_head(w, m, &b, &o);
	int e;

	e = b.failed ? -ENOMEM : pwrite_all(fd, b.p, b.len, 0);
	for (unsigned int c = 0; e == 0 && c < w->ncpus; c++)
		e = copy_range(w->fd, w->cpu[c].off, fd, w->spans[c].off, w->cpu[c].size);
	/* The options, after the data; the initial header points at them. */
	b.len = 0;
	put_options(&b, &o, m, w->page_size, w->spans);
	if (e == 0)
		e = b.failed ? -ENOMEM : pwrite_all(fd, b.p, b.len, pos);
	if (e == 0)
		e = pwrite_all(fd, &pos, 8, OPTS_PTR_AT);
	free(b.p);
	return e;
}

void uet_dat_writer_region_start(struct uet_dat_writer *w, uint64_t bytes)
{
	w->region_start = bytes > w->page_size ? bytes : w->page_size;
}

unsigned long long uet_dat_writer_pages(const struct uet_dat_writer *w)
{
	return w->pages;
}

void uet_dat_writer_free(struct uet_dat_writer *w)
{
	if (!w)
		return;
	free(w->cpu);
	free(w->spans);
	free(w);
}
