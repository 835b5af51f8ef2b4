// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace.dat sink of record: the pages of every CPU's trace_pipe_raw
 * into a trace-cmd trace.dat v7 (tracedat-write.c).  The file is created
 * when the sink is made, holds the tracefs' metadata from begin() on, and
 * is valid at every flush (a SIGKILL leaves what was flushed); at a good
 * end it is replaced by its compact copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "formats.h"
#include "rbpage.h"
#include "sink.h"
#include "tgids.h"
#include "tracedat.h"
#include "tracemeta.h"
#include "util.h"

/*
 * The file's pages are UE_RB_PAGE_SIZE_MAX bytes (the kernel's 64 KiB
 * sub-buffers, as buffer_subbuf_size_kb=64 makes them), so that the records
 * usereventsd keeps up to 65512 bytes fit; the pages read (4 KiB from the
 * kernel, up to 64 KiB from usereventsd, as full as the buffer was) are
 * packed into them and a partly filled one goes out at each commit.
 */
#define DAT_PAGE UE_RB_PAGE_SIZE_MAX

struct dat_pending {
	uint8_t *page;		/* DAT_PAGE bytes, allocated on first use */
	struct ue_rbpage p;
	uint64_t missed;	/* records lost before this page's first */
	/* What the file holds of the CPU, for its stats (trace-cmd report --stat). */
	uint64_t records, lost;	/* records in the file; those lost (counted ones) */
	uint64_t first_ts, last_ts;	/* its first and last record's time */
};

struct dat_sink {
	struct uet_sink s;
	char real[PATH_MAX];		/* the file, symbolic links resolved */
	const char *who, *tracefs;
	struct uet_dat_meta m;
	struct uet_meta_formats fmts;
	unsigned int changed;		/* UET_DAT_* since the last commit */
	bool pages;			/* pages since the last commit */
	bool ending;			/* the last flush: a page of only a loss mark goes out too */
	struct uet_dat_writer *w;
	struct dat_pending *pend;	/* per CPU, the file's page being filled */
	uint64_t max_bytes;		/* uet_sink_tracedat_limit(); 0: none */
	uint64_t fixed;			/* the compact file's bytes but its pages */
	bool fixed_stale;		/* formats or task names changed since fixed was computed */
	struct uet_tgids *tgids;	/* the processes of the threads named (saved_tgids, /proc) */
};

/*
 * The data size in header_page ("field: char data; ... size:4080;") made the
 * file's: what the kernel shows with 64 KiB sub-buffers.
 */
static void header_page_size(struct uet_dat_text *t, unsigned int data)
{
	char *f = t->text ? strstr(t->text, "char data;") : NULL;
	char *sz = f ? strstr(f, "size:") : NULL;
	char *end = sz ? strchr(sz, ';') : NULL;
	char *nl = f ? strchr(f, '\n') : NULL;
	char num[16], *nt;
	size_t n, tail;

	if (!end || (nl && nl < end))
		return;	/* not the kernel's text: kept as it is */
	sz += 5;
	n = (size_t)snprintf(num, sizeof(num), "%u", data);
	tail = t->len - (size_t)(end - t->text);
	nt = malloc((size_t)(sz - t->text) + n + tail + 1);
	if (!nt)
		return;
	memcpy(nt, t->text, (size_t)(sz - t->text));
	memcpy(nt + (sz - t->text), num, n);
	memcpy(nt + (sz - t->text) + n, end, tail);
	t->len = (size_t)(sz - t->text) + n + tail;
	nt[t->len] = '\0';
	free(t->text);
	t->text = nt;
}

static int dat_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct dat_sink *d = (struct dat_sink *)s;
	struct uet_dat_meta *m = &d->m;
	int e;

	d->who = env->who;
	d->tracefs = env->tracefs;
	e = uet_meta_read(m, env->tracefs, env->ncpus, env->who);
	if (e < 0)
		return e;
	d->pend = calloc(m->ncpus ? m->ncpus : 1, sizeof(*d->pend));
	if (!d->pend)
		return -ENOMEM;
	header_page_size(&m->header_page, DAT_PAGE - UE_RB_PAGE_HDR);
	e = uet_dat_writer_open(&d->w, d->s.fd, m, DAT_PAGE);
	if (e < 0)
		uet_err("%s: writing %s: %s", d->who, d->s.path, strerror(-e));
	d->fixed_stale = true;
	return e;
}

