// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/native-check.h, the payload check both ends of the native path use,
 * against core's ue_payload_validate(): for a table of events and many
 * records (every length around the event's minimum, locations in and out of
 * the record, strings with and without their NUL) both give the same result.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core.h"
#include "../../lib/native-check.h"

static const char *const events[] = {
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

TEST(same_verdicts)
{
	static unsigned char rec[4200];
	unsigned long seen_ok = 0, seen_inval = 0, seen_fault = 0;

	for (size_t e = 0; e < sizeof(events) / sizeof(events[0]); e++) {
		struct ue_native_check *c;
		struct ue_event *ev;
		size_t lo, hi;

		printf("# %s\n", events[e]);
		ASSERT_EQ(ue_event_parse(events[e], &ev), 0);
		c = ue_native_check_new(ev);
		ASSERT_TRUE(c != NULL);
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
				want = ue_payload_validate(ev, rec, len);
				got = ue_native_check_record(c, rec, len);
				if (want != got) {
					printf("# len %zu: core %d, check %d\n", len, want, got);
					ASSERT_EQ(got, want);
				}
				seen_ok += want == 0;
				seen_inval += want == -EINVAL;
				seen_fault += want == -EFAULT;
			}
		}
		free(c);
		ue_event_free(ev);
	}
	printf("# verdicts: %lu ok, %lu EINVAL, %lu EFAULT\n", seen_ok, seen_inval, seen_fault);
	/* the records reached every verdict, so the comparison covered each */
	ASSERT_TRUE(seen_ok > 1000);
	ASSERT_TRUE(seen_inval > 1000);
	ASSERT_TRUE(seen_fault > 1000);
}

/* Descriptions the parser never builds are refused instead of half-checked. */
TEST(refuses_odd_descriptions)
{
	struct ue_field f[2] = { { .type = "u32", .name = "a", .offset = 8, .size = 4 },
				 { .type = NULL, .name = "b", .offset = 12, .size = 4 } };
	struct ue_event ev = { .name = "e", .nfields = 2, .fields = f, .min_size = 8 };

	ASSERT_TRUE(ue_native_check_new(&ev) == NULL);
	ev.fields = NULL;
	ASSERT_TRUE(ue_native_check_new(&ev) == NULL);
	ASSERT_TRUE(ue_native_check_new(NULL) == NULL);
	ev.nfields = 1;
	ev.fields = f;
	struct ue_native_check *c = ue_native_check_new(&ev);

	ASSERT_TRUE(c != NULL);
	ASSERT_EQ(c->nlocs, 0);
	free(c);
}

UE_TEST_MAIN()
