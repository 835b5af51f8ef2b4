// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents record: copies the ring-buffer pages of every CPU's
 * trace_pipe_raw to the trace.dat sink (sink-tracedat.c) until a signal,
 * or until CMD has exited and everything it wrote has been read, with a
 * private usereventsd when CMD is given and no tracefs is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "consumer.h"
#include "formats.h"
#include "launch.h"
#include "opts.h"
#include "raw.h"
#include "sink.h"
#include "tracefs.h"
#include "util.h"

static const char usage[] = "record [-o FILE] [--format=trace.dat|perf] [-e GLOB [-f FILTER]]... [-p PROVIDER[:LEVEL[:KEYWORDS]]]... [-b KiB] [--blocking[=MS] | --no-blocking] [--duration SECONDS] [--max-size SIZE] [--reattach SECONDS] [-q] [--no-preload] [-- CMD [ARGS]]";

/*
 * The file's format: --format, else perf's when the name is perf's
 * ("perf.data", "x.perf.data"), else trace-cmd's.
 */
static const char *uet_record_format(const struct uet_opts *o)
{
	size_t n = strlen(o->output);

	if (o->format_opt)
		return o->format;
	return n >= 9 && strcmp(o->output + n - 9, "perf.data") == 0 ? "perf" : "trace.dat";
}

/* How often what was read is committed to the file (and the progress line updated). */
#define FLUSH_NS 1000000000ull

/* A limit reached with CMD: SIGINT, then SIGTERM if it is still there this much later. */
#define LIMIT_GRACE_MS 5000

struct rec {
	char tracefs[4096];
	struct uet_sinks sinks;		/* the trace.dat */
	unsigned long long events, missed;
	struct uet_drops drops;
	const char *output;
	uint64_t deadline;		/* --duration: when to stop (uet_now_ns()); 0: never */
	char limit[64];			/* the limit that stopped the recording, or "" */
	struct uet_reattach re;		/* the daemon gone: found again, or the end (marked lost) */
	struct { unsigned int id; char name[300]; } *ids;	/* each type id's event, as met */
	size_t nids;
	unsigned long long rate_events;	/* events at the last progress line */
	uint64_t rate_ns;		/* its time */
};

/* A page read: to the sinks, its events counted. */
static int rec_page(void *arg, unsigned int cpu, const uint8_t *page, size_t len)
{
	struct rec *r = arg;
	int n = uet_sinks_page(&r->sinks, cpu, page, len);

	if (n < 0)
		return n;
	if (r->sinks.page_records >= 0) {
		/* perf.data's writer stepped over each record already. */
		n = (int)r->sinks.page_records;
		if (r->sinks.page_missed && r->sinks.page_missed != UINT64_MAX)
			r->missed += r->sinks.page_missed;
	} else {
		n = uet_page_records(page, len, &r->missed, NULL, NULL);
	}
	if (n > 0)
		r->events += (unsigned long long)n;
	return 0;
}

/* Bytes of the file so far (what the closing line says, not the pages read). */
static unsigned long long file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (unsigned long long)st.st_size : 0;
}

static void progress(struct rec *r, struct uet_raw *raw, bool final)
{
	struct uet_chan_counts cc;
	unsigned long long drops, bytes;
	char why[160] = "", rate[48] = "", said[256];
	uint64_t now = uet_now_ns();

	if (uet_raw_lost(raw, &cc)) {
		/* The channel's own count: every record lost on its way to this file. */
		drops = cc.lost;
		if (cc.lost)
			snprintf(why, sizeof(why), " (%llu with the buffer full, %llu with a producer's ring full)",
				 cc.lost - cc.lost_producer, cc.lost_producer);
	} else {
		drops = uet_drops_now(&r->drops, r->tracefs);
		/* Without the buffer's counters, the pages' own note of lost records. */
		if (!r->drops.have)
			drops = r->missed;
	}
	if (final) {
		bytes = file_bytes(r->output);
	} else {
		/* Live: the rate since the last line; the file's size as it will be (it has room to grow). */
		if (r->rate_ns && now > r->rate_ns)
			snprintf(rate, sizeof(rate), " (%.0f/s)",
				 (double)(r->events - r->rate_events) * 1e9 / (double)(now - r->rate_ns));
		r->rate_events = r->events;
		r->rate_ns = now;
		bytes = uet_sink_tracedat_size(r->sinks.v[0]);
	}
	/* Live, on a terminal: the line is rewritten in place, what is left of a longer one erased. */
	fprintf(stderr, "%s" UET_PROG ": record: %llu events%s, %llu bytes, %llu dropped%s%s%s%s%s",
		final ? "" : "\r", r->events, rate, bytes, drops, why, r->limit[0] ? "; stopped " : "",
		r->limit, uet_reattach_said(&r->re, said, sizeof(said)), final ? "\n" : "\033[K");
	fflush(stderr);
}