/* Keep @f's text by type id (a type seen again with another text: the new one). */
static int dat_format_seen(struct uet_sink *s, const struct uet_format *f)
{
	struct dat_sink *d = (struct dat_sink *)s;
	int e = uet_meta_keep(&d->fmts, f);

	d->changed |= UET_DAT_FORMATS;
	d->fixed_stale = true;
	return e;
}

/* The type id of ftrace:print in the file ("ID: 5" in its format); -1: none. */
static int print_id(const struct uet_dat_meta *m)
{
	const char *id = m->nftrace ? strstr(m->ftrace[0].text, "\nID: ") : NULL;

	return id ? atoi(id + 5) : -1;
}

/*
 * The last loss of @cpu, no record of its own after it: trace-cmd reads a
 * loss from the page of the record that follows it (its record's
 * missed_events, "[N EVENTS DROPPED]") and says nothing of a page without
 * one.  An ftrace:print record, what a write to trace_marker makes, stamped
 * with the CPU's last time, carries it; our report renders user events
 * only, so it still tells the loss alone.
 */
static void loss_record(struct dat_sink *d, struct dat_pending *q, unsigned int cpu)
{
	uint8_t rec[UE_MARKER_MAX_RECORD];
	int id = print_id(&d->m), len;
	uint64_t ts = q->last_ts;
	char text[160];
	size_t taken;
	uint16_t type;

	if (id < 0 || id > UINT16_MAX)
		return;
	if (q->missed == UINT64_MAX)
		snprintf(text, sizeof(text), "userevents record: CPU %u lost events after its last record",
			 cpu);
	else
		snprintf(text, sizeof(text),
			 "userevents record: CPU %u lost %llu events after its last record", cpu,
			 (unsigned long long)q->missed);
	len = ue_print_record(text, strlen(text), (int32_t)getpid(), 0, rec, sizeof(rec), &taken);
	if (len < 0)
		return;
	type = (uint16_t)id;
	memcpy(rec, &type, sizeof(type));
	/* A CPU that recorded nothing: the time of the recording's last record. */
	for (unsigned int c = 0; !ts && c < d->m.ncpus; c++)
		ts = d->pend[c].last_ts > ts ? d->pend[c].last_ts : ts;
	ue_rbpage_add(&q->p, ts, rec, (size_t)len);
}

/* The CPU's page being filled, if it holds anything, into the file. */
static int pending_out(struct dat_sink *d, unsigned int cpu)
{
	struct dat_pending *q = &d->pend[cpu];
	int e;

	/*
	 * A page of no record but a loss mark waits for the CPU's next record
	 * (trace-cmd tells a loss with the record after it); at the end it goes
	 * out with a record of its own that says it.
	 */
	if (!q->page || (!q->p.events && (!q->missed || !d->ending)))
		return 0;
	if (!q->p.events)
		loss_record(d, q, cpu);
	ue_rbpage_finish(&q->p, q->missed);
	e = uet_dat_writer_page(d->w, cpu, q->page, DAT_PAGE);
	ue_rbpage_init(&q->p, q->page, DAT_PAGE);
	q->missed = 0;
	return e;
}

static int pending_all_out(struct dat_sink *d)
{
	for (unsigned int c = 0; c < d->m.ncpus; c++) {
		int e = pending_out(d, c);

		if (e < 0)
			return e;
	}
	return 0;
}

static int formats_to_meta(struct dat_sink *d);

/* The bytes of the compact file if it ended now (each page being filled a whole one). */
static uint64_t dat_size(struct dat_sink *d)
{
	uint64_t pages = uet_dat_writer_pages(d->w), all;

	if (d->fixed_stale) {
		if ((d->changed & UET_DAT_FORMATS) && formats_to_meta(d) < 0)
			return UINT64_MAX;
		all = uet_dat_writer_compact_size(d->w, &d->m);
		if (all == UINT64_MAX)
			return all;
		d->fixed = all - pages * DAT_PAGE;
		d->fixed_stale = false;
	}
	for (unsigned int c = 0; c < d->m.ncpus; c++)
		pages += d->pend[c].page && (d->pend[c].p.events || d->pend[c].missed);
	return d->fixed + pages * DAT_PAGE;
}

