// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Binary records for record, report and stream --json: event formats kept
 * by type id (a recording needs the format of an event that is gone by the
 * time it is written), task names from saved_cmdlines, one record rendered
 * as a trace line or as JSON, and the per-CPU trace_pipe_raw readers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format-parse.h"
#include "rbpage.h"
#include "tool.h"

/* What the trace file shows in the flags column of a user event. */
#define LAT_FLAGS "....."

int uet_formats_add(struct uet_formats *f, const char *system, const char *text, size_t len)
{
	struct uet_format nf = { 0 }, *slot = NULL;
	int r;

	if (strlen(system) >= sizeof(nf.system))
		return -EINVAL;
	/* Called on every scan of the tracefs: a text already kept costs no parse. */
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].len == len && memcmp(f->v[i].text, text, len) == 0 &&
		    strcmp(f->v[i].system, system) == 0)
			return 0;
	r = ue_format_parse(text, len, &nf.desc, &nf.id);
	if (r < 0)
		return r;
	for (size_t i = 0; i < f->n && !slot; i++)
		if (f->v[i].id == nf.id)
			slot = &f->v[i];	/* the type now belongs to another event */
	nf.text = malloc(len + 1);
	if (!nf.text) {
		ue_event_free(nf.desc);
		return -ENOMEM;
	}
	memcpy(nf.text, text, len);
	nf.text[len] = '\0';
	nf.len = len;
	snprintf(nf.system, sizeof(nf.system), "%s", system);
	if (!slot) {
		struct uet_format *nv = realloc(f->v, (f->n + 1) * sizeof(*nv));

		if (!nv) {
			free(nf.text);
			ue_event_free(nf.desc);
			return -ENOMEM;
		}
		f->v = nv;
		slot = &f->v[f->n++];
	} else {
		free(slot->text);
		ue_event_free(slot->desc);
	}
	*slot = nf;
	return 0;
}

int uet_formats_add_events(struct uet_formats *f, const struct uet_events *evs)
{
	for (size_t i = 0; i < evs->n; i++) {
		const struct uet_event *ev = &evs->v[i];
		int r;

		if (!ev->format)
			continue;
		r = uet_formats_add(f, ev->system, ev->format, ev->format_len);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

const struct uet_format *uet_formats_find(const struct uet_formats *f, unsigned int id)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].id == id)
			return &f->v[i];
	return NULL;
}

void uet_formats_free(struct uet_formats *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].text);
		ue_event_free(f->v[i].desc);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

const char *uet_comm_of(const char *cmdlines, int32_t pid, char *buf, size_t len)
{
	const char *s = cmdlines;

	while (s && *s) {
		char *end;
		long p = strtol(s, &end, 10);
		const char *nl = strchr(s, '\n');

		if (p == pid && *end == ' ') {
			size_t n = nl ? (size_t)(nl - end - 1) : strlen(end + 1);

			snprintf(buf, len, "%.*s", (int)n, end + 1);
			return buf;
		}
		s = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* One try at rendering into *buf; the full length (as snprintf) or -errno. */
static int render_once(const struct uet_format *f, const struct ue_record_ctx *ctx,
		       const void *rec, size_t len, bool json, char *buf, size_t cap)
{
	int w, w2;

	if (json) {
		w = ue_render_json(f->desc, f->system, f->desc->name, ctx, rec, len, buf, cap);
		if (w < 0)
			return w;
		if ((size_t)w + 1 < cap) {
			buf[w] = '\n';
			buf[w + 1] = '\0';
		}
		return w + 1;
	}
	w = ue_render_context(ctx, buf, cap);
	if (w < 0)
		return w;
	w2 = ue_render_fields(f->desc, f->desc->name, rec, len, (size_t)w < cap ? buf + w : NULL,
			      (size_t)w < cap ? cap - (size_t)w : 0);
	return w2 < 0 ? w2 : w + w2;
}

int uet_render_record(const struct uet_format *f, const struct ue_record_ctx *c, const void *rec,
		      size_t len, bool json, char **buf, size_t *cap)
{
	struct ue_record_ctx ctx = *c;

	if (!ctx.lat_flags)
		ctx.lat_flags = LAT_FLAGS;
	/* A NULL buffer first gets one, a short one a large enough one. */
	for (int tries = 0; tries < 3; tries++) {
		int w = *buf ? render_once(f, &ctx, rec, len, json, *buf, *cap) : 0;
		char *nb;

		if (w < 0)
			return w;
		if (*buf && (size_t)w < *cap)
			return w;
		nb = realloc(*buf, (size_t)w + 4096);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = (size_t)w + 4096;
	}
	return -E2BIG;
}

int uet_raw_open(struct uet_raw *r, const char *tracefs, unsigned int ncpus, const char *who)
{
	r->ncpus = 0;
	r->fds = calloc(ncpus ? ncpus : 1, sizeof(*r->fds));
	if (!r->fds)
		return -ENOMEM;
	for (unsigned int i = 0; i < ncpus; i++) {
		char p[4200];
		int e;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%u/trace_pipe_raw", tracefs, i);
		r->fds[i] = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->fds[i] < 0) {
			e = -errno;
			uet_err("%s: %s: %s", who, p, strerror(-e));
			uet_raw_close(r);
			return e;
		}
		r->ncpus++;
	}
	return 0;
}

int uet_raw_pass(struct uet_raw *r, unsigned int max,
		 int (*fn)(void *arg, unsigned int cpu, const uint8_t *page, size_t len), void *arg)
{
	uint8_t page[UE_RB_PAGE_SIZE];
	int pages = 0;

	for (unsigned int c = 0; c < r->ncpus; c++) {
		for (unsigned int k = 0; k < max; k++) {
			ssize_t n = read(r->fds[c], page, sizeof(page));
			int e;

			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n < 0)
				return -errno;
			if (n == 0)
				break;
			if ((size_t)n < sizeof(page))
				memset(page + n, 0, sizeof(page) - (size_t)n);
			e = fn(arg, c, page, sizeof(page));
			if (e < 0)
				return e;
			pages++;
		}
	}
	return pages;
}

int uet_page_records(const uint8_t *page, size_t len, unsigned long long *missed,
		     int (*fn)(void *arg, uint64_t ts, const void *data, size_t len), void *arg)
{
	struct ue_rbpage_iter it;
	const void *data;
	uint64_t ts;
	size_t dlen;
	int n = 0;

	if (ue_rbpage_iter_init(&it, page, len) < 0)
		return 0;
	if (it.missed && it.missed != UINT64_MAX)
		*missed += it.missed;
	while (ue_rbpage_next(&it, &ts, &data, &dlen) == 1) {
		int e = fn ? fn(arg, ts, data, dlen) : 0;

		if (e < 0)
			return e;
		n++;
	}
	return n;
}

void uet_raw_close(struct uet_raw *r)
{
	for (unsigned int i = 0; r->fds && i < r->ncpus; i++)
		close(r->fds[i]);
	free(r->fds);
	r->fds = NULL;
	r->ncpus = 0;
}
