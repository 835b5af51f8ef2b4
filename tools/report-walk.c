// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A recording's records in time order over its CPUs, to the sinks report
 * chose (uet_dat_report()): the trace.dat's pages merged by time stamp.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "sink.h"
#include "tracedat.h"
#include "rbpage.h"

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

		if (uet_cmdline_next(&s, &c.pid, &c.name, &c.len))
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