/*
 * A format met: to the file.  A daemon mounted anew (no keeper) numbers the
 * events again as they register: a type id that named another event before
 * a gap is said, the file keeping one format an id (the earlier records of
 * that id are read with the later format).
 */
static int formats_seen(void *arg, const struct uet_format *f)
{
	struct rec *r = arg;
	char name[300];
	size_t i;

	snprintf(name, sizeof(name), "%s:%s", f->system, f->desc->name);
	for (i = 0; i < r->nids && r->ids[i].id != f->id; i++)
		;
	if (i < r->nids && r->re.gaps && strcmp(r->ids[i].name, name) != 0)
		uet_err("record: warning: the daemon served again gave %s the type id %u of %s "
			"before: the file keeps one format an id (report reads %s's records as %s's)",
			name, f->id, r->ids[i].name, r->ids[i].name, name);
	if (i == r->nids) {
		void *v = realloc(r->ids, (r->nids + 1) * sizeof(*r->ids));

		if (!v)
			return -ENOMEM;
		r->ids = v;
		r->ids[r->nids++].id = f->id;
	}
	snprintf(r->ids[i].name, sizeof(r->ids[i].name), "%s", name);
	return uet_sinks_format_seen(&r->sinks, f);
}

/* The tracefs: a private daemon's for CMD when none is named, else the one named or found. */
static int find_tracefs(struct rec *r, const char *opt, struct uet_child *cmd,
			struct uet_private **priv)
{
	if (cmd && !opt && !getenv("USEREVENTS_TRACEFS"))
		return uet_private_start("record", priv, r->tracefs, sizeof(r->tracefs), cmd) < 0
			       ? UET_EXIT_RUN_FAIL
			       : 0;
	return uet_tracefs_resolve(opt, r->tracefs, sizeof(r->tracefs));
}

/*
 * The daemon went away: a daemon serving the tracefs again is looked for
 * (uet_reattach_raw()), not when the recording ends anyway.  Either way the
 * file has a loss of unknown count on every CPU there, as a ring-buffer page
 * says it (the missed flag without a stored count): trace-cmd prints
 * "[LOST EVENTS]", report a LOST line.  Return: whether recording goes on.
 */
static bool record_gap(struct rec *r, struct uet_raw *raw, bool stopping, int *err)
{
	unsigned int ncpus = raw->ncpus;
	bool back = uet_reattach_raw(&r->re, raw, stopping) == 0;

	*err = uet_sinks_gap(&r->sinks, ncpus > raw->ncpus ? ncpus : raw->ncpus, back);
	return back && *err == 0;
}

/*
 * Read every CPU's pages until a signal (or CMD's end and the drain), the
 * file committed every FLUSH_NS.  Return: 0 or -errno (said).
 */
static int record_loop(struct rec *r, struct uet_raw *raw, struct uet_autoenable *ae,
		       struct uet_child *child, bool with_cmd, bool live_progress)
{
	uint64_t last_flush = uet_now_ns();