static void count_record(struct dat_pending *q, uint64_t ts)
{
	if (!q->records++)
		q->first_ts = ts;
	q->last_ts = ts;
}

/* The records of a page going into the file as it is (@it at its start; a copy walks it). */
static void count_page(struct dat_pending *q, const struct ue_rbpage_iter *it)
{
	struct ue_rbpage_iter w = *it;
	const void *data;
	size_t dlen;
	uint64_t ts;

	if (w.missed != UINT64_MAX)
		q->lost += w.missed;
	while (ue_rbpage_next(&w, &ts, &data, &dlen) == 1)
		count_record(q, ts);
}

static int dat_page(struct uet_sink *s, unsigned int cpu, const uint8_t *page, size_t len)
{
	struct dat_sink *d = (struct dat_sink *)s;
	struct ue_rbpage_iter it;
	struct dat_pending *q;
	const void *data;
	size_t dlen;
	uint64_t ts;
	int e;

	if (cpu >= d->m.ncpus)
		return -EINVAL;
	/* A page more of the file could take it past the limit: full. */
	if (d->max_bytes && dat_size(d) > d->max_bytes - DAT_PAGE)
		return -EFBIG;
	q = &d->pend[cpu];
	if (!q->page) {
		q->page = malloc(DAT_PAGE);
		if (!q->page)
			return -ENOMEM;
		ue_rbpage_init(&q->p, q->page, DAT_PAGE);
	}
	if (ue_rbpage_iter_init(&it, page, len) < 0)
		return 0;
	d->pages = true;
	/*
	 * A whole page of the file's size with records (a usereventsd
	 * channel's): into the file as it is, its loss mark included, once
	 * what is pending went first.  A page with only a loss mark, or of
	 * another size, is taken apart below.
	 */
	if (len == DAT_PAGE && it.size && !q->missed) {
		e = pending_out(d, cpu);
		if (e < 0)
			return e;
		count_page(q, &it);
		return uet_dat_writer_page(d->w, cpu, page, DAT_PAGE);
	}
	/* Records lost before this page: a page of their own follows the loss. */
	if (it.missed) {
		e = pending_out(d, cpu);
		if (e < 0)
			return e;
		/* UINT64_MAX: some, count unknown (as the page read said, or too many) */
		q->missed = it.missed == UINT64_MAX || q->missed + it.missed < q->missed
				    ? UINT64_MAX : q->missed + it.missed;
		if (it.missed != UINT64_MAX)
			q->lost += it.missed;
		/* The count is stored after the page's records: room kept for it. */
		q->p.reserve = 8;
	}
	while (ue_rbpage_next(&it, &ts, &data, &dlen) == 1) {
		e = ue_rbpage_add(&q->p, ts, data, dlen);
		if (e == -ENOSPC) {
			e = pending_out(d, cpu);
			if (e < 0)
				return e;
			e = ue_rbpage_add(&q->p, ts, data, dlen);
		}
		if (e < 0)
			return 0;	/* time going backwards in a page read: the rest is left out */
		count_record(q, ts);
	}
	return 0;
}

/* The formats kept, grouped by system as the file wants, into d->m. */
static int formats_to_meta(struct dat_sink *d)
{
	return uet_meta_formats_set(&d->fmts, &d->m);
}

/* @t (malloc()ed, @len bytes; NULL: none) in place of @at, when it differs: the cmdlines section is new. */
static void cmdlines_text_set(struct dat_sink *d, struct uet_dat_text *at, char *t, size_t len)
{
	if (!t || (at->text && len == at->len && memcmp(t, at->text, len) == 0)) {
		free(t);
		return;
	}
	free(at->text);
	*at = (struct uet_dat_text){ NULL, t, len };
	d->changed |= UET_DAT_CMDLINES;
	d->fixed_stale = true;
}

