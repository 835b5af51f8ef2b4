// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The perf-decode sink (--format=perf-decode): each record as
 * LinuxTracepoints' perf-decode prints it, in its framing
 * (BOM, {"FILE": [ records ]}).  EventHeader events (core/eventheader.c) as
 * "n": "Provider:Event", their fields (";tag=" suffixes) and the "meta"
 * object; plain events as "n": "SYSTEM:name" and their fields with that
 * tool's conventions for tracepoint fields (signed or unsigned by type,
 * "unsigned long", pointers and unknown types in hex, char arrays as
 * strings, other arrays as JSON arrays).  "meta" has time (seconds, as it
 * prints a file without a clock offset), cpu, pid (the thread's process:
 * the ring buffer has none, so a recording's saved_tgids, or live /proc and
 * the tracefs's; the thread id where nothing says) and tid.
 *
 * Also here: the EventHeader parts of the text and JSON sinks (sink.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "formats.h"
#include "sink.h"
#include "tgids.h"
#include "util.h"

#define ENTRY 8	/* struct trace_entry before the payload */

/* ---- the sink ---------------------------------------------------------- */

struct pd_sink {
	struct uet_sink s;
	const char *who;
	bool begun, any;
	char *buf;
	size_t cap;
	struct uet_tgids *tgids;	/* thread -> process */
};

/* The process of thread @tid; the thread itself where nothing says. */
static int32_t process_of(struct pd_sink *p, int32_t tid)
{
	int32_t tgid = uet_tgids_get(p->tgids, tid);

	return tgid > 0 ? tgid : tid;
}

static int pd_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct pd_sink *p = (struct pd_sink *)s;
	const char *name = env->source ? env->source : env->tracefs ? env->tracefs : env->who;
	int w = ueh_json_string(name, strlen(name), NULL, 0);
	char *q = malloc((size_t)w + 1);

	p->who = env->who;
	p->tgids = uet_sink_tgids(env);
	if (!q || !p->tgids) {
		free(q);
		return -ENOMEM;
	}
	p->begun = true;
	ueh_json_string(name, strlen(name), q, (size_t)w + 1);
	fprintf(s->out, "\xEF\xBB\xBF{\n%s: [", q);
	free(q);
	return 0;
}

/* A plain field's class, as perf-decode reads a format's type. */
enum pclass { PC_UNSIGNED, PC_SIGNED, PC_HEX, PC_STRING };

static enum pclass plain_class(const char *type, size_t *elem)
{
	static const struct {
		const char *name;
		enum pclass c;
		size_t size;
	} fixed[] = {
		{ "u8", PC_UNSIGNED, 1 },  { "s8", PC_SIGNED, 1 },   { "u16", PC_UNSIGNED, 2 },
		{ "s16", PC_SIGNED, 2 },   { "u32", PC_UNSIGNED, 4 }, { "s32", PC_SIGNED, 4 },
		{ "u64", PC_UNSIGNED, 8 }, { "s64", PC_SIGNED, 8 },
	};
	char t[128], *tok, *save = NULL, *br;
	bool uns = false, sgn = false, isint = false, ischar = false, other = false;
	int longs = 0, shrt = 0;

	snprintf(t, sizeof(t), "%s", type);
	br = strchr(t, '[');
	if (br)
		*br = '\0';
	if (strchr(t, '*')) {
		*elem = 8;
		return PC_HEX;
	}
	*elem = 0;
	for (tok = strtok_r(t, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		const char *b = tok;

		if (!strcmp(b, "__data_loc") || !strcmp(b, "__rel_loc") || !strcmp(b, "const") ||
		    !strcmp(b, "volatile"))
			continue;
		if (!strcmp(b, "unsigned"))
			uns = true;
		else if (!strcmp(b, "signed"))
			sgn = true;
		else if (!strcmp(b, "long"))
			longs++;
		else if (!strcmp(b, "short"))
			shrt++;
		else if (!strcmp(b, "int"))
			isint = true;
		else if (!strcmp(b, "char"))
			ischar = true;
		else {
			if (b[0] == '_' && b[1] == '_')
				b += 2;
			for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
				char alt[16];

				snprintf(alt, sizeof(alt), "%sint%zu_t", fixed[i].c == PC_UNSIGNED ? "u" : "",
					 fixed[i].size * 8);
				if (!strcmp(b, fixed[i].name) || !strcmp(tok, alt)) {
					*elem = fixed[i].size;
					return fixed[i].c;
				}
			}
			other = true;
		}
	}
	if (other)
		return PC_HEX;
	if (ischar) {
		*elem = 1;
		return uns ? PC_UNSIGNED : sgn ? PC_SIGNED : PC_STRING;
	}
	(void)isint;
	*elem = longs >= 2 ? 8 : longs ? sizeof(long) : shrt ? 2 : 4;
	if (longs == 1 && uns)
		return PC_HEX;	/* as perf-decode: unsigned long in hex */
	return uns ? PC_UNSIGNED : PC_SIGNED;
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_int(FILE *o, const uint8_t *p, size_t n, enum pclass c)
{
	uint64_t v = le(p, n);

	/*
	 * As perf-decode (its EventFormatter reads 8- and 16-bit fields
	 * unsigned, then prints them with %d): a signed field shorter than
	 * 32 bits prints its unsigned value (an s16 of -2: 65534), as seen
	 * running it on our perf.data (tests/perf).
	 */
	if (c == PC_HEX)
		fprintf(o, "\"0x%" PRIX64 "\"", v);
	else if (c == PC_SIGNED && n == 4)
		fprintf(o, "%" PRId64, (int64_t)(v << 32) >> 32);
	else if (c == PC_SIGNED && n < 4)
		fprintf(o, "%" PRIu64, v);
	else if (c == PC_SIGNED)
		fprintf(o, "%" PRId64, (int64_t)v);
	else
		fprintf(o, "%" PRIu64, v);
}

static void put_jstr(struct pd_sink *p, const char *s, size_t n)
{
	int w = ueh_json_string(s, n, p->buf, p->cap);

	if (w >= 0 && (size_t)w >= p->cap) {
		char *nb = realloc(p->buf, (size_t)w + 1);

		if (!nb)
			return;
		p->buf = nb;
		p->cap = (size_t)w + 1;
		w = ueh_json_string(s, n, p->buf, p->cap);
	}
	if (w >= 0)
		fputs(p->buf, p->s.out);
}

static void plain_fields(struct pd_sink *p, const struct ue_event *ev, const uint8_t *rec,
			 size_t len)
{
	FILE *o = p->s.out;

	for (uint32_t i = 0; i < ev->nfields; i++) {
		const struct ue_field *f = &ev->fields[i];
		const char *t = f->type;
		bool dyn = strstr(t, "__data_loc") || strstr(t, "__rel_loc");
		bool arr = dyn || strchr(t, '[');
		size_t elem, off = f->offset, n = f->size;
		enum pclass c = plain_class(t, &elem);

		fputs(", ", o);
		put_jstr(p, f->name, strlen(f->name));
		fputs(": ", o);
		if ((uint64_t)f->offset + f->size > len) {
			fputs("null", o);
			continue;
		}
		if (dyn && f->size == 4) {
			uint32_t loc = (uint32_t)le(rec + f->offset, 4);

			off = loc & 0xffff;
			n = loc >> 16;
			if (strstr(t, "__rel_loc"))
				off += f->offset + 4u;
			if (off + n > len) {
				fputs("null", o);
				continue;
			}
		}
		if (c == PC_STRING && arr) {
			const void *z = memchr(rec + off, 0, n);

			put_jstr(p, (const char *)rec + off, z ? (size_t)((const uint8_t *)z - (rec + off)) : n);
			continue;
		}
		if (!elem || (!arr && n != elem) || n % elem) {
			/* Structs and odd sizes: their bytes in hex. */
			fputc('"', o);
			for (size_t k = 0; k < n; k++)
				fprintf(o, k ? " %02x" : "%02x", rec[off + k]);
			fputc('"', o);
			continue;
		}
		if (c == PC_STRING) {
			put_jstr(p, (const char *)rec + off, 1);
			continue;
		}
		if (!arr) {
			put_int(o, rec + off, elem, c);
			continue;
		}
		fputc('[', o);
		for (size_t k = 0; k < n / elem; k++) {
			fputs(k ? ", " : " ", o);
			put_int(o, rec + off + k * elem, elem, c);
		}
		fputs(" ]", o);
	}
}

static int pd_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct pd_sink *p = (struct pd_sink *)s;
	struct ueh_event e;
	FILE *o = s->out;
	bool eh;
	int w = 0;

	if (!r->format)
		return 0;	/* a text line: nothing to decode */
	eh = uet_eh_start(r->format, r->data, r->len, &e);
	if (eh) {
		/* The fields first: a malformed event prints as a plain one. */
		w = ueh_json_fields(&e, UEH_J_TAGS, p->buf, p->cap);
		if (w >= 0 && (size_t)w >= p->cap) {
			char *nb = realloc(p->buf, (size_t)w + 1);

			if (!nb)
				return -ENOMEM;
			p->buf = nb;
			p->cap = (size_t)w + 1;
			w = ueh_json_fields(&e, UEH_J_TAGS, p->buf, p->cap);
		}
		eh = w >= 0;
	}
	fputs(p->any ? ",\n  { \"n\": " : "\n  { \"n\": ", o);
	p->any = true;
	if (eh) {
		char *fields = p->buf;

		p->buf = NULL;
		p->cap = 0;
		{
			size_t n = e.n.provider_len + 1 + e.name_len;
			char *nm = malloc(n + 1);

			if (!nm) {
				free(fields);
				return -ENOMEM;
			}
			memcpy(nm, e.tp_name, e.n.provider_len);
			nm[e.n.provider_len] = ':';
			memcpy(nm + e.n.provider_len + 1, e.name, e.name_len);
			put_jstr(p, nm, n);
			free(nm);
		}
		fputs(fields, o);
		free(fields);
	} else {
		const char *sys = r->format->system, *name = r->format->desc->name;
		size_t n = strlen(sys) + 1 + strlen(name);
		char *nm = malloc(n + 1);

		if (!nm)
			return -ENOMEM;
		snprintf(nm, n + 1, "%s:%s", sys, name);
		put_jstr(p, nm, n);
		free(nm);
		plain_fields(p, r->format->desc, r->data, r->len);
	}
	fprintf(o, ", \"meta\": { \"time\": %" PRIu64 ".%09u, \"cpu\": %u, \"pid\": %" PRId32
		   ", \"tid\": %" PRId32,
		r->ctx.ts_ns / 1000000000u, (unsigned)(r->ctx.ts_ns % 1000000000u), r->ctx.cpu,
		process_of(p, r->ctx.pid), r->ctx.pid);
	if (eh) {
		char meta[256];

		ueh_json_meta(&e, meta, sizeof(meta));
		fputs(meta, o);
	}
	fputs(" } }", o);
	return 0;
}

static int pd_end(struct uet_sink *s, bool ok)
{
	struct pd_sink *p = (struct pd_sink *)s;

	if (p->begun)
		fputs(" ]\n}\n", s->out);
	free(p->buf);
	uet_tgids_free(p->tgids);
	return uet_sink_stream_end(s, ok);
}

static const struct uet_sink_ops pd_ops = {
	.name = "perf-decode",
	.needs = UET_SINK_RECORDS,
	.begin = pd_begin,
	.record = pd_record,
	.flush = uet_sink_stream_flush,
	.end = pd_end,
};

struct uet_sink *uet_sink_perfdecode_new(FILE *out, const char *path)
{
	struct pd_sink *p = uet_sink_make(sizeof(*p), &pd_ops, out, path);

	if (!p)
		return NULL;
	p->who = "";
	return &p->s;
}
