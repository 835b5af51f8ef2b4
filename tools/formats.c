// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Binary records for record, report and stream --json: event formats kept
 * by type id (a recording needs the format of an event that is gone by the
 * time it is written), task names from saved_cmdlines, one record rendered
 * as a trace line or as JSON, a trace.dat's records in time order (report),
 * and the per-CPU trace_pipe_raw readers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventheader.h"
#include "format-parse.h"
#include "rbpage.h"
#include "sink.h"
#include "tool.h"
#include "tracedat.h"

/* What the trace file shows in the flags column of a user event. */
#define LAT_FLAGS "....."

/* FNV-1a of a format's text. */
static uint64_t text_hash(const char *text, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)text[i]) * UINT64_C(0x100000001b3);
	return h;
}

/*
 * Two open-addressing indexes of f->v, by the hash of the text and by id
 * (a slot holds an index + 1; 0 is empty), so that adding and finding stay
 * constant-time with thousands of formats (a trace.dat may hold 65536).
 * The text index keeps the entry of a format that was replaced: it fails
 * the comparison, and the next rebuild drops it.
 */
static size_t ix_home(uint64_t key, size_t cap)
{
	return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);
}

static void ix_put(size_t *t, size_t cap, uint64_t key, size_t i)
{
	size_t s = ix_home(key, cap);

	while (t[s])
		s = (s + 1) & (cap - 1);
	t[s] = i + 1;
}

/* Room in the indexes for one more entry; 0 or -ENOMEM (nothing changed). */
static int ix_reserve(struct uet_formats *f)
{
	size_t cap = 64, *by_text, *by_id;

	if ((f->ix_used + 1) * 2 <= f->ix_cap)
		return 0;
	while (cap < 4 * (f->n + 1))
		cap *= 2;
	by_text = calloc(cap, sizeof(*by_text));
	by_id = calloc(cap, sizeof(*by_id));
	if (!by_text || !by_id) {
		free(by_text);
		free(by_id);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->n; i++) {
		ix_put(by_text, cap, f->v[i].hash, i);
		ix_put(by_id, cap, f->v[i].id, i);
	}
	free(f->by_text);
	free(f->by_id);
	f->by_text = by_text;
	f->by_id = by_id;
	f->ix_cap = cap;
	f->ix_used = f->n;
	return 0;
}

static bool kept(const struct uet_formats *f, const char *system, const char *text, size_t len,
		 uint64_t hash)
{
	for (size_t s = f->ix_cap ? ix_home(hash, f->ix_cap) : 0; f->ix_cap && f->by_text[s];
	     s = (s + 1) & (f->ix_cap - 1)) {
		const struct uet_format *k = &f->v[f->by_text[s] - 1];

		if (k->hash == hash && k->len == len && memcmp(k->text, text, len) == 0 &&
		    strcmp(k->system, system) == 0)
			return true;
	}
	return false;
}

static struct uet_format *find_id(const struct uet_formats *f, unsigned int id)
{
	for (size_t s = f->ix_cap ? ix_home(id, f->ix_cap) : 0; f->ix_cap && f->by_id[s];
	     s = (s + 1) & (f->ix_cap - 1))
		if (f->v[f->by_id[s] - 1].id == id)
			return &f->v[f->by_id[s] - 1];
	return NULL;
}

