// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The OTLP sink (export --otlp): each user event record becomes an OTLP
 * LogRecord (docs/otlp.md is the mapping), encoded at once into the batch
 * (core/otlp.c); a batch becomes one ExportLogsServiceRequest, a
 * ResourceLogs per process, when it is full, --batch-delay old or the
 * reader idle, and goes to the sender's queue (otlp-send.c).  otlp_metrics events carry an
 * ExportMetricsServiceRequest: it is forwarded as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eventheader.h"
#include "formats.h"
#include "otlp-export.h"
#include "otlp.h"
#include "sink.h"
#include "tgids.h"
#include "tracefs.h"
#include "util.h"

#define GROUPS_MAX 64		/* processes in one request */
#define PROCS 256		/* thread -> process cache */
#define MEMBERS_MAX 256		/* EventHeader top-level fields made attributes */
#define PREPS 64		/* event formats whose parts are kept encoded */

struct proc {
	int32_t tid, tgid;
	char exe[64];
};

/* Each record in the batch: this, then its LogRecord as an array element. */
struct entry {
	uint16_t group;
	uint8_t system;		/* 0: user_events, 1: user_events_multi */
	uint8_t pad;
	uint32_t len;
};

/* A plain event's field: its KeyValue key encoded, how its value is written. */
struct prep_field {
	uint32_t off, len;	/* of the key in prep.buf */
	uint8_t es;		/* an array of numbers: the element's size; 0: bytes */
	bool sign;
};

/* The parts of an event format's LogRecords that do not change, encoded once. */
struct prep {
	const struct uet_format *f;
	const struct ue_event *desc;	/* a format replaced in place has a new one */
	uint8_t *buf;
	uint32_t name_len;	/* eventName (uo_put_prep), at buf */
	uint32_t kv_len;	/* the event.name KeyValue as an element (uo_splice), after it */
	bool multi;		/* of user_events_multi */
	bool metrics;		/* laid out as otlp_metrics */
	struct prep_field *fld;
};

struct otlp_sink {
	struct uet_sink s;
	struct uet_otlp_opts o;
	struct uet_otlp_sender *tx;
	char host[256];
	clockid_t clock;		/* the trace clock's, as far as it has one */
	int64_t to_real_ns;		/* realtime - trace clock */
	uint8_t *batch;			/* entries */
	size_t used;
	unsigned nrecords;
	uint64_t batch_at;		/* when the first record came (monotonic) */
	bool fresh;			/* a record came since the last flush */
	unsigned unnoted;		/* records encoded, not yet in the sender's counters */
	struct proc groups[GROUPS_MAX];
	unsigned ngroups;
	uint8_t *mbatch;		/* otlp_metrics payloads, concatenated */
	size_t mused;
	unsigned nmetrics;
	struct proc procs[PROCS];
	struct uet_tgids *tgids;	/* thread -> process: /proc, then the tracefs's saved_tgids */
	char *json;			/* an EventHeader event's fields (perf-decode JSON) */
	size_t json_cap;
	struct prep preps[PREPS];	/* by format; emptied whenever a format comes or changes */
};

/* ---- time and the process -------------------------------------------------- */


/* @tid's process (tgids.c; itself where nothing says) and its executable's name. */
static void proc_read(struct otlp_sink *o, struct proc *p, int32_t tid, const char *comm)
{
	char path[64], buf[4096], *t;
	ssize_t n;

	p->tid = tid;
	p->tgid = uet_tgids_get(o->tgids, tid);
	if (p->tgid <= 0)
		p->tgid = tid;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->tgid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = '\0';
		t = strstr(buf, " (deleted)");
		if (t)
			*t = '\0';
		t = strrchr(buf, '/');
		snprintf(p->exe, sizeof(p->exe), "%.63s", t ? t + 1 : buf);
	} else {
		/* Gone already, or not ours to read: the task name the trace kept. */
		snprintf(p->exe, sizeof(p->exe), "%s", comm ? comm : "");
	}
}

