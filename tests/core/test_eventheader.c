// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/eventheader.c beyond the corpus of tests/eventheader/ (whose
 * expectations are LinuxTracepoints' decoder's): tracepoint names, the
 * format check, the bounds (every prefix of an event decodes or fails
 * cleanly, never reading past it), nesting and size limits, snprintf's
 * contract of the writers, and what their decoder rejects but the format
 * allows (a constant-length array of structs).
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "eventheader.h"

TEST(names)
{
	struct ueh_name n;

	ASSERT_TRUE(ueh_parse_name("Prov_L5K1f", 10, &n));
	EXPECT_EQ(n.provider_len, 4);
	EXPECT_EQ(n.level, 5);
	EXPECT_EQ(n.keyword, 0x1f);
	EXPECT_EQ(n.options_off, 10);
	ASSERT_TRUE(ueh_parse_name("My_Prov_L4KffGgroup", 19, &n));
	EXPECT_EQ(n.provider_len, 7);
	EXPECT_EQ(n.keyword, 0xff);
	EXPECT_EQ(n.options_off, 13);
	EXPECT_FALSE(ueh_parse_name("Prov_L5", 7, &n));
	EXPECT_FALSE(ueh_parse_name("Prov_LK1", 8, &n));
	EXPECT_FALSE(ueh_parse_name("Prov_L5K", 8, &n));
	EXPECT_FALSE(ueh_parse_name("Prov_L5K1g", 10, &n));	/* option not uppercase-led */
	EXPECT_FALSE(ueh_parse_name("_L5K1", 5, &n));		/* no provider */
	EXPECT_FALSE(ueh_parse_name("Prov_L5K11111111111111111", 25, &n)); /* 17 digits */
	EXPECT_FALSE(ueh_parse_name("plain_event", 11, &n));
}

TEST(format)
{
	struct ue_event *ev = NULL;

	ASSERT_EQ(ue_event_parse("P_L5K1 u8 eventheader_flags; u8 version; u16 id; u16 tag; "
				 "u8 opcode; u8 level", &ev), 0);
	EXPECT_TRUE(ueh_is_format(ev));
	ue_event_free(ev);
	ASSERT_EQ(ue_event_parse("P_L5K1 u8 eventheader_flags; u8 version; u16 id; u32 tag; "
				 "u8 opcode; u8 level", &ev), 0);
	EXPECT_FALSE(ueh_is_format(ev));
	ue_event_free(ev);
	ASSERT_EQ(ue_event_parse("P_L5K1 u32 a", &ev), 0);
	EXPECT_FALSE(ueh_is_format(ev));
	ue_event_free(ev);
}

/* An event: LE64 header, metadata ext "E" + @meta, then @data. */
static size_t mk(uint8_t *out, const void *meta, size_t mlen, const void *data, size_t dlen)
{
	static const uint8_t h[8] = { 7, 0, 0, 0, 0, 0, 0, 5 };

	memcpy(out, h, 8);
	out[8] = (uint8_t)(mlen + 2);
	out[9] = (uint8_t)((mlen + 2) >> 8);
	out[10] = 1;
	out[11] = 0;
	out[12] = 'E';
	out[13] = 0;
	memcpy(out + 14, meta, mlen);
	if (dlen)
		memcpy(out + 14 + mlen, data, dlen);
	return 14 + mlen + dlen;
}

static int decode(const uint8_t *ev, size_t len, char *buf, size_t cap)
{
	struct ueh_event e;
	int r = ueh_start(&e, "P_L5K1", 6, ev, len);

	return r < 0 ? r : ueh_json_fields(&e, UEH_J_TAGS, buf, cap);
}

TEST(carray_of_struct)
{
	/* LinuxTracepoints' decoder rejects it; eventheader.h allows it. */
	static const uint8_t meta[] = { 'c', 0, 0xa1, 1, 2, 0, 'n', 0, 0x82, 2 };
	static const uint8_t data[] = { 0xff, 1 };
	uint8_t ev[64];
	char out[128];
	size_t n = mk(ev, meta, sizeof(meta), data, sizeof(data));

	ASSERT_GE(decode(ev, n, out, sizeof(out)), 0);
	EXPECT_STREQ(out, ", \"c\": [ { \"n\": -1 }, { \"n\": 1 } ]");
}