int uet_formats_add(struct uet_formats *f, const char *system, const char *text, size_t len)
{
	struct uet_format nf = { 0 }, *slot;
	uint64_t hash = text_hash(text, len);
	int r;

	if (strlen(system) >= sizeof(nf.system))
		return -EINVAL;
	/* Called on every scan of the tracefs: a text already kept costs no parse. */
	if (kept(f, system, text, len, hash))
		return 0;
	r = ue_format_parse(text, len, &nf.desc, &nf.id);
	if (r < 0)
		return r;
	/* Found: the type now belongs to another event. */
	slot = find_id(f, nf.id);
	nf.text = malloc(len + 1);
	r = nf.text ? ix_reserve(f) : -ENOMEM;
	if (r == 0 && !slot && f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct uet_format *nv = realloc(f->v, cap * sizeof(*nv));

		if (nv) {
			f->v = nv;
			f->cap = cap;
		} else {
			r = -ENOMEM;
		}
	}
	if (r < 0) {
		free(nf.text);
		ue_event_free(nf.desc);
		return r;
	}
	memcpy(nf.text, text, len);
	nf.text[len] = '\0';
	nf.len = len;
	nf.hash = hash;
	snprintf(nf.system, sizeof(nf.system), "%s", system);
	/* Asked of every record it renders: decided once. */
	nf.eventheader = strcmp(nf.system, "user_events") == 0 && ueh_is_format(nf.desc);
	if (ue_json_keys_new(nf.desc, nf.system, nf.desc->name, &nf.json) < 0)
		nf.json = NULL;
	if (!slot) {
		slot = &f->v[f->n++];
		ix_put(f->by_id, f->ix_cap, nf.id, (size_t)(slot - f->v));
	} else {
		free(slot->text);
		ue_event_free(slot->desc);
		ue_json_keys_free(slot->json);
	}
	*slot = nf;
	ix_put(f->by_text, f->ix_cap, hash, (size_t)(slot - f->v));
	f->ix_used++;
	return f->on_new ? f->on_new(f->on_new_arg, slot) : 0;
}

int uet_formats_add_events(struct uet_formats *f, const struct uet_events *evs)
{
	for (size_t i = 0; i < evs->n; i++) {
		const struct uet_event *ev = &evs->v[i];
		int r;

		if (!ev->format)
			continue;
		r = uet_formats_add(f, ev->system, ev->format, ev->format_len);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

const struct uet_format *uet_formats_find(const struct uet_formats *f, unsigned int id)
{
	return find_id(f, id);
}

/* Whether events/SYSTEM/NAME/id of @k's event still says its type. */
static bool still_its(const char *tracefs, const struct uet_format *k)
{
	char rel[512], *text, *end;
	unsigned long v;
	bool same;

	snprintf(rel, sizeof(rel), "events/%s/%s/id", k->system, k->desc->name);
	text = uet_read(tracefs, rel, NULL);
	if (!text)
		return false;
	errno = 0;
	v = strtoul(text, &end, 10);
	same = !errno && end != text && (*end == '\n' || !*end) && v == k->id;
	free(text);
	return same;
}

const struct uet_format *uet_formats_lookup(struct uet_formats *f, const char *tracefs,
					    unsigned int id, struct uet_batch *b)
{
	struct uet_format *k = find_id(f, id);
	struct uet_events evs;

	if (k && k->checked == b->n)
		return k;
	if (k && still_its(tracefs, k)) {
		k->checked = b->n;
		return k;
	}
	/* Not known, or the type now another event's (or none's). */
	if (b->rescanned)
		return NULL;
	b->rescanned = true;
	if (uet_events_load(tracefs, &evs) < 0)
		return NULL;
	uet_formats_add_events(f, &evs);
	uet_events_free(&evs);
	k = find_id(f, id);
	if (!k || !still_its(tracefs, k))
		return NULL;
	k->checked = b->n;
	return k;
}

void uet_formats_free(struct uet_formats *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].text);
		ue_event_free(f->v[i].desc);
		ue_json_keys_free(f->v[i].json);
	}
	free(f->v);
	free(f->by_text);
	free(f->by_id);
	*f = (struct uet_formats){ 0 };
}

/*
 * The "PID COMM" line of saved_cmdlines at *@s: its pid and name; *@s moves
 * to the next line (NULL after the last).  A line must start with the pid:
 * strtol() skipping white space would take it from a later line.
 * Return: whether the line is one.
 */