static const struct proc *proc_of(struct otlp_sink *o, int32_t tid, const char *comm)
{
	struct proc *p = &o->procs[(uint32_t)tid % PROCS];

	if (p->tid != tid || !p->exe[0])
		proc_read(o, p, tid, comm);
	return p;
}

/* ---- requests ----------------------------------------------------------------- */

static void resource(struct uo_w *w, const struct otlp_sink *o, const struct proc *p)
{
	uo_begin(w, UO_RL_RESOURCE, "resource");
	uo_array(w, UO_RES_ATTRIBUTES, "attributes");
	uo_kv_str(w, "host.name", o->host, strlen(o->host));
	uo_kv_int(w, "process.pid", p->tgid);
	if (p->exe[0])
		uo_kv_str(w, "process.executable.name", p->exe, strlen(p->exe));
	uo_array_end(w);
	uo_end(w);
}

/* The records encoded into the counters: once a pass or a request, not a lock a record. */
static void note_records(struct otlp_sink *o)
{
	if (o->unnoted)
		uet_otlp_note(o->tx, o->unnoted, 0, 0);
	o->unnoted = 0;
}

/* The batch as one ExportLogsServiceRequest to the queue. */
static void ship_logs(struct otlp_sink *o)
{
	static const char *const systems[2] = { "user_events", "user_events_multi" };
	size_t cap = o->used + o->ngroups * 1024 + 256;
	uint8_t *body;
	struct uo_w w;
	long len;

	if (!o->nrecords)
		return;
	note_records(o);
	body = malloc(cap);
	if (!body) {
		uet_otlp_note(o->tx, 0, 0, o->nrecords);
		goto out;
	}
	uo_init(&w, body, cap, o->o.json);
	uo_array(&w, UO_REQ_RESOURCE_LOGS, "resourceLogs");
	for (unsigned g = 0; g < o->ngroups; g++) {
		uo_begin(&w, 0, NULL);
		resource(&w, o, &o->groups[g]);
		uo_array(&w, UO_RL_SCOPE_LOGS, "scopeLogs");
		for (uint8_t sys = 0; sys < 2; sys++) {
			bool open = false;

			for (size_t at = 0; at < o->used;) {
				struct entry e;

				memcpy(&e, o->batch + at, sizeof(e));
				if (e.group == g && e.system == sys) {
					if (!open) {
						uo_begin(&w, 0, NULL);
						uo_begin(&w, UO_SL_SCOPE, "scope");
						uo_str(&w, UO_SCOPE_NAME, "name", systems[sys],
						       strlen(systems[sys]));
						uo_end(&w);
						uo_array(&w, UO_SL_LOG_RECORDS, "logRecords");
						open = true;
					}
					uo_splice(&w, o->batch + at + sizeof(e), e.len);
				}
				at += sizeof(e) + e.len;
			}
			if (open) {
				uo_array_end(&w);
				uo_end(&w);
			}
		}
		uo_array_end(&w);
		uo_end(&w);
	}
	uo_array_end(&w);
	len = uo_finish(&w);
	if (len < 0) {
		/* Cannot be: the room was counted.  Said, and counted as dropped. */
		uet_err("export: a request did not encode (%s)", strerror((int)-len));
		uet_otlp_note(o->tx, 0, 0, o->nrecords);
		free(body);
	} else {
		uet_otlp_send(o->tx, false, body, (size_t)len, o->nrecords);
	}
out:
	o->used = 0;
	o->nrecords = 0;
	o->ngroups = 0;
}

static void ship_metrics(struct otlp_sink *o)
{
	uint8_t *body;

	if (!o->nmetrics)
		return;
	body = malloc(o->mused ? o->mused : 1);
	if (body) {
		memcpy(body, o->mbatch, o->mused);
		uet_otlp_send(o->tx, true, body, o->mused, o->nmetrics);
	} else {
		uet_otlp_note(o->tx, 0, 0, o->nmetrics);
	}
	o->mused = 0;
	o->nmetrics = 0;
}

/* ---- one record --------------------------------------------------------------- */

