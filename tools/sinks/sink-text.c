// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The text sinks: trace lines as the trace file prints them.  A text
 * source's line is copied as it is; a binary record is rendered.  "fields"
 * is the same output with options/fields set on a live tracefs while it
 * runs (it changes how kernel events print; user events always print so).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "sink.h"
#include "util.h"

struct text_sink {
	struct uet_sink s;
	bool fields;
	const char *tracefs;		/* fields: where options/fields was set */
	char *old_fields;		/* fields: its value before */
	char *line;
	size_t cap;
	const char *who;
};

static int text_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct text_sink *t = (struct text_sink *)s;

	t->who = env->who;
	if (!t->fields || !env->tracefs)
		return 0;
	t->old_fields = uet_read(env->tracefs, "options/fields", NULL);
	if (!t->old_fields || uet_write(env->tracefs, "options/fields", "1") < 0) {
		int e = errno ? -errno : -EIO;

		uet_err("%s: cannot set options/fields: %s", env->who, strerror(-e));
		free(t->old_fields);
		t->old_fields = NULL;
		return e;
	}
	t->tracefs = env->tracefs;
	return 0;
}

static int text_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct text_sink *t = (struct text_sink *)s;
	int w;

	if (r->line) {
		fwrite(r->line, 1, r->line_len, s->out);
		return 0;
	}
	if (!r->format)
		return 0;
	w = uet_render_line(r->format, &r->ctx, r->data, r->len, &t->line, &t->cap);
	return uet_sink_put(s, w, t->line, r->format, t->who);
}

static int text_end(struct uet_sink *s, bool ok)
{
	struct text_sink *t = (struct text_sink *)s;

	if (t->old_fields)
		uet_write(t->tracefs, "options/fields", t->old_fields[0] == '1' ? "1" : "0");
	free(t->old_fields);
	free(t->line);
	return uet_sink_stream_end(s, ok);
}

/* The kernel's own line for lost events (trace, trace_pipe: "CPU:%d [LOST %lu EVENTS]"). */
static int text_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	if (n == UINT64_MAX)
		fprintf(s->out, "CPU:%u [LOST EVENTS]\n", cpu);
	else
		fprintf(s->out, "CPU:%u [LOST %llu EVENTS]\n", cpu, (unsigned long long)n);
	return ferror(s->out) ? -EIO : 0;
}

/*
 * The daemon went away: the kernel's line of a loss of unknown count on
 * every CPU; back, a new daemon's options/fields set again.
 */
static int text_gap(struct uet_sink *s, unsigned int ncpus, bool back)
{
	struct text_sink *t = (struct text_sink *)s;
	int e = 0, w;

	for (unsigned int cpu = 0; cpu < ncpus && e == 0; cpu++)
		e = text_lost(s, cpu, UINT64_MAX);
	if (e == 0 && back && t->tracefs && (w = uet_write(t->tracefs, "options/fields", "1")) < 0)
		uet_err("%s: cannot set options/fields again: %s", t->who, strerror(-w));
	return e;
}

static const struct uet_sink_ops text_ops = {
	.name = "text",
	.begin = text_begin,
	.record = text_record,
	.lost = text_lost,
	.gap = text_gap,
	.flush = uet_sink_stream_flush,
	.end = text_end,
};

static struct uet_sink *make(FILE *out, const char *path, bool fields)
{
	struct text_sink *t = uet_sink_make(sizeof(*t), &text_ops, out, path);

	if (!t)
		return NULL;
	t->fields = fields;
	t->who = "";
	return &t->s;
}

struct uet_sink *uet_sink_text_new(FILE *out, const char *path)
{
	return make(out, path, false);
}

struct uet_sink *uet_sink_fields_new(FILE *out, const char *path)
{
	return make(out, path, true);
}