TEST(prefixes_never_overread)
{
	/* A rich event; each prefix from a heap block of exactly its size. */
	static const uint8_t meta[] = {
		'a', 0, 0x48,			/* varray of zstring16 */
		's', 0, 0xc1, 2,		/* varray of struct of 2 */
		'x', 0, 0x8d, 0x0f,		/* binary, uuid format */
		'y', 0, 0xa4, 0x03, 3, 0,	/* carray of 3 u32, hex */
		'z', 0, 0x0c,			/* string_length16_char32 */
	};
	static const uint8_t data[] = {
		1, 0, 'h', 0, 'i', 0, 0, 0,
		1, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0,
		1, 0, 'q', 0, 0, 0,
	};
	uint8_t ev[256];
	char out[512];
	size_t n = mk(ev, meta, sizeof(meta), data, sizeof(data));
	int full = decode(ev, n, out, sizeof(out));

	ASSERT_GE(full, 0);
	EXPECT_STREQ(out, ", \"a\": [ \"hi\" ], \"s\": [ { \"x\": "
		     "\"01020304-0506-0708-090a-0b0c0d0e0f10\", \"y\": [ \"0x1\", \"0x2\", \"0x3\" ] } ], "
		     "\"z\": \"q\"");
	for (size_t k = 0; k < n; k++) {
		uint8_t *p = malloc(k ? k : 1);
		int r;

		memcpy(p, ev, k);
		r = decode(p, k, out, sizeof(out));
		EXPECT_TRUE(r < 0);
		free(p);
	}
	/* snprintf's contract: a short buffer holds a prefix, the length is whole. */
	for (size_t cap = 0; cap < 20; cap++) {
		char small[20];

		memset(small, 'X', sizeof(small));
		EXPECT_EQ(decode(ev, n, cap ? small : NULL, cap), full);
		if (cap)
			EXPECT_EQ(strlen(small), cap - 1);
	}
}

TEST(limits)
{
	/* Structs nested past UEH_NEST_MAX: -E2BIG, not a deep recursion. */
	uint8_t meta[400], ev[512];
	char out[256];
	size_t m = 0, n;

	for (int i = 0; i < 40; i++)
		meta[m++] = 's', meta[m++] = 0, meta[m++] = 0x81, meta[m++] = 1;
	meta[m++] = 'v', meta[m++] = 0, meta[m++] = 2;
	n = mk(ev, meta, m, "\x01", 1);
	EXPECT_EQ(decode(ev, n, out, sizeof(out)), -E2BIG);
	/* A varray of 65535 empty strings x 2 fields: bounded by UEH_ITEMS_MAX. */
	{
		static uint8_t big[300000];
		static const uint8_t sm[] = { 'a', 0, 0xc1, 2, 'p', 0, 13, 'q', 0, 13 };
		size_t k = 0;

		big[k++] = 0xff, big[k++] = 0xff;
		for (int i = 0; i < 65535 * 2; i++)
			big[k++] = 0, big[k++] = 0;
		n = mk(ev, sm, sizeof(sm), NULL, 0);
		memmove(big + n, big, k);
		memcpy(big, ev, n);
		EXPECT_EQ(decode(big, n + k, NULL, 0), -E2BIG);
	}
	/*
	 * Structs that take no data (the innermost claims a field the
	 * metadata does not have) in constant arrays of 65535, nested 6 deep:
	 * 65535^6 elements of no data; the element count stops it.
	 */
	{
		uint8_t nest[128];
		size_t k = 0;

		for (int i = 0; i < 6; i++) {
			nest[k++] = 's', nest[k++] = 0, nest[k++] = 0xa1, nest[k++] = 1;
			nest[k++] = 0xff, nest[k++] = 0xff;
		}
		n = mk(ev, nest, k, NULL, 0);
		EXPECT_EQ(decode(ev, n, NULL, 0), -E2BIG);
	}
	/* A constant-length array of 0 elements is malformed (eventheader.h). */
	{
		static const uint8_t c0[] = { 'c', 0, 0x22, 0, 0 };

		n = mk(ev, c0, sizeof(c0), NULL, 0);
		EXPECT_EQ(decode(ev, n, out, sizeof(out)), -EBADMSG);
	}
}

TEST(meta_and_header)
{
	static const uint8_t be[] = {
		0x05, 3, 0x12, 0x34, 0xab, 0xcd, 9, 2,	/* BE, 64-bit, ext */
		0, 16, 0x80, 0x02,			/* activity, chained */
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		0, 7, 0, 1, 'N', ';', 'a', 0, 'v', 0, 3, 0x01, 0x02,
	};
	struct ueh_event e;
	char out[256];

	ASSERT_EQ(ueh_start(&e, "P_L2K10", 7, be, sizeof(be)), 0);
	EXPECT_EQ(e.id, 0x1234);
	EXPECT_EQ(e.tag, 0xabcd);
	EXPECT_EQ(e.name_len, 1);
	EXPECT_GE(ueh_json_fields(&e, UEH_J_TAGS, out, sizeof(out)), 0);
	EXPECT_STREQ(out, ", \"v\": 258");
	EXPECT_GE(ueh_json_meta(&e, out, sizeof(out)), 0);
	EXPECT_STREQ(out, ", \"id\": 4660, \"version\": 3, \"level\": 2, \"keyword\": \"0x10\", "
		     "\"opcode\": 9, \"tag\": \"0xABCD\", "
		     "\"activity\": \"01020304-0506-0708-090a-0b0c0d0e0f10\"");
	EXPECT_EQ(ueh_start(&e, "P_L2K10", 7, be, 8), -EBADMSG);	/* ext flag, no ext */
	EXPECT_EQ(ueh_start(&e, "P_L2K10", 7, be, 20), -EBADMSG);	/* cut in the activity */
}

UE_TEST_MAIN()
