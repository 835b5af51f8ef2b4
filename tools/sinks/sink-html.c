// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The HTML sink (--format=html): one self-contained page (inline CSS and
 * SVG, no script, nothing fetched) that needs no other program: the
 * records per event over time (a plot of HTML_BINS bins, the busiest
 * HTML_PLOT events), the timeline of the busiest HTML_THREADS threads (a
 * mark per pixel column with records, darker with more; EventHeader
 * activity start/stop without an activity ID as slices), lost records as
 * red markers on both, and a table of the first HTML_ROWS records with
 * their fields.  Its size does not grow with the trace: each record is
 * kept as 16 bytes (time, event, thread) until the end, where it is
 * aggregated into the bins and columns; 1 M records are 16 MB.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "formats.h"
#include "sink.h"
#include "util.h"

#define HTML_BINS 200
#define HTML_PLOT 8
#define HTML_THREADS 12
#define HTML_ROWS 500
#define HTML_COLS 1000
#define HTML_SLICES 100000

struct h_rec {
	uint64_t ts;
	uint32_t ev;
	int32_t tid;
};

struct h_ev {
	char name[160];
	unsigned long long n;
};

struct h_thr {
	int32_t tid;
	char comm[20];
	unsigned long long n;
	uint64_t open[8];	/* EventHeader starts not yet stopped, a stack */
	unsigned int depth;
};

struct h_mark {
	uint64_t ts, n;		/* lost: count (UINT64_MAX: some); slice: its end */
	int32_t tid;
	uint32_t ev;
};

struct html_sink {
	struct uet_sink s;
	struct h_rec *recs;
	size_t nrecs, rcap;
	struct h_ev *evs;
	size_t nevs;
	struct h_thr *thr;
	size_t nthr;
	struct h_mark *lost, *slices;
	size_t nlost, nslices, lcap, scap;
	char **rows;
	size_t nrows;
	char *line;
	size_t line_cap;
	uint64_t last_ts;
};

static void esc(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(s[i], f);
		}
	}
}

static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return v;
	p = realloc(v, (*cap ? *cap * 2 : 1024) * size);
	if (p)
		*cap = *cap ? *cap * 2 : 1024;
	return p;
}

static int add_mark(struct h_mark **v, size_t *n, size_t *cap, struct h_mark m)
{
	struct h_mark *p = grow(*v, *n, cap, sizeof(**v));

	if (!p)
		return -ENOMEM;
	*v = p;
	p[(*n)++] = m;
	return 0;
}

static int html_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	(void)s;
	(void)env;
	return 0;
}

static struct h_thr *h_thread(struct html_sink *h, const struct ue_record_ctx *ctx)
{
	for (size_t i = 0; i < h->nthr; i++)
		if (h->thr[i].tid == ctx->pid)
			return &h->thr[i];
	{
		struct h_thr *v = realloc(h->thr, (h->nthr + 1) * sizeof(*v));

		if (!v)
			return NULL;
		h->thr = v;
		memset(&v[h->nthr], 0, sizeof(*v));
		v[h->nthr].tid = ctx->pid;
		snprintf(v[h->nthr].comm, sizeof(v[0].comm), "%s", ctx->comm ? ctx->comm : "<...>");
		return &v[h->nthr++];
	}
}

