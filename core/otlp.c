// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * OTLP messages as protobuf or OTLP/JSON (otlp.h).  Protobuf: a nested
 * message reserves the varint length its body can reach within the buffer
 * and is moved down over what it did not need when it closes, so the bytes
 * are canonical.  JSON: the protobuf JSON mapping with OTLP's exceptions
 * (trace and span ids as hex, enums as numbers).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp-int.h"

static void puts_(struct uo_w *w, const char *s)
{
	uo__put(w, s, strlen(s));
}

static size_t varint_size(uint64_t v)
{
	/* Seven bits a byte: ceil(bits / 7), at least one. */
	return ((64u - (unsigned int)__builtin_clzll(v | 1)) + 6u) / 7u;
}

static size_t varint_enc(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static bool push(struct uo_w *w, bool array, uint32_t f)
{
	if (w->depth >= UO_DEPTH) {
		w->bad = true;
		return false;
	}
	w->st[w->depth].array = array;
	w->st[w->depth].field = f;
	w->st[w->depth].first = true;
	w->st[w->depth].start = w->len;
	w->st[w->depth].reserved = 0;
	w->depth++;
	return true;
}

/* A writer on @buf; the frames are set as they open (push()), not cleared here. */
static void start(struct uo_w *w, void *buf, size_t cap, bool json)
{
	w->p = buf;
	w->cap = buf ? cap : 0;
	w->len = 0;
	w->slack = 0;
	w->json = json;
	w->overflow = false;
	w->bad = false;
	w->depth = 0;
	w->any_f = 0;
	w->any_name = NULL;
}

void uo_init(struct uo_w *w, void *buf, size_t cap, bool json)
{
	start(w, buf, cap, json);
	push(w, false, 0);
	if (json)
		uo__putc(w, '{');
}

void uo_init_elems(struct uo_w *w, void *buf, size_t cap, bool json, uint32_t f)
{
	start(w, buf, cap, json);
	push(w, true, f);
	/* Every element led by its comma: uo_splice() drops the first where it must. */
	w->st[0].first = false;
}

long uo_finish(struct uo_w *w)
{
	if (w->depth != 1)
		w->bad = true;
	else if (w->json && !w->st[0].array)
		uo__putc(w, '}');
	if (w->bad)
		return -EINVAL;
	if (w->overflow)
		return -E2BIG;
	return (long)w->len;
}

void uo_begin(struct uo_w *w, uint32_t f, const char *name)
{
	if (w->json) {
		uo__key(w, name);
		uo__putc(w, '{');
		push(w, false, 0);
		return;
	}
	uo__tag(w, f, WT_LEN);
	if (!push(w, false, 0) || w->overflow)
		return;
	/*
	 * The length takes at most the varint of what is left; one byte is
	 * written now (most bodies are short) and the rest held as slack, so
	 * that what fits, and the bytes, are as if all of it were reserved.
	 */
	w->st[w->depth - 1].reserved = (uint8_t)varint_size(uo__room(w));
	if (w->st[w->depth - 1].reserved > uo__room(w)) {
		w->overflow = true;
		return;
	}
	w->slack += w->st[w->depth - 1].reserved - 1u;
	w->len++;
}

void uo_end(struct uo_w *w)
{
	size_t start, body, n;
	uint8_t b[10];

	if (w->depth <= 1 || w->st[w->depth - 1].array) {
		w->bad = true;
		return;
	}
	w->depth--;
	if (w->json) {
		uo__putc(w, '}');
		return;
	}
	if (w->overflow)
		return;
	w->slack -= w->st[w->depth].reserved - 1u;
	start = w->st[w->depth].start;
	body = w->len - start - 1;
	n = varint_enc(b, body);
	if (n > 1)
		memmove(w->p + start + n, w->p + start + 1, body);
	memcpy(w->p + start, b, n);
	w->len = start + n + body;
}

void uo_array(struct uo_w *w, uint32_t f, const char *name)
{
	if (w->json) {
		uo__key(w, name);
		uo__putc(w, '[');
	}
	push(w, true, f);
}

void uo_array_end(struct uo_w *w)
{
	if (w->depth <= 1 || !w->st[w->depth - 1].array) {
		w->bad = true;
		return;
	}
	w->depth--;
	if (w->json)
		uo__putc(w, ']');
}

/* One UTF-8 sequence at @p (@n bytes left): its length, 0 if invalid. */
static size_t utf8_len(const uint8_t *p, size_t n)
{
	uint32_t c;
	size_t len;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, c = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, c = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return len;
}

static const char replacement[] = "\xef\xbf\xbd";

/* Whether the ASCII byte @c is written as it is (JSON escapes '"', '\\' and controls). */
static inline bool plain_ascii(uint8_t c, bool json)
{
	return c < 0x80 && (!json || (c >= 0x20 && c != '"' && c != '\\'));
}

/*
 * @s as UTF-8 (each invalid byte a U+FFFD), JSON-escaped with @json; the size
 * it takes.  What needs no change is written a run at a time.
 */
size_t uo__text(struct uo_w *w, const uint8_t *s, size_t n, bool json, bool write)
{
	size_t out = 0, run = 0, i = 0;

	while (i < n) {
		size_t l;
		char esc[8];

		if (plain_ascii(s[i], json)) {
			i++;
			continue;
		}
		l = s[i] < 0x80 ? 1 : utf8_len(s + i, n - i);
		if (l > 1) {
			i += l;
			continue;
		}
		/* A byte to replace or escape: the run before it first. */
		if (write)
			uo__put(w, s + run, i - run);
		out += i - run;
		if (!l) {
			if (write)
				uo__put(w, replacement, 3);
			out += 3;
		} else {
			if (s[i] == '"' || s[i] == '\\')
				snprintf(esc, sizeof(esc), "\\%c", s[i]);
			else if (s[i] == '\n')
				snprintf(esc, sizeof(esc), "\\n");
			else if (s[i] == '\t')
				snprintf(esc, sizeof(esc), "\\t");
			else
				snprintf(esc, sizeof(esc), "\\u%04x", s[i]);
			if (write)
				puts_(w, esc);
			out += strlen(esc);
		}
		run = ++i;
	}
	if (write)
		uo__put(w, s + run, n - run);
	return out + n - run;
}

void uo_str(struct uo_w *w, uint32_t f, const char *name, const void *s, size_t n)
{
	size_t size;

	if (w->json) {
		uo__key(w, name);
		uo__putc(w, '"');
		uo__text(w, s, n, true, true);
		uo__putc(w, '"');
		return;
	}
	uo__tag(w, f, WT_LEN);
	size = uo__text(w, s, n, false, false);
	uo__varint(w, size);
	if (size == n)
		uo__put(w, s, n);	/* valid UTF-8 as it is */
	else
		uo__text(w, s, n, false, true);
}

void uo_bytes(struct uo_w *w, uint32_t f, const char *name, const void *p, size_t n)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const uint8_t *b = p;

	if (!w->json) {
		uo__tag(w, f, WT_LEN);
		uo__varint(w, n);
		uo__put(w, p, n);
		return;
	}
	uo__key(w, name);
	uo__putc(w, '"');
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) |
			     (i + 2 < n ? b[i + 2] : 0);
		char q[4] = { b64[v >> 18], b64[(v >> 12) & 63],
			      i + 1 < n ? b64[(v >> 6) & 63] : '=', i + 2 < n ? b64[v & 63] : '=' };

		uo__put(w, q, 4);
	}
	uo__putc(w, '"');
}

