// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Chrome sink (--format=chrome): Chrome's Trace Event Format, the
 * object form {"traceEvents":[...],"displayTimeUnit":"ns"} that Perfetto UI
 * and chrome://tracing open.  Each record an instant event ("ph":"i",
 * thread scope) named SYSTEM:NAME (EventHeader: Provider:Event) with its
 * fields as "args" (EventHeader's also perf-decode's "meta": level,
 * keyword, opcode, activity IDs...); EventHeader activity start and stop (opcodes 1 and 2)
 * are "B"/"E" slices on their thread, or async spans ("b"/"e", "id": a
 * 64-bit hash of the activity ID, the full one in "args") when they carry an
 * activity ID (start and stop may then be on different threads); a stop
 * without its start is an instant, a start still open at the end is closed
 * at the last time stamp, so every begin has its end.  --counter
 * EVENT.FIELD makes each numeric FIELD of EVENT a counter ("ph":"C"), and
 * so are the gauges and sums an otlp_metrics event carries.  Lost
 * records are an instant "LOST N EVENTS" of process scope, on the process
 * of the CPU's next record (global scope at the end).  Time stamps in
 * microseconds; tid the record's thread id (common_pid), pid its process
 * (the ring buffer has none): a recording's saved_tgids, or live
 * /proc/TID/status and the tracefs's saved_tgids (tgids.c); the thread id
 * again where nothing says, each thread then a process of its own.  The "M"
 * metadata at the end: thread_name (the comm) per thread, process_name per
 * process (its main thread's comm, else its first thread's).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "formats.h"
#include "sink.h"
#include "tgids.h"
#include "util.h"

#define OP_START 1	/* EventHeader's event_opcode_activity_start */
#define OP_STOP 2	/* event_opcode_activity_stop */

struct ch_thread {
	int32_t tid;
	int32_t pid;		/* its process, or tid when not known */
	char comm[112];		/* JSON string, quotes included, or "" */
	unsigned int depth;	/* "B" open on it */
};

struct ch_span {		/* an async span begun, not yet ended */
	uint64_t id;
	int32_t pid, tid;
	char *name, *cat;	/* JSON strings */
};

struct ch_lost {
	uint64_t n;
	bool some;		/* a loss of unknown size */
};

struct chrome_sink {
	struct uet_sink s;
	const char *who;
	struct uet_tgids *tgids;	/* thread -> process */
	struct ch_thread *thr;
	size_t nthr;
	struct ch_span *spans;
	size_t nspans;
	struct ch_lost *lost;
	unsigned int nlost;
	const char **counters;	/* EVENT.FIELD */
	size_t ncounters;
	char *line, *args, *name;
	size_t line_cap, args_cap, name_cap;
	uint64_t last_ts;
	bool any;
};