/* Element size of an array field of numbers ("__rel_loc u32[] a"), 0 when bytes fit it best. */
static unsigned array_elem(const char *type, bool *is_signed)
{
	static const struct {
		const char *t;
		unsigned size;
		bool sign;
	} el[] = {
		{ "u16[", 2, false }, { "s16[", 2, true }, { "u32[", 4, false },
		{ "s32[", 4, true },  { "int[", 4, true }, { "u64[", 8, false },
		{ "s64[", 8, true },  { "long[", 8, true }, { "short[", 2, true },
	};

	for (size_t i = 0; i < sizeof(el) / sizeof(el[0]); i++) {
		const char *p = strstr(type, el[i].t);

		if (p && (p == type || p[-1] == ' ')) {
			*is_signed = el[i].sign && !strstr(type, "unsigned");
			return el[i].size;
		}
	}
	return 0;
}

static void attr_uint(struct uo_w *w, uint64_t u)
{
	if (u > INT64_MAX) {
		char t[24];

		snprintf(t, sizeof(t), "%llu", (unsigned long long)u);
		uo_any_str(w, t, strlen(t));
	} else {
		uo_any_int(w, (int64_t)u);
	}
}

/* Element size of an array field written as numbers, 0 for bytes. */
static unsigned field_elem(const struct ue_field *f, bool *sign)
{
	unsigned es = array_elem(f->type, sign);

	return strncmp(f->type, "struct ", 7) == 0 ? 0 : es;
}

/* A plain event's fields as typed attributes (@p: their keys encoded, or NULL). */
static void plain_fields(struct uo_w *w, const struct uet_sink_rec *r, const struct prep *p)
{
	const struct ue_event *ev = r->format->desc;

	for (uint32_t i = 0; i < ev->nfields; i++) {
		const struct ue_field *f = &ev->fields[i];
		struct ue_value v;
		bool sign = false;
		unsigned es;

		if (ue_field_value(f, r->data, r->len, &v) == UE_VAL_NULL)
			continue;	/* outside the record: no value to give */
		/* Most fields: an integer with its key prepared, encoded in one go. */
		if (p && (v.kind == UE_VAL_INT || (v.kind == UE_VAL_UINT && v.u <= INT64_MAX))) {
			uo_kv_int_prep(w, p->buf + p->fld[i].off, p->fld[i].len,
				       v.kind == UE_VAL_INT ? v.i : (int64_t)v.u);
			continue;
		}
		if (p)
			uo_kv_begin_prep(w, p->buf + p->fld[i].off, p->fld[i].len);
		else
			uo_kv_begin(w, f->name, strlen(f->name));
		switch (v.kind) {
		case UE_VAL_INT:
			uo_any_int(w, v.i);
			break;
		case UE_VAL_UINT:
			attr_uint(w, v.u);
			break;
		case UE_VAL_STRING:
			uo_any_str(w, v.p, v.len);
			break;
		default:
			if (p)
				es = p->fld[i].es, sign = p->fld[i].sign;
			else
				es = field_elem(f, &sign);
			if (!es || v.len % es) {
				uo_any_bytes(w, v.p, v.len);
				break;
			}
			uo_any_array(w);
			for (size_t k = 0; k < v.len; k += es) {
				const uint8_t *el = (const uint8_t *)v.p + k;
				uint64_t u = 0;

				memcpy(&u, el, es);	/* little-endian host, as the record */
				if (sign && es < 8 && (u >> (8 * es - 1)) & 1)
					u |= ~0ull << (8 * es);
				if (sign)
					uo_any_int(w, (int64_t)u);
				else
					attr_uint(w, u);
			}
			uo_any_close(w);
			break;
		}
		uo_kv_end(w);
	}
}

/* EventHeader levels 1..5 (critical .. verbose) as OpenTelemetry severities. */
static void severity_of_level(struct uo_w *w, unsigned level)
{
	static const struct {
		unsigned num;
		const char *text;
	} sev[] = { { 21, "FATAL" }, { 17, "ERROR" }, { 13, "WARN" }, { 9, "INFO" }, { 5, "DEBUG" } };

	if (level < 1 || level > 5)
		return;
	uo_uint32(w, UO_LR_SEVERITY_NUMBER, "severityNumber", sev[level - 1].num);
	uo_str(w, UO_LR_SEVERITY_TEXT, "severityText", sev[level - 1].text,
	       strlen(sev[level - 1].text));
}

