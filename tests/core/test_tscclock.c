// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/tscclock.c: a counter of a known rate read back as the
 * clock it was anchored to, before and after the anchor; anchors that say
 * little (a wide bracket, a reading that went back) left out; the slope
 * measured again from a newer base as time goes on, so a change of the
 * clock's rate (NTP) is followed.
 */
#include "harness.h"

#include <stdint.h>

#include "tscclock.h"

/* A counter at 2.5 ticks a nanosecond, started at 1e12 ticks; the clock at 5e9 ns then. */
#define T0 1000000000000ull
#define N0 5000000000ull
static uint64_t tick(uint64_t ns_since)
{
	return T0 + ns_since * 5 / 2;
}

static void anchor_at(struct ue_tsc_clock *c, uint64_t ns_since)
{
	EXPECT_TRUE(ue_tsc_clock_anchor(c, tick(ns_since) - 30, N0 + ns_since, tick(ns_since) + 30));
}

TEST(reads_back_the_clock)
{
	struct ue_tsc_clock c = { 0 };

	anchor_at(&c, 0);
	EXPECT_FALSE(c.ready);
	anchor_at(&c, 500000);		/* 0.5 ms: not yet a slope */
	EXPECT_FALSE(c.ready);
	anchor_at(&c, 2000000);
	EXPECT_TRUE(c.ready);
	EXPECT_EQ(ue_tsc_clock_per_ms(&c), 2500000u);
	/* At the anchor, after it, and before it (a record written before the drain's pass). */
	EXPECT_EQ(ue_tsc_clock_ns(&c, tick(2000000)), N0 + 2000000);
	EXPECT_TRUE(ue_tsc_clock_ns(&c, tick(3000000)) - (N0 + 3000000) + 1 <= 2);
	EXPECT_TRUE(ue_tsc_clock_ns(&c, tick(1000000)) - (N0 + 1000000) + 1 <= 2);
	/* A second before the anchor: within a nanosecond still. */
	anchor_at(&c, 2000000000);
	EXPECT_TRUE(ue_tsc_clock_ns(&c, tick(1000000000)) - (N0 + 1000000000) + 1 <= 2);
	/* Before the clock's start: 1, never a wrap. */
	EXPECT_EQ(ue_tsc_clock_ns(&c, 1), 1u);
}

TEST(anchors_that_say_little_are_left_out)
{
	struct ue_tsc_clock c = { 0 };

	EXPECT_FALSE(ue_tsc_clock_anchor(&c, T0, N0, T0 + UE_TSC_MAX_BRACKET + 1));
	EXPECT_FALSE(ue_tsc_clock_anchor(&c, T0 + 10, N0, T0));
	EXPECT_FALSE(ue_tsc_clock_anchor(&c, T0, 0, T0 + 10));
	EXPECT_EQ(c.base_ns, 0u);
	anchor_at(&c, 0);
	anchor_at(&c, 2000000);
	/* The counter or the clock going back: not an anchor. */
	EXPECT_FALSE(ue_tsc_clock_anchor(&c, tick(1000000), N0 + 3000000, tick(1000000) + 10));
	EXPECT_FALSE(ue_tsc_clock_anchor(&c, tick(3000000), N0 + 1000000, tick(3000000) + 10));
	EXPECT_EQ(c.ns, N0 + 2000000);
	/* A preempted reader's anchor: the clock read 1 ms late inside a wide bracket. */
	EXPECT_FALSE(ue_tsc_clock_anchor(&c, tick(4000000), N0 + 5000000, tick(6000000)));
	EXPECT_TRUE(ue_tsc_clock_ns(&c, tick(4000000)) - (N0 + 4000000) + 1 <= 2);
}

TEST(a_new_rate_is_followed)
{
	struct ue_tsc_clock c = { 0 };
	uint64_t ns = 0, t = T0, got, want;

	/* Two minutes at 2.5 ticks a ns, anchored every second... */
	for (int i = 0; i <= 120; i++) {
		EXPECT_TRUE(ue_tsc_clock_anchor(&c, t - 20, N0 + ns, t + 20));
		ns += 1000000000ull;
		t += 2500000000ull;
	}
	/* ...then the clock runs 100 ppm faster against the counter for two more. */
	for (int i = 0; i <= 120; i++) {
		EXPECT_TRUE(ue_tsc_clock_anchor(&c, t - 20, N0 + ns, t + 20));
		ns += 1000100000ull;
		t += 2500000000ull;
	}
	/* The base is at most a minute old: the slope is the new rate's. */
	EXPECT_TRUE(c.ns - c.base_ns <= UE_TSC_MAX_BASE_NS);
	got = ue_tsc_clock_ns(&c, c.tsc + 2500000000ull);
	want = c.ns + 1000100000ull;
	EXPECT_TRUE(got - want + 1000 <= 2000);
}

/*
 * A record between two anchors is read off the line between them, not
 * the long slope: here the clock ran 1e-4 faster than that slope in the
 * last 100 ms (a first slope measured over a millisecond is that wrong),
 * and the records of that stretch are still exact; an anchor whose bracket
 * is over twice the narrowest seen is left out.
 */
TEST(between_two_anchors_the_line_between_them)
{
	struct ue_tsc_clock c = { 0 };
	uint64_t t1 = tick(2000000), t2 = t1 + 250000000ull, n2 = N0 + 2000000 + 100010000ull;

	anchor_at(&c, 0);
	anchor_at(&c, 2000000);
	EXPECT_TRUE(ue_tsc_clock_anchor(&c, t2 - 30, n2, t2 + 30));
	/* Halfway: half of the 100.01 ms. */
	EXPECT_TRUE(ue_tsc_clock_ns(&c, t1 + 125000000ull) - (N0 + 2000000 + 50005000ull) + 1 <= 2);
	/* Before the older anchor: its long slope, from it. */
	EXPECT_TRUE(ue_tsc_clock_ns(&c, tick(1000000)) - (N0 + 1000000) + 1000 <= 2000);
	/* Never past the newer anchor from below. */
	EXPECT_TRUE(ue_tsc_clock_ns(&c, t2 - 1) <= n2);
	/* Narrowest 60: a bracket of 200 is an interrupted reading. */
	EXPECT_FALSE(ue_tsc_clock_anchor(&c, t2 + 1000000, n2 + 400000, t2 + 1000200));
	EXPECT_TRUE(ue_tsc_clock_anchor(&c, t2 + 1000000, n2 + 400000, t2 + 1000100));
}

/* Readings slower for good (brackets of 300 ticks from now on): after 16 left out, taken again. */
TEST(a_slower_reading_for_good_is_taken_after_a_while)
{
	struct ue_tsc_clock c = { 0 };
	uint64_t last = 0;
	int taken = 0, first = -1;

	anchor_at(&c, 0);
	anchor_at(&c, 2000000);
	for (int i = 1; i <= 40; i++) {
		uint64_t ns = 2000000 + (uint64_t)i * 1000000;

		if (ue_tsc_clock_anchor(&c, tick(ns) - 150, N0 + ns, tick(ns) + 150)) {
			taken++;
			last = ns;
			if (first < 0)
				first = i;
		}
	}
	EXPECT_EQ(first, 16);
	EXPECT_EQ(taken, 25);
	EXPECT_EQ(c.ns, N0 + last);
	EXPECT_EQ(c.min_bracket, 300u);
}

UE_TEST_MAIN()
