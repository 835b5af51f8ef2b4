// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/validate.c, the one payload validator (prepared per event,
 * used by both write paths of the daemon and by the library's producer):
 * the writes of the reference-kernel probe, each with the result the kernel
 * gave (0, EINVAL or EFAULT), cases from the kernel's source that only a
 * hand-built event can reach, and random records against the kernel's rule
 * read from the field types on every write.
 */
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "event_table.h"

static const struct {
	const char *what;
	enum test_probe ev;
	int payload_delta;	/* bytes added to (or cut from) the base payload */
	struct test_patch patches[3];
	int err;		/* what the reference kernel returned */
} cases[] = {
	{ "fx ok", FX, 0, { { 0 } }, 0 },
	{ "fx short", FX, -10, { { 0 } }, EINVAL },
	{ "fx arr past end", FX, 0, { { 30, TEST_LOC(46, 4), 0 } }, EFAULT },
	{ "fx s no NUL", FX, 0, { { 17, TEST_LOC(19, 5), 0 } }, EFAULT },
	/* Length 0: the byte before the offset (st's last, 6) must be NUL. */
	{ "fx s size0 prev=6", FX, 0, { { 17, TEST_LOC(19, 0), 0 } }, EFAULT },
	{ "fx s empty string", FX, 0, { { 17, TEST_LOC(24, 1), 0 } }, 0 },
	{ "fx arr ends at end", FX, 0, { { 30, TEST_LOC(46, 3), 0 } }, 0 },
	/* __rel_loc counts from the end of the location: 40 is past the end. */
	{ "fx s absolute offset", FX, 0, { { 17, TEST_LOC(40, 6), 0 } }, EFAULT },
	{ "fx ok + 3 extra", FX, 3, { { 0 } }, 0 },
	{ "fx c no NUL", FX, 0, { { 16, 0, 1 + 'd' } }, 0 },
	{ "fy ok", FY, 0, { { 0 } }, 0 },
	{ "fy s size0 (prev byte ch=0x7f)", FY, 0, { { 8, TEST_LOC(28, 0), 0 } }, EFAULT },
	{ "fy s size0 (prev byte ch=0)", FY, 0,
	  { { 8, TEST_LOC(28, 0), 0 }, { 27, 0, 1 + 0 } }, 0 },
	/*
	 * The byte before the record: the kernel reads ring-buffer memory there
	 * and accepted this write here but refused it (EFAULT) on every other
	 * try of a later probe; we always accept (docs/compat.md).
	 */
	{ "fy s size0 off0", FY, 0, { { 8, TEST_LOC(0, 0), 0 } }, 0 },
	/* __data_loc counts from the record start: byte 0 is common_type's. */
	{ "fy s size1 off0 (hdr type byte)", FY, 0, { { 8, TEST_LOC(0, 1), 0 } }, EFAULT },
	{ "fy s size1 off3 (preempt byte)", FY, 0, { { 8, TEST_LOC(3, 1), 0 } }, 0 },
	{ "fy s off=end size1", FY, 0, { { 8, TEST_LOC(33, 1), 0 } }, EFAULT },
	{ "fy s off=end size0 (prev=0x10)", FY, 0, { { 8, TEST_LOC(33, 0), 0 } }, EFAULT },
	{ "fy s off=end size0 (prev=0)", FY, 0,
	  { { 8, TEST_LOC(33, 0), 0 }, { 32, 0, 1 + 0 } }, 0 },
	{ "fy s off=end+1 size0", FY, 0, { { 8, TEST_LOC(34, 0), 0 } }, EFAULT },
	{ "fy empty", FY, -25, { { 0 } }, EINVAL },
	{ "fy 19", FY, -6, { { 0 } }, EINVAL },
	{ "fz empty", FZ, 0, { { 0 } }, 0 },
	{ "fz 5", FZ, 5, { { 0 } }, 0 },
	/* Non-char arrays (cpumask_t, u8) need no NUL. */
	{ "fw ok", FW, 0, { { 0 } }, 0 },
	{ "fv ok", FV, 0, { { 0 } }, 0 },
	{ "ft ok", FT, 0, { { 0 } }, 0 },
};

/*
 * From the kernel's source, not written on the reference kernel: a __rel_loc
 * of a non-char array past the end, and a __data_loc string whose offset
 * is given relative to the payload instead of the record.
 */
static const struct {
	const char *what;
	enum test_probe ev;
	struct test_patch patches[3];
	int err;
} source_cases[] = {
	{ "fy r past end", FY, { { 12, TEST_LOC(31 - 16, 3), 0 } }, EFAULT },
	{ "fy r ends at end", FY, { { 12, TEST_LOC(31 - 16, 2), 0 } }, 0 },
	{ "fy r length 0 past end", FY, { { 12, TEST_LOC(18, 0), 0 } }, EFAULT },
	{ "fy s offset from payload", FY, { { 8, TEST_LOC(28 - 8, 3), 0 } }, EFAULT },
	{ "fw us no NUL", FW, { { 56, 0, 1 + 'z' } }, EFAULT },
	{ "fw rus no NUL", FW, { { 59, 0, 1 + 'r' } }, EFAULT },
	{ "fw m no NUL needed", FW, { { 52, 0, 1 + 'z' } }, 0 },
	{ "fv s0 (__data_loc char) no NUL", FV, { { 30, 0, 1 + 'a' } }, EFAULT },
	{ "fv q (struct __data_loc_x) is no location", FV, { { 8, TEST_LOC(0xffff, 0xffff), 0 } },
	  0 },
};