/* The top-level fields of an EventHeader event, and Common Schema's parts among them. */
struct eh_fields {
	struct uo_member m[MEMBERS_MAX];
	unsigned n, dropped;
	const struct uo_member *parta, *partb, *partc;
	bool cs;
};

static bool name_is(const struct uo_member *m, const char *s)
{
	return m->name_len == strlen(s) && memcmp(m->name, s, m->name_len) == 0;
}

static int eh_member(void *arg, const struct uo_member *m)
{
	struct eh_fields *f = arg;
	const struct uo_member *kept;

	if (f->n == MEMBERS_MAX) {
		f->dropped++;
		return 0;
	}
	f->m[f->n] = *m;
	kept = &f->m[f->n++];
	if (name_is(m, "__csver__"))
		f->cs = true;
	else if (name_is(m, "PartA") && m->value[0] == '{')
		f->parta = kept;
	else if (name_is(m, "PartB") && m->value[0] == '{')
		f->partb = kept;
	else if (name_is(m, "PartC") && m->value[0] == '{')
		f->partc = kept;
	return 0;
}

/* The member @name of the JSON object @obj, or false. */
struct find {
	const char *name;
	struct uo_member got;
	bool found;
};

static int find_member(void *arg, const struct uo_member *m)
{
	struct find *f = arg;

	if (!name_is(m, f->name))
		return 0;
	f->got = *m;
	f->found = true;
	return 1;
}

static bool member(const struct uo_member *obj, const char *name, struct uo_member *out)
{
	struct find f = { .name = name };

	if (!obj)
		return false;
	uo_json_members(obj->value, obj->value_len, find_member, &f);
	*out = f.got;
	return f.found;
}

/* A JSON string of @n hex digits as n/2 bytes; false if it is not one (or all zero). */
static bool hex_id(const struct uo_member *m, uint8_t *out, size_t n)
{
	bool nonzero = false;

	if (m->value_len != n * 2 + 2 || m->value[0] != '"')
		return false;
	for (size_t i = 0; i < n; i++) {
		int hi = ueh_lower_hex(m->value[1 + 2 * i] | 0x20),
		    lo = ueh_lower_hex(m->value[2 + 2 * i] | 0x20);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
		nonzero |= out[i] != 0;
	}
	return nonzero;
}

/* An RFC 3339 time ("2024-05-01T10:00:00.123456Z", offsets too) in ns since the epoch. */
static bool rfc3339(const struct uo_member *m, uint64_t *ns)
{
	char t[64], *p;
	struct tm tm = { 0 };
	uint64_t frac = 0, scale = 1000000000;
	long off = 0;
	time_t s;

	if (m->value_len < 3 || m->value[0] != '"' || m->value_len - 2 >= sizeof(t))
		return false;
	memcpy(t, m->value + 1, m->value_len - 2);
	t[m->value_len - 2] = '\0';
	p = strptime(t, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return false;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale > 1)
				frac = frac * 10 + (uint64_t)(*p - '0'), scale /= 10;
	if ((*p == '+' || *p == '-') && strlen(p) == 6)
		off = (strtol(p + 1, NULL, 10) * 3600 + strtol(p + 4, NULL, 10) * 60) *
		      (*p == '-' ? -1 : 1);
	else if (*p != 'Z' && *p != 'z')
		return false;
	s = timegm(&tm) - off;
	if (s < 0)
		return false;
	*ns = (uint64_t)s * 1000000000ull + frac * scale;
	return true;
}

static void kv_json(struct uo_w *w, const struct uo_member *m)
{
	size_t kl = uo_json_unescape(m->name, m->name_len, NULL, 0);
	char key[256];

	if (kl >= sizeof(key))
		kl = sizeof(key) - 1;
	uo_json_unescape(m->name, m->name_len, key, kl);
	uo_kv_begin(w, key, kl);
	uo_any_json(w, m->value, m->value_len);
	uo_kv_end(w);
}