static long h_event(struct html_sink *h, const char *name)
{
	for (size_t i = 0; i < h->nevs; i++)
		if (strcmp(h->evs[i].name, name) == 0)
			return (long)i;
	{
		struct h_ev *v = realloc(h->evs, (h->nevs + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->evs = v;
		snprintf(v[h->nevs].name, sizeof(v[0].name), "%s", name);
		v[h->nevs].n = 0;
		return (long)h->nevs++;
	}
}

static int html_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct html_sink *h = (struct html_sink *)s;
	struct ueh_event e;
	char name[160];
	struct h_rec *recs;
	struct h_thr *t;
	bool eh;
	long ev;

	if (!r->format)
		return 0;
	eh = uet_eh_start(r->format, r->data, r->len, &e);
	if (eh)
		snprintf(name, sizeof(name), "%.*s:%.*s", (int)e.n.provider_len, e.tp_name,
			 (int)e.name_len, e.name);
	else
		snprintf(name, sizeof(name), "%s:%s", r->format->system, r->format->desc->name);
	ev = h_event(h, name);
	t = h_thread(h, &r->ctx);
	recs = grow(h->recs, h->nrecs, &h->rcap, sizeof(*h->recs));
	if (ev < 0 || !t || !recs)
		return -ENOMEM;
	h->recs = recs;
	h->recs[h->nrecs++] = (struct h_rec){ r->ctx.ts_ns, (uint32_t)ev, r->ctx.pid };
	h->evs[ev].n++;
	t->n++;
	if (r->ctx.ts_ns > h->last_ts)
		h->last_ts = r->ctx.ts_ns;
	if (eh && !e.activity && e.opcode == 1 && t->depth < 8)
		t->open[t->depth++] = r->ctx.ts_ns;
	else if (eh && !e.activity && e.opcode == 2 && t->depth && h->nslices < HTML_SLICES &&
		 add_mark(&h->slices, &h->nslices, &h->scap,
			  (struct h_mark){ t->open[--t->depth], r->ctx.ts_ns, r->ctx.pid,
					   (uint32_t)ev }) < 0)
		return -ENOMEM;
	if (h->nrows < HTML_ROWS) {
		int w = uet_render_line(r->format, &r->ctx, r->data, r->len, &h->line, &h->line_cap);

		if (w > 0) {
			if (!h->rows)
				h->rows = calloc(HTML_ROWS, sizeof(*h->rows));
			if (!h->rows || !(h->rows[h->nrows] = strndup(h->line, (size_t)w)))
				return -ENOMEM;
			h->nrows++;
		}
	}
	return 0;
}

static int html_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	struct html_sink *h = (struct html_sink *)s;

	return add_mark(&h->lost, &h->nlost, &h->lcap, (struct h_mark){ h->last_ts, n, 0, cpu });
}

static int cmp_ev(const void *a, const void *b)
{
	const struct h_ev *x = *(const struct h_ev *const *)a, *y = *(const struct h_ev *const *)b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

static int cmp_thr(const void *a, const void *b)
{
	const struct h_thr *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : (x->tid > y->tid) - (x->tid < y->tid);
}

static const char *const colors[HTML_PLOT] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
					       "#8c564b", "#e377c2", "#7f7f7f", "#17becf" };

/* X of @ts in [0, @w) over [t0, t1]. */
static double xof(uint64_t ts, uint64_t t0, uint64_t t1, double w)
{
	return t1 > t0 ? (double)(ts - t0) * (w - 1) / (double)(t1 - t0) : 0;
}