/* Validates from an exact-size copy, so ASan catches any read past the end. */
static int validate_exact(const struct ue_event *ev, const unsigned char *rec, size_t len)
{
	unsigned char *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, rec, len);
	ret = test_validate(ev, copy, len);
	free(copy);
	return ret;
}

TEST(reference_kernel_writes)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct test_event te;
		unsigned char rec[256];
		size_t len;
		struct ue_event *ev = test_probe_event(&te, cases[i].ev, rec, &len);
		int ret;

		test_apply(rec, cases[i].patches, 3);
		len = (size_t)((long)len + cases[i].payload_delta);
		ret = validate_exact(ev, rec, len);
		if (ret != -cases[i].err)
			printf("# %s\n", cases[i].what);
		EXPECT_EQ(ret, -cases[i].err);
	}
}

TEST(source_cases)
{
	for (size_t i = 0; i < sizeof(source_cases) / sizeof(source_cases[0]); i++) {
		struct test_event te;
		unsigned char rec[256];
		size_t len;
		struct ue_event *ev = test_probe_event(&te, source_cases[i].ev, rec, &len);
		int ret;

		test_apply(rec, source_cases[i].patches, 3);
		ret = validate_exact(ev, rec, len);
		if (ret != -source_cases[i].err)
			printf("# %s\n", source_cases[i].what);
		EXPECT_EQ(ret, -source_cases[i].err);
	}
}

/* Every payload length around min_size: EINVAL below, 0 from it on. */
TEST(min_size_boundary)
{
	static const struct field_spec spec[] = { { "u32", "a", 4 }, { "u16", "b", 2 } };
	unsigned char rec[32] = { 0 };
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "m", spec);

	ASSERT_EQ(ev->min_size, 6);
	for (size_t len = 0; len < sizeof(rec); len++)
		EXPECT_EQ(validate_exact(ev, rec, len), len < 8 + 6 ? -EINVAL : 0);
}

/* A location field outside the record of an event whose min_size does not cover it. */
TEST(inconsistent_event_is_einval)
{
	static const struct field_spec spec[] = {
		{ "u32", "a", 4 }, { "__data_loc char[]", "s", 4 },
	};
	unsigned char rec[16] = { 0 };
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "m", spec);

	te.ev.min_size = 0;
	EXPECT_ERRNO(validate_exact(ev, rec, 12), EINVAL);
	EXPECT_ERRNO(validate_exact(ev, rec, 14), EINVAL);
	test_put_u32(rec + 12, TEST_LOC(0, 0));
	EXPECT_EQ(validate_exact(ev, rec, 16), 0);
}

/* Strings at every position relative to the end: only those ending at or before it pass. */
TEST(string_end_positions)
{
	static const struct field_spec spec[] = { { "__rel_loc char[]", "s", 4 } };
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "r", spec);
	unsigned char rec[32];

	for (uint32_t off = 0; off < 24; off++) {
		for (uint32_t n = 1; n < 24; n++) {
			memset(rec, 'x', sizeof(rec));
			test_put_u32(rec + 8, TEST_LOC(off, n));
			if (12 + off + n <= sizeof(rec))
				rec[12 + off + n - 1] = '\0';
			EXPECT_EQ(validate_exact(ev, rec, sizeof(rec)),
				  12 + off + n <= sizeof(rec) ? 0 : -EFAULT);
		}
	}
}

TEST(invalid_arguments)
{
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "fx", fx_spec);
	unsigned char rec[64] = { 0 };
	struct ue_check *c;

	EXPECT_ERRNO(ue_check_new(NULL, &c), EINVAL);
	ASSERT_EQ(ue_check_new(ev, &c), 0);
	EXPECT_ERRNO(ue_check_record(c, NULL, sizeof(rec)), EINVAL);
	EXPECT_ERRNO(ue_check_record(c, rec, 7), EINVAL);
	ue_check_free(c);
	te.ev.fields = NULL;
	EXPECT_ERRNO(ue_check_new(ev, &c), EINVAL);
}

/* Descriptions the parser never builds are refused instead of half-checked. */
TEST(refuses_odd_descriptions)
{
	struct ue_field f[2] = { { .type = "u32", .name = "a", .offset = 8, .size = 4 },
				 { .type = NULL, .name = "b", .offset = 12, .size = 4 } };
	struct ue_event ev = { .name = "e", .nfields = 2, .fields = f, .min_size = 8 };
	struct ue_check *c;

	EXPECT_ERRNO(ue_check_new(&ev, &c), EINVAL);
	ev.nfields = 1;
	ASSERT_EQ(ue_check_new(&ev, &c), 0);
	ASSERT_EQ(c->nlocs, 0);
	ASSERT_EQ(c->min_size, 8);
	ue_check_free(c);
}

