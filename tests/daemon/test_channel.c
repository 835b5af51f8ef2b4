// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daemon/channel: pages handed over full or by the tick, losses counted and
 * marked in the next page (the kernel's missed-events flag and count), a
 * reader's counters read as untrusted, the room a blocking reader leaves.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"
#include "harness.h"
#include "native-proto.h"
#include "rbpage.h"

struct view {
	unsigned char *map;
	size_t len;
	struct ue_chan_hdr *hdr;
};

/* The reader's mapping of the memfd, as tools/channel.c makes it. */
static void view_open(struct view *v, int memfd)
{
	struct stat st;

	ASSERT_EQ(fstat(memfd, &st), 0);
	v->len = (size_t)st.st_size;
	v->map = mmap(NULL, v->len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ASSERT_TRUE(v->map != MAP_FAILED);
	v->hdr = (struct ue_chan_hdr *)v->map;
}

static struct ue_chan_cpu *vcpu(struct view *v, unsigned int cpu)
{
	return (struct ue_chan_cpu *)(v->map + UE_CHAN_CPU_OFF) + cpu;
}

static const uint8_t *vpage(struct view *v, unsigned int cpu, uint64_t i)
{
	return v->map + v->hdr->data_offset +
	       ((size_t)cpu * v->hdr->nsubbufs + i % v->hdr->nsubbufs) * UE_CHAN_SUBBUF;
}

/* A record of @len bytes (a trace_entry's worth of header, then @fill). */
static bool put(struct ue_chan *ch, unsigned int cpu, uint64_t ts, size_t len, uint8_t fill)
{
	uint8_t rec[4096];
	struct iovec iov = { rec, len };

	memset(rec, fill, len);
	return ue_chan_append(ch, cpu, ts, &iov, 1, len);
}

/* Records and the loss mark of a handed-over page. */
static unsigned int page_records(const uint8_t *page, uint64_t *missed)
{
	struct ue_rbpage_iter it;
	const void *data;
	unsigned int n = 0;
	size_t len;
	uint64_t ts;

	*missed = 0;
	if (ue_rbpage_iter_init(&it, page, UE_CHAN_SUBBUF) < 0)
		return 0;
	*missed = it.missed;
	while (ue_rbpage_next(&it, &ts, &data, &len) == 1)
		n++;
	return n;
}

TEST(pages_losses_and_marks)
{
	struct ue_chan_opts o = { .kib_per_cpu = UE_CHAN_MIN_KIB };
	unsigned int per_page = 0, written = 0, lost = 0, seen = 0;
	uint64_t ts = 1000, missed = 0, marked = 0;
	struct ue_chan *ch;
	struct view v;
	int memfd, evfd;

	ASSERT_EQ(ue_chan_new(2, &o, &ch, &memfd, &evfd), 0);
	view_open(&v, memfd);
	ASSERT_EQ(v.hdr->magic, UE_CHAN_MAGIC);
	ASSERT_EQ(v.hdr->nsubbufs, UE_CHAN_MIN_KIB / 64);
	ASSERT_EQ(v.len, ue_chan_bytes(ch));
	ASSERT_EQ(ue_chan_bytes_for(2, &o), ue_chan_bytes(ch));
	/* Fill CPU 1 past its four pages: the first records that find none are lost. */
	while (lost < 10) {
		if (put(ch, 1, ts++, 1000, 0xab))
			written++;
		else
			lost++;
	}
	EXPECT_EQ(vcpu(&v, 1)->produced, 4);
	EXPECT_EQ(vcpu(&v, 0)->produced, 0);
	EXPECT_EQ(vcpu(&v, 1)->lost, 10);
	for (uint64_t i = 0; i < 4; i++) {
		unsigned int n = page_records(vpage(&v, 1, i), &missed);

		EXPECT_EQ(missed, 0);
		per_page = n;
		seen += n;
	}
	EXPECT_EQ(per_page, 65520 / 1008);
	/* The reader gives back two pages: the next page says 10 were lost before it. */
	__atomic_store_n(&vcpu(&v, 1)->consumed, 2, __ATOMIC_RELEASE);
	EXPECT_TRUE(put(ch, 1, ts++, 1000, 0xcd));
	written++;
	ue_chan_tick(ch, 1, ts, true);
	EXPECT_EQ(vcpu(&v, 1)->produced, 5);
	seen += page_records(vpage(&v, 1, 4), &missed);
	EXPECT_EQ(missed, 10);
	marked += missed;
	/* Lost on the way (a full producer ring): counted apart, marked in an empty page. */
	ue_chan_lost(ch, 1, 7);
	ue_chan_tick(ch, 1, ts, true);
	EXPECT_EQ(vcpu(&v, 1)->produced, 6);
	EXPECT_EQ(page_records(vpage(&v, 1, 5), &missed), 0);
	EXPECT_EQ(missed, 7);
	marked += missed;
	EXPECT_EQ(vcpu(&v, 1)->lost, 17);
	EXPECT_EQ(vcpu(&v, 1)->lost_producer, 7);
	/* Records + lost = written, and the marks say every loss. */
	EXPECT_EQ(seen, written);
	EXPECT_EQ(vcpu(&v, 1)->records, written);
	EXPECT_EQ(marked, 17);
	munmap(v.map, v.len);
	close(memfd);
	close(evfd);
	ue_chan_free(ch);
}

/*
 * Built in place (the drain's path): a reservation not committed is not a
 * record and takes no place; one that finds no page is lost, counted and
 * marked as an appended one is.
 */
TEST(reserve_in_place)
{
	struct ue_chan_opts o = { .kib_per_cpu = UE_CHAN_MIN_KIB };
	unsigned int written = 0, lost = 0, seen = 0;
	uint64_t ts = 1000, missed = 0;
	struct ue_chan *ch;
	struct view v;
	uint8_t *at;
	int memfd, evfd;

	ASSERT_EQ(ue_chan_new(1, &o, &ch, &memfd, &evfd), 0);
	view_open(&v, memfd);
	while (lost < 3) {
		/* Every other record dropped after it was written: it must not show. */
		at = ue_chan_reserve(ch, 0, ts, 1000);
		if (!at) {
			lost++;
			continue;
		}
		memset(at, 0xee, 1000);
		at = ue_chan_reserve(ch, 0, ts++, 1000);
		ASSERT_TRUE(at != NULL);
		memset(at, 0xab, 1000);
		ue_chan_commit(ch, 0);
		written++;
	}
	EXPECT_EQ(vcpu(&v, 0)->produced, 4);
	EXPECT_EQ(vcpu(&v, 0)->lost, 3);
	for (uint64_t i = 0; i < 4; i++) {
		struct ue_rbpage_iter it;
		const void *data;
		size_t len;
		uint64_t t;

		ASSERT_EQ(ue_rbpage_iter_init(&it, vpage(&v, 0, i), UE_CHAN_SUBBUF), 0);
		while (ue_rbpage_next(&it, &t, &data, &len) == 1) {
			EXPECT_EQ(len, 1000);
			EXPECT_EQ(((const uint8_t *)data)[0], 0xab);
			EXPECT_EQ(((const uint8_t *)data)[999], 0xab);
			seen++;
		}
	}
	EXPECT_EQ(seen, written);
	EXPECT_EQ(written, 4 * (65520 / 1008));	/* header and length word: 1008 bytes each */
	/* Room again: the next page marks the 3 lost. */
	__atomic_store_n(&vcpu(&v, 0)->consumed, 4, __ATOMIC_RELEASE);
	ASSERT_TRUE((at = ue_chan_reserve(ch, 0, ts, 8)) != NULL);
	memset(at, 1, 8);
	ue_chan_commit(ch, 0);
	ue_chan_tick(ch, 0, ts, true);
	EXPECT_EQ(page_records(vpage(&v, 0, 4), &missed), 1);
	EXPECT_EQ(missed, 3);
	EXPECT_EQ(vcpu(&v, 0)->records, written + 1);
	munmap(v.map, v.len);
	close(memfd);
	close(evfd);
	ue_chan_free(ch);
}

TEST(tick_hands_over_old_pages_and_wakes_a_sleeping_reader)
{
	struct ue_chan_opts o = { .kib_per_cpu = UE_CHAN_MIN_KIB, .flush_ms = 50 };
	struct ue_chan *ch;
	struct view v;
	uint64_t one;
	int memfd, evfd;

	ASSERT_EQ(ue_chan_new(1, &o, &ch, &memfd, &evfd), 0);
	view_open(&v, memfd);
	EXPECT_EQ(vcpu(&v, 0)->open_ts, UINT64_MAX);
	EXPECT_TRUE(put(ch, 0, 1000000, 64, 1));
	EXPECT_EQ(vcpu(&v, 0)->open_ts, 1000000);
	ue_chan_tick(ch, 0, 1000000 + 49000000, false);
	EXPECT_EQ(vcpu(&v, 0)->produced, 0);
	__atomic_store_n(&v.hdr->waiting, 1, __ATOMIC_SEQ_CST);
	ue_chan_tick(ch, 0, 1000000 + 50000000, false);
	EXPECT_EQ(vcpu(&v, 0)->produced, 1);
	EXPECT_EQ(vcpu(&v, 0)->open_ts, UINT64_MAX);
	EXPECT_EQ(v.hdr->waiting, 0);
	EXPECT_EQ(read(evfd, &one, sizeof(one)), (ssize_t)sizeof(one));
	munmap(v.map, v.len);
	close(memfd);
	close(evfd);
	ue_chan_free(ch);
}

TEST(hostile_reader_counters_and_memfd)
{
	struct ue_chan_opts o = { .kib_per_cpu = UE_CHAN_MIN_KIB };
	struct ue_chan *ch;
	struct view v;
	int memfd, evfd;

	ASSERT_EQ(ue_chan_new(1, &o, &ch, &memfd, &evfd), 0);
	view_open(&v, memfd);
	/* Sealed: a reader cannot shrink what the daemon writes into. */
	EXPECT_EQ(ftruncate(memfd, 4096), -1);
	EXPECT_EQ(errno, EPERM);
	/* A consumed count far ahead, then far behind: the writer stays in its pages. */
	__atomic_store_n(&vcpu(&v, 0)->consumed, UINT64_MAX / 2, __ATOMIC_RELEASE);
	for (int i = 0; i < 2000; i++)
		put(ch, 0, 1000 + (uint64_t)i, 1000, 2);
	__atomic_store_n(&vcpu(&v, 0)->consumed, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < 2000; i++)
		put(ch, 0, 5000 + (uint64_t)i, 1000, 3);
	EXPECT_GE(vcpu(&v, 0)->lost, 1);
	munmap(v.map, v.len);
	close(memfd);
	close(evfd);
	ue_chan_free(ch);
}

TEST(blocking_room_is_bounded)
{
	struct ue_chan_opts o = { .kib_per_cpu = UE_CHAN_MIN_KIB, .flags = UE_CHAN_BLOCK,
				  .block_ms = 50 };
	struct ue_chan_opts bad = { .kib_per_cpu = UE_CHAN_MIN_KIB, .flags = UE_CHAN_BLOCK,
				    .block_ms = UE_CHAN_BLOCK_MS_MAX + 1 };
	uint64_t now = 1000000000;
	struct ue_chan *ch;
	struct view v;
	int memfd, evfd;

	EXPECT_EQ(ue_chan_new(1, &bad, &ch, &memfd, &evfd), -EINVAL);
	ASSERT_EQ(ue_chan_new(1, &o, &ch, &memfd, &evfd), 0);
	view_open(&v, memfd);
	EXPECT_EQ(ue_chan_blocks(ch), 50000000);
	EXPECT_TRUE(ue_chan_room(ch, now));
	/* Two pages handed over, a third open: fewer than three free of four. */
	for (int i = 0; vcpu(&v, 0)->produced < 2; i++)
		put(ch, 0, 1000 + (uint64_t)i, 1000, 4);
	EXPECT_FALSE(ue_chan_room(ch, now));
	EXPECT_FALSE(ue_chan_room(ch, now + 49000000));
	/* block_ms without room: writers go on (and lose) rather than wait longer. */
	EXPECT_TRUE(ue_chan_room(ch, now + 51000000));
	EXPECT_TRUE(ue_chan_room(ch, now + 52000000));
	/* The reader frees the pages: room, and waiting again when it falls behind. */
	__atomic_store_n(&vcpu(&v, 0)->consumed, 2, __ATOMIC_RELEASE);
	EXPECT_TRUE(ue_chan_room(ch, now + 60000000));
	for (int i = 0; vcpu(&v, 0)->produced < 4; i++)
		put(ch, 0, 9000 + (uint64_t)i, 1000, 5);
	EXPECT_FALSE(ue_chan_room(ch, now + 61000000));
	EXPECT_FALSE(ue_chan_room(ch, now + 110000000));
	EXPECT_TRUE(ue_chan_room(ch, now + 112000000));
	munmap(v.map, v.len);
	close(memfd);
	close(evfd);
	ue_chan_free(ch);
}

UE_TEST_MAIN()