static int attr_json(void *arg, const struct uo_member *m)
{
	kv_json(arg, m);
	return 0;
}

/*
 * An EventHeader event's LogRecord fields after the times; false when its
 * fields do not decode (the caller writes it as a plain event).
 */
static bool eh_record(struct otlp_sink *o, struct uo_w *w, const struct ueh_event *e,
		      uint64_t *time_ns)
{
	static struct eh_fields f;	/* one reader thread; large */
	struct uo_member name = { 0 }, v;
	uint8_t id[16];
	int n = ueh_json_fields(e, UEH_J_BYTES, o->json, o->json_cap);

	if (n >= 0 && (size_t)n >= o->json_cap) {
		char *nb = realloc(o->json, (size_t)n + 1);

		if (!nb)
			return false;
		o->json = nb;
		o->json_cap = (size_t)n + 1;
		n = ueh_json_fields(e, UEH_J_BYTES, o->json, o->json_cap);
	}
	if (n < 0)
		return false;
	memset(&f, 0, sizeof(f));
	if (uo_json_members(o->json, (size_t)n, eh_member, &f) < 0)
		return false;
	f.cs = f.cs && f.partb;
	/* Common Schema: the LogRecord the OpenTelemetry exporter wrote. */
	if (f.cs && member(f.parta, "time", &v))
		rfc3339(&v, time_ns);
	uo_fixed64(w, UO_LR_TIME, "timeUnixNano", *time_ns);
	if (f.cs && member(f.partb, "severityNumber", &v) && v.value[0] >= '0' &&
	    v.value[0] <= '9') {
		uo_uint32(w, UO_LR_SEVERITY_NUMBER, "severityNumber",
			  (uint32_t)strtoul(v.value, NULL, 10));
		if (member(f.partb, "severityText", &v) && v.value[0] == '"')
			uo_str(w, UO_LR_SEVERITY_TEXT, "severityText", v.value + 1,
			       v.value_len - 2);
	} else {
		severity_of_level(w, e->level);
	}
	if (f.cs && member(f.partb, "body", &v)) {
		uo_any_field(w, UO_LR_BODY, "body");
		uo_any_json(w, v.value, v.value_len);
	}
	if (f.cs && member(f.parta, "ext_dt", &name)) {
		if (member(&name, "traceId", &v) && hex_id(&v, id, 16))
			uo_id(w, UO_LR_TRACE_ID, "traceId", id, 16);
		if (member(&name, "spanId", &v) && hex_id(&v, id, 8))
			uo_id(w, UO_LR_SPAN_ID, "spanId", id, 8);
	} else if (e->activity) {
		/* OpenTelemetry's ETW/user_events rule: a span id and 8 zero bytes. */
		static const uint8_t zero[8];

		if (memcmp(e->activity + 8, zero, 8) == 0 && memcmp(e->activity, zero, 8) != 0)
			uo_id(w, UO_LR_SPAN_ID, "spanId", e->activity, 8);
	}
	memset(&name, 0, sizeof(name));
	if (f.cs && member(f.partb, "name", &v) && v.value[0] == '"') {
		name = v;
		uo_str_json(w, UO_LR_EVENT_NAME, "eventName", v.value + 1, v.value_len - 2);
	} else {
		uo_str(w, UO_LR_EVENT_NAME, "eventName", e->name, e->name_len);
	}
	if (f.dropped)
		uo_uint32(w, UO_LR_DROPPED, "droppedAttributesCount", f.dropped);
	uo_array(w, UO_LR_ATTRIBUTES, "attributes");
	if (name.value) {
		uo_kv_begin(w, "event.name", 10);
		uo_any_json(w, name.value, name.value_len);
		uo_kv_end(w);
	} else {
		uo_kv_str(w, "event.name", e->name, e->name_len);
	}
	uo_kv_str(w, "eventheader.provider", e->tp_name, e->n.provider_len);
	if (e->activity && !(memcmp(e->activity + 8, (uint8_t[8]){ 0 }, 8) == 0))
		uo_kv_bytes(w, "eventheader.activity_id", e->activity, 16);
	if (f.cs) {
		if (member(f.partb, "eventId", &v))
			kv_json(w, &(struct uo_member){ "event.id", 8, v.value, v.value_len });
		if (f.partc)
			uo_json_members(f.partc->value, f.partc->value_len, attr_json, w);
	}
	for (unsigned i = 0; i < f.n; i++) {
		const struct uo_member *m = &f.m[i];

		if (f.cs && (name_is(m, "__csver__") || m == f.parta || m == f.partb ||
			     m == f.partc))
			continue;
		kv_json(w, m);
	}
	uo_array_end(w);
	return true;
}