static void plot(struct html_sink *h, FILE *f, uint64_t t0, uint64_t t1)
{
	struct h_ev **top = calloc(h->nevs ? h->nevs : 1, sizeof(*top));
	unsigned long long (*bins)[HTML_BINS] = calloc(HTML_PLOT, sizeof(*bins)), max = 1;
	size_t ntop = h->nevs < HTML_PLOT ? h->nevs : HTML_PLOT;
	long map_n = (long)h->nevs;
	int *map = calloc(h->nevs ? h->nevs : 1, sizeof(*map));

	if (!top || !bins || !map)
		goto out;
	for (size_t i = 0; i < h->nevs; i++)
		top[i] = &h->evs[i];
	qsort(top, h->nevs, sizeof(*top), cmp_ev);
	for (long i = 0; i < map_n; i++)
		map[i] = -1;
	for (size_t k = 0; k < ntop; k++)
		map[top[k] - h->evs] = (int)k;
	for (size_t i = 0; i < h->nrecs; i++) {
		int k = map[h->recs[i].ev];
		size_t b = (size_t)xof(h->recs[i].ts, t0, t1, HTML_BINS);

		if (k >= 0 && ++bins[k][b] > max)
			max = bins[k][b];
	}
	fprintf(f, "<h2>Records over time</h2>\n<p>per %.3f ms, the %zu busiest events; "
		   "lost records in red</p>\n<svg id=\"plot\" width=\"1000\" height=\"260\" "
		   "viewBox=\"0 0 1000 260\">\n<rect width=\"1000\" height=\"240\" class=\"bg\"/>\n",
		t1 > t0 ? (double)(t1 - t0) / HTML_BINS / 1e6 : 0.0, ntop);
	/* The peak at y 20: the maximum's label above it (baseline 12) is never drawn over. */
	for (size_t k = 0; k < ntop; k++) {
		fprintf(f, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" points=\"", colors[k]);
		for (int b = 0; b < HTML_BINS; b++)
			fprintf(f, "%.1f,%.1f ", b * 1000.0 / HTML_BINS,
				235 - 215.0 * (double)bins[k][b] / (double)max);
		fputs("\"><title>", f);
		esc(f, top[k]->name, sizeof(top[k]->name));
		fputs("</title></polyline>\n", f);
	}
	for (size_t i = 0; i < h->nlost; i++)
		fprintf(f, "<line class=\"lost\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"240\"/>\n",
			xof(h->lost[i].ts, t0, t1, 1000), xof(h->lost[i].ts, t0, t1, 1000));
	fprintf(f, "<text x=\"2\" y=\"255\">0</text><text x=\"930\" y=\"255\">%.3f s</text>"
		   "<text x=\"2\" y=\"12\">%llu</text>\n</svg>\n<ul class=\"legend\">\n",
		(double)(t1 - t0) / 1e9, max);
	for (size_t k = 0; k < ntop; k++) {
		fprintf(f, "<li><span style=\"background:%s\"></span>", colors[k]);
		esc(f, top[k]->name, sizeof(top[k]->name));
		fprintf(f, " (%llu)</li>\n", top[k]->n);
	}
	fputs("</ul>\n", f);
out:
	free(top);
	free(bins);
	free(map);
}

static void timeline(struct html_sink *h, FILE *f, uint64_t t0, uint64_t t1)
{
	size_t n = h->nthr < HTML_THREADS ? h->nthr : HTML_THREADS;
	unsigned int (*cols)[HTML_COLS] = calloc(n ? n : 1, sizeof(*cols));
	unsigned int max = 1;

	if (!cols)
		return;
	qsort(h->thr, h->nthr, sizeof(*h->thr), cmp_thr);
	for (size_t i = 0; i < h->nrecs; i++)
		for (size_t k = 0; k < n; k++)
			if (h->thr[k].tid == h->recs[i].tid) {
				size_t c = (size_t)xof(h->recs[i].ts, t0, t1, HTML_COLS);

				if (++cols[k][c] > max)
					max = cols[k][c];
				break;
			}
	fprintf(f, "<h2>Timeline</h2>\n<p>the %zu busiest threads: a mark per %.3f ms with "
		   "records (darker: more), activities as slices, lost records in red</p>\n"
		   "<svg id=\"timeline\" width=\"1200\" height=\"%zu\" viewBox=\"0 0 1200 %zu\">\n",
		n, t1 > t0 ? (double)(t1 - t0) / HTML_COLS / 1e6 : 0.0, 24 * n + 4, 24 * n + 4);
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "<g class=\"thread\"><text x=\"0\" y=\"%zu\">", 24 * k + 16);
		esc(f, h->thr[k].comm, sizeof(h->thr[k].comm));
		fprintf(f, "-%d</text>\n", h->thr[k].tid);
		for (int c = 0; c < HTML_COLS; c++)
			if (cols[k][c])
				fprintf(f, "<rect class=\"mark\" x=\"%d\" y=\"%zu\" width=\"1\" height=\"10\" "
					   "opacity=\"%.2f\"/>", 200 + c, 24 * k + 12,
					0.25 + 0.75 * cols[k][c] / max);
		for (size_t i = 0; i < h->nslices; i++) {
			const struct h_mark *sl = &h->slices[i];
			double x = xof(sl->ts, t0, t1, HTML_COLS), x2 = xof(sl->n, t0, t1, HTML_COLS);

			if (sl->tid != h->thr[k].tid)
				continue;
			fprintf(f, "<rect class=\"slice\" x=\"%.1f\" y=\"%zu\" width=\"%.1f\" height=\"8\">"
				   "<title>", 200 + x, 24 * k + 2, x2 - x < 1 ? 1 : x2 - x);
			esc(f, h->evs[sl->ev].name, sizeof(h->evs[0].name));
			fputs("</title></rect>", f);
		}
		fputs("</g>\n", f);
	}
	for (size_t i = 0; i < h->nlost; i++)
		fprintf(f, "<line class=\"lost\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%zu\"/>\n",
			200 + xof(h->lost[i].ts, t0, t1, HTML_COLS),
			200 + xof(h->lost[i].ts, t0, t1, HTML_COLS), 24 * n + 4);
	fputs("</svg>\n", f);
	free(cols);
}