static bool cmdline_next(const char **s, long *pid, const char **name, size_t *len)
{
	const char *line = *s, *nl = strchr(line, '\n');
	char *end;

	*s = nl ? nl + 1 : NULL;
	if (*line < '0' || *line > '9')
		return false;
	errno = 0;
	*pid = strtol(line, &end, 10);
	if (errno || *end != ' ')
		return false;
	*name = end + 1;
	*len = nl ? (size_t)(nl - *name) : strlen(*name);
	return true;
}

const char *uet_comm_of(const char *cmdlines, int32_t pid, char *buf, size_t len)
{
	const char *s = cmdlines, *name;
	size_t n;
	long p;

	while (s && *s) {
		if (cmdline_next(&s, &p, &name, &n) && p == pid) {
			snprintf(buf, len, "%.*s", (int)(n < len ? n : len), name);
			return buf;
		}
	}
	return NULL;
}

typedef int (*render_fn)(const struct uet_format *f, const struct ue_record_ctx *ctx,
			 const void *rec, size_t len, char *buf, size_t cap);

/*
 * A JSON object and its newline; the full length (as snprintf) or -errno.
 * An EventHeader event gains "eventheader" (uet_eh_json()) before its end.
 */
static int render_json_once(const struct uet_format *f, const struct ue_record_ctx *ctx,
			    const void *rec, size_t len, char *buf, size_t cap)
{
	int w = f->json ? ue_render_json_keys(f->json, f->desc, ctx, rec, len, buf, cap)
			: ue_render_json(f->desc, f->system, f->desc->name, ctx, rec, len, buf, cap);
	int w2;
	struct ueh_event e;

	if (w < 0)
		return w;
	if (w > 0 && uet_eh_start(f, rec, len, &e)) {
		/* Over the closing '}': the decoded part, then '}' again. */
		size_t at = (size_t)w - 1;

		w2 = uet_eh_json(&e, at < cap ? buf + at : NULL, at < cap ? cap - at : 0);
		if (w2 >= 0) {
			w = (int)at + w2;
			if ((size_t)w + 1 < cap)
				buf[w] = '}', buf[w + 1] = '\0';
			w++;
		} else if (at < cap) {
			buf[at] = '}';	/* malformed: as a plain event */
			if (at + 1 < cap)
				buf[at + 1] = '\0';
		}
	}
	if ((size_t)w + 1 < cap) {
		buf[w] = '\n';
		buf[w + 1] = '\0';
	}
	return w + 1;
}

/* A trace line; the full length (as snprintf) or -errno. */
static int render_line_once(const struct uet_format *f, const struct ue_record_ctx *ctx,
			    const void *rec, size_t len, char *buf, size_t cap)
{
	int w = ue_render_context(ctx, buf, cap), w2;

	if (w < 0)
		return w;
	{
		/* An EventHeader event: "Provider:Event: name=value ..." */
		struct ueh_event e;

		w2 = uet_eh_start(f, rec, len, &e)
			     ? uet_eh_line(&e, (size_t)w < cap ? buf + w : NULL,
					   (size_t)w < cap ? cap - (size_t)w : 0)
			     : -1;
		if (w2 >= 0)
			return w + w2;
	}
	w2 = ue_render_fields(f->desc, f->desc->name, rec, len, (size_t)w < cap ? buf + w : NULL,
			      (size_t)w < cap ? cap - (size_t)w : 0);
	return w2 < 0 ? w2 : w + w2;
}

/* @fn into *@buf, grown until the text fits. */
static int render(render_fn fn, const struct uet_format *f, const struct ue_record_ctx *c,
		  const void *rec, size_t len, char **buf, size_t *cap)
{
	struct ue_record_ctx ctx = *c;

	if (!ctx.lat_flags)
		ctx.lat_flags = LAT_FLAGS;
	/* A NULL buffer first gets one, a short one a large enough one. */
	for (int tries = 0; tries < 3; tries++) {
		int w = *buf ? fn(f, &ctx, rec, len, *buf, *cap) : 0;
		char *nb;

		if (w < 0)
			return w;
		if (*buf && (size_t)w < *cap)
			return w;
		nb = realloc(*buf, (size_t)w + 4096);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = (size_t)w + 4096;
	}
	return -E2BIG;
}

