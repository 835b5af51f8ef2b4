// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents run: one program traced by a private usereventsd (private.c).
 * Its events are enabled as they get registered, read live as stream reads
 * them (its records from a consumer channel, rendered by the sinks; to
 * standard output, or to -o FILE instead) and counted; a summary (events
 * and bytes per name, drops) closes, and run returns the program's exit
 * status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "commands.h"
#include "launch.h"
#include "opts.h"
#include "sink.h"
#include "tracefs.h"
#include "util.h"

static const char usage[] = "run [-e GLOB [-f FILTER]]... [-p PROVIDER[:LEVEL[:KEYWORDS]]]... [-o FILE] [-b KiB] [-q] [--no-preload] -- CMD [ARGS]";

struct run {
	char tracefs[4096];
	struct uet_child child;
	struct uet_autoenable ae;
};

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct uet_count *)a)->name, ((const struct uet_count *)b)->name);
}

static void summary(struct uet_stream *s, struct uet_drops *d, const char *tracefs)
{
	unsigned long long events = 0, bytes = 0, dropped = uet_drops_now(d, tracefs);
	int w = 32;	/* the names' column: 32, or the longest name (an EventHeader provider's) */

	if (s->ncounts)
		qsort(s->counts, s->ncounts, sizeof(*s->counts), cmp_count);
	for (size_t i = 0; i < s->ncounts; i++)
		if ((int)strlen(s->counts[i].name) > w)
			w = (int)strlen(s->counts[i].name);
	fprintf(stderr, "\n%s%-*s %12s %12s%s\n", uet_bold(stderr), w, "EVENT", "EVENTS", "BYTES",
		uet_bold_end(stderr));
	for (size_t i = 0; i < s->ncounts; i++) {
		fprintf(stderr, "%-*s %12llu %12llu\n", w, s->counts[i].name, s->counts[i].events,
			s->counts[i].bytes);
		events += s->counts[i].events;
		bytes += s->counts[i].bytes;
	}
	fprintf(stderr, "%-*s %12llu %12llu\n", w, "total", events, bytes);
	if (d->have)
		fprintf(stderr,
			"dropped: %llu (overrun %llu, discarded %llu, native ring full %llu; "
			"marked lost %llu)\n",
			dropped, d->overrun, d->discarded, d->ring_full, s->lost);
}