static void page(struct html_sink *h, FILE *f)
{
	uint64_t t0 = h->nrecs ? h->recs[0].ts : 0, t1 = h->last_ts, lost = 0;
	bool some = false;

	for (size_t i = 0; i < h->nrecs; i++)
		if (h->recs[i].ts < t0)
			t0 = h->recs[i].ts;
	for (size_t i = 0; i < h->nlost; i++) {
		if (h->lost[i].n == UINT64_MAX)
			some = true;
		else
			lost += h->lost[i].n;
		if (h->lost[i].ts < t0)
			h->lost[i].ts = t0;
	}
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>userevents report</title>\n"
	      "<style>body{font:14px sans-serif;margin:1em}svg{border:1px solid #ccc}"
	      ".bg{fill:#fafafa}.lost{stroke:#d62728;stroke-width:1}.mark{fill:#1f77b4}"
	      ".slice{fill:#2ca02c}.legend{list-style:none;padding:0}.legend li{display:inline;"
	      "margin-right:1.5em}.legend span{display:inline-block;width:1em;height:.6em;"
	      "margin-right:.3em}table{border-collapse:collapse;font:12px monospace}"
	      "td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}</style>\n</head><body>\n"
	      "<h1>userevents report</h1>\n", f);
	/* Each count with its noun in the number it takes: "1 thread", "2 threads". */
	fprintf(f, "<p id=\"summary\">%zu record%s of %zu event%s from %zu thread%s over %.6f s; "
		   "<span class=\"lostsum\">%" PRIu64 "%s record%s lost</span></p>\n",
		h->nrecs, h->nrecs == 1 ? "" : "s", h->nevs, h->nevs == 1 ? "" : "s", h->nthr,
		h->nthr == 1 ? "" : "s", (double)(t1 - t0) / 1e9, lost, some ? "+" : "",
		lost == 1 && !some ? "" : "s");
	plot(h, f, t0, t1);
	timeline(h, f, t0, t1);
	fprintf(f, "<h2>Records</h2>\n<p>the first %zu of %zu</p>\n<table id=\"records\">\n"
		   "<tr><th>record</th></tr>\n", h->nrows, h->nrecs);
	for (size_t i = 0; i < h->nrows; i++) {
		fputs("<tr><td>", f);
		esc(f, h->rows[i], strlen(h->rows[i]) - (h->rows[i][0] ? 1 : 0));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</body></html>\n", f);
}

static int html_end(struct uet_sink *s, bool ok)
{
	struct html_sink *h = (struct html_sink *)s;

	if (ok)
		page(h, s->out);
	for (size_t i = 0; i < h->nrows; i++)
		free(h->rows[i]);
	free(h->rows);
	free(h->recs);
	free(h->evs);
	free(h->thr);
	free(h->lost);
	free(h->slices);
	free(h->line);
	return uet_sink_stream_end(s, ok);
}

static const struct uet_sink_ops html_ops = {
	.name = "html",
	.needs = UET_SINK_RECORDS,
	.begin = html_begin,
	.record = html_record,
	.lost = html_lost,
	.flush = uet_sink_stream_flush,
	.end = html_end,
};

struct uet_sink *uet_sink_html_new(FILE *out, const char *path)
{
	return uet_sink_make(sizeof(struct html_sink), &html_ops, out, path);
}
