// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * JSON values as OTLP AnyValues (otlp.h): what EventHeader events' fields
 * become, read from the perf-decode JSON of core/eventheader.c, so that the
 * one decoder of EventHeader's metadata stays the only one.  Bounded by the
 * writer's buffer and UO_DEPTH.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "otlp-int.h"

static size_t utf8_put(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

static int hex4(const char *s, size_t n, size_t i, uint32_t *c)
{
	*c = 0;
	if (n - i < 4)
		return -1;
	for (size_t k = 0; k < 4; k++) {
		char h = s[i + k];
		int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
			: h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		*c = *c << 4 | (uint32_t)d;
	}
	return 0;
}

size_t uo_json_unescape(const char *s, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		char u[4];
		size_t k = 1;
		uint32_t c, lo;

		u[0] = s[i];
		if (s[i] != '\\' || i + 1 >= n) {
			i++;
		} else {
			char e = s[i + 1];

			i += 2;
			switch (e) {
			case 'b': u[0] = '\b'; break;
			case 'f': u[0] = '\f'; break;
			case 'n': u[0] = '\n'; break;
			case 'r': u[0] = '\r'; break;
			case 't': u[0] = '\t'; break;
			case 'u':
				if (hex4(s, n, i, &c) < 0) {
					c = 0xfffd;
				} else {
					i += 4;
					if (c >= 0xd800 && c <= 0xdbff && n - i >= 6 && s[i] == '\\' &&
					    s[i + 1] == 'u' && hex4(s, n, i + 2, &lo) == 0 &&
					    lo >= 0xdc00 && lo <= 0xdfff) {
						c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
						i += 6;
					} else if (c >= 0xd800 && c <= 0xdfff) {
						c = 0xfffd;
					}
				}
				k = utf8_put(u, c);
				break;
			default: u[0] = e; break;
			}
		}
		for (size_t j = 0; j < k; j++, o++)
			if (o < cap)
				out[o] = u[j];
	}
	return o;
}

/*
 * A string field from a JSON string's inside: kept escaped (JSON) or
 * unescaped (protobuf), UTF-8 repaired either way (perf-decode writes code
 * points above U+10FFFF as their 5- and 6-byte forms).  Protobuf: unescaped
 * into the free end of the buffer first, then written by uo_str(), whose
 * output stays below it.
 */
void uo_str_json(struct uo_w *w, uint32_t f, const char *name, const char *s, size_t n)
{
	size_t u;
	uint8_t *scratch;

	if (w->json) {
		uo__key(w, name);
		uo__putc(w, '"');
		uo__text(w, (const uint8_t *)s, n, false, true);
		uo__putc(w, '"');
		return;
	}
	u = uo_json_unescape(s, n, NULL, 0);
	if (w->overflow || u > uo__room(w)) {
		w->overflow = true;
		return;
	}
	scratch = w->p + w->cap - u;
	uo_json_unescape(s, n, (char *)scratch, u);
	if (uo__text(w, scratch, u, false, false) + 11 > uo__room(w) - u) {
		w->overflow = true;
		return;
	}
	uo_str(w, f, name, scratch, u);
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* The end of the JSON value at @i (past it), or 0 when there is none. */
static size_t value_end(const char *s, size_t n, size_t i, unsigned depth)
{
	if (i >= n || depth > UO_DEPTH)
		return 0;
	if (s[i] == '"') {
		for (i++; i < n; i++) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				return i + 1;
		}
		return 0;
	}
	if (s[i] == '[' || s[i] == '{') {
		char close = s[i] == '[' ? ']' : '}';

		i = skip_ws(s, n, i + 1);
		if (i < n && s[i] == close)
			return i + 1;
		for (;;) {
			if (close == '}') {
				i = value_end(s, n, i, depth + 1);
				if (!i || s[i - 1] != '"')
					return 0;
				i = skip_ws(s, n, i);
				if (i >= n || s[i] != ':')
					return 0;
				i = skip_ws(s, n, i + 1);
			}
			i = value_end(s, n, i, depth + 1);
			if (!i)
				return 0;
			i = skip_ws(s, n, i);
			if (i < n && s[i] == close)
				return i + 1;
			if (i >= n || s[i] != ',')
				return 0;
			i = skip_ws(s, n, i + 1);
		}
	}
	{
		size_t start = i;

		while (i < n && s[i] != ',' && s[i] != ']' && s[i] != '}' && s[i] != ' ' &&
		       s[i] != '\n')
			i++;
		return i > start ? i : 0;	/* a scalar has a character at least */
	}
}