/* Task names as they are now, when they changed. */
static void cmdlines_update(struct dat_sink *d)
{
	size_t len = 0;
	char *t = uet_read(d->tracefs, "saved_cmdlines", &len);

	cmdlines_text_set(d, &d->m.cmdlines, t, len);
}

/*
 * The processes of the threads the task names list, when they changed:
 * /proc/TID/status while the thread lives, else what the tracefs's
 * saved_tgids says (usereventsd: every writer's; the kernel: only with
 * options/record-tgid set), read only when a thread is new and gone.
 * Kept beside the task names (UET_DAT_TGIDS_TAG).
 */
static void tgids_update(struct dat_sink *d)
{
	const char *p = d->m.cmdlines.text, *end = p ? p + d->m.cmdlines.len : NULL;
	size_t len = 0;

	if (!d->tgids && !(d->tgids = uet_tgids_new(d->tracefs)))
		return;
	for (; p && p < end; p = memchr(p, '\n', (size_t)(end - p)), p = p ? p + 1 : end) {
		long pid = strtol(p, NULL, 10);

		if (pid > 0 && pid <= INT32_MAX)
			uet_tgids_get(d->tgids, (int32_t)pid);
	}
	if (uet_tgids_known(d->tgids)) {
		char *t = uet_tgids_text(d->tgids, &len);

		cmdlines_text_set(d, &d->m.tgids, t, len);
	}
}

static int dat_flush(struct uet_sink *s)
{
	struct dat_sink *d = (struct dat_sink *)s;
	int e;

	if (!d->w)
		return 0;
	cmdlines_update(d);
	tgids_update(d);
	if (!d->pages && !d->changed)
		return 0;
	e = pending_all_out(d);
	if (e < 0) {
		uet_err("%s: writing %s: %s", d->who, s->path, strerror(-e));
		return e;
	}
	if ((d->changed & UET_DAT_FORMATS) && formats_to_meta(d) < 0)
		return -ENOMEM;
	e = uet_dat_writer_commit(d->w, &d->m, d->changed);
	if (e < 0) {
		uet_err("%s: writing %s: %s", d->who, s->path, strerror(-e));
		return e;
	}
	d->changed = 0;
	d->pages = false;
	return 0;
}

/* Seconds and microseconds of @ns as the kernel's stats print a time ("%5llu.%06llu"). */
#define STATS_TS(ns) (unsigned long long)(((ns) + 500) / 1000 / 1000000), \
		     (unsigned long long)(((ns) + 500) / 1000 % 1000000)

/*
 * Each CPU's stats, as trace-cmd record saves per_cpu/cpuN/stats at its end,
 * with the counts of this recording: nothing left unread (entries, bytes,
 * overrun 0), the records lost on their way to the file as dropped events
 * (those a loss mark counted), the records in the file as read events,
 * the first of them as the oldest event and the recording's last as now.
 */
static int cpustats_to_meta(struct dat_sink *d)
{
	uint64_t now = 0;

	d->m.cpustats = calloc(d->m.ncpus ? d->m.ncpus : 1, sizeof(*d->m.cpustats));
	if (!d->m.cpustats)
		return -ENOMEM;
	for (unsigned int c = 0; c < d->m.ncpus; c++)
		now = d->pend[c].last_ts > now ? d->pend[c].last_ts : now;
	for (unsigned int c = 0; c < d->m.ncpus; c++) {
		const struct dat_pending *q = &d->pend[c];
		struct uet_dat_text *t = &d->m.cpustats[c];
		int n = asprintf(&t->text,
				 "CPU: %u\n"
				 "entries: 0\n"
				 "overrun: 0\n"
				 "commit overrun: 0\n"
				 "bytes: 0\n"
				 "oldest event ts: %5llu.%06llu\n"
				 "now ts: %5llu.%06llu\n"
				 "dropped events: %llu\n"
				 "read events: %llu\n",
				 c, STATS_TS(q->first_ts), STATS_TS(now),
				 (unsigned long long)q->lost, (unsigned long long)q->records);

		if (n < 0) {
			t->text = NULL;
			return -ENOMEM;
		}
		t->len = (size_t)n;
	}
	return 0;
}