static void put_ts(FILE *f, uint64_t ns)
{
	fprintf(f, "\"ts\":%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

/* The start of one event in the array: its separator, ph, ts, pid, tid. */
static void ev_open(struct chrome_sink *c, const char *ph, uint64_t ts, int32_t pid, int32_t tid)
{
	fputs(c->any ? ",\n{" : "\n{", c->s.out);
	c->any = true;
	fprintf(c->s.out, "\"ph\":\"%s\",", ph);
	put_ts(c->s.out, ts);
	fprintf(c->s.out, ",\"pid\":%" PRId32 ",\"tid\":%" PRId32, pid, tid);
}

/* @s (@n bytes) as a JSON string in a buffer of ours; NULL without memory. */
static char *jstr(char **buf, size_t *cap, const char *s, size_t n)
{
	int w = ueh_json_string(s, n, NULL, 0);

	if (w < 0)
		return NULL;
	if ((size_t)w + 1 > *cap) {
		char *b = realloc(*buf, (size_t)w + 1);

		if (!b)
			return NULL;
		*buf = b;
		*cap = (size_t)w + 1;
	}
	ueh_json_string(s, n, *buf, *cap);
	return *buf;
}

static int ch_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct chrome_sink *c = (struct chrome_sink *)s;

	c->who = env->who;
	c->tgids = uet_sink_tgids(env);
	if (!c->tgids)
		return -ENOMEM;
	fputs("{\"traceEvents\":[", s->out);
	return 0;
}

static struct ch_thread *thread_of(struct chrome_sink *c, const struct ue_record_ctx *ctx)
{
	struct ch_thread *t = NULL;

	for (size_t i = 0; i < c->nthr && !t; i++)
		if (c->thr[i].tid == ctx->pid)
			t = &c->thr[i];
	if (!t) {
		struct ch_thread *v = realloc(c->thr, (c->nthr + 1) * sizeof(*v));

		if (!v)
			return NULL;
		c->thr = v;
		t = &v[c->nthr++];
		memset(t, 0, sizeof(*t));
		t->tid = ctx->pid;
		t->pid = uet_tgids_get(c->tgids, ctx->pid);
		if (t->pid <= 0)
			t->pid = ctx->pid;
	}
	if (ctx->comm && !t->comm[0])
		ueh_json_string(ctx->comm, strnlen(ctx->comm, 16), t->comm, sizeof(t->comm));
	return t;
}

/* The losses marked on @cpu before this record: an instant on its process. */
static void lost_before(struct chrome_sink *c, unsigned int cpu, uint64_t ts,
			const struct ch_thread *t)
{
	struct ch_lost *l = cpu < c->nlost ? &c->lost[cpu] : NULL;

	if (!l || (!l->n && !l->some))
		return;
	ev_open(c, "i", ts, t->pid, t->tid);
	if (l->some && !l->n)
		fprintf(c->s.out, ",\"s\":\"p\",\"name\":\"LOST EVENTS\",\"args\":{\"cpu\":%u}}", cpu);
	else
		fprintf(c->s.out, ",\"s\":\"p\",\"name\":\"LOST %" PRIu64 "%s EVENTS\",\"args\":{\"cpu\":%u}}",
			l->n, l->some ? "+" : "", cpu);
	l->n = 0;
	l->some = false;
}

/* The value of "FIELD": in the args object @args, as a JSON number, or NULL. */
static const char *arg_number(const char *args, const char *field, size_t *len)
{
	size_t fl = strlen(field);

	for (const char *p = strchr(args, '"'); p; p = strchr(p + 1, '"')) {
		const char *v;

		if (strncmp(p + 1, field, fl) != 0 || p[1 + fl] != '"' || p[2 + fl] != ':')
			continue;
		v = p + 3 + fl;
		while (*v == ' ')
			v++;
		*len = strspn(v, "-+.0123456789eE");
		return *len ? v : NULL;
	}
	return NULL;
}

/* --counter EVENT.FIELD: @ev ("SYSTEM:NAME", "NAME" or "Provider:Event") and its args. */
static void counters(struct chrome_sink *c, const char *sys, const char *name, uint64_t ts,
		     const struct ch_thread *t)
{
	for (size_t i = 0; i < c->ncounters; i++) {
		const char *spec = c->counters[i], *dot = strrchr(spec, '.'), *v;
		size_t el = (size_t)(dot - spec), sl = strlen(sys), vl;

		if (!((el == strlen(name) && !strncmp(spec, name, el)) ||
		      (el == sl + 1 + strlen(name) && !strncmp(spec, sys, sl) && spec[sl] == ':' &&
		       !strncmp(spec + sl + 1, name, el - sl - 1))))
			continue;
		v = arg_number(c->args, dot + 1, &vl);
		if (!v)
			continue;
		ev_open(c, "C", ts, t->pid, t->tid);
		fprintf(c->s.out, ",\"name\":%s,\"args\":{%s:%.*s}}",
			jstr(&c->name, &c->name_cap, spec, strlen(spec)) ?: "\"counter\"",
			jstr(&c->line, &c->line_cap, dot + 1, strlen(dot + 1)) ?: "\"value\"", (int)vl, v);
	}
}

/* The length of the valid UTF-8 sequence at @p (@n bytes left), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 :
		   p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;

	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return k;
}

/*
 * c->args: "{...}" from @body (@n bytes of JSON members, or none), a byte
 * that is not UTF-8 as U+FFFD (perf-decode's values keep them; JSON may not).
 */
static int set_args(struct chrome_sink *c, const char *body, size_t n)
{
	size_t o = 1;

	if (6 * n + 3 > c->args_cap) {
		char *b = realloc(c->args, 6 * n + 3);

		if (!b)
			return -ENOMEM;
		c->args = b;
		c->args_cap = 6 * n + 3;
	}
	c->args[0] = '{';
	for (size_t i = 0, k; i < n; i += k ? k : 1) {
		k = utf8_len((const unsigned char *)body + i, n - i);
		if (k) {
			memcpy(c->args + o, body + i, k);
			o += k;
		} else {
			memcpy(c->args + o, "\\ufffd", 6);
			o += 6;
		}
	}
	c->args[o] = '}';
	c->args[o + 1] = '\0';
	return 0;
}

static int ch_eventheader(struct chrome_sink *c, const struct ueh_event *e,
			  const struct uet_sink_rec *r, struct ch_thread *t)
{
	char cat[1600], nm[512], meta[512], *fields;
	int w = ueh_json_fields(e, 0, NULL, 0), m = ueh_json_meta(e, meta, sizeof(meta));
	uint64_t id = 0xcbf29ce484222325ull, ts = r->ctx.ts_ns;
	int er;

	if (w < 0)
		w = 0;	/* malformed fields: none shown */
	if (m < 2 || (size_t)m >= sizeof(meta))
		m = 0;	/* ", " first; nothing set, or (never) too long: no meta */
	/* The fields, then ', "meta": {...}' as perf-decode has it beside them. */
	fields = malloc((size_t)w + (size_t)m + 16);
	if (!fields)
		return -ENOMEM;
	if (w)
		ueh_json_fields(e, 0, fields, (size_t)w + 1);
	if (m)
		w += sprintf(fields + w, ", \"meta\": {%s}", meta + 2);
	er = set_args(c, w >= 2 ? fields + 2 : "", w >= 2 ? (size_t)w - 2 : 0);
	free(fields);
	if (er < 0)
		return er;
	ueh_json_string(e->tp_name, e->n.provider_len, cat, sizeof(cat));
	snprintf(nm, sizeof(nm), "%.*s:%.*s", (int)e->n.provider_len, e->tp_name,
		 (int)e->name_len, e->name);
	if (!jstr(&c->name, &c->name_cap, nm, strlen(nm)))
		return -ENOMEM;
	/* FNV-1a of the whole ID: folding its halves made 0 of 01020304-0506-0708-0102-030405060708. */
	for (int i = 0; e->activity && i < 16; i++)
		id = (id ^ e->activity[i]) * 0x100000001b3ull;
	if (e->opcode == OP_START && e->activity) {
		struct ch_span *v = realloc(c->spans, (c->nspans + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->spans = v;
		v[c->nspans] = (struct ch_span){ id, t->pid, t->tid, strdup(c->name), strdup(cat) };
		if (!v[c->nspans].name || !v[c->nspans].cat)
			return -ENOMEM;
		c->nspans++;
		ev_open(c, "b", ts, t->pid, t->tid);
		fprintf(c->s.out, ",\"cat\":%s,\"id\":\"0x%016" PRIx64 "\",\"name\":%s,\"args\":%s}",
			cat, id, c->name, c->args);
		return 0;
	}
	if (e->opcode == OP_STOP && e->activity) {
		for (size_t i = c->nspans; i-- > 0;) {
			struct ch_span *sp = &c->spans[i];

			if (sp->id != id || strcmp(sp->cat, cat) != 0)
				continue;
			ev_open(c, "e", ts, t->pid, t->tid);
			fprintf(c->s.out, ",\"cat\":%s,\"id\":\"0x%016" PRIx64 "\",\"name\":%s,\"args\":%s}",
				sp->cat, id, sp->name, c->args);
			free(sp->name);
			free(sp->cat);
			*sp = c->spans[--c->nspans];
			return 0;
		}
	} else if (e->opcode == OP_START || (e->opcode == OP_STOP && t->depth)) {
		ev_open(c, e->opcode == OP_START ? "B" : "E", ts, t->pid, t->tid);
		fprintf(c->s.out, ",\"cat\":%s,\"name\":%s,\"args\":%s}", cat, c->name, c->args);
		t->depth += e->opcode == OP_START ? 1 : -1;
		return 0;
	}
	ev_open(c, "i", ts, t->pid, t->tid);
	fprintf(c->s.out, ",\"s\":\"t\",\"cat\":%s,\"name\":%s,\"args\":%s}", cat, c->name, c->args);
	snprintf(nm, sizeof(nm), "%.*s", (int)e->name_len, e->name);
	snprintf(cat, sizeof(cat), "%.*s", (int)e->n.provider_len, e->tp_name);
	counters(c, cat, nm, ts, t);
	return 0;
}

/* ---- otlp_metrics: the gauges' and sums' numbers as counters ---------------------------- */

struct pb {
	const uint8_t *p, *end;
};

static bool pb_varint(struct pb *b, uint64_t *v)
{
	*v = 0;
	for (int i = 0; i < 10 && b->p < b->end; i++) {
		uint8_t c = *b->p++;

		*v |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80))
			return true;
	}
	return false;
}

/* The next field of @b: its number, a varint or fixed value in @v, a length-delimited one in @sub. */
static bool pb_next(struct pb *b, uint64_t *num, uint64_t *v, struct pb *sub)
{
	uint64_t key, n;

	if (b->p >= b->end || !pb_varint(b, &key))
		return false;
	*num = key >> 3;
	*sub = (struct pb){ NULL, NULL };
	switch (key & 7) {
	case 0:
		return pb_varint(b, v);
	case 1:
	case 5:
		n = (key & 7) == 1 ? 8 : 4;
		if ((size_t)(b->end - b->p) < n)
			return false;
		*v = 0;
		memcpy(v, b->p, n);	/* little-endian, as the wire */
		b->p += n;
		return true;
	case 2:
		if (!pb_varint(b, &n) || n > (uint64_t)(b->end - b->p))
			return false;
		*sub = (struct pb){ b->p, b->p + n };
		b->p += n;
		return true;
	}
	return false;
}

/* One metric: "C" named by it, its gauge's or sum's data points as value, value1, ... */
static void metric_counter(struct chrome_sink *c, struct pb m, uint64_t ts,
			   const struct ch_thread *t)
{
	struct pb f, name = { NULL, NULL }, data = { NULL, NULL };
	uint64_t num, v;

	while (pb_next(&m, &num, &v, &f)) {
		if (num == 1 && f.p)
			name = f;
		else if ((num == 5 || num == 7) && f.p)	/* gauge, sum */
			data = f;
	}
	if (!name.p || !data.p ||
	    !jstr(&c->name, &c->name_cap, (const char *)name.p, (size_t)(name.end - name.p)))
		return;
	for (unsigned int k = 0; pb_next(&data, &num, &v, &f);) {
		struct pb dp = f, g;
		uint64_t dn, dv;

		if (num != 1 || !f.p)
			continue;	/* not a data point */
		while (pb_next(&dp, &dn, &dv, &g)) {
			double d;

			if (dn != 4 && dn != 6)	/* as_double, as_int */
				continue;
			if (dn == 4)
				memcpy(&d, &dv, sizeof(d));
			else
				d = (double)(int64_t)dv;
			if (d != d || d - d != 0)
				continue;	/* NaN, infinities: not JSON */
			ev_open(c, "C", ts, t->pid, t->tid);
			fprintf(c->s.out, ",\"cat\":\"otlp_metrics\",\"name\":%s,\"args\":{\"value%.0u\":%.17g}}",
				c->name, k, d);
			k++;
		}
	}
}

/* An otlp_metrics event (docs/otlp.md) with protocol 0: its ExportMetricsServiceRequest's metrics. */
static void metrics_counters(struct chrome_sink *c, const struct uet_sink_rec *r,
			     const struct ch_thread *t)
{
	const struct ue_event *ev = r->format->desc;
	struct ue_value proto, buf;
	struct pb req, rm, sm, m;
	uint64_t n1, n2, n3, v;

	if (strcmp(ev->name, "otlp_metrics") != 0 || ev->nfields != 3 ||
	    strcmp(ev->fields[0].name, "protocol") != 0 || strcmp(ev->fields[2].name, "buffer") != 0 ||
	    ue_field_value(&ev->fields[0], r->data, r->len, &proto) != UE_VAL_UINT || proto.u != 0 ||
	    ue_field_value(&ev->fields[2], r->data, r->len, &buf) != UE_VAL_BYTES)
		return;
	req = (struct pb){ buf.p, (const uint8_t *)buf.p + buf.len };
	while (pb_next(&req, &n1, &v, &rm))	/* resource_metrics */
		while (n1 == 1 && rm.p && pb_next(&rm, &n2, &v, &sm))	/* scope_metrics */
			while (n2 == 2 && sm.p && pb_next(&sm, &n3, &v, &m))	/* metrics */
				if (n3 == 2 && m.p)
					metric_counter(c, m, r->ctx.ts_ns, t);
}

static int ch_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct chrome_sink *c = (struct chrome_sink *)s;
	struct ch_thread *t;
	struct ueh_event e;
	const char *f;
	int w;

	if (!r->format)
		return 0;
	t = thread_of(c, &r->ctx);
	if (!t)
		return -ENOMEM;
	if (r->ctx.ts_ns > c->last_ts)
		c->last_ts = r->ctx.ts_ns;
	lost_before(c, r->ctx.cpu, r->ctx.ts_ns, t);
	if (uet_eh_start(r->format, r->data, r->len, &e))
		return ch_eventheader(c, &e, r, t) < 0 ? -ENOMEM : ferror(s->out) ? -EIO : 0;
	/* The JSON renderer's "fields" object (its last member) as args. */
	w = uet_render_json(r->format, &r->ctx, r->data, r->len, &c->line, &c->line_cap);
	if (w < 0)
		return w == -ENOMEM ? w : 0;
	f = strstr(c->line, ",\"fields\":{");
	if (!f || w < 3 || set_args(c, f + 11, (size_t)(c->line + w - 3 - (f + 11))) < 0)
		return -ENOMEM;
	if (!jstr(&c->name, &c->name_cap, r->format->desc->name, strlen(r->format->desc->name)))
		return -ENOMEM;
	ev_open(c, "i", r->ctx.ts_ns, t->pid, t->tid);
	fprintf(s->out, ",\"s\":\"t\",\"cat\":\"%s\",\"name\":%s,\"args\":%s}", r->format->system,
		c->name, c->args);
	counters(c, r->format->system, r->format->desc->name, r->ctx.ts_ns, t);
	metrics_counters(c, r, t);
	return ferror(s->out) ? -EIO : 0;
}