/*
 * The kernel's rule as its source states it, read from the field types on
 * every write (user_event_validate() over the validators that
 * user_event_parse_field() attached): the model the prepared check, which
 * classifies the fields once, must agree with on every record.
 */
static int model_validate(const struct ue_event *ev, const unsigned char *rec, size_t len)
{
	if (len < UE_ENTRY_HDR_SIZE || len - UE_ENTRY_HDR_SIZE < ev->min_size)
		return -EINVAL;
	for (uint32_t i = 0; i < ev->nfields; i++) {
		const struct ue_field *f = &ev->fields[i];
		bool rel = strncmp(f->type, "__rel_loc ", 10) == 0;
		uint64_t start, end;
		uint32_t loc;

		if (!rel && strncmp(f->type, "__data_loc ", 11) != 0)
			continue;
		if ((uint64_t)f->offset + 4 > len)
			return -EINVAL;
		memcpy(&loc, rec + f->offset, 4);
		start = (loc & 0xffff) + (rel ? (uint64_t)f->offset + 4 : 0);
		end = start + (loc >> 16);
		if (end > len)
			return -EFAULT;
		if (strstr(f->type, "char") && end > 0 && rec[end - 1] != '\0')
			return -EFAULT;
	}
	return 0;
}

static const char *const random_events[] = {
	"e u32 a",
	"e __data_loc char[] s",
	"e __rel_loc char[] s",
	"e u32 a; u32 b; u32 c; u32 d; __rel_loc char[] s",
	"e u32 a; __data_loc char[] s; __rel_loc u8[] b",
	"e __data_loc u8[] a; u16 x; __rel_loc char[] b; __data_loc unsigned char[] c",
	"e __rel_loc x__data_loc[] a",
	"e char[8] c; __data_loc char[] s",
	"e struct foo x 20; __data_loc char[] s; __rel_loc char[] t",
	"e __data_loc cpumask_t m",
	"e u8 a; __rel_loc char[] s; u8 b",
	"e struct big x 3000; __rel_loc char[] s",
	"e struct huge x 2147483647; __data_loc char[] s",
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t below)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return below ? (uint32_t)(rng % below) : 0;
}

/* A location value near the edges of a @len-byte record. */
static uint32_t loc_near(size_t len)
{
	uint32_t off = rnd(4) ? rnd((uint32_t)len + 3) : rnd(0x10000);
	uint32_t size = rnd(4) ? rnd((uint32_t)len + 3) : rnd(0x10000);

	return (size << 16) | (off & 0xffff);
}

/*
 * Parsed events and random records (every length around the event's
 * minimum, locations in and out of the record, strings with and without
 * their NUL): the prepared check gives the model's verdict, and the records
 * reach every verdict.
 */
TEST(random_records_match_the_rule)
{
	static unsigned char rec[4200];
	unsigned long seen_ok = 0, seen_inval = 0, seen_fault = 0;

	for (size_t e = 0; e < sizeof(random_events) / sizeof(random_events[0]); e++) {
		struct ue_check *c;
		struct ue_event *ev;
		size_t lo, hi;

		printf("# %s\n", random_events[e]);
		ASSERT_EQ(ue_event_parse(random_events[e], &ev), 0);
		ASSERT_EQ(ue_check_new(ev, &c), 0);
		ASSERT_EQ(c->nlocs, ev->nvalidators);
		ASSERT_EQ(c->min_size, ev->min_size);
		/* every record length from 24 below the minimum to 40 above it */
		hi = ev->min_size + UE_ENTRY_HDR_SIZE;
		lo = hi > 24 ? hi - 24 : 0;
		hi += 40;
		if (hi > sizeof(rec))
			hi = sizeof(rec);
		if (lo > hi)
			lo = hi - 40;
		for (size_t len = lo; len <= hi; len++) {
			for (int k = 0; k < 60; k++) {
				int want, got;

				for (size_t i = 0; i < len; i++)
					rec[i] = rnd(3) ? (unsigned char)rnd(256) : 0;
				for (uint32_t f = 0; f < ev->nfields; f++) {
					uint32_t v = loc_near(len);

					if ((uint64_t)ev->fields[f].offset + 4 <= len)
						memcpy(rec + ev->fields[f].offset, &v, 4);
				}
				want = model_validate(ev, rec, len);
				got = ue_check_record(c, rec, len);
				if (want != got) {
					printf("# len %zu: rule %d, check %d\n", len, want, got);
					ASSERT_EQ(got, want);
				}
				seen_ok += want == 0;
				seen_inval += want == -EINVAL;
				seen_fault += want == -EFAULT;
			}
		}
		ue_check_free(c);
		ue_event_free(ev);
	}
	printf("# verdicts: %lu ok, %lu EINVAL, %lu EFAULT\n", seen_ok, seen_inval, seen_fault);
	/* the records reached every verdict, so the comparison covered each */
	ASSERT_TRUE(seen_ok > 1000);
	ASSERT_TRUE(seen_inval > 1000);
	ASSERT_TRUE(seen_fault > 1000);
}

UE_TEST_MAIN()