	for (uint64_t last_tick = uet_now_ns();;) {
		/* Decided before the pass: a pass that then reads nothing ends it. */
		bool stopping = with_cmd ? child->done : uet_signal != 0;
		int got, wait_ms = raw->chan && ae->session >= 0 ? 500 : 50;

		/* --duration: the end, as a signal's (what was written by then is read). */
		if (r->deadline && !r->limit[0] && uet_now_ns() >= r->deadline)
			snprintf(r->limit, sizeof(r->limit), "after --duration");
		stopping |= r->limit[0] != '\0';

		/*
		 * A scan costs a read of every event's files: not between busy
		 * passes, and seldom where usereventsd enables what is armed.
		 */
		if (stopping || uet_now_ns() - last_tick >= (raw->chan && ae->session >= 0
								     ? 1000000000ull : 50000000ull)) {
			uet_autoenable_tick(ae);
			last_tick = uet_now_ns();
		}
		if (ae->failed)
			return ae->failed;
		/* The end: what the producers' rings and partly filled pages hold, too. */
		if (stopping)
			uet_raw_flush(raw, r->tracefs);
		got = uet_raw_pass(raw, 64, rec_page, r);
		/* --max-size: the file is full; it ends as it is, what the pass held left out. */
		if (got == -EFBIG) {
			snprintf(r->limit, sizeof(r->limit), "at --max-size");
			/* The formats of events registered since the last scan. */
			uet_autoenable_tick(ae);
			return 0;
		}
		/* Every page read, and the daemon's end of the channel closed (or its files dead). */
		if (uet_daemon_gone(got)) {
			int e;

			if (record_gap(r, raw, stopping, &e))
				continue;
			return e;
		}
		if (got < 0) {
			uet_err("record: %s: %s", raw->chan ? "the trace's channel" : "trace_pipe_raw",
				strerror(-got));
			return got;
		}
		if (stopping && got == 0)
			return 0;
		if (with_cmd && !child->done && uet_child_poll(child))
			continue;	/* the next passes flush and read what it left */
		if (uet_now_ns() - last_flush >= FLUSH_NS) {
			int e = uet_sinks_flush(&r->sinks);

			if (e < 0)
				return e;
			last_flush = uet_now_ns();
			if (live_progress)
				progress(r, raw, false);
		}
		if (r->deadline && !stopping) {
			uint64_t now = uet_now_ns();

			if (now < r->deadline && (r->deadline - now) / 1000000 < (uint64_t)wait_ms)
				wait_ms = (int)((r->deadline - now) / 1000000) + 1;
		}
		if (!got)
			uet_raw_wait(raw, wait_ms);
	}
}

