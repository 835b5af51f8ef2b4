// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents record: copies the ring-buffer pages of every CPU's
 * trace_pipe_raw into a trace-cmd trace.dat (tracedat.c) until a signal,
 * or until CMD has exited and everything it wrote has been read, with a
 * private usereventsd when CMD is given and no tracefs is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rbpage.h"
#include "tool.h"
#include "tracedat.h"

static const char usage[] = "record -o FILE [-e GLOB [-f FILTER]]... [-q] [--no-preload] [-- CMD [ARGS]]";

struct rec {
	char tracefs[4096];
	FILE **out;			/* per CPU: the pages read */
	unsigned int ncpus;
	unsigned long long events, bytes, missed;
	struct uet_drops drops;
};

/* A page read: its bytes to the CPU's file, its events counted. */
static int rec_page(void *arg, unsigned int cpu, const uint8_t *page, size_t len)
{
	struct rec *r = arg;
	int n;

	if (fwrite(page, len, 1, r->out[cpu]) != 1)
		return -EIO;
	r->bytes += len;
	n = uet_page_records(page, len, &r->missed, NULL, NULL);
	if (n > 0)
		r->events += (unsigned long long)n;
	return 0;
}

static void progress(struct rec *r, bool final)
{
	unsigned long long drops = uet_drops_now(&r->drops, r->tracefs);

	/* Without the buffer's counters, the pages' own note of lost records. */
	if (!r->drops.have)
		drops = r->missed;
	fprintf(stderr, "%s" UET_PROG ": record: %llu events, %llu bytes, %llu dropped%s",
		final ? "" : "\r", r->events, r->bytes, drops, final ? "\n" : "");
	fflush(stderr);
}

static int cmp_format(const void *a, const void *b)
{
	const struct uet_format *x = *(const struct uet_format *const *)a;
	const struct uet_format *y = *(const struct uet_format *const *)b;
	int c = strcmp(x->system, y->system);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The metadata from the tracefs and the formats kept, the pages of @r->out, into @path. */
static int write_file(struct rec *r, const struct uet_formats *formats, const char *path)
{
	struct uet_dat_meta m = { .ncpus = r->ncpus };
	const struct uet_format **sorted = NULL;
	size_t len;
	char *t;
	int fd, e = -ENOMEM;

	m.header_page.text = uet_read(r->tracefs, "events/header_page", &m.header_page.len);
	m.header_event.text = uet_read(r->tracefs, "events/header_event", &m.header_event.len);
	if (!m.header_page.text || !m.header_event.text) {
		e = -errno;
		uet_err("record: %s/events/header_page: %s", r->tracefs, strerror(-e));
		goto out;
	}
	m.cmdlines.text = uet_read(r->tracefs, "saved_cmdlines", &m.cmdlines.len);
	m.trace_clock.text = uet_read(r->tracefs, "trace_clock", &m.trace_clock.len);
	t = uet_read(r->tracefs, "events/ftrace/print/format", &len);
	if (t) {
		m.ftrace = calloc(1, sizeof(*m.ftrace));
		if (!m.ftrace) {
			free(t);
			goto out;
		}
		m.ftrace[0] = (struct uet_dat_text){ "ftrace", t, len };
		m.nftrace = 1;
	}
	/* Every format seen while recording, grouped by system as the file wants. */
	sorted = calloc(formats->n + 1, sizeof(*sorted));
	m.formats = calloc(formats->n + 1, sizeof(*m.formats));
	if (!sorted || !m.formats)
		goto out;
	for (size_t i = 0; i < formats->n; i++)
		sorted[i] = &formats->v[i];
	if (formats->n > 1)
		qsort(sorted, formats->n, sizeof(*sorted), cmp_format);
	for (size_t i = 0; i < formats->n; i++)
		m.formats[i] = (struct uet_dat_text){ sorted[i]->system, sorted[i]->text,
						      sorted[i]->len };
	m.nformats = formats->n;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = -errno;
		uet_err("record: %s: %s", path, strerror(-e));
		goto out;
	}
	e = uet_dat_write(fd, &m, r->out, UE_RB_PAGE_SIZE);
	if (close(fd) < 0 && e == 0)
		e = -errno;
	if (e < 0)
		uet_err("record: writing %s: %s", path, strerror(-e));
out:
	free(m.header_page.text);
	free(m.header_event.text);
	free(m.cmdlines.text);
	free(m.trace_clock.text);
	if (m.ftrace)
		free(m.ftrace[0].text);
	free(m.ftrace);
	free(m.formats);
	free(sorted);
	return e;
}