int uet_cmd_run(const char *tracefs_opt, int argc, char **argv)
{
	struct uet_stream s = { 0 };	/* the counts of the summary */
	struct uet_private *priv = NULL;
	struct uet_buf_stats st;
	struct uet_sinks sinks = { 0 };
	struct uet_drops drops;
	struct run r = { 0 };
	struct uet_opts o;
	int e = 0, exit_code = UET_EXIT_RUN_FAIL;

	e = uet_opts_parse(&o, argc, argv, UET_O_EVENT | UET_O_FILTER | UET_O_OUTPUT | UET_O_QUIET |
				   UET_O_NO_PRELOAD | UET_O_PROVIDER | UET_O_BUFFER,
			   usage);
	if (e >= 0)
		return e;
	/* A usage error, before anything starts: run always holds the command back as record does. */
	if (tracefs_opt || o.block_set || o.rest >= argc) {
		uet_opts_free(&o);
		return uet_usage_err("run", usage, tracefs_opt ?
				     "--tracefs does not apply: run starts its own usereventsd" :
				     o.block_set ?
				     "--blocking and --no-blocking apply to record, stream and export" :
				     "no command (-- CMD)");
	}
	uet_opts_all_user_events(&o);
	uet_child_init(&r.child, "run", argv + o.rest, o.no_preload);
	/*
	 * Every output first: nothing starts when one cannot be written.  As
	 * strace -o and perf trace -o: -o FILE takes the trace lines off
	 * standard output, which is then CMD's alone.
	 */
	if (!o.quiet && !o.output && uet_sinks_add(&sinks, uet_sink_new(o.format, stdout, NULL)) < 0)
		goto out;
	if (o.output && uet_sinks_add(&sinks, uet_sink_new(o.format, NULL, o.output)) < 0)
		goto out;
	uet_catch_signals();
	if (uet_private_start("run", &priv, r.tracefs, sizeof(r.tracefs), &r.child) < 0)
		goto out;
	/* -b sizes its private daemon's buffer (buffer_size_kb) and its channel. */
	if (o.buffer_kib) {
		char kib[24];

		snprintf(kib, sizeof(kib), "%u", o.buffer_kib);
		if (uet_write(r.tracefs, "buffer_size_kb", kib) < 0) {
			uet_err("run: %s/buffer_size_kb: cannot be set to %s", r.tracefs, kib);
			goto out;
		}
	}
	if (uet_buf_stats_read(r.tracefs, &st) < 0 || !st.ncpus) {
		uet_err("run: %s/per_cpu: %s", r.tracefs, strerror(ENOENT));
		goto out;
	}
	if (uet_sinks_begin(&sinks, &(struct uet_sink_env){ "run", r.tracefs, st.ncpus }) < 0)
		goto out;
	uet_drops_begin(&drops, r.tracefs);
	r.ae = (struct uet_autoenable){ .tracefs = r.tracefs, .who = "run", .globs = o.globs,
					.filters = o.filters, .nglobs = o.nglobs,
					.default_globs = o.default_globs };
	if (uet_autoenable_start(&r.ae, false) < 0)
		goto out;
	if (uet_child_start(&r.child, r.tracefs) < 0)
		goto out;
	/*
	 * The records, rendered as stream renders them (EventHeader decoded),
	 * from a channel that holds the command back rather than lose
	 * (record's default; run takes no --blocking).
	 */
	o.block_ms = UET_BLOCK_DEFAULT_MS;
	e = uet_stream_raw(r.tracefs, &o, &r.ae, &sinks, st.ncpus, &r.child, &s, NULL);
	if (e < 0 && !o.output && uet_output_gone(stdout))
		e = -EPIPE;
	if (r.ae.failed)
		uet_child_end(&r.child);
	if (e < 0) {
		/* -o FILE's sink is the last; its error flag says whether the failure was its. */
		bool file = o.output && sinks.n && ferror(sinks.v[sinks.n - 1]->out);

		/* A reader that went away (| head) is the end, as for stream: nothing to say. */
		if (e != -EPIPE)
			uet_err("run: %s: %s", file ? o.output : e == -ENOENT || e == -EIO ? r.tracefs :
				"output", strerror(-e));
		/* The stream broke: the command is still ours to wait for. */
		while (!uet_child_poll(&r.child))
			uet_sleep_ms(50);
	}
	uet_autoenable_undo(&r.ae);
	/* CMD that could not be run (its launcher said why): no table of nothing before its 127. */
	if (!r.child.done || !WIFEXITED(r.child.status) || s.ncounts || s.lost ||
	    (WEXITSTATUS(r.child.status) != UET_EXIT_NOT_FOUND &&
	     WEXITSTATUS(r.child.status) != UET_EXIT_CANNOT_EXEC))
		summary(&s, &drops, r.tracefs);
	if (r.ae.failed) {
		uet_autoenable_say_failed(&r.ae, &r.child, "");
		goto out;
	}
	exit_code = uet_child_exit_code(&r.child, "run");
	/* A reader that went away (| head) ended it: CMD's status, as without the pipe. */
	if (e < 0 && e != -EPIPE && exit_code == 0)
		exit_code = UET_EXIT_RUN_FAIL;
	/* The events shown matched, whether or not a scan saw them (| head ends before one). */
	for (size_t i = 0; i < s.ncounts; i++)
		uet_autoenable_saw(&r.ae, "user_events", s.counts[i].name);
	/* Said whatever CMD's exit; its status is kept when it failed. */
	if (uet_autoenable_unmatched(&r.ae) && exit_code == 0)
		exit_code = UET_EXIT_NO_MATCH;
out:
	uet_child_end(&r.child);
	uet_private_stop(priv);
	uet_autoenable_free(&r.ae);
	/* Output whose reader went away has nowhere to go: not a failure. */
	if (uet_sinks_end(&sinks, exit_code == 0 && e != -EPIPE) < 0 && exit_code == 0 &&
	    e != -EPIPE)
		exit_code = UET_EXIT_RUN_FAIL;
	uet_stream_free(&s);
	uet_opts_free(&o);
	return exit_code;
}
