/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/tscclock: the CPU's time-stamp counter read as CLOCK_MONOTONIC.
 *
 * A native producer stamps its records with the time-stamp counter (one
 * rdtsc, ~10 ns here) instead of clock_gettime() (the vDSO's ordered read
 * and conversion, ~24 ns, the largest cost of a recorded write), when the
 * daemon says the kernel itself keeps time with that counter.  The daemon
 * turns the ticks back into CLOCK_MONOTONIC nanoseconds as it drains.  It
 * takes an anchor (the clock read between two readings of the counter) at
 * every drain pass, idle ones included, so a record lies between the
 * anchor before it was written and the one before it was drained: its
 * time is read off the straight line between those two, off by about the
 * anchors' own error (~10 ns).  Before the older one, or after the newer,
 * the slope measured from an anchor 30 to 60 s old carries it.
 */
#ifndef UE_TSCCLOCK_H
#define UE_TSCCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#define UE_TSC_AVAILABLE 1
/* The counter: plain rdtsc, as the kernel's own trace clock reads it. */
static inline uint64_t ue_tsc_read(void)
{
	return __rdtsc();
}
#else
#define UE_TSC_AVAILABLE 0
static inline uint64_t ue_tsc_read(void)
{
	return 0;
}
#endif

/* The slope needs anchors this far apart before conversions begin. */
#define UE_TSC_MIN_BASE_NS 1000000ull
/* The base anchor is replaced once this old (by one at least half as old), to follow NTP. */
#define UE_TSC_MAX_BASE_NS 60000000000ull
/*
 * Most ticks between the two counter readings around an anchor's clock
 * reading.  A bracket wider than this, or than twice the narrowest seen
 * and 64 ticks, means the reader was interrupted there (a reading takes
 * ~60 ticks here): the pair says little.  After UE_TSC_WIDE_RESET such
 * in a row the narrowest is forgotten (the clock's reading got slower for
 * good: another host, another frequency), so anchors never stop.
 */
#define UE_TSC_MAX_BRACKET 16384u
#define UE_TSC_WIDE_RESET 16u

struct ue_tsc_clock {
	uint64_t base_tsc, base_ns;	/* the anchor the long slope is measured from */
	uint64_t next_tsc, next_ns;	/* the next base: the first anchor half a MAX_BASE later */
	uint64_t prev_tsc, prev_ns;	/* the anchor before the latest */
	uint64_t tsc, ns;		/* the latest anchor */
	uint64_t mult;			/* nanoseconds per tick, << 32, from base to the latest */
	uint64_t chord;			/* the same from prev to the latest */
	uint64_t min_bracket;		/* the narrowest bracket seen (since the last reset) */
	unsigned int wide;		/* anchors left out in a row for their bracket */
	bool ready;			/* mult measured over at least UE_TSC_MIN_BASE_NS */
};

/*
 * The clock's @ns, read between the counter's @tsc0 and @tsc1: the next
 * conversions start from that pair.  False: left out (a bracket too wide,
 * or a reading that went back).
 */
bool ue_tsc_clock_anchor(struct ue_tsc_clock *c, uint64_t tsc0, uint64_t ns, uint64_t tsc1);

/* Ticks in one millisecond (rounded; 0 before ready): what the daemon tells producers. */
uint64_t ue_tsc_clock_per_ms(const struct ue_tsc_clock *c);

static inline uint64_t ue_tsc_mul_(uint64_t ticks, uint64_t mult)
{
	return (uint64_t)(((unsigned __int128)ticks * mult) >> 32);
}

/* @tsc as CLOCK_MONOTONIC nanoseconds (at least 1); the clock must be ready. */
static inline uint64_t ue_tsc_clock_ns(const struct ue_tsc_clock *c, uint64_t tsc)
{
	uint64_t d;

	if (tsc >= c->tsc)
		return c->ns + ue_tsc_mul_(tsc - c->tsc, c->mult);
	if (tsc >= c->prev_tsc) {
		d = ue_tsc_mul_(tsc - c->prev_tsc, c->chord);
		return c->prev_ns + d < c->ns ? c->prev_ns + d : c->ns;
	}
	d = ue_tsc_mul_(c->prev_tsc - tsc, c->mult);
	return d < c->prev_ns ? c->prev_ns - d : 1;
}

#endif
