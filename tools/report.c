// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents report: the user events of a trace.dat (ours, or trace-cmd's,
 * compressed or not) in time order over the CPUs, filtered by event and
 * pid, to the sink of the output format asked for (text, --fields: the
 * same, the style user events always print in; --json; --html, which is
 * --format=html).  The reading is uet_dat_report().
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "opts.h"
#include "sink.h"
#include "tracedat.h"
#include "util.h"

static const char usage[] =
	"report [-e GLOB]... [-p SPEC]... [--pid N] [--fields | --json [--wall-clock] | --html | --format=FMT | --stat] "
	"[--counter EVENT.FIELD]... [FILE]";

/*
 * --wall-clock of a file: this system's offset of the file's clock, right
 * for a file recorded here since the last boot.  A page stamped later than
 * that clock now was not: refused.
 */
static bool wall_clock_fits(const struct uet_dat *d, const char *path)
{
	int64_t now = uet_clock_ns(uet_clock_named(d->clock));

	for (unsigned int c = 0; c < d->ncpus; c++) {
		const struct uet_dat_cpu *cpu = &d->cpus[c];
		uint64_t ts;

		if (cpu->size < d->page_size)
			continue;
		memcpy(&ts, cpu->data + cpu->size - d->page_size, sizeof(ts));
		if (ts > (uint64_t)now) {
			uet_err("report: %s: --wall-clock: its time stamps are later than this "
				"system's %s clock: recorded before its last boot, or elsewhere",
				path, d->clock[0] ? d->clock : "trace");
			return false;
		}
	}
	return true;
}

int uet_cmd_report(int argc, char **argv)
{
	struct uet_sinks sinks = { 0 };
	struct uet_dat d = { 0 };
	struct uet_opts o;
	char err[256] = "";
	bool *matched = NULL;
	const char *path;
	int e, exit_code = UET_EXIT_FAIL;

	e = uet_opts_parse(&o, argc, argv, UET_O_EVENT | UET_O_PROVIDER | UET_O_PID | UET_O_FIELDS | UET_O_JSON | UET_O_FORMAT |
				   UET_O_STAT | UET_O_WALL | UET_O_COUNTER | UET_O_HTML,
			   usage);
	if (e >= 0)
		return e;
	if (o.rest < argc - 1) {
		uet_opts_free(&o);
		return uet_usage_err("report", usage, "one FILE");
	}
	/* trace-cmd's default: the file record writes when given no -o. */
	path = o.rest < argc ? argv[o.rest] : "trace.dat";
	if (o.ncounters && strcmp(o.format, "chrome") != 0) {
		uet_opts_free(&o);
		return uet_usage_err("report", usage, "--counter needs --format=chrome");
	}
	e = uet_dat_read(path, &d, err, sizeof(err));
	if (e < 0) {
		if (e == -ENOENT && o.rest == argc)
			uet_err("report: trace.dat: %s: make one with " UET_PROG " record -- CMD, or name the file",
				err);
		else
			uet_err("report: %s: %s", path, err);
		goto out;
	}
	if (o.wall_clock && !wall_clock_fits(&d, path))
		goto out;
	e = uet_sinks_add(&sinks, uet_sink_new(o.format, stdout, NULL));
	for (size_t i = 0; e == 0 && i < o.ncounters; i++)
		e = uet_sink_chrome_counter(sinks.v[0], o.counters[i]);
	if (e == 0)
		e = uet_sinks_begin(&sinks, &(struct uet_sink_env){ .who = "report",
								    .ncpus = d.ncpus,
								    .source = path,
								    .wall_clock = o.wall_clock,
								    .trace_clock = d.clock,
								    .saved_tgids = d.tgids });
	if (e < 0)
		goto out;
	matched = calloc(o.nglobs + 1, sizeof(*matched));
	/* A reader that went away (| head): the failed write ends the report, quiet and 0. */
	signal(SIGPIPE, SIG_IGN);
	e = matched ? uet_dat_report(&d, &o, &sinks, matched) : -ENOMEM;
	if (e < 0 && uet_output_gone(stdout)) {
		exit_code = UET_EXIT_OK;
		uet_sinks_end(&sinks, false);
		goto out;
	}
	if (e < 0) {
		uet_err("report: %s: %s", path, strerror(-e));
		goto out;
	}
	exit_code = UET_EXIT_OK;
	/* As run and record: a glob that named nothing is a mistake, not an empty trace. */
	for (size_t g = 0; g < o.nglobs; g++) {
		if (matched[g])
			continue;
		uet_err("report: %s: no event matched '%s' (see " UET_PROG " report --stat %s)",
			path, uet_glob_shown(o.globs[g]), path);
		exit_code = UET_EXIT_NO_MATCH;
	}
out:
	if (uet_sinks_end(&sinks, exit_code == UET_EXIT_OK) < 0 && exit_code == UET_EXIT_OK &&
	    !uet_output_gone(stdout)) {
		uet_err("report: %s", strerror(EIO));
		exit_code = UET_EXIT_FAIL;
	}
	free(matched);
	uet_dat_free(&d);
	uet_opts_free(&o);
	return exit_code;
}