static int ch_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	struct chrome_sink *c = (struct chrome_sink *)s;

	if (cpu >= c->nlost) {
		struct ch_lost *v = realloc(c->lost, (cpu + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + c->nlost, 0, (cpu + 1 - c->nlost) * sizeof(*v));
		c->lost = v;
		c->nlost = cpu + 1;
	}
	if (n == UINT64_MAX)
		c->lost[cpu].some = true;
	else
		c->lost[cpu].n += n;
	return 0;
}

/* Close what is open, the losses not followed by a record, the names; the array. */
static int ch_end(struct uet_sink *s, bool ok)
{
	struct chrome_sink *c = (struct chrome_sink *)s;
	FILE *f = s->out;

	for (size_t i = 0; i < c->nthr; i++)
		for (; c->thr[i].depth; c->thr[i].depth--) {
			ev_open(c, "E", c->last_ts, c->thr[i].pid, c->thr[i].tid);
			fputs("}", f);
		}
	for (size_t i = 0; i < c->nspans; i++) {
		ev_open(c, "e", c->last_ts, c->spans[i].pid, c->spans[i].tid);
		fprintf(f, ",\"cat\":%s,\"id\":\"0x%016" PRIx64 "\",\"name\":%s}", c->spans[i].cat,
			c->spans[i].id, c->spans[i].name);
		free(c->spans[i].name);
		free(c->spans[i].cat);
	}
	for (unsigned int cpu = 0; cpu < c->nlost; cpu++) {
		if (!c->lost[cpu].n && !c->lost[cpu].some)
			continue;
		ev_open(c, "i", c->last_ts, 0, 0);
		fprintf(f, ",\"s\":\"g\",\"name\":\"LOST %" PRIu64 "%s EVENTS\",\"args\":{\"cpu\":%u}}",
			c->lost[cpu].n, c->lost[cpu].some ? "+" : "", cpu);
	}
	for (size_t i = 0; i < c->nthr; i++) {
		const struct ch_thread *t = &c->thr[i], *lead = NULL;
		const char *comm = t->comm[0] ? t->comm : "\"<...>\"";
		bool named = false;

		/* A process's name once, at its first thread: its main thread's comm, else that one's. */
		for (size_t j = 0; j < c->nthr && !named; j++)
			if (c->thr[j].pid == t->pid) {
				named = j < i;
				if (c->thr[j].tid == t->pid)
					lead = &c->thr[j];
			}
		if (!named) {
			const char *pc = lead && lead->comm[0] ? lead->comm : comm;

			ev_open(c, "M", 0, t->pid, t->pid);
			fprintf(f, ",\"name\":\"process_name\",\"args\":{\"name\":%s}}", pc);
		}
		ev_open(c, "M", 0, t->pid, t->tid);
		fprintf(f, ",\"name\":\"thread_name\",\"args\":{\"name\":%s}}", comm);
	}
	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", f);
	free(c->thr);
	uet_tgids_free(c->tgids);
	free(c->spans);
	free(c->lost);
	free(c->counters);
	free(c->line);
	free(c->args);
	free(c->name);
	return uet_sink_stream_end(s, ok);
}

static const struct uet_sink_ops chrome_ops = {
	.name = "chrome",
	.needs = UET_SINK_RECORDS,
	.begin = ch_begin,
	.record = ch_record,
	.lost = ch_lost,
	.flush = uet_sink_stream_flush,
	.end = ch_end,
};

int uet_sink_chrome_counter(struct uet_sink *s, const char *spec)
{
	struct chrome_sink *c = (struct chrome_sink *)s;
	const char **v;

	if (s->ops != &chrome_ops)
		return -EINVAL;
	v = realloc(c->counters, (c->ncounters + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->counters = v;
	v[c->ncounters++] = spec;
	return 0;
}

struct uet_sink *uet_sink_chrome_new(FILE *out, const char *path)
{
	struct chrome_sink *c = uet_sink_make(sizeof(*c), &chrome_ops, out, path);

	if (!c)
		return NULL;
	c->who = "";
	return &c->s;
}