/* ---- an event format's parts, encoded once ------------------------------------ */

static void prep_clear(struct prep *p)
{
	free(p->buf);
	free(p->fld);
	memset(p, 0, sizeof(*p));
}

/* Whether @ev is laid out as otlp_metrics (u32 protocol; char[8] version; __rel_loc u8[] buffer). */
static bool metrics_layout(const struct ue_event *ev)
{
	return strcmp(ev->name, "otlp_metrics") == 0 && ev->nfields == 3 &&
	       strcmp(ev->fields[0].name, "protocol") == 0 &&
	       strcmp(ev->fields[2].name, "buffer") == 0 &&
	       strcmp(ev->fields[2].type, "__rel_loc u8[]") == 0;
}

static bool prep_make(struct otlp_sink *o, struct prep *p, const struct uet_format *fmt)
{
	const struct ue_event *ev = fmt->desc;
	size_t nl = strlen(ev->name), cap = 12 * nl + 128, at;
	struct uo_w w;
	long n;

	/* A string takes 6 bytes a byte at most (JSON's \u00XX), plus its frame; the name is twice. */
	for (uint32_t i = 0; i < ev->nfields; i++)
		cap += 6 * strlen(ev->fields[i].name) + 32;
	p->buf = malloc(cap);
	p->fld = calloc(ev->nfields ? ev->nfields : 1, sizeof(*p->fld));
	if (!p->buf || !p->fld)
		goto fail;
	n = uo_prep_str(o->o.json, UO_LR_EVENT_NAME, "eventName", ev->name, nl, p->buf, cap);
	if (n < 0)
		goto fail;
	p->name_len = (uint32_t)n;
	at = (size_t)n;
	uo_init_elems(&w, p->buf + at, cap - at, o->o.json, UO_LR_ATTRIBUTES);
	uo_kv_str(&w, "event.name", ev->name, nl);
	n = uo_finish(&w);
	if (n < 0)
		goto fail;
	p->kv_len = (uint32_t)n;
	at += (size_t)n;
	for (uint32_t i = 0; i < ev->nfields; i++) {
		const struct ue_field *f = &ev->fields[i];

		n = uo_prep_str(o->o.json, UO_KV_KEY, "key", f->name, strlen(f->name), p->buf + at,
				cap - at);
		if (n < 0)
			goto fail;
		p->fld[i].off = (uint32_t)at;
		p->fld[i].len = (uint32_t)n;
		p->fld[i].es = (uint8_t)field_elem(f, &p->fld[i].sign);
		at += (size_t)n;
	}
	p->f = fmt;
	p->desc = ev;
	p->multi = strcmp(fmt->system, "user_events_multi") == 0;
	p->metrics = metrics_layout(ev);
	return true;
fail:
	prep_clear(p);
	return false;
}

/* @fmt's encoded parts; NULL without memory (the record is then written field by field). */
static const struct prep *prep_of(struct otlp_sink *o, const struct uet_format *fmt)
{
	struct prep *p = &o->preps[((uintptr_t)fmt / sizeof(*fmt)) % PREPS];

	if (p->f == fmt && p->desc == fmt->desc)
		return p;
	prep_clear(p);
	return prep_make(o, p, fmt) ? p : NULL;
}

/* A format came or changed (its address may be another's now): nothing kept holds. */
static int otlp_format_seen(struct uet_sink *s, const struct uet_format *f)
{
	struct otlp_sink *o = (struct otlp_sink *)s;

	(void)f;
	for (size_t i = 0; i < PREPS; i++)
		if (o->preps[i].f)
			prep_clear(&o->preps[i]);
	return 0;
}

