// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/rbpage.c, the kernel's ring-buffer page format that
 * trace_pipe_raw returns: event headers as ring_buffer.c lays them out
 * (type_len, length word past 112 bytes, time extends past 27 bits of
 * delta), the missed-events flags of commit, and decoding back.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "rbpage.h"

static uint32_t word(const uint8_t *page, size_t off)
{
	uint32_t v;

	memcpy(&v, page + UE_RB_PAGE_HDR + off, 4);
	return v;
}

static uint64_t commit_of(const uint8_t *page)
{
	uint64_t v;

	memcpy(&v, page + 8, 8);
	return v;
}

/* One event appended after a first one at t=1000: its header words. */
static const struct {
	const char *label;
	size_t len;		/* data bytes */
	uint64_t delta;		/* from the previous event */
	uint32_t w0, w1;	/* the words at the event (w1: 0 when unused) */
	size_t size;		/* bytes the event took */
} layout[] = {
	{ "small, 4-aligned", 16, 5, 4 | 5 << 5, 0, 20 },
	{ "small, rounded up", 13, 7, 4 | 7 << 5, 0, 20 },
	{ "largest small (112)", 112, 0, 28, 0, 116 },
	{ "113 bytes: length word", 113, 1, 0 | 1 << 5, 120, 124 },
	{ "delta needs 27 bits", 8, (UINT64_C(1) << 27) - 1, 2 | (((1u << 27) - 1) << 5), 0, 12 },
	{ "delta past 27 bits: time extend", 8, (UINT64_C(1) << 27) + 3,
	  UE_RB_TYPE_TIME_EXTEND | 3 << 5, 1, 20 },
};

TEST(rbpage_layout)
{
	for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
		uint8_t page[UE_RB_PAGE_SIZE], data[200];
		struct ue_rbpage p;

		printf("# %s\n", layout[i].label);
		memset(data, 0xab, sizeof(data));
		ue_rbpage_init(&p, page, sizeof(page));
		ASSERT_EQ(ue_rbpage_add(&p, 1000, data, 8), 0);
		ASSERT_EQ(p.used, 12);
		ASSERT_EQ(ue_rbpage_add(&p, 1000 + layout[i].delta, data, layout[i].len), 0);
		ASSERT_EQ(p.used - 12, layout[i].size);
		ASSERT_EQ(ue_rbpage_finish(&p, 0), UE_RB_PAGE_SIZE);
		ASSERT_EQ(commit_of(page), 12 + layout[i].size);
		ASSERT_EQ(word(page, 0), 2u);
		ASSERT_EQ(word(page, 12), layout[i].w0);
		if (layout[i].w1)
			ASSERT_EQ(word(page, 16), layout[i].w1);
	}
}

TEST(rbpage_roundtrip)
{
	static const size_t lens[] = { 1, 8, 12, 111, 112, 113, 500, 4000 };
	uint8_t page[UE_RB_PAGE_SIZE], data[4064];
	struct ue_rbpage_iter it;
	struct ue_rbpage p;
	uint64_t ts = UINT64_C(5000000000), got_ts;
	const void *got;
	size_t got_len, n = 0;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 1);
	ue_rbpage_init(&p, page, sizeof(page));
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int r = ue_rbpage_add(&p, ts + i * UINT64_C(300000000), data, lens[i]);

		if (r == -ENOSPC)
			break;
		ASSERT_EQ(r, 0);
		n++;
	}
	ASSERT_EQ(n, 7u);	/* 4000 bytes no longer fit after the others */
	ue_rbpage_finish(&p, 0);
	ASSERT_EQ(ue_rbpage_iter_init(&it, page, sizeof(page)), 0);
	ASSERT_EQ(it.missed, 0u);
	for (size_t i = 0; i < n; i++) {
		ASSERT_EQ(ue_rbpage_next(&it, &got_ts, &got, &got_len), 1);
		ASSERT_EQ(got_ts, ts + i * UINT64_C(300000000));
		ASSERT_EQ(got_len, (lens[i] + 3) & ~(size_t)3);
		ASSERT_EQ(memcmp(got, data, lens[i]), 0);
	}
	ASSERT_EQ(ue_rbpage_next(&it, &got_ts, &got, &got_len), 0);
}

/*
 * In place: the padding after the bytes is zero in a page that held other
 * bytes before (a channel's sub-buffer is reused), on the inline path (a
 * small event after another, close in time) and the other one (the first
 * event, a time extend, a length word); a reservation not committed
 * leaves the page as it was, and the next event takes its place.
 */
