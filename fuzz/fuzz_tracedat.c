// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the trace.dat reader of `userevents report`: the
 * input is the file.  It is read by uet_dat_read_mem() and printed by
 * uet_dat_report() to the text and JSON sinks (into /dev/null), as report
 * does; then every record of every page is rendered again from a copy of
 * exactly its size, so a read past a record is caught by ASan.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "formats.h"
#include "opts.h"
#include "raw.h"
#include "rbpage.h"
#include "sink.h"
#include "target.h"
#include "tracedat.h"

struct exact {
	const struct uet_formats *formats;
	unsigned int cpu;
	char *line;
	size_t cap;
};

static int render_exact(void *arg, uint64_t ts, const void *rec, size_t len)
{
	struct exact *x = arg;
	struct ue_entry_hdr hdr;
	const struct uet_format *f;
	uint8_t *copy;

	if (len < sizeof(hdr))
		return 0;
	memcpy(&hdr, rec, sizeof(hdr));
	f = uet_formats_find(x->formats, hdr.type);
	if (!f)
		return 0;
	copy = malloc(len);
	CHECK(copy);
	memcpy(copy, rec, len);
	for (int json = 0; json < 2; json++) {
		struct ue_record_ctx ctx = { .comm = json ? NULL : "fuzz", .pid = hdr.pid,
					     .cpu = x->cpu, .ts_ns = ts };
		int w = json ? uet_render_json(f, &ctx, copy, len, &x->line, &x->cap)
			     : uet_render_line(f, &ctx, copy, len, &x->line, &x->cap);

		/* One line, NUL-terminated in the buffer (uet_render_line()). */
		CHECK(w < 0 || ((size_t)w < x->cap && x->line[w] == '\0' && w > 0 &&
				x->line[w - 1] == '\n'));
	}
	free(copy);
	return 0;
}

/* The records of each CPU's whole pages, as report finds them. */
static void render_all_exact(const struct uet_dat *d)
{
	struct uet_formats formats = { 0 };
	struct exact x = { .formats = &formats };

	for (size_t i = 0; i < d->nformats; i++)
		if (strncmp(d->formats[i].system, "user_events", 11) == 0)
			uet_formats_add(&formats, d->formats[i].system, d->formats[i].text,
					d->formats[i].len);
	for (unsigned int c = 0; c < d->ncpus; c++) {
		unsigned long long missed = 0;

		x.cpu = d->cpus[c].cpu;
		for (uint64_t p = 0; d->page_size <= d->cpus[c].size &&
				     p <= d->cpus[c].size - d->page_size;
		     p += d->page_size)
			uet_page_records(d->cpus[c].data + p, d->page_size, &missed, render_exact,
					 &x);
	}
	free(x.line);
	uet_formats_free(&formats);
}

/* uet_dat_report() to a fresh sink of @format writing into @out. */
static int report_to(const struct uet_dat *d, const struct uet_opts *o, const char *format,
		     FILE *out)
{
	struct uet_sinks sinks = { 0 };
	int e;

	CHECK(uet_sinks_add(&sinks, uet_sink_new(format, out, NULL)) == 0);
	CHECK(uet_sinks_begin(&sinks, &(struct uet_sink_env){ .who = "fuzz" }) == 0);
	e = uet_dat_report(d, o, &sinks, NULL);
	CHECK(uet_sinks_end(&sinks, e == 0) == 0);
	return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	static char glob[] = "*";
	static char *globs[] = { glob };
	struct uet_opts text = { 0 }, json = { .globs = globs, .nglobs = 1 };
	struct uet_dat d;
	char err[256] = "";
	int e;

	if (!sink) {
		sink = fopen("/dev/null", "w");
		CHECK(sink);
	}
	e = uet_dat_read_mem(data, size, &d, err, sizeof(err));
	if (e < 0) {
		/* Refused with a reason: report prints it and exits 1. */
		CHECK(err[0] && memchr(err, '\0', sizeof(err)));
		return 0;
	}
	CHECK(d.ncpus == 0 || (d.cpus && d.page_size >= UE_RB_PAGE_HDR));
	for (unsigned int c = 0; c < d.ncpus; c++)
		CHECK(d.cpus[c].size == 0 || d.cpus[c].data);
	CHECK(d.nformats <= UET_DAT_FORMATS_MAX && d.unpacked_bytes <= UET_DAT_UNPACK_MAX);
	CHECK(report_to(&d, &text, "text", sink) == 0);
	CHECK(report_to(&d, &json, "json", sink) == 0);
	render_all_exact(&d);
	uet_dat_free(&d);
	return 0;
}