int uo_json_members(const char *text, size_t n, int (*fn)(void *arg, const struct uo_member *m),
		    void *arg)
{
	size_t i = skip_ws(text, n, 0);

	if (i < n && (text[i] == ',' || text[i] == '{'))
		i = skip_ws(text, n, i + 1);
	while (i < n && text[i] != '}') {
		struct uo_member m;
		size_t e = value_end(text, n, i, 0);
		int r;

		if (!e || text[i] != '"')
			return -EBADMSG;
		m.name = text + i + 1;
		m.name_len = e - i - 2;
		i = skip_ws(text, n, e);
		if (i >= n || text[i] != ':')
			return -EBADMSG;
		i = skip_ws(text, n, i + 1);
		e = value_end(text, n, i, 0);
		if (!e)
			return -EBADMSG;
		m.value = text + i;
		m.value_len = e - i;
		r = fn(arg, &m);
		if (r)
			return r;
		i = skip_ws(text, n, e);
		if (i < n && text[i] == ',')
			i = skip_ws(text, n, i + 1);
	}
	return 0;
}

struct any_ctx {
	struct uo_w *w;
	int err;
};

static int any_member(void *arg, const struct uo_member *m)
{
	struct any_ctx *c = arg;

	uo_begin(c->w, 0, NULL);
	uo_str_json(c->w, UO_KV_KEY, "key", m->name, m->name_len);
	c->err = uo_any_json(c->w, m->value, m->value_len);
	uo_end(c->w);
	return c->err;
}

int uo_any_json(struct uo_w *w, const char *s, size_t n)
{
	size_t i = skip_ws(s, n, 0), e;
	int r = 0;

	if (i >= n)
		return -EBADMSG;
	if (w->depth + 3 >= UO_DEPTH)
		return -EBADMSG;
	if (s[i] == '"') {
		e = value_end(s, n, i, 0);
		if (!e)
			return -EBADMSG;
		uo__any_begin(w);
		uo_str_json(w, UO_AV_STRING, "stringValue", s + i + 1, e - i - 2);
		uo_end(w);
		return 0;
	}
	if (s[i] == '[') {
		uo_any_array(w);
		for (i = skip_ws(s, n, i + 1); i < n && s[i] != ']' && r == 0;) {
			e = value_end(s, n, i, 0);
			if (!e)
				r = -EBADMSG;
			else
				r = uo_any_json(w, s + i, e - i);
			i = skip_ws(s, n, e);
			if (i < n && s[i] == ',')
				i = skip_ws(s, n, i + 1);
		}
		uo_any_close(w);
		return r;
	}
	if (s[i] == '{') {
		struct any_ctx c = { w, 0 };
		static const char bin[] = "\"\\u0000\"";
		size_t k = skip_ws(s, n, i + 1);

		/* Binary content (UEH_J_BYTES): { "\u0000": "de ad be ef" } */
		if (n - k > sizeof(bin) - 1 && memcmp(s + k, bin, sizeof(bin) - 1) == 0) {
			uint8_t b[UO_ANY_BYTES_MAX];
			size_t nb = 0;

			k = skip_ws(s, n, k + sizeof(bin) - 1);
			if (k >= n || s[k] != ':')
				return -EBADMSG;
			k = skip_ws(s, n, k + 1);
			if (k >= n || s[k] != '"')
				return -EBADMSG;
			for (k++; k < n && s[k] != '"'; k++) {
				int hi, lo;

				if (s[k] == ' ')
					continue;
				if (k + 1 >= n || nb == sizeof(b))
					return -EBADMSG;
				hi = ueh_lower_hex(s[k]);
				lo = ueh_lower_hex(s[k + 1]);
				if (hi < 0 || lo < 0)
					return -EBADMSG;
				b[nb++] = (uint8_t)(hi << 4 | lo);
				k++;
			}
			uo_any_bytes(w, b, nb);
			return 0;
		}

		uo_any_kvlist(w);
		r = uo_json_members(s + i, n - i, any_member, &c);
		uo_any_close(w);
		return r;
	}
	if (n - i >= 4 && memcmp(s + i, "true", 4) == 0) {
		uo_any_bool(w, true);
	} else if (n - i >= 5 && memcmp(s + i, "false", 5) == 0) {
		uo_any_bool(w, false);
	} else if (n - i >= 4 && memcmp(s + i, "null", 4) == 0) {
		uo__any_begin(w);
		uo_end(w);
	} else {
		char num[64], *end;
		size_t len = n - i < sizeof(num) - 1 ? n - i : sizeof(num) - 1;
		bool integer = true;

		memcpy(num, s + i, len);
		num[len] = '\0';
		for (size_t k = 0; k < len; k++)
			if (!(num[k] == '-' || (num[k] >= '0' && num[k] <= '9')))
				integer = false;
		errno = 0;
		if (integer) {
			long long v = strtoll(num, &end, 10);

			if (end == num)
				return -EBADMSG;
			if (errno == ERANGE)
				uo_any_str(w, num, len);
			else
				uo_any_int(w, v);
		} else {
			double d = strtod(num, &end);

			if (end == num)
				return -EBADMSG;
			uo_any_double(w, d);
		}
	}
	return 0;
}