/* The LogRecord of @r as an element at the batch's end; its length, or -E2BIG. */
static long encode(struct otlp_sink *o, const struct uet_sink_rec *r, const struct prep *p,
		   size_t at)
{
	uint64_t t = r->ctx.ts_ns + (uint64_t)o->to_real_ns;
	struct ueh_event e;
	struct uo_w w;

	uo_init_elems(&w, o->batch + at, o->o.batch_bytes - at, o->o.json, UO_SL_LOG_RECORDS);
	uo_begin(&w, 0, NULL);
	uo_fixed64(&w, UO_LR_OBSERVED_TIME, "observedTimeUnixNano",
		   (uint64_t)uet_clock_ns(CLOCK_REALTIME));
	if (!uet_eh_start(r->format, r->data, r->len, &e) || !eh_record(o, &w, &e, &t)) {
		const char *name = r->format->desc->name;

		uo_fixed64(&w, UO_LR_TIME, "timeUnixNano", t);
		if (p)
			uo_put_prep(&w, p->buf, p->name_len);
		else
			uo_str(&w, UO_LR_EVENT_NAME, "eventName", name, strlen(name));
		uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
		if (p)
			uo_splice(&w, p->buf + p->name_len, p->kv_len);
		else
			uo_kv_str(&w, "event.name", name, strlen(name));
		plain_fields(&w, r, p);
		uo_array_end(&w);
	}
	uo_end(&w);
	return uo_finish(&w);
}

/* An otlp_metrics event (metrics_layout()) of protocol 0. */
static bool metrics_payload(const struct uet_sink_rec *r, const struct prep *p,
			    struct ue_value *buf)
{
	const struct ue_event *ev = r->format->desc;
	struct ue_value proto;

	if (p ? !p->metrics : !metrics_layout(ev))
		return false;
	return ue_field_value(&ev->fields[0], r->data, r->len, &proto) == UE_VAL_UINT &&
	       proto.u == 0 &&
	       ue_field_value(&ev->fields[2], r->data, r->len, buf) == UE_VAL_BYTES;
}

static int otlp_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct otlp_sink *o = (struct otlp_sink *)s;
	const struct prep *pp;
	const struct proc *p;
	struct ue_value mb;
	struct entry e = { 0 };
	unsigned g;
	long n;

	if (!r->format)
		return 0;
	pp = prep_of(o, r->format);
	if (metrics_payload(r, pp, &mb)) {
		/* ExportMetricsServiceRequests concatenated are one: repeated field 1 merges. */
		if (mb.len > o->o.batch_bytes) {
			uet_otlp_note(o->tx, 0, 1, 1);
			return 0;
		}
		if (o->mused + mb.len > o->o.batch_bytes || o->nmetrics >= o->o.batch_records)
			ship_metrics(o);
		if (!o->nmetrics && !o->nrecords)
			o->batch_at = uet_now_ns();
		o->fresh = true;
		memcpy(o->mbatch + o->mused, mb.p, mb.len);
		o->mused += mb.len;
		o->nmetrics++;
		uet_otlp_note(o->tx, 0, 1, 0);
		return 0;
	}
	p = proc_of(o, r->ctx.pid, r->ctx.comm);
	for (int tries = 0; tries < 2; tries++) {
		for (g = 0; g < o->ngroups && o->groups[g].tgid != p->tgid; g++)
			;
		if (g == GROUPS_MAX || o->nrecords >= o->o.batch_records ||
		    o->used + sizeof(e) >= o->o.batch_bytes) {
			ship_logs(o);
			continue;
		}
		n = encode(o, r, pp, o->used + sizeof(e));
		if (n == -E2BIG && o->nrecords) {
			ship_logs(o);
			continue;
		}
		if (n < 0) {
			/* Larger than a whole request may be. */
			uet_otlp_note(o->tx, 0, 0, 1);
			return 0;
		}
		if (g == o->ngroups)
			o->groups[o->ngroups++] = *p;
		if (!o->nrecords && !o->nmetrics)
			o->batch_at = uet_now_ns();
		e.group = (uint16_t)g;
		e.system = pp ? pp->multi : strcmp(r->format->system, "user_events_multi") == 0;
		e.len = (uint32_t)n;
		memcpy(o->batch + o->used, &e, sizeof(e));
		o->used += sizeof(e) + (size_t)n;
		o->nrecords++;
		o->fresh = true;
		o->unnoted++;
		return 0;
	}
	uet_otlp_note(o->tx, 0, 0, 1);
	return 0;
}