int uet_cmd_record(const char *tracefs_opt, int argc, char **argv)
{
	struct uet_autoenable ae = { 0 };
	struct uet_formats formats = { 0 };
	struct uet_private *priv = NULL;
	struct uet_child child;
	struct uet_raw raw = { 0 };
	struct uet_buf_stats st;
	struct uet_opts o;
	struct rec r = { 0 };
	bool with_cmd, live_progress;
	int e, exit_code;

	e = uet_opts_parse(&o, argc, argv, UET_O_OUTPUT | UET_O_EVENT | UET_O_FILTER | UET_O_QUIET |
				   UET_O_NO_PRELOAD | UET_O_PROVIDER | UET_O_BUFFER | UET_O_LIMIT |
				   UET_O_FILEFMT | UET_O_REATTACH,
			   usage);
	if (e >= 0)
		return e;
	/* trace-cmd's default, which report reads when given no file. */
	if (!o.output)
		o.output = "trace.dat";
	if (o.max_size && strcmp(uet_record_format(&o), "perf") == 0) {
		uet_opts_free(&o);
		return uet_usage_err("record", usage, "--max-size applies to trace.dat files");
	}
	with_cmd = o.rest < argc;
	uet_child_init(&child, "record", argv + o.rest, o.no_preload);
	/* With CMD, record's own failures are told from CMD's status as run does. */
	exit_code = with_cmd ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	/*
	 * The progress line goes on a terminal, and only without CMD: CMD's
	 * own output would run into it.
	 */
	live_progress = !o.quiet && !with_cmd && isatty(STDERR_FILENO);
	uet_opts_all_user_events(&o);
	/* The file first: nothing starts when it cannot be written. */
	if (uet_sinks_add(&r.sinks, uet_sink_new(uet_record_format(&o), NULL, o.output)) < 0)
		goto out;
	if (o.max_size)
		uet_sink_tracedat_limit(r.sinks.v[0], o.max_size);
	uet_catch_signals();
	e = find_tracefs(&r, tracefs_opt, with_cmd ? &child : NULL, &priv);
	if (e) {
		exit_code = e == UET_EXIT_NO_TRACEFS ? e : exit_code;
		goto out;
	}
	e = uet_buf_stats_read(r.tracefs, &st);
	if (e < 0 || !st.ncpus) {
		uet_err("record: %s/per_cpu: %s", r.tracefs, strerror(e < 0 ? -e : ENOENT));
		goto out;
	}
	if (uet_sinks_begin(&r.sinks, &(struct uet_sink_env){ "record", r.tracefs, st.ncpus }) < 0)
		goto out;
	r.output = o.output;
	/*
	 * A recording keeps everything by default: while record is behind,
	 * the daemon holds records back in the producers' rings and they
	 * wait, up to UET_BLOCK_DEFAULT_MS (--no-blocking: lost and counted).
	 */
	raw.params = (struct uet_chan_params){
		.kib_per_cpu = o.buffer_kib,
		.block_ms = o.block_set ? o.block_ms : UET_BLOCK_DEFAULT_MS,
		.flush_ms = 1000 };
	if (uet_raw_open(&raw, r.tracefs, st.ncpus, "record") < 0)
		goto out;
	/* Not usereventsd's channel: -b sizes the tracefs's own buffer, as trace-cmd's -b does. */
	if (!raw.chan && o.buffer_kib) {
		char kib[24];

		snprintf(kib, sizeof(kib), "%u", o.buffer_kib);
		if (uet_write(r.tracefs, "buffer_size_kb", kib) < 0)
			uet_err("record: %s/buffer_size_kb: cannot be set to %s", r.tracefs, kib);
	}
	uet_drops_begin(&r.drops, r.tracefs);
	/* A private daemon is ours: none comes back for it. */
	r.re = (struct uet_reattach){ .tracefs = r.tracefs, .who = "record",
				      .wait_ms = priv ? 0 : o.reattach_ms, .ae = &ae };
	formats.on_new = formats_seen;
	formats.on_new_arg = &r;
	ae = (struct uet_autoenable){ .tracefs = r.tracefs, .who = "record", .globs = o.globs,
				      .nglobs = o.nglobs, .filters = o.filters,
				      .default_globs = o.default_globs, .formats = &formats };
	/* Without CMD the events should be there; matching ones may still come. */
	if (uet_autoenable_start(&ae, !with_cmd) < 0)
		goto out;
	if (with_cmd && uet_child_start(&child, r.tracefs) < 0)
		goto out;
	if (o.duration_ns)
		r.deadline = uet_now_ns() + o.duration_ns;
	e = record_loop(&r, &raw, &ae, &child, with_cmd, live_progress);
	if (e < 0)
		goto out;
	/* Formats and task names while the events are still enabled, so still there. */
	e = uet_sinks_end(&r.sinks, true);
	if (!o.quiet) {
		if (live_progress)
			fputs("\r\033[K", stderr);
		progress(&r, &raw, true);
	}
	if (e < 0)
		goto out;
	/*
	 * A limit reached while CMD runs: CMD is interrupted as by a ^C (its
	 * events off first, and the channel closed: nothing holds it back),
	 * and its end by that signal is no failure.
	 */
	if (with_cmd && r.limit[0]) {
		uet_autoenable_undo(&ae);
		uet_raw_close(&raw);
		if (uet_child_stop(&child, LIMIT_GRACE_MS)) {
			exit_code = UET_EXIT_OK;
			goto matched;
		}
	}
	exit_code = with_cmd ? uet_child_exit_code(&child, "record") : UET_EXIT_OK;
	/* The file is whole, but not the trace: what came after the daemon went is missing. */
	if (r.re.gone && exit_code == UET_EXIT_OK)
		exit_code = UET_EXIT_FAIL;
matched:
	/* Said whatever CMD's exit; its status is kept when it failed. */
	if (uet_autoenable_unmatched(&ae) && exit_code == 0)
		exit_code = UET_EXIT_NO_MATCH;
out:
	uet_child_end(&child);
	if (ae.failed)
		uet_autoenable_say_failed(&ae, with_cmd ? &child : NULL,
					  " (the file holds what was read)");
	uet_sinks_end(&r.sinks, false);
	uet_autoenable_free(&ae);
	uet_raw_close(&raw);
	uet_formats_free(&formats);
	free(r.ids);
	uet_private_stop(priv);
	uet_opts_free(&o);
	return exit_code;
}
