// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tools/perfdata-read: a perf.data of tracepoints read as a trace.dat
 * (perfdata.h).  Every length the file claims is checked against the file
 * and against the bounds of perfdata.h before it is used; anything else is
 * -EINVAL with a message, never a read past the buffer.
 *
 * The samples of each CPU are sorted by time (perf writes them in rounds,
 * not in order) and packed into ring-buffer pages (core/rbpage.h) as the
 * kernel would have held them; a LOST or LOST_SAMPLES record becomes the
 * missed count of the page after it on its CPU; COMM records become the
 * task names (and the threads' processes) beside those of the tracing data.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"
#include "rbpage.h"

#define HEADER_SIZE 104
#define PAGE UE_RB_PAGE_SIZE_MAX
#define CPUS_MAX 4096
#ifndef PERF_RECORD_LOST_SAMPLES
#define PERF_RECORD_LOST_SAMPLES 13
#endif
#define PERF_RECORD_AUXTRACE 71
#define PERF_RECORD_COMPRESSED 81

struct sec {
	uint64_t off, size;
};

struct attr {
	uint32_t type;
	uint64_t config, sample_type;
	bool id_all;
	uint64_t *ids;
	size_t nids;
};

/* One sample, or a loss (@data NULL, @lost its count), of a CPU. */
struct item {
	uint64_t ts, seq, lost;
	const uint8_t *data;
	uint32_t len;
};

struct cpu_items {
	struct item *v;
	size_t n, cap;
};

struct rd {
	const uint8_t *p;		/* the file (a copy, d->buf) */
	size_t len;
	struct attr *attrs;
	size_t nattrs;
	struct cpu_items *cpus;		/* by CPU number, CPUS_MAX */
	unsigned int maxcpu;
	uint64_t seq, nsamples;
	struct comm {
		int32_t tid;
		size_t seq;
		char name[17];
	} *commv;			/* COMM records, in file order */
	size_t ncomm, commv_cap;
	char *tgids;			/* "TID PID\n" lines */
	size_t tgids_len, tgids_cap;
	char *err;
	size_t errlen;
};

static int fail(struct rd *r, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return e;
}

/* @n bytes at @off are in the file. */
static bool in_file(const struct rd *r, uint64_t off, uint64_t n)
{
	return off <= r->len && n <= r->len - off;
}

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

bool uet_perf_is(const void *buf, size_t len)
{
	return len >= 8 && memcmp(buf, UET_PERF_MAGIC, 8) == 0;
}

static int read_attrs(struct rd *r, struct sec attrs, uint64_t attr_size)
{
	size_t n;

	if (attr_size < 64 + 16 || attr_size > 4096 || attrs.size % attr_size ||
	    !in_file(r, attrs.off, attrs.size))
		return fail(r, -EINVAL, "malformed attributes section");
	n = attrs.size / attr_size;
	if (n > UET_PERF_EVENTS_MAX)
		return fail(r, -E2BIG, "%zu events: more than %d", n, UET_PERF_EVENTS_MAX);
	r->attrs = calloc(n + 1, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *a = r->p + attrs.off + i * attr_size;
		struct sec ids = { u64_at(a + attr_size - 16), u64_at(a + attr_size - 8) };
		struct attr *t = &r->attrs[i];

		t->type = u32_at(a);
		t->config = u64_at(a + 8);
		t->sample_type = u64_at(a + 24);
		/* The bit field after the read format: sample_id_all is bit 18. */
		t->id_all = (u64_at(a + 40) >> 18) & 1;
		if (ids.size % 8 || ids.size > 8 * CPUS_MAX * 8 || !in_file(r, ids.off, ids.size))
			return fail(r, -EINVAL, "malformed ids of event %zu", i);
		t->nids = ids.size / 8;
		t->ids = calloc(t->nids + 1, sizeof(*t->ids));
		if (!t->ids)
			return -ENOMEM;
		memcpy(t->ids, r->p + ids.off, t->nids * 8);
		r->nattrs++;
	}
	if (!r->nattrs)
		return fail(r, -EINVAL, "no events");
	return 0;
}

static struct attr *attr_by_id(struct rd *r, uint64_t id)
{
	for (size_t i = 0; i < r->nattrs; i++)
		for (size_t k = 0; k < r->attrs[i].nids; k++)
			if (r->attrs[i].ids[k] == id)
				return &r->attrs[i];
	return NULL;
}

/* ---- the tracing data ---- */

struct td {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static const uint8_t *td_take(struct td *t, size_t n)
{
	const uint8_t *at = t->p + t->off;

	if (t->bad || n > t->len - t->off) {
		t->bad = true;
		return NULL;
	}
	t->off += n;
	return at;
}

static uint64_t td_u(struct td *t, size_t n)
{
	const uint8_t *at = td_take(t, n);

	return !at ? 0 : n == 8 ? u64_at(at) : u32_at(at);
}

static const char *td_string(struct td *t)
{
	const uint8_t *at = t->p + t->off, *nul;

	if (t->bad || !(nul = memchr(at, 0, t->len - t->off))) {
		t->bad = true;
		return NULL;
	}
	t->off += (size_t)(nul - at) + 1;
	return (const char *)at;
}

static int add_format(struct uet_dat *d, const char *system, const uint8_t *text, size_t len)
{
	struct uet_dat_text *nv;

	if (d->nformats >= UET_DAT_FORMATS_MAX)
		return -E2BIG;
	nv = realloc(d->formats, (d->nformats + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	d->formats = nv;
	d->formats[d->nformats++] = (struct uet_dat_text){ system, (char *)text, len };
	return 0;
}

/* perf's tracing data (util/trace-event-read.c): formats and task names into @d. */
static int read_tracing_data(struct rd *r, struct uet_dat *d, struct sec s)
{
	struct td t = { r->p + s.off, s.size, 0, false };
	const uint8_t *magic = td_take(&t, 10);
	const char *version = td_string(&t);
	const uint8_t *el = td_take(&t, 2);
	uint64_t n, systems;
	int e;

	if (!magic || memcmp(magic, "\027\010\104tracing", 10) != 0 || !version || !el)
		return fail(r, -EINVAL, "malformed tracing data");
	if (el[0] != 0 || el[1] != 8)
		return fail(r, -ENOTSUP, "tracing data of a big-endian or 32-bit machine");
	td_u(&t, 4);	/* page size */
	if (!(magic = td_take(&t, 12)) || memcmp(magic, "header_page", 12) != 0)
		return fail(r, -EINVAL, "tracing data without header_page");
	td_take(&t, td_u(&t, 8));
	if (!(magic = td_take(&t, 13)) || memcmp(magic, "header_event", 13) != 0)
		return fail(r, -EINVAL, "tracing data without header_event");
	td_take(&t, td_u(&t, 8));
	n = td_u(&t, 4);
	for (uint64_t i = 0; i < n && !t.bad; i++) {
		uint64_t size = td_u(&t, 8);
		const uint8_t *text = td_take(&t, size);

		if (text && (e = add_format(d, "ftrace", text, size)) < 0)
			return e;
	}
	systems = td_u(&t, 4);
	for (uint64_t i = 0; i < systems && !t.bad; i++) {
		const char *sys = td_string(&t);

		n = td_u(&t, 4);
		for (uint64_t k = 0; k < n && !t.bad; k++) {
			uint64_t size = td_u(&t, 8);
			const uint8_t *text = td_take(&t, size);

			if (text && (e = add_format(d, sys, text, size)) < 0)
				return e == -E2BIG ? fail(r, e, "more than %d formats", UET_DAT_FORMATS_MAX) : e;
		}
	}
	td_take(&t, td_u(&t, 4));	/* kallsyms */
	td_take(&t, td_u(&t, 4));	/* printk formats */
	if (!t.bad && strtod(version, NULL) >= 0.6 && t.off < t.len) {
		uint64_t size = td_u(&t, 8);
		const uint8_t *text = td_take(&t, size);

		if (text && size) {
			d->cmdlines = malloc(size + 1);
			if (!d->cmdlines)
				return -ENOMEM;
			memcpy(d->cmdlines, text, size);
			d->cmdlines[size] = '\0';
		}
	}
	if (t.bad)
		return fail(r, -EINVAL, "truncated tracing data");
	return 0;
}

/* ---- the data section ---- */

static int grow(void *vp, size_t *cap, size_t need, size_t each)
{
	void **v = vp, *nv;
	size_t ncap = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nv = realloc(*v, ncap * each);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

static int add_item(struct rd *r, unsigned int cpu, struct item it)
{
	struct cpu_items *c;

	if (cpu >= CPUS_MAX)
		return fail(r, -EINVAL, "CPU %u: more than %d", cpu, CPUS_MAX);
	c = &r->cpus[cpu];
	if (grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0)
		return -ENOMEM;
	it.seq = r->seq++;
	c->v[c->n++] = it;
	if (cpu > r->maxcpu)
		r->maxcpu = cpu;
	return 0;
}

static int add_line(char **buf, size_t *len, size_t *cap, const char *line)
{
	size_t n = strlen(line);

	if (grow(buf, cap, *len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(*buf + *len, line, n + 1);
	*len += n;
	return 0;
}

/* The sample_id_all fields at the end of a record that is not a sample: its CPU and time. */
static void id_trailer(const struct attr *a, const uint8_t *rec, size_t size, unsigned int *cpu,
		       uint64_t *ts)
{
	uint64_t st = a->sample_type;
	size_t end = size;

	if (!a->id_all)
		return;
	if (st & PERF_SAMPLE_IDENTIFIER)
		end -= 8;
	if (st & PERF_SAMPLE_CPU) {
		end -= 8;
		if (end >= 8 && end < size)
			*cpu = u32_at(rec + end);
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		end -= 8;
	if (st & PERF_SAMPLE_ID)
		end -= 8;
	if (st & PERF_SAMPLE_TIME) {
		end -= 8;
		if (end >= 8 && end < size)
			*ts = u64_at(rec + end);
	}
}

/*
 * The attribute of a record: the only one, or the one its id names (perf
 * gives every attribute the same sample type): IDENTIFIER first in a
 * sample and last in another record; else ID, after IP, TID, TIME and ADDR
 * in a sample, before STREAM_ID and CPU at the end of another record.
 */
static struct attr *attr_of(struct rd *r, const uint8_t *rec, size_t size, bool sample)
{
	uint64_t st = r->attrs[0].sample_type;
	size_t pos;

	if (r->nattrs == 1)
		return &r->attrs[0];
	if (st & PERF_SAMPLE_IDENTIFIER)
		pos = sample ? 8 : size - 8;
	else if (!(st & PERF_SAMPLE_ID) || (!sample && !r->attrs[0].id_all))
		return NULL;
	else if (sample)
		pos = 8 + 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			       !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
	else
		pos = size - 8 * (1 + !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU));
	if (pos < 8 || pos > size || size - pos < 8)
		return NULL;
	return attr_by_id(r, u64_at(rec + pos));
}

static int read_sample(struct rd *r, const uint8_t *rec, size_t size)
{
	/* The fixed fields before the read values, in the order of the record. */
	static const uint64_t fixed[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,       PERF_SAMPLE_TIME,
		PERF_SAMPLE_ADDR,	PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
		PERF_SAMPLE_PERIOD,
	};
	struct attr *a = attr_of(r, rec, size, true);
	size_t off = 8;
	uint64_t st, ts = 0;
	unsigned int cpu = 0;
	int32_t pid = 0, tid = 0;
	uint32_t raw;

	if (!a || a->type != PERF_TYPE_TRACEPOINT)
		return 0;	/* not a tracepoint's sample: not ours to show */
	st = a->sample_type;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!(st & fixed[i]))
			continue;
		if (size - off < 8)
			return fail(r, -EINVAL, "truncated sample");
		if (fixed[i] == PERF_SAMPLE_TID) {
			pid = (int32_t)u32_at(rec + off);
			tid = (int32_t)u32_at(rec + off + 4);
		} else if (fixed[i] == PERF_SAMPLE_TIME) {
			ts = u64_at(rec + off);
		} else if (fixed[i] == PERF_SAMPLE_CPU) {
			cpu = u32_at(rec + off);
		}
		off += 8;
	}
	if (st & PERF_SAMPLE_READ)
		return fail(r, -ENOTSUP, "samples with PERF_SAMPLE_READ (perf record -s)");
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t n;

		if (size - off < 8)
			return fail(r, -EINVAL, "truncated sample");
		n = u64_at(rec + off);
		off += 8;
		if (n > (size - off) / 8)
			return fail(r, -EINVAL, "truncated call chain");
		off += n * 8;
	}
	if (!(st & PERF_SAMPLE_RAW))
		return 0;
	if (size - off < 4 || (raw = u32_at(rec + off)) > size - off - 4)
		return fail(r, -EINVAL, "truncated sample");
	off += 4;
	/* The ring buffer's records: at least struct trace_entry, at most a page's room. */
	if (raw < 8 || raw > PAGE - UE_RB_PAGE_HDR - 16)
		return 0;
	if (++r->nsamples > UET_PERF_SAMPLES_MAX)
		return fail(r, -E2BIG, "more than %llu samples",
			    (unsigned long long)UET_PERF_SAMPLES_MAX);
	if (tid && pid && tid != pid) {
		char line[48];

		snprintf(line, sizeof(line), "%d %d\n", tid, pid);
		if (add_line(&r->tgids, &r->tgids_len, &r->tgids_cap, line) < 0)
			return -ENOMEM;
	}
	return add_item(r, cpu, (struct item){ .ts = ts, .data = rec + off, .len = raw });
}

static int read_data(struct rd *r, struct sec data)
{
	uint64_t off = data.off, end = data.off + data.size;

	while (off + 8 <= end) {
		const uint8_t *rec = r->p + off;
		uint32_t type = u32_at(rec);
		uint16_t size;
		int e = 0;

		memcpy(&size, rec + 6, 2);
		if (size < 8 || off + size > end)
			return fail(r, -EINVAL, "malformed record at %llu", (unsigned long long)off);
		if (type == PERF_RECORD_SAMPLE) {
			e = read_sample(r, rec, size);
		} else if (type == PERF_RECORD_LOST || type == PERF_RECORD_LOST_SAMPLES) {
			size_t at = type == PERF_RECORD_LOST ? 16 : 8;
			struct attr *a = attr_of(r, rec, size, false);
			unsigned int cpu = 0;
			uint64_t ts = 0;

			if (size >= at + 8) {
				if (a)
					id_trailer(a, rec, size, &cpu, &ts);
				e = add_item(r, cpu, (struct item){ .ts = ts, .lost = u64_at(rec + at) });
			}
		} else if (type == PERF_RECORD_COMM && size >= 16) {
			struct comm *c;

			if (grow(&r->commv, &r->commv_cap, r->ncomm + 1, sizeof(*r->commv)) < 0)
				return -ENOMEM;
			c = &r->commv[r->ncomm];
			*c = (struct comm){ .tid = (int32_t)u32_at(rec + 12), .seq = r->ncomm };
			memcpy(c->name, rec + 16, size - 16 < 16 ? size - 16 : 16);
			c->name[16] = '\0';
			c->name[strcspn(c->name, "\n")] = '\0';
			r->ncomm++;
		} else if (type == PERF_RECORD_AUXTRACE && size >= 16) {
			/* Its trace follows the record: skipped with it. */
			uint64_t aux = u64_at(rec + 8);

			if (aux > end - off - size)
				return fail(r, -EINVAL, "malformed AUXTRACE record");
			off += aux;
		} else if (type == PERF_RECORD_COMPRESSED) {
			return fail(r, -ENOTSUP, "compressed records (perf record -z): "
						 "perf inject -i FILE -o PLAIN makes a plain copy");
		}
		if (e < 0)
			return e;
		off += size;
	}
	return 0;
}

/* ---- pages ---- */

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The pages of one CPU being made: each is filled in @page, then appended to @buf. */
struct pages {
	uint8_t *buf, page[PAGE];
	size_t used, cap;	/* pages in @buf, and room */
	struct ue_rbpage p;
	uint64_t missed;	/* lost before the page being filled */
};

static int page_out(struct pages *g)
{
	if (grow(&g->buf, &g->cap, (g->used + 1) * PAGE, 1) < 0)
		return -ENOMEM;
	ue_rbpage_finish(&g->p, g->missed);
	memcpy(g->buf + g->used++ * PAGE, g->page, PAGE);
	g->missed = 0;
	ue_rbpage_init(&g->p, g->page, PAGE);
	return 0;
}

/* A CPU's items as pages of PAGE bytes (into d->unpacked). */
static int cpu_pages(struct uet_dat *d, struct cpu_items *c, unsigned int cpu)
{
	struct pages *g = calloc(1, sizeof(*g));
	void **nv;
	int e = 0;

	if (!g)
		return -ENOMEM;
	qsort(c->v, c->n, sizeof(*c->v), cmp_item);
	ue_rbpage_init(&g->p, g->page, PAGE);
	for (size_t i = 0; i < c->n && e == 0; i++) {
		const struct item *it = &c->v[i];

		if (!it->data) {
			/* A loss belongs before the next record: the page so far goes out first. */
			if (g->p.events)
				e = page_out(g);
			g->missed = g->missed + it->lost < g->missed ? UINT64_MAX : g->missed + it->lost;
			g->p.reserve = 8;
			continue;
		}
		if (ue_rbpage_add(&g->p, it->ts, it->data, it->len) == -ENOSPC) {
			e = page_out(g);
			if (e == 0)
				ue_rbpage_add(&g->p, it->ts, it->data, it->len);
		}
	}
	if (e == 0 && (g->p.events || g->missed))
		e = page_out(g);
	nv = e ? NULL : realloc(d->unpacked, (d->nunpacked + 1) * sizeof(*nv));
	if (!nv) {
		free(g->buf);
		free(g);
		return e ? e : -ENOMEM;
	}
	d->unpacked = nv;
	d->unpacked[d->nunpacked++] = g->buf;
	if (g->used)
		d->cpus[d->ncpus++] = (struct uet_dat_cpu){ cpu, g->buf, (uint64_t)g->used * PAGE };
	free(g);
	return 0;
}

static void rd_free(struct rd *r)
{
	for (size_t i = 0; i < r->nattrs; i++)
		free(r->attrs[i].ids);
	free(r->attrs);
	for (unsigned int c = 0; r->cpus && c <= r->maxcpu; c++)
		free(r->cpus[c].v);
	free(r->cpus);
	free(r->commv);
	free(r->tgids);
}

/* By thread, its last name first. */
static int cmp_comm(const void *a, const void *b)
{
	const struct comm *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/* Each thread's last name (an exec renames it: perf-exec, then the program) as "TID COMM" lines. */
static char *comm_lines(struct rd *r, size_t *ret_len)
{
	size_t cap = r->ncomm * 32 + 1, len = 0;
	char *t = malloc(cap);

	if (!t)
		return NULL;
	qsort(r->commv, r->ncomm, sizeof(*r->commv), cmp_comm);
	for (size_t i = 0; i < r->ncomm; i++)
		if (i == 0 || r->commv[i].tid != r->commv[i - 1].tid)
			len += (size_t)snprintf(t + len, cap - len, "%d %s\n", (int)r->commv[i].tid,
						r->commv[i].name);
	*ret_len = len;
	return t;
}

int uet_perf_read_mem(const void *buf, size_t len, struct uet_dat *ret, char *err, size_t errlen)
{
	struct uet_dat d = { 0 };
	struct rd r = { .err = err, .errlen = errlen };
	struct sec attrs, data, feats;
	uint64_t bits[4], attr_size;
	int e;

	if (!uet_perf_is(buf, len)) {
		snprintf(err, errlen, "not a perf.data file");
		return -EINVAL;
	}
	if (len < 16 || u64_at((const uint8_t *)buf + 8) != HEADER_SIZE || len < HEADER_SIZE) {
		snprintf(err, errlen, "a perf.data written to a pipe (perf record -o -): "
				      "perf inject -i FILE -o PLAIN makes a file");
		return -ENOTSUP;
	}
	d.buf = malloc(len);
	r.cpus = calloc(CPUS_MAX, sizeof(*r.cpus));
	if (!d.buf || !r.cpus) {
		e = -ENOMEM;
		goto out;
	}
	memcpy(d.buf, buf, len);
	d.len = len;
	r.p = d.buf;
	r.len = len;
	attr_size = u64_at(r.p + 16);
	attrs = (struct sec){ u64_at(r.p + 24), u64_at(r.p + 32) };
	data = (struct sec){ u64_at(r.p + 40), u64_at(r.p + 48) };
	memcpy(bits, r.p + 72, sizeof(bits));
	e = !in_file(&r, data.off, data.size) ? fail(&r, -EINVAL, "malformed data section") :
						  read_attrs(&r, attrs, attr_size);
	if (e < 0)
		goto out;
	/* The features' table follows the data; the tracing data is the first feature. */
	feats = (struct sec){ data.off + data.size, 0 };
	if (!(bits[0] & (1u << UET_PERF_FEAT_TRACING_DATA)) || !in_file(&r, feats.off, 32)) {
		e = fail(&r, -ENOTSUP, "no tracing data: not a recording of tracepoints");
		goto out;
	}
	/* Bit 0 (reserved) is never set: the first entry is the tracing data's. */
	memcpy(&feats, r.p + feats.off + (bits[0] & 1 ? 16 : 0), 16);
	if (!in_file(&r, feats.off, feats.size)) {
		e = fail(&r, -EINVAL, "malformed tracing data section");
		goto out;
	}
	e = read_tracing_data(&r, &d, feats);
	if (!e)
		e = read_data(&r, data);
	if (e < 0)
		goto out;
	/* COMM records name the threads the tracing data's task names may not. */
	if (r.ncomm) {
		size_t n = d.cmdlines ? strlen(d.cmdlines) : 0, clen = 0;
		char *lines = comm_lines(&r, &clen), *all = lines ? malloc(n + clen + 1) : NULL;

		if (!all) {
			free(lines);
			e = -ENOMEM;
			goto out;
		}
		memcpy(all, lines, clen);
		memcpy(all + clen, d.cmdlines ? d.cmdlines : "", n + 1);
		free(lines);
		free(d.cmdlines);
		d.cmdlines = all;
	}
	d.tgids = r.tgids;
	r.tgids = NULL;
	d.any_system = true;
	d.page_size = PAGE;
	snprintf(d.compression, sizeof(d.compression), "none");
	d.cpus = calloc(r.maxcpu + 2, sizeof(*d.cpus));
	if (!d.cpus) {
		e = -ENOMEM;
		goto out;
	}
	for (unsigned int c = 0; c <= r.maxcpu && e == 0; c++)
		if (r.cpus[c].n)
			e = cpu_pages(&d, &r.cpus[c], c);
out:
	rd_free(&r);
	if (e < 0) {
		if (e == -ENOMEM && !err[0])
			snprintf(err, errlen, "%s", strerror(ENOMEM));
		uet_dat_free(&d);
		return e;
	}
	*ret = d;
	return 0;
}
