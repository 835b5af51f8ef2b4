// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the payload validator and the record renderers.
 * Input: byte 0 picks one of a few hand-built events, byte 1 a record
 * header variant, the rest is the payload.  Valid records are rendered as
 * the trace buffers would hold them; every record, valid or not, is also
 * rendered from a buffer of exactly its size, so a read past it is caught by
 * ASan.  JSON output must always parse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "../tests/core/event_table.h"
#include "target.h"

/* Every print class and size the renderers know, plus an odd-sized struct. */
static const struct field_spec fk_spec[] = {
	{ "u8", "a", 1 }, { "s16", "b", 2 }, { "s32", "c", 4 }, { "s64", "d", 8 },
	{ "struct odd", "o", 3 }, { "char[2]", "c2", 2 }, { "__rel_loc s8[]", "ra", 4 },
	{ "__data_loc char[]", "ds", 4 }, { "__rel_loc char[]", "rs", 4 },
	{ "__data_loc u32[]", "da", 4 },
};

/* A strict JSON syntax check (RFC 8259), enough to prove the output parses. */
struct json {
	const unsigned char *p, *end;
	int depth;
};

static bool json_value(struct json *j);

static void json_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool json_lit(struct json *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
		return false;
	j->p += n;
	return true;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool json_number(struct json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || !is_digit(*j->p))
		return false;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && is_digit(*j->p))
			j->p++;
	/* The renderers only write integers. */
	return true;
}

static bool json_string(struct json *j)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	j->p++;
	while (j->p < j->end) {
		unsigned char c = *j->p;

		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (++j->p >= j->end)
				return false;
			if (*j->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (j->p + i >= j->end || !is_hex(j->p[i]))
						return false;
				j->p += 5;
			} else if (strchr("\"\\/bfnrt", *j->p) && *j->p) {
				j->p++;
			} else {
				return false;
			}
			continue;
		}
		if (c < 0x80) {
			j->p++;
			continue;
		}
		{
			/* Well-formed UTF-8 only. */
			size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
			uint32_t cp = c & (need == 2 ? 0x1f : need == 3 ? 0x0f : 0x07);
			static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };

			if (c < 0xc2 || c > 0xf4 || (size_t)(j->end - j->p) < need)
				return false;
			for (size_t i = 1; i < need; i++) {
				if ((j->p[i] & 0xc0) != 0x80)
					return false;
				cp = cp << 6 | (j->p[i] & 0x3f);
			}
			if (cp < min[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
				return false;
			j->p += need;
		}
	}
	return false;
}

static bool json_container(struct json *j, char open, char close, bool keys)
{
	bool first = true;

	if (j->p >= j->end || *j->p != open || ++j->depth > 16)
		return false;
	j->p++;
	for (;;) {
		json_ws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return true;
		}
		if (!first) {
			if (j->p >= j->end || *j->p != ',')
				return false;
			j->p++;
			json_ws(j);
		}
		first = false;
		if (keys) {
			if (!json_string(j))
				return false;
			json_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return false;
			j->p++;
		}
		if (!json_value(j))
			return false;
	}
}

static bool json_value(struct json *j)
{
	json_ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{': return json_container(j, '{', '}', true);
	case '[': return json_container(j, '[', ']', false);
	case '"': return json_string(j);
	case 'n': return json_lit(j, "null");
	case 't': return json_lit(j, "true");
	case 'f': return json_lit(j, "false");
	default: return json_number(j);
	}
}

static void check_json(const char *s, size_t n)
{
	struct json j = { (const unsigned char *)s, (const unsigned char *)s + n, 0 };

	CHECK(json_value(&j));
	json_ws(&j);
	CHECK(j.p == j.end);
}

/* Renders @rec (@ent_size readable bytes) as text and JSON, checking both. */
static void render_all(const struct ue_event *ev, const unsigned char *rec, size_t ent_size)
{
	static const struct ue_record_ctx ctx = { "fuzz", 42, 1, 1234567890, "....." };
	static char buf[1 << 18];
	int n, m;

	n = ue_render_fields(ev, ev->name, rec, ent_size, NULL, 0);
	CHECK(n > 0);
	if ((size_t)n < sizeof(buf)) {
		m = ue_render_fields(ev, ev->name, rec, ent_size, buf, sizeof(buf));
		CHECK(m == n && buf[n] == '\0' && buf[n - 1] == '\n');
		/* A short buffer gets the same prefix. */
		m = ue_render_fields(ev, ev->name, rec, ent_size, buf, (size_t)n / 2 + 1);
		CHECK(m == n && strlen(buf) == (size_t)n / 2);
	}

	n = ue_render_json(ev, "user_events", ev->name, &ctx, rec, ent_size, NULL, 0);
	CHECK(n > 0);
	if ((size_t)n < sizeof(buf)) {
		m = ue_render_json(ev, "user_events", ev->name, &ctx, rec, ent_size, buf,
				   sizeof(buf));
		CHECK(m == n && buf[n] == '\0');
		check_json(buf, (size_t)n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct test_event te;
	const struct ue_event *ev;
	unsigned char *rec, *padded;
	size_t rec_len, ent;

	if (size < 2)
		return 0;
	switch (data[0] % 8) {
	case 0: ev = TEST_EVENT(&te, "fx", fx_spec); break;
	case 1: ev = TEST_EVENT(&te, "fy", fy_spec); break;
	case 2: ev = test_event_build(&te, "fz", NULL, 0); break;
	case 3: ev = TEST_EVENT(&te, "fw", fw_spec); break;
	case 4: ev = TEST_EVENT(&te, "fv", fv_spec); break;
	case 5: ev = TEST_EVENT(&te, "ft", ft_spec); break;
	case 6: ev = TEST_EVENT(&te, "fk", fk_spec); break;
	default:
		/* An event that claims no minimum: fields may lie past the record. */
		TEST_EVENT(&te, "fk", fk_spec);
		te.ev.min_size = 0;
		ev = &te.ev;
		break;
	}

	rec_len = UE_ENTRY_HDR_SIZE + size - 2;
	rec = malloc(rec_len);
	if (!rec)
		return 0;
	test_header(rec, (uint16_t)(data[1] & 3 ? 0x18e : 0), data[1] & 4 ? 0 : 77);
	memcpy(rec + UE_ENTRY_HDR_SIZE, data + 2, size - 2);

	ent = ue_record_ent_size(rec_len);
	CHECK(ent >= rec_len && ent % 4 == 0 && ent - rec_len <= 7);

	if (test_validate(ev, rec, rec_len) == 0) {
		/* As the trace buffers hold it: padded to the reported size. */
		padded = calloc(1, ent);
		if (padded) {
			memcpy(padded, rec, rec_len);
			render_all(ev, padded, ent);
			free(padded);
		}
	}
	/* Unvalidated, from a buffer of exactly the size given. */
	render_all(ev, rec, rec_len);
	/* And from a prefix: every fixed field may end past it. */
	render_all(ev, rec, rec_len / 2);
	free(rec);
	return 0;
}
