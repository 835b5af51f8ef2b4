// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A live reader whose daemon went away (issue 30): record, stream, export
 * and top look for a daemon serving again at the same path for a bounded
 * time (--reattach), then read on from it as they did at start: the same
 * source (a consumer channel with the same parameters, trace_pipe_raw,
 * trace_pipe), the same globs armed with their filters and the events
 * enabled.  A keeper's daemon serves the same mount (its native path new:
 * the channel's socket ends as if the daemon had died); without one, a new
 * daemon is mounted where the dead one was.  What was written meanwhile is
 * lost; the caller marks it (uet_sinks_gap()) and says it in its closing
 * line (uet_reattach_said()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "consumer.h"
#include "raw.h"
#include "util.h"

/* Between two looks for a daemon: a new one serves within a second. */
#define LOOK_EVERY_MS 50

bool uet_daemon_gone(int e)
{
	/* FUSE's answer for a dead connection; the channel's end closed; a socket reset. */
	return e == -ENOTCONN || e == -ECONNRESET || e == -ECONNABORTED;
}

int uet_reattach(struct uet_reattach *re, bool ending, int (*open_source)(void *arg), void *arg)
{
	uint64_t t0 = uet_now_ns(), deadline = t0 + (uint64_t)re->wait_ms * 1000000ull;
	int e = -ENOTCONN;

	if (re->wait_ms && !ending && !uet_signal) {
		uet_err("%s: the daemon serving %s went away: looking for one there for %.3g s",
			re->who, re->tracefs, re->wait_ms / 1e3);
		for (;;) {
			e = open_source(arg);
			if (e == 0 || uet_signal || uet_now_ns() >= deadline)
				break;
			uet_sleep_ms(LOOK_EVERY_MS);
		}
	}
	if (e < 0) {
		re->gone = true;
		if (!re->wait_ms || ending)
			uet_err("%s: the daemon serving %s went away: the trace ends here", re->who,
				re->tracefs);
		else
			uet_err("%s: no daemon served %s again %s: the trace ends here", re->who,
				re->tracefs, uet_signal ? "before the signal" : "in time");
		return -ENOTCONN;
	}
	/* Counted first: what the arming meets is the new daemon's. */
	re->gaps++;
	if (re->ae)
		uet_autoenable_rearm(re->ae);
	uet_err("%s: a daemon serves %s again, found in %.1f s: reading on (what was written "
		"meanwhile is lost, marked)", re->who, re->tracefs, (double)(uet_now_ns() - t0) / 1e9);
	return 0;
}

struct raw_again {
	struct uet_raw *raw;
	const char *tracefs;
	unsigned int ncpus;
	bool chan;
};

/* The source as it was: a channel (none yet: the mount point empty, or its socket not there). */
static int raw_open_again(void *arg)
{
	struct raw_again *a = arg;

	if (!a->chan)
		return uet_raw_open(a->raw, a->tracefs, a->ncpus, NULL);
	if (uet_chan_open(&a->raw->chan, a->tracefs, &a->raw->params) < 0)
		return -ENOTCONN;
	a->raw->ncpus = uet_chan_ncpus(a->raw->chan);
	return 0;
}

int uet_reattach_raw(struct uet_reattach *re, struct uet_raw *raw, bool ending)
{
	struct raw_again a = { raw, re->tracefs, raw->ncpus, raw->chan != NULL };
	struct uet_chan_counts cc;

	if (uet_raw_lost(raw, &cc))
		raw->before = cc;
	uet_raw_close(raw);
	/* trace_pipe_raw again if that was the source; ncpus stays for the marks. */
	raw->no_channel = !a.chan;
	if (uet_reattach(re, ending, raw_open_again, &a) < 0) {
		raw->ncpus = a.ncpus;
		return -ENOTCONN;
	}
	return 0;
}

const char *uet_reattach_said(const struct uet_reattach *re, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (re && re->gaps)
		n = snprintf(buf, len, "; the daemon went away %u time%s and one served again: "
			     "what was written meanwhile is lost, count unknown", re->gaps,
			     re->gaps == 1 ? "" : "s");
	if (re && re->gone && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "; then the daemon went away: what came after is lost, count unknown");
	return buf;
}