TEST(rbpage_reserve)
{
	static const struct { size_t len; uint64_t delta; } ev[] = {
		{ 13, 0 }, { 14, 5 }, { 15, UINT64_C(1) << 28 }, { 113, 1 }, { 1, 2 },
	};
	uint8_t page[UE_RB_PAGE_SIZE], other[UE_RB_PAGE_SIZE], data[200];
	struct ue_rbpage_iter it;
	struct ue_rbpage p;
	uint64_t ts = 1000, got_ts;
	const void *got;
	size_t got_len;
	uint8_t *at;
	int err = 0;

	memset(data, 0x5a, sizeof(data));
	memset(page, 0xff, sizeof(page));
	ue_rbpage_init(&p, page, sizeof(page));
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		size_t used = p.used;

		ts += ev[i].delta;
		/* A reservation dropped: nothing counts, the next one is at the same place. */
		ASSERT_TRUE((at = ue_rbpage_reserve(&p, ts, ev[i].len, &err)) != NULL);
		memset(at, 0xee, ev[i].len);
		ASSERT_EQ(p.used, used);
		ASSERT_EQ(p.events, (unsigned int)i);
		ASSERT_TRUE(ue_rbpage_reserve(&p, ts, ev[i].len, &err) == at);
		memcpy(at, data, ev[i].len);
		ue_rbpage_commit(&p);
		for (size_t k = ev[i].len; k < ((ev[i].len + 3) & ~(size_t)3); k++)
			ASSERT_EQ(at[k], 0);
	}
	/* Dropped at the end: the finished page is as if it was never asked for. */
	ASSERT_TRUE((at = ue_rbpage_reserve(&p, ts + 1, 40, &err)) != NULL);
	memset(at, 0xee, 40);
	ue_rbpage_finish(&p, 0);
	memcpy(other, page, sizeof(page));
	ASSERT_EQ(ue_rbpage_iter_init(&it, page, sizeof(page)), 0);
	ts = 1000;
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		ts += ev[i].delta;
		ASSERT_EQ(ue_rbpage_next(&it, &got_ts, &got, &got_len), 1);
		ASSERT_EQ(got_ts, ts);
		ASSERT_EQ(got_len, (ev[i].len + 3) & ~(size_t)3);
		ASSERT_EQ(memcmp(got, data, ev[i].len), 0);
	}
	ASSERT_EQ(ue_rbpage_next(&it, &got_ts, &got, &got_len), 0);
	for (size_t k = UE_RB_PAGE_HDR + p.used; k < sizeof(page); k++)
		ASSERT_EQ(other[k], 0);
	/* No room, and too large: NULL, said why, nothing changed. */
	ue_rbpage_init(&p, page, sizeof(page));
	ASSERT_TRUE(ue_rbpage_reserve(&p, 1, UE_RB_PAGE_DATA, &err) == NULL);
	ASSERT_EQ(err, -EINVAL);
	ASSERT_TRUE(ue_rbpage_reserve(&p, 1, 4000, &err) != NULL);
	ue_rbpage_commit(&p);
	ASSERT_TRUE(ue_rbpage_reserve(&p, 2, 100, &err) == NULL);
	ASSERT_EQ(err, -ENOSPC);
	ASSERT_EQ(p.events, 1u);
}

/* The count steps over small events, decodes the rest: what a reader's loop counts. */
TEST(rbpage_count)
{
	/* Small (length in the type), large (a length word), and time extends (a gap of 2^27 ns). */
	static const size_t lens[] = { 4, 8, 112, 113, 500, 12, 1000, 24 };
	uint8_t page[UE_RB_PAGE_SIZE], data[1000];
	struct ue_rbpage p;
	uint64_t missed = 1, ts = 100;
	size_t n = 0;

	memset(data, 3, sizeof(data));
	ue_rbpage_init(&p, page, sizeof(page));
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ts += i % 2 ? UINT64_C(1) << 28 : 10;
		ASSERT_EQ(ue_rbpage_add(&p, ts, data, lens[i]), 0);
		n++;
	}
	ue_rbpage_finish(&p, 5);
	ASSERT_EQ(ue_rbpage_count(page, sizeof(page), &missed), (int)n);
	ASSERT_EQ(missed, 5u);
	ue_rbpage_init(&p, page, sizeof(page));
	ue_rbpage_finish(&p, 0);
	ASSERT_EQ(ue_rbpage_count(page, sizeof(page), &missed), 0);
	ASSERT_EQ(missed, 0u);
	/* A malformed header is refused; a malformed event ends the count there. */
	ue_rbpage_init(&p, page, sizeof(page));
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, 8), 0);
	ASSERT_EQ(ue_rbpage_add(&p, 11, data, 8), 0);
	ue_rbpage_finish(&p, 0);
	memset(page + UE_RB_PAGE_HDR + 12, 0, 4);	/* the second event: type 0 with length 0 */
	ASSERT_EQ(ue_rbpage_count(page, sizeof(page), &missed), 1);
	ASSERT_EQ(ue_rbpage_count(page, UE_RB_PAGE_HDR - 1, &missed), -EINVAL);
}