int uet_render_line(const struct uet_format *f, const struct ue_record_ctx *ctx, const void *rec,
		    size_t len, char **buf, size_t *cap)
{
	return render(render_line_once, f, ctx, rec, len, buf, cap);
}

int uet_render_json(const struct uet_format *f, const struct ue_record_ctx *ctx, const void *rec,
		    size_t len, char **buf, size_t *cap)
{
	return render(render_json_once, f, ctx, rec, len, buf, cap);
}

/*
 * A trace.dat's user events in time order: report's work, apart from its
 * command line so that fuzz/fuzz_tracedat.c runs it on any bytes.
 */

/* One CPU's pages, read in order. */
struct dat_cpu {
	const uint8_t *data;
	uint64_t size, page;	/* page: offset of the next page to open */
	unsigned int cpu;
	struct ue_rbpage_iter it;
	uint64_t ts;
	const void *rec;
	size_t len;
	uint64_t lost;		/* the pages' mark: records lost before @rec (UINT64_MAX: some) */
};

/* The next record of @c, opening pages as needed; false at the end. */
static bool dat_advance(struct dat_cpu *c, unsigned int page_size)
{
	for (;;) {
		if (c->it.data && ue_rbpage_next(&c->it, &c->ts, &c->rec, &c->len) == 1)
			return true;
		c->it.data = NULL;
		if (page_size > c->size || c->page > c->size - page_size)
			return false;
		if (ue_rbpage_iter_init(&c->it, c->data + c->page, page_size) < 0)
			c->it.data = NULL;
		else if (c->it.missed)
			c->lost = c->it.missed == UINT64_MAX || c->lost + c->it.missed < c->lost
					  ? UINT64_MAX : c->lost + c->it.missed;
		c->page += page_size;
	}
}

/* Before: the earlier record, the lower CPU slot on a tie (the order of the CPUs). */
static bool dat_before(const struct dat_cpu *a, const struct dat_cpu *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a < b);
}

/*
 * A min-heap of the CPUs that have a record: one comparison per CPU per
 * record would make a file of many CPUs quadratic.
 */
