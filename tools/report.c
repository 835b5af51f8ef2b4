// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents report: the user events of a trace.dat (ours, or trace-cmd's,
 * compressed or not) in time order over the CPUs, printed as the trace file
 * shows them (--fields: the same, the style user events always print in) or
 * as JSON, filtered by event and pid.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbpage.h"
#include "tool.h"
#include "tracedat.h"

static const char usage[] = "report [-e GLOB]... [--pid N] [--fields | --json] FILE";

struct rep_cpu {
	const uint8_t *data;
	uint64_t size, page;	/* page: offset of the next page to open */
	unsigned int cpu;
	struct ue_rbpage_iter it;
	bool have;
	uint64_t ts;
	const void *rec;
	size_t len;
};

/* The next record of @c, opening pages as needed. */
static void rep_advance(struct rep_cpu *c, unsigned int page_size)
{
	for (;;) {
		if (c->it.data && ue_rbpage_next(&c->it, &c->ts, &c->rec, &c->len) == 1) {
			c->have = true;
			return;
		}
		c->it.data = NULL;
		if (c->page + page_size > c->size) {
			c->have = false;
			return;
		}
		if (ue_rbpage_iter_init(&c->it, c->data + c->page, page_size) < 0)
			c->it.data = NULL;
		c->page += page_size;
	}
}

static bool wanted(const struct uet_opts *o, const struct uet_format *f, int32_t pid)
{
	bool match = !o->nglobs;

	if (o->have_pid && pid != o->pid)
		return false;
	for (size_t i = 0; i < o->nglobs && !match; i++)
		match = uet_glob_match(o->globs[i], f->system, f->desc->name);
	return match;
}

int uet_cmd_report(int argc, char **argv)
{
	struct uet_formats formats = { 0 };
	struct rep_cpu *cpus = NULL;
	struct uet_dat d = { 0 };
	struct uet_opts o;
	char err[256] = "", *line = NULL;
	size_t line_cap = 0;
	int e, exit_code = UET_EXIT_FAIL;

	e = uet_opts_parse(&o, argc, argv, UET_O_EVENT | UET_O_PID | UET_O_FIELDS | UET_O_JSON,
			   usage);
	if (e >= 0)
		return e;
	if (o.rest != argc - 1) {
		uet_err("report: one FILE (usage: " UET_PROG " %s)", usage);
		uet_opts_free(&o);
		return UET_EXIT_USAGE;
	}
	e = uet_dat_read(argv[o.rest], &d, err, sizeof(err));
	if (e < 0) {
		uet_err("report: %s: %s", argv[o.rest], err);
		goto out;
	}
	for (size_t i = 0; i < d.nformats; i++) {
		/* Only user events are rendered; a format that does not parse is skipped. */
		if (strncmp(d.formats[i].system, "user_events", 11) == 0 &&
		    uet_formats_add(&formats, d.formats[i].system, d.formats[i].text,
				    d.formats[i].len) == -ENOMEM)
			goto out;
	}
	cpus = calloc(d.ncpus + 1, sizeof(*cpus));
	if (!cpus)
		goto out;
	for (unsigned int i = 0; i < d.ncpus; i++) {
		cpus[i].data = d.cpus[i].data;
		cpus[i].size = d.cpus[i].size;
		cpus[i].cpu = d.cpus[i].cpu;
		rep_advance(&cpus[i], d.page_size);
	}
	for (;;) {
		struct rep_cpu *best = NULL;
		const struct uet_format *f = NULL;
		struct ue_entry_hdr hdr;
		struct ue_record_ctx ctx;
		char comm[64];
		int w;

		for (unsigned int i = 0; i < d.ncpus; i++)
			if (cpus[i].have && (!best || cpus[i].ts < best->ts))
				best = &cpus[i];
		if (!best)
			break;
		if (best->len >= sizeof(hdr)) {
			memcpy(&hdr, best->rec, sizeof(hdr));
			f = uet_formats_find(&formats, hdr.type);
		}
		if (f && wanted(&o, f, hdr.pid)) {
			ctx = (struct ue_record_ctx){
				.comm = uet_comm_of(d.cmdlines, hdr.pid, comm, sizeof(comm)),
				.pid = hdr.pid, .cpu = best->cpu, .ts_ns = best->ts };
			w = uet_render_record(f, &ctx, best->rec, best->len, o.json, &line,
					      &line_cap);
			if (w >= 0)
				fwrite(line, 1, (size_t)w, stdout);
			else
				uet_err("report: cannot render a record of %s: %s", f->desc->name,
					strerror(-w));
		}
		rep_advance(best, d.page_size);
	}
	exit_code = fflush(stdout) == 0 ? UET_EXIT_OK : UET_EXIT_FAIL;
out:
	uet_formats_free(&formats);
	free(cpus);
	free(line);
	uet_dat_free(&d);
	uet_opts_free(&o);
	return exit_code;
}