int uet_cmd_record(const char *tracefs_opt, int argc, char **argv)
{
	struct uet_autoenable ae = { 0 };
	struct uet_formats formats = { 0 };
	struct uet_private *priv = NULL;
	struct uet_child child = { 0 };
	struct uet_raw raw = { 0 };
	struct uet_buf_stats st;
	struct uet_opts o;
	struct rec r = { 0 };
	bool tty = isatty(STDERR_FILENO), with_cmd;
	uint64_t last_progress = uet_now_ns();
	int e, exit_code;

	e = uet_opts_parse(&o, argc, argv, UET_O_OUTPUT | UET_O_EVENT | UET_O_FILTER | UET_O_QUIET |
				   UET_O_NO_PRELOAD,
			   usage);
	if (e >= 0)
		return e;
	if (!o.output) {
		uet_err("record: no output file (usage: " UET_PROG " %s)", usage);
		uet_opts_free(&o);
		return UET_EXIT_USAGE;
	}
	with_cmd = o.rest < argc;
	/* With CMD, record's own failures are told from CMD's status as run does. */
	exit_code = with_cmd ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	uet_opts_all_user_events(&o);
	uet_catch_signals();

	if (with_cmd && !tracefs_opt && !getenv("USEREVENTS_TRACEFS")) {
		if (uet_private_start("record", &priv, r.tracefs, sizeof(r.tracefs)) < 0)
			goto out;
	} else if (uet_tracefs_find(tracefs_opt, r.tracefs, sizeof(r.tracefs)) < 0 ||
		   access(r.tracefs, F_OK) < 0) {
		uet_err("no tracefs with user_events found (use --tracefs DIR or USEREVENTS_TRACEFS)");
		exit_code = UET_EXIT_NO_TRACEFS;
		goto out;
	}
	e = uet_buf_stats_read(r.tracefs, &st);
	if (e < 0 || !st.ncpus) {
		uet_err("record: %s/per_cpu: %s", r.tracefs, strerror(e < 0 ? -e : ENOENT));
		goto out;
	}
	r.out = calloc(st.ncpus, sizeof(*r.out));
	if (!r.out)
		goto out;
	for (r.ncpus = 0; r.ncpus < st.ncpus; r.ncpus++) {
		r.out[r.ncpus] = tmpfile();
		if (!r.out[r.ncpus]) {
			uet_err("record: tmpfile: %s", strerror(errno));
			goto out;
		}
	}
	if (uet_raw_open(&raw, r.tracefs, r.ncpus, "record") < 0)
		goto out;
	uet_drops_begin(&r.drops, r.tracefs);
	ae = (struct uet_autoenable){ .tracefs = r.tracefs, .globs = o.globs, .nglobs = o.nglobs,
				      .filters = o.filters, .formats = &formats };
	uet_autoenable_tick(&ae);
	if (!with_cmd && !ae.ndone) {
		/* Nothing we could enable now; matching events may still come. */
		for (size_t i = 0; i < o.nglobs; i++)
			if (!strpbrk(o.globs[i], "*?["))
				uet_err("record: warning: no event matches '%s' yet", o.globs[i]);
	}
	if (with_cmd && uet_child_start(&child, "record", r.tracefs, argv + o.rest,
					   o.no_preload) < 0)
		goto out;
	for (uint64_t last_tick = uet_now_ns();;) {
		/* Decided before the pass: a pass that then reads nothing ends it. */
		bool stopping = with_cmd ? child.done : uet_signal != 0;
		int got;

		/* A scan costs a read of every event's files: not between busy passes. */
		if (stopping || uet_now_ns() - last_tick >= 50000000ull) {
			uet_autoenable_tick(&ae);
			last_tick = uet_now_ns();
		}
		got = uet_raw_pass(&raw, 64, rec_page, &r);
		if (got < 0) {
			uet_err("record: trace_pipe_raw: %s", strerror(-got));
			goto out;
		}
		if (stopping && got == 0)
			break;
		if (with_cmd && !child.done && uet_child_poll(&child)) {
			/*
			 * Everything it wrote is in the buffer once the native
			 * rings are drained; the next passes read it all.
			 */
			uet_settle(r.tracefs);
			continue;
		}
		if (tty && !o.quiet && uet_now_ns() - last_progress > 1000000000ull) {
			last_progress = uet_now_ns();
			progress(&r, false);
		}
		if (!got)
			uet_sleep_ms(50);
	}
	/* Formats and task names while the events are still enabled, so still there. */
	e = write_file(&r, &formats, o.output);
	if (!o.quiet) {
		if (tty)
			fputc('\r', stderr);
		progress(&r, true);
	}
	if (e < 0)
		goto out;
	exit_code = with_cmd ? uet_child_exit_code(&child, "record") : UET_EXIT_OK;
out:
	uet_child_end(&child);
	uet_autoenable_undo(&ae);
	uet_raw_close(&raw);
	for (unsigned int i = 0; r.out && i < r.ncpus; i++)
		fclose(r.out[i]);
	free(r.out);
	uet_formats_free(&formats);
	uet_private_stop(priv);
	uet_opts_free(&o);
	return exit_code;
}