static void heap_down(struct dat_cpu **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct dat_cpu *t;

		if (l < n && dat_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && dat_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* A task name by pid; the first line of a pid wins, as in uet_comm_of(). */
struct comm_ix {
	long pid;
	size_t line;
	const char *name;
	size_t len;
};

static int by_pid(const void *a, const void *b)
{
	const struct comm_ix *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The saved_cmdlines text indexed by pid: a lookup per record must not scan it. */
static int comms_index(const char *cmdlines, struct comm_ix **ret, size_t *ret_n)
{
	const char *s = cmdlines;
	struct comm_ix *v;
	size_t n = 0, k = 0;

	*ret = NULL;
	*ret_n = 0;
	if (!cmdlines)
		return 0;
	for (const char *p = cmdlines; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n++;
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t line = 0; s && *s; line++) {
		struct comm_ix c = { .line = line };

		if (cmdline_next(&s, &c.pid, &c.name, &c.len))
			v[k++] = c;
	}
	qsort(v, k, sizeof(*v), by_pid);
	n = k;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1].pid != v[i].pid)
			v[k++] = v[i];
	*ret = v;
	*ret_n = k;
	return 0;
}

static const char *comm_find(const struct comm_ix *v, size_t n, int32_t pid, char *buf,
			     size_t len)
{
	for (size_t lo = 0, hi = n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		const struct comm_ix *c = &v[mid];

		if (c->pid == pid) {
			size_t k = len && c->len >= len ? len - 1 : c->len;

			/* Once a record: no snprintf (600 instructions where the record takes 2,500). */
			if (!len)
				return NULL;
			memcpy(buf, c->name, k);
			buf[k] = '\0';
			return buf;
		}
		if (c->pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Whether a record is shown; matched[g]: globs[g] named a record (whatever its pid). */
static bool dat_wanted(const struct uet_opts *o, const struct uet_format *f, int32_t pid,
		       const void *rec, size_t len, bool *matched)
{
	bool match = !o->nglobs;

	for (size_t i = 0; i < o->nglobs; i++) {
		if (match && (!matched || matched[i]))
			continue;
		if (uet_glob_match_rec(o->globs[i], f, rec, len)) {
			match = true;
			if (matched)
				matched[i] = true;
		}
	}
	return match && !(o->have_pid && pid != o->pid);
}

static int formats_seen(void *arg, const struct uet_format *f)
{
	return uet_sinks_format_seen(arg, f);
}

int uet_dat_report(const struct uet_dat *d, const struct uet_opts *o, struct uet_sinks *sinks,
		   bool *matched)
{
	struct uet_formats formats = { .on_new = formats_seen, .on_new_arg = sinks };
	struct dat_cpu *cpus = NULL, **heap = NULL;
	struct comm_ix *comms = NULL;
	size_t ncomms = 0, nheap = 0;
	int e = -ENOMEM;

	for (size_t i = 0; i < d->nformats; i++) {
		/*
		 * Only user events are rendered (of a perf.data, every tracepoint
		 * perf recorded); a format that does not parse is skipped.
		 */
		if (!d->any_system && strncmp(d->formats[i].system, "user_events", 11) != 0)
			continue;
		e = uet_formats_add(&formats, d->formats[i].system, d->formats[i].text,
				    d->formats[i].len);
		if (e == -ENOMEM)
			goto out;
	}
	cpus = calloc(d->ncpus + 1, sizeof(*cpus));
	heap = calloc(d->ncpus + 1, sizeof(*heap));
	if (!cpus || !heap || comms_index(d->cmdlines, &comms, &ncomms) < 0)
		goto out;
	for (unsigned int i = 0; i < d->ncpus; i++) {
		cpus[i].data = d->cpus[i].data;
		cpus[i].size = d->cpus[i].size;
		cpus[i].cpu = d->cpus[i].cpu;
		if (dat_advance(&cpus[i], d->page_size))
			heap[nheap++] = &cpus[i];
	}
	for (size_t i = nheap / 2; i-- > 0;)
		heap_down(heap, nheap, i);
	e = 0;
	while (nheap && e == 0) {
		struct dat_cpu *best = heap[0];
		struct uet_sink_rec r = { .data = best->rec, .len = best->len };
		struct ue_entry_hdr hdr;
		char comm[64];

		/* A loss the file marks, where it happened: before this CPU's next record. */
		if (best->lost) {
			e = uet_sinks_lost(sinks, best->cpu, best->lost);
			best->lost = 0;
			if (e < 0)
				break;
		}

		if (best->len >= sizeof(hdr)) {
			memcpy(&hdr, best->rec, sizeof(hdr));
			r.format = uet_formats_find(&formats, hdr.type);
		}
		if (r.format && dat_wanted(o, r.format, hdr.pid, best->rec, best->len, matched)) {
			r.ctx = (struct ue_record_ctx){
				.comm = comm_find(comms, ncomms, hdr.pid, comm, sizeof(comm)),
				.pid = hdr.pid, .cpu = best->cpu, .ts_ns = best->ts };
			e = uet_sinks_record(sinks, &r);
		}
		if (!dat_advance(best, d->page_size))
			heap[0] = heap[--nheap];
		heap_down(heap, nheap, 0);
	}
	/* Losses no record of their CPU came after: told at the end. */
	for (unsigned int i = 0; e == 0 && cpus && i < d->ncpus; i++) {
		while (cpus[i].lost == 0 && dat_advance(&cpus[i], d->page_size))
			;
		if (cpus[i].lost)
			e = uet_sinks_lost(sinks, cpus[i].cpu, cpus[i].lost);
	}
	if (e == 0)
		e = uet_sinks_flush(sinks);
out:
	uet_formats_free(&formats);
	free(cpus);
	free(heap);
	free(comms);
	return e;
}

int uet_raw_open(struct uet_raw *r, const char *tracefs, unsigned int ncpus, const char *who)
{
	r->ncpus = 0;
	r->chan = NULL;
	if (!r->no_channel && !getenv("USEREVENTS_NO_CHANNEL")) {
		int e = uet_chan_open(&r->chan, tracefs, &r->params);

		if (e == 0) {
			r->ncpus = uet_chan_ncpus(r->chan);
			return 0;
		}
		/*
		 * Not usereventsd, or one without its native path (no socket to
		 * reach): trace_pipe_raw.  Ours, but the channel refused: say why.
		 */
		if (e != -EOPNOTSUPP && e != -ENODATA && e != -ECONNREFUSED && e != -ENOENT) {
			if (who)
				uet_err("%s: %s: a channel of the trace: %s", who, tracefs, strerror(-e));
			return e;
		}
	}
	r->fds = calloc(ncpus ? ncpus : 1, sizeof(*r->fds));
	if (!r->fds)
		return -ENOMEM;
	for (unsigned int i = 0; i < ncpus; i++) {
		char p[4200];
		int e;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%u/trace_pipe_raw", tracefs, i);
		r->fds[i] = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->fds[i] < 0) {
			e = -errno;
			if (who)
				uet_err("%s: %s: %s", who, p, strerror(-e));
			uet_raw_close(r);
			return e;
		}
		r->ncpus++;
	}
	return 0;
}

int uet_raw_pass(struct uet_raw *r, unsigned int max,
		 int (*fn)(void *arg, unsigned int cpu, const uint8_t *page, size_t len), void *arg)
{
	/* usereventsd gives a reader this large 64 KiB pages; the kernel its 4 KiB ones. */
	static _Thread_local uint8_t page[UE_RB_PAGE_SIZE_MAX];
	int pages = 0;

	if (r->chan)
		return uet_chan_pass(r->chan, max, fn, arg);

	for (unsigned int c = 0; c < r->ncpus; c++) {
		for (unsigned int k = 0; k < max; k++) {
			ssize_t n = read(r->fds[c], page, sizeof(page));
			size_t len = UE_RB_PAGE_SIZE;
			int e;

			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n < 0)
				return -errno;
			if (n == 0)
				break;
			if ((size_t)n > len)
				len = (size_t)n;
			else
				memset(page + n, 0, len - (size_t)n);
			e = fn(arg, c, page, len);
			if (e < 0)
				return e;
			pages++;
		}
	}
	return pages;
}

int uet_page_records(const uint8_t *page, size_t len, unsigned long long *missed,
		     int (*fn)(void *arg, uint64_t ts, const void *data, size_t len), void *arg)
{
	struct ue_rbpage_iter it;
	const void *data;
	uint64_t ts;
	size_t dlen;
	int n = 0;

	if (!fn) {
		/* Only counted (record's count of every page): stepped over, not decoded. */
		uint64_t m;

		n = ue_rbpage_count(page, len, &m);
		if (missed && m && m != UINT64_MAX)
			*missed += m;
		return n < 0 ? 0 : n;
	}
	if (ue_rbpage_iter_init(&it, page, len) < 0)
		return 0;
	if (missed && it.missed && it.missed != UINT64_MAX)
		*missed += it.missed;
	while (ue_rbpage_next(&it, &ts, &data, &dlen) == 1) {
		int e = fn ? fn(arg, ts, data, dlen) : 0;

		if (e < 0)
			return e;
		n++;
	}
	return n;
}

void uet_raw_close(struct uet_raw *r)
{
	uet_chan_close(r->chan);
	r->chan = NULL;
	for (unsigned int i = 0; r->fds && i < r->ncpus; i++)
		close(r->fds[i]);
	free(r->fds);
	r->fds = NULL;
	r->ncpus = 0;
}