void uo_id(struct uo_w *w, uint32_t f, const char *name, const void *p, size_t n)
{
	const uint8_t *b = p;

	if (!w->json) {
		uo_bytes(w, f, name, p, n);
		return;
	}
	uo__key(w, name);
	uo__putc(w, '"');
	for (size_t i = 0; i < n; i++) {
		char h[3];

		snprintf(h, sizeof(h), "%02x", b[i]);
		uo__put(w, h, 2);
	}
	uo__putc(w, '"');
}

static void json_num(struct uo_w *w, const char *name, const char *fmt_quoted, uint64_t v,
		     bool is_signed)
{
	char t[32];

	uo__key(w, name);
	if (is_signed)
		snprintf(t, sizeof(t), fmt_quoted[0] == '"' ? "\"%" PRId64 "\"" : "%" PRId64,
			 (int64_t)v);
	else
		snprintf(t, sizeof(t), fmt_quoted[0] == '"' ? "\"%" PRIu64 "\"" : "%" PRIu64, v);
	puts_(w, t);
}

void uo_int64(struct uo_w *w, uint32_t f, const char *name, int64_t v)
{
	if (w->json) {
		json_num(w, name, "\"", (uint64_t)v, true);
		return;
	}
	uo__tag(w, f, WT_VARINT);
	uo__varint(w, (uint64_t)v);
}

