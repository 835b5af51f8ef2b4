// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/validate.c: the writes of the reference-kernel probe, each
 * with the result the kernel gave (0, EINVAL or EFAULT), plus cases from the
 * kernel's source that only a hand-built event can reach.
 */
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
	ret = ue_payload_validate(ev, copy, len);
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

	EXPECT_ERRNO(ue_payload_validate(NULL, rec, sizeof(rec)), EINVAL);
	EXPECT_ERRNO(ue_payload_validate(ev, NULL, sizeof(rec)), EINVAL);
	EXPECT_ERRNO(ue_payload_validate(ev, rec, 7), EINVAL);
	te.ev.fields = NULL;
	EXPECT_ERRNO(ue_payload_validate(ev, rec, sizeof(rec)), EINVAL);
}

UE_TEST_MAIN()
