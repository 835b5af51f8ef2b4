// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/snap.c: the state snapshot's bytes, written and read back, and every
 * malformed or cut input refused with -EINVAL, never read past.
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snap.h"

static void write_sample(struct ue_snap_w *w)
{
	size_t a, b;

	ASSERT_EQ(ue_snapw_init(w, 1 << 20), 0);
	a = ue_snapw_begin(w, 7);
	ue_snapw_u64(w, 42);
	ue_snapw_str(w, "user_events:net_rx u32 len");
	ue_snapw_str(w, NULL);
	ue_snapw_fd(w, 11);
	ue_snapw_fd(w, -1);
	b = ue_snapw_begin(w, 8);
	ue_snapw_bytes(w, "\0\1\2", 3);
	ue_snapw_end(w, b);
	ue_snapw_end(w, a);
	ue_snapw_end(w, ue_snapw_begin(w, 9));
	ASSERT_EQ(w->err, 0);
}

TEST(round_trip)
{
	struct ue_snap_w w;
	struct ue_snap_r r, s, t;
	uint32_t tag;
	char str[64];
	size_t n;
	const unsigned char *p;

	write_sample(&w);
	ASSERT_EQ(w.nfds, 1);
	ASSERT_EQ(ue_snapr_init(&r, w.buf, w.len, w.fds, w.nfds), 0);
	ASSERT_TRUE(ue_snapr_section(&r, &tag, &s));
	EXPECT_EQ(tag, 7);
	EXPECT_EQ(ue_snapr_u64(&s), 42);
	EXPECT_TRUE(ue_snapr_str(&s, str, sizeof(str)));
	EXPECT_STREQ(str, "user_events:net_rx u32 len");
	EXPECT_FALSE(ue_snapr_str(&s, str, sizeof(str)));	/* NULL */
	EXPECT_EQ(s.err, 0);
	EXPECT_EQ(ue_snapr_fd(&s), 11);
	EXPECT_EQ(w.fds[0], -1);				/* taken */
	EXPECT_EQ(ue_snapr_fd(&s), -1);				/* none was written */
	ASSERT_TRUE(ue_snapr_section(&s, &tag, &t));
	EXPECT_EQ(tag, 8);
	p = ue_snapr_bytes(&t, &n);
	ASSERT_EQ(n, 3);
	EXPECT_EQ(p[2], 2);
	EXPECT_TRUE(ue_snapr_done(&t));
	EXPECT_TRUE(ue_snapr_done(&s));
	ASSERT_TRUE(ue_snapr_section(&r, &tag, &s));
	EXPECT_EQ(tag, 9);
	EXPECT_EQ(s.len, 0);
	EXPECT_FALSE(ue_snapr_section(&r, &tag, &s));
	EXPECT_TRUE(ue_snapr_done(&r));
	ue_snapw_free(&w);
}

/* Every prefix of a snapshot reads without going past it, and a cut one is an error. */
TEST(every_cut_is_refused)
{
	struct ue_snap_w w;
	int fds[1] = { 11 };

	write_sample(&w);
	for (size_t len = 0; len < w.len; len++) {
		unsigned char *copy = malloc(len ? len : 1);
		struct ue_snap_r r, s;
		uint32_t tag;
		char str[64];
		size_t n;

		memcpy(copy, w.buf, len);
		fds[0] = 11;
		if (ue_snapr_init(&r, copy, len, fds, 1) == 0) {
			while (ue_snapr_section(&r, &tag, &s)) {
				ue_snapr_u64(&s);
				ue_snapr_str(&s, str, sizeof(str));
				ue_snapr_str(&s, str, sizeof(str));
				ue_snapr_fd(&s);
				ue_snapr_bytes(&s, &n);
			}
			/* Cut inside the header or a section: malformed; at a boundary: short. */
			EXPECT_TRUE(r.err != 0 || r.off == len);
		}
		free(copy);
	}
	ue_snapw_free(&w);
}

TEST(malformed_values)
{
	struct ue_snap_w w;
	struct ue_snap_r r;
	char small[4];
	int fds[1] = { 5 };

	ASSERT_EQ(ue_snapw_init(&w, 4096), 0);
	ue_snapw_str(&w, "longer than four");
	ue_snapw_bytes(&w, "a\0b", 3);
	ue_snapw_u64(&w, 0);	/* descriptor index 0, asked twice */
	ue_snapw_u64(&w, 0);
	ue_snapw_u64(&w, 9);	/* past the descriptors */
	ASSERT_EQ(ue_snapr_init(&r, w.buf, w.len, fds, 1), 0);
	EXPECT_FALSE(ue_snapr_str(&r, small, sizeof(small)));
	EXPECT_EQ(r.err, -EINVAL);
	/* Errors stick: everything after reads as nothing. */
	EXPECT_EQ(ue_snapr_u64(&r), 0);
	EXPECT_EQ(ue_snapr_fd(&r), -1);
	ASSERT_EQ(ue_snapr_init(&r, w.buf, w.len, fds, 1), 0);
	ue_snapr_bytes(&r, &(size_t){ 0 });
	{
		char buf[8];

		EXPECT_FALSE(ue_snapr_str(&r, buf, sizeof(buf)));	/* a NUL inside */
		EXPECT_EQ(r.err, -EINVAL);
	}
	ASSERT_EQ(ue_snapr_init(&r, w.buf, w.len, fds, 1), 0);
	ue_snapr_bytes(&r, &(size_t){ 0 });
	ue_snapr_bytes(&r, &(size_t){ 0 });
	EXPECT_EQ(ue_snapr_fd(&r), 5);
	EXPECT_EQ(ue_snapr_fd(&r), -1);
	EXPECT_EQ(r.err, -EINVAL);
	/* Not a snapshot, or another version. */
	w.buf[8] = 2;
	EXPECT_ERRNO(ue_snapr_init(&r, w.buf, w.len, fds, 1), EINVAL);
	EXPECT_ERRNO(ue_snapr_init(&r, "UESNAP", 6, fds, 1), EINVAL);
	ue_snapw_free(&w);
}

TEST(writer_bound)
{
	struct ue_snap_w w;
	char big[64] = { 0 };

	ASSERT_EQ(ue_snapw_init(&w, 64), 0);
	ue_snapw_bytes(&w, big, sizeof(big));
	EXPECT_EQ(w.err, -E2BIG);
	ue_snapw_free(&w);
}

UE_TEST_MAIN()