/* The compact copy of the file, put in its place. */
static int compact(struct dat_sink *d)
{
	char tmp[PATH_MAX + 16];
	struct stat st;
	int fd, e;

	snprintf(tmp, sizeof(tmp), "%s.%d~", d->real, (int)getpid());
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* The mode the file was given (umask, or an existing file's). */
	if (fstat(d->s.fd, &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	e = uet_dat_writer_compact(d->w, &d->m, fd);
	if (close(fd) < 0 && e == 0)
		e = -errno;
	if (e == 0 && rename(tmp, d->real) < 0)
		e = -errno;
	if (e < 0)
		unlink(tmp);
	return e;
}

static int dat_end(struct uet_sink *s, bool ok)
{
	struct dat_sink *d = (struct dat_sink *)s;
	int e = 0;

	/* The last flush commits whatever waits (a loss mark no record followed). */
	d->ending = true;
	d->pages = true;
	if (d->w && ok) {
		/* Formats and task names while the events are still enabled, so still there. */
		e = dat_flush(s);
		/* Without memory for them, the file has no stats: its records are all there. */
		if (e == 0)
			cpustats_to_meta(d);
		/* Without its compact copy (a directory we cannot write) the file is still whole. */
		if (e == 0 && (e = compact(d)) < 0) {
			uet_err("%s: warning: %s: no compact copy (%s): kept as written, with room to grow",
				d->who, s->path, strerror(-e));
			e = 0;
		}
	} else if (d->w) {
		/* What was read is in the file: keep it, as of the last flush. */
		if (uet_dat_writer_pages(d->w) == 0 && pending_all_out(d) == 0 &&
		    uet_dat_writer_pages(d->w) == 0)
			unlink(d->real);
		else
			dat_flush(s);
	} else {
		unlink(d->real);	/* nothing begun: no file */
	}
	if (close(d->s.fd) < 0 && e == 0)
		e = -errno;
	uet_dat_writer_free(d->w);
	uet_meta_formats_free(&d->fmts);
	for (unsigned int c = 0; d->pend && c < d->m.ncpus; c++)
		free(d->pend[c].page);
	free(d->pend);
	uet_tgids_free(d->tgids);
	uet_meta_free(&d->m);
	free(d);
	return e;
}

/*
 * Records of @cpu lost (a gap of the reader's: its daemon went away): a
 * page of no record but the loss mark, as a ring-buffer page says it
 * (UINT64_MAX: the missed flag without a stored count, trace-cmd's and
 * report's "[LOST EVENTS]"); it goes with the CPU's next page, or at the end.
 */
static int dat_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	uint8_t page[UE_RB_PAGE_SIZE];
	struct ue_rbpage p;

	ue_rbpage_init(&p, page, sizeof(page));
	ue_rbpage_finish(&p, n);
	return dat_page(s, cpu, page, sizeof(page));
}

static const struct uet_sink_ops dat_ops = {
	.name = "trace.dat",
	.needs = UET_SINK_PAGES,
	.output = UET_SINK_OUT_FILE,
	.what = "trace.dat",
	.begin = dat_begin,
	.format_seen = dat_format_seen,
	.page = dat_page,	/* the pages hold the records: no .record */
	.lost = dat_lost,
	.flush = dat_flush,
	.end = dat_end,
};

void uet_sink_tracedat_limit(struct uet_sink *s, uint64_t max)
{
	if (s->ops == &dat_ops)
		((struct dat_sink *)s)->max_bytes = max > DAT_PAGE ? max : DAT_PAGE;
}

uint64_t uet_sink_tracedat_size(struct uet_sink *s)
{
	struct dat_sink *d = (struct dat_sink *)s;

	return s->ops == &dat_ops && d->w ? dat_size(d) : 0;
}

struct uet_sink *uet_sink_tracedat_new(FILE *out, const char *path)
{
	struct dat_sink *d = uet_sink_make(sizeof(*d), &dat_ops, out, path);

	if (!d)
		return NULL;
	/* Written in place (a plain file), then replaced by its compact copy: where it really is. */
	if (!realpath(path, d->real)) {
		uet_err("%s: %s", path, strerror(errno));
		close(d->s.fd);
		free(d);
		return NULL;
	}
	return &d->s;
}