/*
 * After each pass: a batch --batch-delay old goes, and so does any batch
 * once a pass brought nothing (the reader then sleeps until records come,
 * up to a second: longer than a record may wait); the trace clock is read
 * again.
 */
static int otlp_flush(struct uet_sink *s)
{
	struct otlp_sink *o = (struct otlp_sink *)s;

	o->to_real_ns = uet_wall_offset_ns(o->clock);
	note_records(o);
	if ((o->nrecords || o->nmetrics) &&
	    (!o->fresh ||
	     uet_now_ns() - o->batch_at >= (uint64_t)o->o.batch_delay_ms * 1000000ull)) {
		ship_logs(o);
		ship_metrics(o);
	}
	o->fresh = false;
	return 0;
}

static int otlp_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct otlp_sink *o = (struct otlp_sink *)s;

	o->clock = uet_trace_clockid(env->tracefs);
	o->to_real_ns = uet_wall_offset_ns(o->clock);
	o->o.tracefs = env->tracefs;
	o->tgids = uet_sink_tgids(env);
	o->tx = uet_otlp_sender_start(&o->o);
	return o->tx && o->tgids ? 0 : -ENOMEM;
}

static int otlp_end(struct uet_sink *s, bool ok)
{
	struct otlp_sink *o = (struct otlp_sink *)s;

	(void)ok;
	if (o->tx) {
		note_records(o);
		ship_logs(o);
		ship_metrics(o);
		uet_otlp_sender_stop(o->tx, o->o.quiet, o->o.result);
	}
	for (size_t i = 0; i < PREPS; i++)
		prep_clear(&o->preps[i]);
	free(o->batch);
	free(o->mbatch);
	free(o->json);
	uet_tgids_free(o->tgids);
	free(o);
	return 0;
}

/* Records lost before they were read: counted (the stats file, the closing line). */
static int otlp_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	(void)cpu;
	uet_otlp_lost(((struct otlp_sink *)s)->tx, n, 0);
	return 0;
}

/* The daemon went away: one gap, whatever the CPUs (nothing to send for it). */
static int otlp_gap(struct uet_sink *s, unsigned int ncpus, bool back)
{
	(void)ncpus;
	(void)back;
	uet_otlp_lost(((struct otlp_sink *)s)->tx, 0, 1);
	return 0;
}

static const struct uet_sink_ops otlp_ops = {
	.name = "otlp",
	.needs = UET_SINK_RECORDS,
	.output = UET_SINK_OUT_NONE,	/* the collector: otlp-send.c */
	.what = "export",
	.begin = otlp_begin,
	.format_seen = otlp_format_seen,
	.record = otlp_record,
	.lost = otlp_lost,
	.gap = otlp_gap,
	.flush = otlp_flush,
	.end = otlp_end,
};

struct uet_sink *uet_sink_otlp_new(const struct uet_otlp_opts *opts)
{
	struct otlp_sink *o = uet_sink_make(sizeof(*o), &otlp_ops, NULL, NULL);

	if (!o)
		return NULL;
	o->o = *opts;
	o->batch = malloc(opts->batch_bytes);
	o->mbatch = malloc(opts->batch_bytes);
	if (!o->batch || !o->mbatch) {
		uet_err("export: %s", strerror(ENOMEM));
		free(o->batch);
		free(o->mbatch);
		free(o);
		return NULL;
	}
	if (gethostname(o->host, sizeof(o->host) - 1) < 0)
		snprintf(o->host, sizeof(o->host), "localhost");
	return &o->s;
}
