// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One binary record as text: its trace line (the kernel's, or an
 * EventHeader event's "Provider:Event: name=value ...") or its JSON object,
 * into a buffer grown as needed; and the task name a record shows, from a
 * saved_cmdlines text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "formats.h"

/* What the trace file shows in the flags column of a user event. */
#define LAT_FLAGS "....."

/*
 * The "PID COMM" line of saved_cmdlines at *@s: its pid and name; *@s moves
 * to the next line (NULL after the last).  A line must start with the pid:
 * strtol() skipping white space would take it from a later line.
 * Return: whether the line is one.
 */
bool uet_cmdline_next(const char **s, long *pid, const char **name, size_t *len)
{
	const char *line = *s, *nl = strchr(line, '\n');
	char *end;

	*s = nl ? nl + 1 : NULL;
	if (*line < '0' || *line > '9')
		return false;
	errno = 0;
	*pid = strtol(line, &end, 10);
	if (errno || *end != ' ')
		return false;
	*name = end + 1;
	*len = nl ? (size_t)(nl - *name) : strlen(*name);
	return true;
}

const char *uet_comm_of(const char *cmdlines, int32_t pid, char *buf, size_t len)
{
	const char *s = cmdlines, *name;
	size_t n;
	long p;

	while (s && *s) {
		if (uet_cmdline_next(&s, &p, &name, &n) && p == pid) {
			snprintf(buf, len, "%.*s", (int)(n < len ? n : len), name);
			return buf;
		}
	}
	return NULL;
}

typedef int (*render_fn)(const struct uet_format *f, const struct ue_record_ctx *ctx,
			 const void *rec, size_t len, char *buf, size_t cap);

/*
 * A JSON object and its newline; the full length (as snprintf) or -errno.
 * An EventHeader event gains "eventheader" (uet_eh_json()) before its end.
 */
static int render_json_once(const struct uet_format *f, const struct ue_record_ctx *ctx,
			    const void *rec, size_t len, char *buf, size_t cap)
{
	int w = f->json ? ue_render_json_keys(f->json, f->desc, ctx, rec, len, buf, cap)
			: ue_render_json(f->desc, f->system, f->desc->name, ctx, rec, len, buf, cap);
	int w2;
	struct ueh_event e;

	if (w < 0)
		return w;
	if (w > 0 && uet_eh_start(f, rec, len, &e)) {
		/* Over the closing '}': the decoded part, then '}' again. */
		size_t at = (size_t)w - 1;

		w2 = uet_eh_json(&e, at < cap ? buf + at : NULL, at < cap ? cap - at : 0);
		if (w2 >= 0) {
			w = (int)at + w2;
			if ((size_t)w + 1 < cap)
				buf[w] = '}', buf[w + 1] = '\0';
			w++;
		} else if (at < cap) {
			buf[at] = '}';	/* malformed: as a plain event */
			if (at + 1 < cap)
				buf[at + 1] = '\0';
		}
	}
	if ((size_t)w + 1 < cap) {
		buf[w] = '\n';
		buf[w + 1] = '\0';
	}
	return w + 1;
}

/* A trace line; the full length (as snprintf) or -errno. */
static int render_line_once(const struct uet_format *f, const struct ue_record_ctx *ctx,
			    const void *rec, size_t len, char *buf, size_t cap)
{
	int w = ue_render_context(ctx, buf, cap), w2;

	if (w < 0)
		return w;
	{
		/* An EventHeader event: "Provider:Event: name=value ..." */
		struct ueh_event e;

		w2 = uet_eh_start(f, rec, len, &e)
			     ? uet_eh_line(&e, (size_t)w < cap ? buf + w : NULL,
					   (size_t)w < cap ? cap - (size_t)w : 0)
			     : -1;
		if (w2 >= 0)
			return w + w2;
	}
	w2 = ue_render_fields(f->desc, f->desc->name, rec, len, (size_t)w < cap ? buf + w : NULL,
			      (size_t)w < cap ? cap - (size_t)w : 0);
	return w2 < 0 ? w2 : w + w2;
}

/* @fn into *@buf, grown until the text fits. */
static int render(render_fn fn, const struct uet_format *f, const struct ue_record_ctx *c,
		  const void *rec, size_t len, char **buf, size_t *cap)
{
	struct ue_record_ctx ctx = *c;

	if (!ctx.lat_flags)
		ctx.lat_flags = LAT_FLAGS;
	/* A NULL buffer first gets one, a short one a large enough one. */
	for (int tries = 0; tries < 3; tries++) {
		int w = *buf ? fn(f, &ctx, rec, len, *buf, *cap) : 0;
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

int uet_render_line(const struct uet_format *f, const struct ue_record_ctx *ctx, const void *rec,
		    size_t len, char **buf, size_t *cap)
{
	return render(render_line_once, f, ctx, rec, len, buf, cap);
}

int uet_render_json(const struct uet_format *f, const struct ue_record_ctx *ctx, const void *rec,
		    size_t len, char **buf, size_t *cap)
{
	return render(render_json_once, f, ctx, rec, len, buf, cap);
}
