// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The perf.data sink of record (--format=perf): each record of the pages
 * read becomes one sample of its event's tracepoint attribute
 * (perfdata-write.c), each page's loss a LOST record; no FINISHED_ROUND
 * (a CPU's pages may come a flush later than another's: perf would show
 * their records out of order), so perf sorts the whole file; at a good end the tracing data (the tracefs's metadata
 * and every event's format, tracemeta.c) and the header make the file
 * whole.  As with `perf record`, a file whose recording was killed has no
 * header: perf reads it as empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats.h"
#include "perfdata.h"
#include "rbpage.h"
#include "sink.h"
#include "tgids.h"
#include "tracedat.h"
#include "tracemeta.h"
#include "util.h"

struct perf_sink {
	struct uet_sink s;
	const char *who, *tracefs;
	struct uet_dat_meta m;
	struct uet_meta_formats fmts;
	struct uet_perf_writer *w;
	struct uet_tgids *tgids;
	uint64_t last_ts;		/* of the last record: a loss told apart from a page is put there */
	bool cmdlines_fresh;		/* saved_cmdlines read during this page */
	char comm[32];			/* the name perf_thread() gives */
	bool began;
};

static int perf_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct perf_sink *p = (struct perf_sink *)s;
	char *argv[] = { (char *)UET_PROG, (char *)"record", NULL };
	int e;

	p->who = env->who;
	p->tracefs = env->tracefs;
	e = uet_meta_read(&p->m, env->tracefs, env->ncpus, env->who);
	if (e < 0)
		return e;
	p->tgids = uet_tgids_new(env->tracefs);
	e = uet_perf_writer_open(&p->w, s->fd, argv);
	if (e < 0)
		uet_err("%s: writing %s: %s", p->who, s->path, strerror(-e));
	p->began = e == 0;
	return e;
}

static int perf_format_seen(struct uet_sink *s, const struct uet_format *f)
{
	struct perf_sink *p = (struct perf_sink *)s;
	struct uet_perf_event ev = { .type = f->id };
	int e;

	snprintf(ev.name, sizeof(ev.name), "%s:%s", f->system,
		 f->desc && f->desc->name ? f->desc->name : "?");
	e = uet_meta_keep(&p->fmts, f);
	return e ? e : uet_perf_writer_event(p->w, &ev);
}

/* The task name of @tid: its /proc entry while it lives, else the tracefs's saved_cmdlines. */
static const char *comm_of(struct perf_sink *p, int32_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			return buf;
		}
	}
	if (uet_comm_of(p->m.cmdlines.text, tid, buf, len))
		return buf;
	/* A thread new since the task names were read (once per page at most): read again. */
	if (p->cmdlines_fresh)
		return NULL;
	free(p->m.cmdlines.text);
	p->m.cmdlines.text = uet_read(p->tracefs, "saved_cmdlines", &p->m.cmdlines.len);
	p->cmdlines_fresh = true;
	return uet_comm_of(p->m.cmdlines.text, tid, buf, len);
}

/* A thread met in a page: its process, and its name the first time. */
static const char *perf_thread(void *arg, int32_t tid, bool told, int32_t *ret_pid)
{
	struct perf_sink *p = arg;
	int32_t pid = uet_tgids_get(p->tgids, tid);

	*ret_pid = pid ? pid : tid;
	if (told)
		return NULL;
	return comm_of(p, tid, p->comm, sizeof(p->comm)) ?: "<...>";
}

static int perf_page(struct uet_sink *s, unsigned int cpu, const uint8_t *page, size_t len)
{
	struct perf_sink *p = (struct perf_sink *)s;
	const struct uet_perf_threads th = { perf_thread, p };
	int e;

	p->cmdlines_fresh = false;
	e = uet_perf_writer_page(p->w, cpu, page, len, &th, &p->last_ts, &s->page_missed);
	if (e < 0) {
		uet_err("%s: writing %s: %s", p->who, s->path, strerror(-e));
		return e;
	}
	s->page_records = e;
	return 0;
}

static int perf_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	struct perf_sink *p = (struct perf_sink *)s;

	struct timespec now;

	/* Before any record: now, on the trace's clock (usereventsd's and the kernel's: monotonic). */
	clock_gettime(CLOCK_MONOTONIC, &now);
	return uet_perf_writer_lost(p->w, cpu, p->last_ts ? p->last_ts :
				    (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec, n);
}

static int perf_end(struct uet_sink *s, bool ok)
{
	struct perf_sink *p = (struct perf_sink *)s;
	int e = 0;

	if (p->w && (ok || uet_perf_writer_samples(p->w))) {
		/* Task names and formats as they are now, while the events are still there. */
		free(p->m.cmdlines.text);
		p->m.cmdlines.text = uet_read(p->tracefs, "saved_cmdlines", &p->m.cmdlines.len);
		e = uet_meta_formats_set(&p->fmts, &p->m);
		if (!e)
			e = uet_perf_writer_finish(p->w, &p->m);
		if (e < 0)
			uet_err("%s: writing %s: %s", p->who, s->path, strerror(-e));
	} else {
		unlink(s->path);	/* nothing recorded: no file */
	}
	if (close(s->fd) < 0 && e == 0)
		e = -errno;
	uet_perf_writer_free(p->w);
	uet_meta_formats_free(&p->fmts);
	uet_meta_free(&p->m);
	uet_tgids_free(p->tgids);
	free(p);
	return e;
}

static const struct uet_sink_ops perf_ops = {
	.name = "perf",
	.needs = UET_SINK_PAGES,
	.output = UET_SINK_OUT_FILE,
	.what = "perf.data",
	.begin = perf_begin,
	.format_seen = perf_format_seen,
	.page = perf_page,
	.lost = perf_lost,
	.end = perf_end,
};

struct uet_sink *uet_sink_perf_new(FILE *out, const char *path)
{
	return uet_sink_make(sizeof(struct perf_sink), &perf_ops, out, path);
}
