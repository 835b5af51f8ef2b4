// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The JSON sink: one object a line per user event record (ue_render_json(),
 * the keys of userevents(1) JSON OUTPUT).  It needs binary records: stream
 * reads trace_pipe_raw for it instead of trace_pipe.  With --wall-clock,
 * "ts" is in ns since the epoch: the trace clock's offset to CLOCK_REALTIME
 * (read again at each flush of a live source) added.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "sink.h"
#include "tracefs.h"
#include "util.h"

struct json_sink {
	struct uet_sink s;
	char *line;
	size_t cap;
	const char *who;
	bool wall, live;		/* --wall-clock; of a live tracefs (not a file) */
	clockid_t clock;		/* the trace clock */
	int64_t to_real_ns;		/* CLOCK_REALTIME - the trace clock */
};

static int json_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct json_sink *j = (struct json_sink *)s;

	j->who = env->who;
	j->wall = env->wall_clock;
	j->live = env->tracefs != NULL;
	if (j->wall) {
		j->clock = j->live ? uet_trace_clockid(env->tracefs) : uet_clock_named(env->trace_clock);
		j->to_real_ns = uet_wall_offset_ns(j->clock);
	}
	return 0;
}

static int json_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct json_sink *j = (struct json_sink *)s;
	struct ue_record_ctx ctx = r->ctx;
	int w;

	if (!r->format)
		return 0;	/* a text line: nothing to say in JSON */
	if (j->wall)
		ctx.ts_ns += (uint64_t)j->to_real_ns;
	w = uet_render_json(r->format, &ctx, r->data, r->len, &j->line, &j->cap);
	return uet_sink_put(s, w, j->line, r->format, j->who);
}

/* Live: the clocks' offset again (the wall clock may have been set). */
static int json_flush(struct uet_sink *s)
{
	struct json_sink *j = (struct json_sink *)s;

	if (j->wall && j->live)
		j->to_real_ns = uet_wall_offset_ns(j->clock);
	return uet_sink_stream_flush(s);
}

static int json_end(struct uet_sink *s, bool ok)
{
	free(((struct json_sink *)s)->line);
	return uet_sink_stream_end(s, ok);
}

/* Lost records as an object of their own: {"cpu":N,"lost":COUNT} (null: some, count unknown). */
static int json_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	if (n == UINT64_MAX)
		fprintf(s->out, "{\"cpu\":%u,\"lost\":null}\n", cpu);
	else
		fprintf(s->out, "{\"cpu\":%u,\"lost\":%llu}\n", cpu, (unsigned long long)n);
	return ferror(s->out) ? -EIO : 0;
}

static const struct uet_sink_ops json_ops = {
	.name = "json",
	.needs = UET_SINK_RECORDS,
	.begin = json_begin,
	.record = json_record,
	.lost = json_lost,
	.flush = json_flush,
	.end = json_end,
};

struct uet_sink *uet_sink_json_new(FILE *out, const char *path)
{
	struct json_sink *j = uet_sink_make(sizeof(*j), &json_ops, out, path);

	if (!j)
		return NULL;
	j->who = "";
	return &j->s;
}
