// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents run: one program traced by a private usereventsd (private.c).
 * Its events are enabled as they get registered, streamed live from
 * trace_pipe and counted; a summary (events and bytes per name, drops)
 * closes, and run returns the program's exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

static const char usage[] = "run [-e GLOB [-f FILTER]]... [-o FILE] [-q] [--no-preload] -- CMD [ARGS]";

static volatile sig_atomic_t run_stop;

struct run {
	char tracefs[4096];
	struct uet_child child;
	struct uet_autoenable ae;
};

static void run_tick(void *arg)
{
	struct run *r = arg;

	uet_autoenable_tick(&r->ae);
	if (!r->child.done && uet_child_poll(&r->child)) {
		/* Whatever it left in native rings, and what registered last, then drain. */
		uet_settle(r->tracefs);
		uet_autoenable_tick(&r->ae);
		run_stop = 1;
	}
}

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct uet_count *)a)->name, ((const struct uet_count *)b)->name);
}

static void summary(struct uet_stream *s, struct uet_drops *d, const char *tracefs)
{
	unsigned long long events = 0, bytes = 0, dropped = uet_drops_now(d, tracefs);

	if (s->ncounts)
		qsort(s->counts, s->ncounts, sizeof(*s->counts), cmp_count);
	fprintf(stderr, "\n%-32s %12s %12s\n", "EVENT", "EVENTS", "BYTES");
	for (size_t i = 0; i < s->ncounts; i++) {
		fprintf(stderr, "%-32s %12llu %12llu\n", s->counts[i].name, s->counts[i].events,
			s->counts[i].bytes);
		events += s->counts[i].events;
		bytes += s->counts[i].bytes;
	}
	fprintf(stderr, "%-32s %12llu %12llu\n", "total", events, bytes);
	if (d->have)
		fprintf(stderr,
			"dropped: %llu (overrun %llu, discarded %llu, native ring full %llu; "
			"lost lines %llu)\n",
			dropped, d->overrun, d->discarded, d->ring_full, s->lost);
}

int uet_cmd_run(const char *tracefs_opt, int argc, char **argv)
{
	struct uet_stream s = { .out = stdout, .stop = &run_stop };
	struct uet_private *priv = NULL;
	struct uet_drops drops;
	struct run r = { 0 };
	struct uet_opts o;
	int e, exit_code = UET_EXIT_RUN_FAIL;

	if (tracefs_opt) {
		uet_err("run: --tracefs does not apply: run starts its own usereventsd");
		return UET_EXIT_USAGE;
	}
	e = uet_opts_parse(&o, argc, argv, UET_O_EVENT | UET_O_FILTER | UET_O_OUTPUT | UET_O_QUIET |
				   UET_O_NO_PRELOAD,
			   usage);
	if (e >= 0)
		return e;
	if (o.rest >= argc) {
		uet_err("run: no command (usage: " UET_PROG " %s)", usage);
		uet_opts_free(&o);
		return UET_EXIT_USAGE;
	}
	uet_opts_all_user_events(&o);
	if (o.output) {
		s.copy = fopen(o.output, "we");
		if (!s.copy) {
			uet_err("run: %s: %s", o.output, strerror(errno));
			goto out;
		}
	}
	if (o.quiet)
		s.out = NULL;
	uet_catch_signals();
	if (uet_private_start("run", &priv, r.tracefs, sizeof(r.tracefs)) < 0)
		goto out;
	uet_drops_begin(&drops, r.tracefs);
	r.ae = (struct uet_autoenable){ .tracefs = r.tracefs, .globs = o.globs,
					.filters = o.filters, .nglobs = o.nglobs };
	s.tracefs = r.tracefs;
	s.globs = o.globs;
	s.nglobs = o.nglobs;
	s.tick = run_tick;
	s.tick_arg = &r;
	if (uet_child_start(&r.child, "run", r.tracefs, argv + o.rest, o.no_preload) < 0)
		goto out;
	e = uet_stream_loop(&s);
	if (e < 0) {
		uet_err("run: %s/trace_pipe: %s", r.tracefs, strerror(-e));
		/* The stream broke: the command is still ours to wait for. */
		while (!uet_child_poll(&r.child))
			uet_sleep_ms(50);
	}
	uet_autoenable_undo(&r.ae);
	summary(&s, &drops, r.tracefs);
	exit_code = uet_child_exit_code(&r.child, "run");
	if (e < 0 && exit_code == 0)
		exit_code = UET_EXIT_RUN_FAIL;
out:
	uet_child_end(&r.child);
	uet_private_stop(priv);
	free(r.ae.done);
	if (s.copy && fclose(s.copy) != 0) {
		uet_err("run: %s: %s", o.output, strerror(errno));
		if (exit_code == 0)
			exit_code = UET_EXIT_RUN_FAIL;
	}
	uet_stream_free(&s);
	uet_opts_free(&o);
	return exit_code;
}