TEST(rbpage_missed_and_limits)
{
	uint8_t page[UE_RB_PAGE_SIZE], data[UE_RB_PAGE_DATA];
	struct ue_rbpage_iter it;
	struct ue_rbpage p;

	memset(data, 1, sizeof(data));
	ue_rbpage_init(&p, page, sizeof(page));
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, 0), -EINVAL);
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, UE_RB_PAGE_DATA), -EINVAL);
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, 40), 0);
	ASSERT_EQ(ue_rbpage_add(&p, 9, data, 40), -EINVAL);	/* time goes backwards */
	ue_rbpage_finish(&p, 42);
	ASSERT_EQ(commit_of(page), 44 | UE_RB_MISSED_EVENTS | UE_RB_MISSED_STORED);
	ASSERT_EQ(ue_rbpage_iter_init(&it, page, sizeof(page)), 0);
	ASSERT_EQ(it.missed, 42u);
	ASSERT_EQ(it.size, 44u);

	/* A full page has no room for the count: the flag alone says events were lost. */
	ue_rbpage_init(&p, page, sizeof(page));
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, UE_RB_PAGE_DATA - 8), 0);
	ue_rbpage_finish(&p, 3);
	ASSERT_EQ(commit_of(page), UE_RB_PAGE_DATA | UE_RB_MISSED_EVENTS);
	ASSERT_EQ(ue_rbpage_iter_init(&it, page, sizeof(page)), 0);
	ASSERT_EQ(it.missed, UINT64_MAX);

	/* A commit beyond the page is refused. */
	memset(page + 8, 0xff, 4);
	memset(page + 12, 0, 4);
	ASSERT_EQ(ue_rbpage_iter_init(&it, page, sizeof(page)), -EINVAL);
}

/* 64 KiB pages (usereventsd's large pages): the largest record fits, one byte more does not. */
TEST(rbpage_large_page)
{
	static uint8_t page[UE_RB_PAGE_SIZE_MAX], data[UE_RB_PAGE_SIZE_MAX];
	const size_t max = UE_RB_PAGE_SIZE_MAX - UE_RB_PAGE_HDR - 8;
	struct ue_rbpage_iter it;
	struct ue_rbpage p;
	uint64_t ts;
	const void *got;
	size_t got_len;

	ASSERT_EQ(max, 65512u);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 5);
	ue_rbpage_init(&p, page, sizeof(page));
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, max + 1), -EINVAL);
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, max), 0);
	ASSERT_EQ(ue_rbpage_add(&p, 11, data, 4), -ENOSPC);
	ASSERT_EQ(ue_rbpage_finish(&p, 0), sizeof(page));
	ASSERT_EQ(ue_rbpage_iter_init(&it, page, sizeof(page)), 0);
	ASSERT_EQ(ue_rbpage_next(&it, &ts, &got, &got_len), 1);
	ASSERT_EQ(got_len, max);
	ASSERT_EQ(memcmp(got, data, max), 0);
	ASSERT_EQ(ue_rbpage_next(&it, &ts, &got, &got_len), 0);

	/* A size out of range is the kernel's page. */
	ue_rbpage_init(&p, page, UE_RB_PAGE_SIZE_MAX + 1);
	ASSERT_EQ(ue_rbpage_add(&p, 10, data, UE_RB_PAGE_DATA - 8 + 1), -EINVAL);
	ASSERT_EQ(ue_rbpage_finish(&p, 0), (size_t)UE_RB_PAGE_SIZE);
}

UE_TEST_MAIN()