void uo_uint32(struct uo_w *w, uint32_t f, const char *name, uint32_t v)
{
	if (w->json) {
		json_num(w, name, "", v, false);
		return;
	}
	uo__tag(w, f, WT_VARINT);
	uo__varint(w, v);
}

/* A little-endian fixed64 field. */
static void fixed64(struct uo_w *w, uint32_t f, uint64_t v)
{
	uint8_t b[8];

	uo__tag(w, f, WT_I64);
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	uo__put(w, b, 8);
}

void uo_fixed64(struct uo_w *w, uint32_t f, const char *name, uint64_t v)
{
	if (w->json)
		json_num(w, name, "\"", v, false);
	else
		fixed64(w, f, v);
}

void uo_double(struct uo_w *w, uint32_t f, const char *name, double v)
{
	uint64_t u;
	char t[40];

	if (!w->json) {
		memcpy(&u, &v, 8);
		fixed64(w, f, u);
		return;
	}
	uo__key(w, name);
	if (isnan(v))
		snprintf(t, sizeof(t), "\"NaN\"");
	else if (isinf(v))
		snprintf(t, sizeof(t), v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	else
		snprintf(t, sizeof(t), "%.17g", v);
	puts_(w, t);
}

void uo_bool(struct uo_w *w, uint32_t f, const char *name, bool v)
{
	if (w->json) {
		uo__key(w, name);
		puts_(w, v ? "true" : "false");
		return;
	}
	uo__tag(w, f, WT_VARINT);
	uo__varint(w, v);
}

void uo_elem(struct uo_w *w, const void *msg, size_t n)
{
	if (w->json) {
		uo__key(w, "");
		uo__put(w, msg, n);
		return;
	}
	uo__tag(w, 0, WT_LEN);
	uo__varint(w, n);
	uo__put(w, msg, n);
}

void uo_splice(struct uo_w *w, const void *elems, size_t n)
{
	const char *e = elems;

	if (!n)
		return;
	if (w->json && w->depth) {
		if (w->st[w->depth - 1].first && e[0] == ',') {
			e++;
			n--;
		}
		w->st[w->depth - 1].first = false;
	}
	uo__put(w, e, n);
}

long uo_prep_str(bool json, uint32_t f, const char *name, const void *s, size_t n, void *out,
		 size_t cap)
{
	struct uo_w w;

	start(&w, out, cap, json);
	push(&w, false, 0);
	uo_str(&w, f, name, s, n);
	return w.overflow ? -E2BIG : (long)w.len;
}

void uo_put_prep(struct uo_w *w, const void *prep, size_t n)
{
	if (w->json && w->depth) {
		if (!w->st[w->depth - 1].first)
			uo__putc(w, ',');
		w->st[w->depth - 1].first = false;
	}
	uo__put(w, prep, n);
}

/* ---- attributes ----------------------------------------------------------- */

void uo_kv_begin_prep(struct uo_w *w, const void *key, size_t n)
{
	uo_begin(w, 0, NULL);
	uo_put_prep(w, key, n);
}

void uo_kv_int_prep(struct uo_w *w, const void *key, size_t n, int64_t v)
{
	uint64_t u = (uint64_t)v, tag;
	size_t any, body, total, at;

	if (w->json || w->overflow || !w->depth || !w->st[w->depth - 1].array || w->any_f) {
		uo_kv_begin_prep(w, key, n);
		uo_any_int(w, v);
		uo_kv_end(w);
		return;
	}
	/*
	 * Every length is known before the first byte: the element's tag and
	 * length, the key as prepared, then value = AnyValue { intValue }
	 * written straight, the same bytes as the nested messages would be.
	 */
	tag = ((uint64_t)w->st[w->depth - 1].field << 3) | WT_LEN;
	any = 1 + varint_size(u);
	body = n + 1 + varint_size(any) + any;
	total = varint_size(tag) + varint_size(body) + body;
	if (total > uo__room(w)) {
		w->overflow = true;
		return;
	}
	at = w->len;
	at += varint_enc(w->p + at, tag);
	at += varint_enc(w->p + at, body);
	memcpy(w->p + at, key, n);
	at += n;
	w->p[at++] = (uint8_t)((UO_KV_VALUE << 3) | WT_LEN);
	at += varint_enc(w->p + at, any);
	w->p[at++] = (uint8_t)((UO_AV_INT << 3) | WT_VARINT);
	at += varint_enc(w->p + at, u);
	w->len = at;
}

void uo_kv_begin(struct uo_w *w, const char *k, size_t key_len)
{
	uo_begin(w, 0, NULL);
	uo_str(w, UO_KV_KEY, "key", k, key_len);
}

void uo_kv_end(struct uo_w *w)
{
	uo_end(w);
}

void uo_any_field(struct uo_w *w, uint32_t f, const char *name)
{
	w->any_f = f;
	w->any_name = name;
}

/* The AnyValue's own message: a kv's value, an array's element, or uo_any_field()'s. */
void uo__any_begin(struct uo_w *w)
{
	if (w->any_f) {
		uo_begin(w, w->any_f, w->any_name);
		w->any_f = 0;
		return;
	}
	uo_begin(w, UO_KV_VALUE, "value");
}

void uo_any_str(struct uo_w *w, const void *s, size_t n)
{
	uo__any_begin(w);
	uo_str(w, UO_AV_STRING, "stringValue", s, n);
	uo_end(w);
}

void uo_any_int(struct uo_w *w, int64_t v)
{
	uo__any_begin(w);
	uo_int64(w, UO_AV_INT, "intValue", v);
	uo_end(w);
}

void uo_any_bytes(struct uo_w *w, const void *p, size_t n)
{
	uo__any_begin(w);
	uo_bytes(w, UO_AV_BYTES, "bytesValue", p, n);
	uo_end(w);
}

void uo_any_double(struct uo_w *w, double v)
{
	uo__any_begin(w);
	uo_double(w, UO_AV_DOUBLE, "doubleValue", v);
	uo_end(w);
}

void uo_any_bool(struct uo_w *w, bool v)
{
	uo__any_begin(w);
	uo_bool(w, UO_AV_BOOL, "boolValue", v);
	uo_end(w);
}

void uo_any_array(struct uo_w *w)
{
	uo__any_begin(w);
	uo_begin(w, UO_AV_ARRAY, "arrayValue");
	uo_array(w, UO_LIST_VALUES, "values");
}

void uo_any_kvlist(struct uo_w *w)
{
	uo__any_begin(w);
	uo_begin(w, UO_AV_KVLIST, "kvlistValue");
	uo_array(w, UO_LIST_VALUES, "values");
}

void uo_any_close(struct uo_w *w)
{
	uo_array_end(w);
	uo_end(w);
	uo_end(w);
}

void uo_kv_str(struct uo_w *w, const char *k, const void *s, size_t n)
{
	uo_kv_begin(w, k, strlen(k));
	uo_any_str(w, s, n);
	uo_kv_end(w);
}

void uo_kv_int(struct uo_w *w, const char *k, int64_t v)
{
	uo_kv_begin(w, k, strlen(k));
	uo_any_int(w, v);
	uo_kv_end(w);
}

void uo_kv_bytes(struct uo_w *w, const char *k, const void *p, size_t n)
{
	uo_kv_begin(w, k, strlen(k));
	uo_any_bytes(w, p, n);
	uo_kv_end(w);
}

void uo_kv_double(struct uo_w *w, const char *k, double v)
{
	uo_kv_begin(w, k, strlen(k));
	uo_any_double(w, v);
	uo_kv_end(w);
}

void uo_kv_bool(struct uo_w *w, const char *k, bool v)
{
	uo_kv_begin(w, k, strlen(k));
	uo_any_bool(w, v);
	uo_kv_end(w);
}

/* ---- the response's partial_success ----------------------------------------- */

struct rd {
	const uint8_t *p;
	size_t n, pos;
};

static bool rd_varint(struct rd *r, uint64_t *v)
{
	*v = 0;
	for (unsigned sh = 0; sh < 64; sh += 7) {
		if (r->pos >= r->n)
			return false;
		*v |= (uint64_t)(r->p[r->pos] & 0x7f) << sh;
		if (!(r->p[r->pos++] & 0x80))
			return true;
	}
	return false;
}

/* The next field: its number, wire type, and (varint) value or (LEN) bytes. */
static bool rd_field(struct rd *r, uint32_t *f, unsigned *wt, uint64_t *v, const uint8_t **b)
{
	uint64_t t;

	if (!rd_varint(r, &t) || (t >> 3) == 0 || (t >> 3) > UINT32_MAX)
		return false;
	*f = (uint32_t)(t >> 3);
	*wt = t & 7;
	switch (*wt) {
	case WT_VARINT:
		return rd_varint(r, v);
	case WT_I64:
	case WT_I32: {
		size_t k = *wt == WT_I64 ? 8 : 4;

		if (r->n - r->pos < k)
			return false;
		r->pos += k;
		return true;
	}
	case WT_LEN:
		if (!rd_varint(r, v) || *v > r->n - r->pos)
			return false;
		*b = r->p + r->pos;
		r->pos += (size_t)*v;
		return true;
	}
	return false;
}

static void copy_msg(char *msg, size_t cap, const void *s, size_t n)
{
	if (!msg || !cap)
		return;
	if (n >= cap)
		n = cap - 1;
	memcpy(msg, s, n);
	msg[n] = '\0';
}

/* The value of the JSON member "@name" after @from: its text (a string's inside), or NULL. */
static const char *json_member(const char *from, const char *end, const char *name, size_t *len)
{
	size_t nl = strlen(name);

	for (const char *p = from; p && p + nl + 2 < end; p++) {
		const char *v;

		p = memchr(p, '"', (size_t)(end - p));
		if (!p || (size_t)(end - p) < nl + 2)
			return NULL;
		if (memcmp(p + 1, name, nl) != 0 || p[nl + 1] != '"')
			continue;
		v = p + nl + 2;
		while (v < end && (*v == ' ' || *v == ':' || *v == '\t' || *v == '\n' || *v == '\r'))
			v++;
		if (v < end && *v == '"') {
			const char *q = ++v;

			while (q < end && *q != '"')
				q += *q == '\\' && q + 1 < end ? 2 : 1;
			*len = (size_t)((q < end ? q : end) - v);
			return v;
		}
		*len = 0;
		while (v + *len < end && v[*len] != ',' && v[*len] != '}' && v[*len] != ' ')
			(*len)++;
		return v;
	}
	return NULL;
}

static int json_partial(const char *s, size_t n, int64_t *rejected, char *msg, size_t msg_cap)
{
	const char *end = s + n, *ps = json_member(s, end, "partialSuccess", &(size_t){ 0 }), *v;
	size_t len;

	if (!ps)
		return 0;
	v = json_member(ps, end, "rejectedLogRecords", &len);
	if (!v)
		v = json_member(ps, end, "rejectedDataPoints", &len);
	if (v) {
		int64_t r = 0;

		for (size_t i = 0; i < len; i++) {
			if (v[i] < '0' || v[i] > '9' || r > (INT64_MAX - 9) / 10)
				return -EBADMSG;
			r = r * 10 + (v[i] - '0');
		}
		*rejected = r;
	}
	v = json_member(ps, end, "errorMessage", &len);
	if (v)
		copy_msg(msg, msg_cap, v, len);
	return 0;
}

int uo_partial_success(const void *p, size_t n, bool json, int64_t *rejected, char *msg,
		       size_t msg_cap)
{
	struct rd r = { p, n, 0 };

	*rejected = 0;
	copy_msg(msg, msg_cap, "", 0);
	if (json)
		return json_partial(p, n, rejected, msg, msg_cap);
	while (r.pos < r.n) {
		const uint8_t *b = NULL;
		uint64_t v;
		uint32_t f;
		unsigned wt;

		if (!rd_field(&r, &f, &wt, &v, &b))
			return -EBADMSG;
		if (f == 1 && wt == WT_LEN) {
			struct rd in = { b, (size_t)v, 0 };

			while (in.pos < in.n) {
				const uint8_t *ib = NULL;
				uint64_t iv;
				uint32_t inf;
				unsigned iwt;

				if (!rd_field(&in, &inf, &iwt, &iv, &ib))
					return -EBADMSG;
				if (inf == 1 && iwt == WT_VARINT)
					*rejected = (int64_t)iv;
				else if (inf == 2 && iwt == WT_LEN)
					copy_msg(msg, msg_cap, ib, (size_t)iv);
			}
		}
	}
	return 0;
}
