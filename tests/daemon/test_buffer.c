// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of daemon/buffer: argument checks and limits, wraparound in
 * overwrite and discard modes with exact counts, merge order, consuming and
 * non-consuming reads, reset, resize, waiting, concurrent writers, batched
 * writes (ue_buffer_write_many()) against the same single writes, and a
 * consumer channel taking a backlog larger than itself.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "buffer.h"
#include "channel.h"
#include "harness.h"
#include "native-proto.h"
#include "rbpage.h"

#define SMALL UE_BUFFER_MIN_BYTES_PER_CPU
/* The kernel's largest record (4 KiB pages), which the smallest ring holds. */
#define KMAX 4072

static size_t slot_bytes(size_t len)
{
	return UE_BUFFER_REC_OVERHEAD + ((len + 7) & ~(size_t)7);
}

/* The byte at @i of the record number @n of CPU @cpu: anything corrupted shows. */
static uint8_t pattern(unsigned int cpu, uint64_t n, size_t i)
{
	return (uint8_t)(n * 131 + i * 7 + cpu * 29 + (n >> 8));
}

/* Writes record @n (identified by meta.tid = n, meta.tgid = cpu) of @len bytes. */
static int put(struct ue_buffer *buf, unsigned int cpu, uint64_t n, size_t len, uint64_t ts)
{
	static _Thread_local uint8_t data[UE_BUFFER_MAX_RECORD + 64];
	struct ue_rec_meta meta = { .ts_ns = ts, .tgid = (int32_t)cpu, .tid = (int32_t)n };
	struct iovec iov[2];
	size_t i, split = len / 3;

	for (i = 0; i < len && i < sizeof(data); i++)
		data[i] = pattern(cpu, n, i);
	snprintf(meta.comm, sizeof(meta.comm), "w%u-%llu", cpu, (unsigned long long)n);
	iov[0].iov_base = data;
	iov[0].iov_len = split;
	iov[1].iov_base = data + split;
	iov[1].iov_len = len - split;
	return ue_buffer_write(buf, cpu, &meta, iov, 2, len);
}

/* Whether @rec is intact record @n of @cpu, @len bytes long. */
static bool intact(const struct ue_buffer_rec *rec, unsigned int cpu, uint64_t n, size_t len)
{
	const uint8_t *d = rec->data;
	char comm[16] = { 0 };
	size_t i;

	snprintf(comm, sizeof(comm), "w%u-%llu", cpu, (unsigned long long)n);
	if (rec->meta.cpu != cpu || rec->meta.tgid != (int32_t)cpu || rec->meta.tid != (int32_t)n ||
	    rec->len != len || memcmp(rec->meta.comm, comm, sizeof(comm)) || ((uintptr_t)d & 7))
		return false;
	for (i = 0; i < len; i++)
		if (d[i] != pattern(cpu, n, i))
			return false;
	return true;
}

static struct ue_buffer_stats stats_of(struct ue_buffer *buf, unsigned int cpu)
{
	struct ue_buffer_stats st;

	if (ue_buffer_stats(buf, cpu, &st))
		memset(&st, 0xff, sizeof(st));
	return st;
}

TEST(new_limits)
{
	static const struct {
		unsigned int ncpus;
		size_t bytes;
		int err;
		size_t size;
	} cases[] = {
		{ 0, SMALL, EINVAL, 0 },
		{ UE_BUFFER_MAX_CPUS + 1, SMALL, EINVAL, 0 },
		{ 1, 0, EINVAL, 0 },
		{ 1, (size_t)UE_BUFFER_MAX_TOTAL_BYTES + 1, ENOMEM, 0 },
		{ 2, (size_t)(UE_BUFFER_MAX_TOTAL_BYTES / 2) + 4096, ENOMEM, 0 },
		{ 1, 1, 0, SMALL },
		{ 1, SMALL + 1, 0, SMALL + 4096 },
		{ 3, 100000, 0, 102400 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_buffer *buf = (struct ue_buffer *)&cases[i];

		printf("# case %zu\n", i);
		ASSERT_EQ(ue_buffer_new(cases[i].ncpus, cases[i].bytes, true, &buf), -cases[i].err);
		if (cases[i].err) {
			/* untouched on failure */
			ASSERT_TRUE(buf == (struct ue_buffer *)&cases[i]);
			continue;
		}
		ASSERT_EQ(ue_buffer_ncpus(buf), cases[i].ncpus);
		ASSERT_EQ(ue_buffer_size(buf), cases[i].size);
		ASSERT_EQ(stats_of(buf, cases[i].ncpus - 1).size, cases[i].size);
		ASSERT_TRUE(ue_buffer_get_on(buf));
		ASSERT_TRUE(ue_buffer_get_overwrite(buf));
		ue_buffer_free(buf);
	}
	ASSERT_ERRNO(ue_buffer_new(1, SMALL, true, NULL), EINVAL);
	ue_buffer_free(NULL);
}

TEST(write_args)
{
	struct ue_buffer *buf;
	struct ue_rec_meta meta = { 0 };
	uint8_t data[16] = { 0 };
	struct iovec iov[2] = { { data, 8 }, { data + 8, 8 } };

	ASSERT_EQ(ue_buffer_new(2, SMALL, true, &buf), 0);
	ASSERT_ERRNO(ue_buffer_write(buf, 2, &meta, iov, 2, 16), EINVAL);
	ASSERT_ERRNO(ue_buffer_write(buf, 0, NULL, iov, 2, 16), EINVAL);
	ASSERT_ERRNO(ue_buffer_write(buf, 0, &meta, NULL, 2, 16), EINVAL);
	ASSERT_ERRNO(ue_buffer_write(buf, 0, &meta, iov, -1, 16), EINVAL);
	ASSERT_ERRNO(ue_buffer_write(buf, 0, &meta, iov, 2, 0), EINVAL);
	ASSERT_ERRNO(ue_buffer_write(buf, 0, &meta, iov, 2, 15), EINVAL);
	ASSERT_ERRNO(ue_buffer_write(buf, 0, &meta, iov, 2, 17), EINVAL);
	ASSERT_ERRNO(ue_buffer_write(buf, 0, &meta, iov, 1, 16), EINVAL);
	ASSERT_EQ(stats_of(buf, 0).entries, 0);
	ASSERT_EQ(ue_buffer_write(buf, 0, &meta, iov, 2, 16), 0);
	ASSERT_EQ(ue_buffer_write(buf, 1, &meta, iov, 1, 8), 0);
	ASSERT_EQ(stats_of(buf, 0).entries, 1);
	ASSERT_EQ(stats_of(buf, 1).entries, 1);
	/* empty pieces, even without a base, are fine */
	iov[1] = (struct iovec){ NULL, 0 };
	ASSERT_EQ(ue_buffer_write(buf, 1, &meta, iov, 2, 8), 0);
	ASSERT_EQ(stats_of(buf, 1).entries, 2);
	ASSERT_ERRNO(ue_buffer_stats(buf, 2, &(struct ue_buffer_stats){ 0 }), EINVAL);
	ue_buffer_free(buf);
}

/*
 * The kernel keeps records of up to 4072 bytes (entry header included);
 * usereventsd up to UE_BUFFER_MAX_RECORD (a 64 KiB ring page's), never more.
 * A ring smaller than a record (buffer_size_kb made small) counts it as too big.
 */
TEST(max_record)
{
	struct ue_buffer *buf;
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	struct ue_buffer_stats st;
	static uint8_t out[UE_BUFFER_MAX_RECORD];
	uint64_t n;

	ASSERT_EQ(UE_BUFFER_MAX_RECORD, 65512);
	ASSERT_EQ(ue_buffer_new(1, 1, true, &buf), 0);
	for (n = 0; n < 10; n++)
		ASSERT_EQ(put(buf, 0, n, KMAX, 0), 0);
	ASSERT_ERRNO(put(buf, 0, 10, KMAX + 1 + SMALL, 0), E2BIG);	/* larger than the ring */
	ASSERT_ERRNO(put(buf, 0, 11, UE_BUFFER_MAX_RECORD + 1, 0), E2BIG);
	st = stats_of(buf, 0);
	/* the smallest ring holds one of the kernel's largest records: 2 x (40 + 4072) > 8192 */
	ASSERT_TRUE(2 * slot_bytes(KMAX) > SMALL);
	ASSERT_EQ(st.entries, 1);
	ASSERT_EQ(st.overrun, 9);
	ASSERT_EQ(st.too_big, 2);
	ASSERT_EQ(st.dropped, 0);
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
	ASSERT_TRUE(intact(&rec, 0, 9, KMAX));
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 0);
	ue_buffer_snap_free(snap);
	ASSERT_EQ(ue_buffer_consume(buf, 0, &rec, out, sizeof(out)), KMAX);
	ASSERT_TRUE(intact(&rec, 0, 9, KMAX));
	ue_buffer_free(buf);

	/* A ring of the default size keeps the largest records whole. */
	ASSERT_EQ(ue_buffer_new(1, 1410 * 1024, false, &buf), 0);
	for (n = 0; n < 3; n++)
		ASSERT_EQ(put(buf, 0, n, UE_BUFFER_MAX_RECORD, 0), 0);
	ASSERT_ERRNO(put(buf, 0, 3, UE_BUFFER_MAX_RECORD + 1, 0), E2BIG);
	st = stats_of(buf, 0);
	ASSERT_EQ(st.entries, 3);
	ASSERT_EQ(st.too_big, 1);
	for (n = 0; n < 3; n++) {
		ASSERT_EQ(ue_buffer_consume(buf, 0, &rec, out, sizeof(out)), UE_BUFFER_MAX_RECORD);
		ASSERT_TRUE(intact(&rec, 0, n, UE_BUFFER_MAX_RECORD));
	}
	ASSERT_ERRNO(ue_buffer_consume(buf, 0, &rec, out, KMAX), EAGAIN);
	ue_buffer_free(buf);
}

static const size_t wrap_lens[] = { 1, 8, 24, 100, 1000, 3000, KMAX };

TEST(wraparound_overwrite)
{
	const uint64_t total = 1000;
	size_t k;

	for (k = 0; k < sizeof(wrap_lens) / sizeof(wrap_lens[0]); k++) {
		size_t len = wrap_lens[k], slot = slot_bytes(len);
		struct ue_buffer *buf;
		struct ue_buffer_snap *snap;
		struct ue_buffer_rec rec;
		struct ue_buffer_stats st;
		uint64_t n, first;

		printf("# len %zu\n", len);
		ASSERT_EQ(ue_buffer_new(1, SMALL, true, &buf), 0);
		for (n = 0; n < total; n++)
			ASSERT_EQ(put(buf, 0, n, len, 1000 + n), 0);
		st = stats_of(buf, 0);
		ASSERT_EQ(st.entries + st.overrun, total);
		ASSERT_EQ(st.dropped, 0);
		ASSERT_EQ(st.read, 0);
		if (SMALL % slot == 0) {
			/* slots tile the ring exactly: no padding, all of it used */
			ASSERT_EQ(st.entries, SMALL / slot);
			ASSERT_EQ(st.bytes, SMALL);
		} else {
			/* at most one slot's room and the end padding go unused */
			ASSERT_TRUE(st.entries <= SMALL / slot);
			ASSERT_TRUE(st.entries * slot + 2 * slot > SMALL);
		}
		first = total - st.entries;
		ASSERT_EQ(st.oldest_ts_ns, 1000 + first);
		/* the survivors are exactly the newest, in order and intact */
		ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
		for (n = first; n < total; n++) {
			ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
			ASSERT_TRUE(intact(&rec, 0, n, len));
			ASSERT_EQ(rec.seq, n);
			ASSERT_EQ(rec.meta.ts_ns, 1000 + n);
		}
		ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 0);
		ue_buffer_snap_free(snap);
		ue_buffer_free(buf);
	}
}

TEST(wraparound_discard)
{
	const uint64_t total = 1000;
	static uint8_t out[KMAX];
	size_t k;

	for (k = 0; k < sizeof(wrap_lens) / sizeof(wrap_lens[0]); k++) {
		size_t len = wrap_lens[k], slot = slot_bytes(len);
		uint64_t fit = SMALL / slot, n, next, dropped;
		struct ue_buffer *buf;
		struct ue_buffer_rec rec;
		struct ue_buffer_stats st;

		printf("# len %zu\n", len);
		ASSERT_EQ(ue_buffer_new(1, SMALL, false, &buf), 0);
		ASSERT_FALSE(ue_buffer_get_overwrite(buf));
		for (n = 0; n < total; n++)
			ASSERT_EQ(put(buf, 0, n, len, 0), n < fit ? 0 : -ENOSPC);
		st = stats_of(buf, 0);
		/* a fresh ring fills from its start: exactly SMALL / slot records */
		ASSERT_EQ(st.entries, fit);
		ASSERT_EQ(st.dropped, total - fit);
		ASSERT_EQ(st.overrun, 0);
		ASSERT_EQ(st.bytes, fit * slot);

		/* free one slot and refill: the ring wraps (with padding when needed) */
		dropped = st.dropped;
		next = total;
		for (n = 0; n < 3 * fit; n++) {
			/* records 0..fit-1 were stored first, then total, total + 1, ... */
			uint64_t expect = n < fit ? n : total + (n - fit);

			ASSERT_EQ(ue_buffer_consume(buf, 0, &rec, out, sizeof(out)), (int)len);
			ASSERT_TRUE(intact(&rec, 0, expect, len));
			ASSERT_EQ(rec.seq, n);
			ASSERT_EQ(rec.lost, 0);
			/* a refill after one consume fits unless padding took the room */
			if (put(buf, 0, next, len, 0) == 0)
				next++;
			else
				dropped++;
		}
		st = stats_of(buf, 0);
		ASSERT_EQ(st.read, 3 * fit);
		ASSERT_EQ(st.dropped, dropped);
		ASSERT_EQ(st.entries + st.read, fit + (next - total));
		ASSERT_EQ(st.overrun, 0);
		if (SMALL % slot == 0)
			ASSERT_EQ(dropped, total - fit);

		/* an emptied ring starts over at its beginning: no padding */
		while (ue_buffer_consume(buf, 0, &rec, out, sizeof(out)) > 0)
			;
		ASSERT_EQ(stats_of(buf, 0).bytes, 0);
		for (n = 0; n < fit; n++)
			ASSERT_EQ(put(buf, 0, n, len, 0), 0);
		ASSERT_EQ(stats_of(buf, 0).bytes, fit * slot);
		ue_buffer_free(buf);
	}
}

TEST(merge_order)
{
	/* (cpu, ts) in write order; equal timestamps come out by CPU */
	static const struct {
		unsigned int cpu;
		uint64_t ts;
	} w[] = {
		{ 0, 10 }, { 1, 5 },  { 2, 7 },	 { 3, 1 },  { 0, 11 }, { 1, 11 }, { 3, 11 },
		{ 2, 11 }, { 2, 20 }, { 0, 30 }, { 3, 25 }, { 1, 26 }, { 1, 40 }, { 0, 41 },
	};
	static const unsigned int order[] = { 3, 1, 2, 0, 4, 5, 7, 6, 8, 10, 11, 9, 12, 13 };
	struct ue_buffer *buf;
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	struct ue_buffer_stats st;
	size_t i;

	ASSERT_EQ(ue_buffer_new(4, SMALL, true, &buf), 0);
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		ASSERT_EQ(put(buf, w[i].cpu, i, 16 + i, w[i].ts), 0);
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		unsigned int j = order[i];

		ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
		ASSERT_EQ(rec.meta.ts_ns, w[j].ts);
		ASSERT_TRUE(intact(&rec, w[j].cpu, j, 16 + j));
	}
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 0);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 0);
	/* rewind starts over */
	ue_buffer_snap_rewind(snap);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
	ASSERT_TRUE(intact(&rec, 3, 3, 19));
	ASSERT_EQ(ue_buffer_snap_stats(snap, 1, &st), 0);
	ASSERT_EQ(st.entries, 4);
	ASSERT_EQ(st.oldest_ts_ns, 5);
	ue_buffer_snap_free(snap);

	/* one CPU only */
	ASSERT_EQ(ue_buffer_snapshot(buf, 2, &snap), 0);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		unsigned int j = order[i];

		if (w[j].cpu != 2)
			continue;
		ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
		ASSERT_TRUE(intact(&rec, 2, j, 16 + j));
	}
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 0);
	ASSERT_EQ(ue_buffer_snap_stats(snap, 2, &st), 0);
	ASSERT_EQ(st.entries, 3);
	ASSERT_ERRNO(ue_buffer_snap_stats(snap, 1, &st), EINVAL);
	ue_buffer_snap_free(snap);
	ASSERT_ERRNO(ue_buffer_snapshot(buf, 4, &snap), EINVAL);
	ASSERT_ERRNO(ue_buffer_snapshot(buf, -2, &snap), EINVAL);

	/* consuming from all CPUs gives the same order */
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		static uint8_t out[64];
		unsigned int j = order[i];

		ASSERT_EQ(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), (int)(16 + j));
		ASSERT_EQ(rec.meta.ts_ns, w[j].ts);
		ASSERT_TRUE(intact(&rec, w[j].cpu, j, 16 + j));
	}
	ue_buffer_free(buf);
}

TEST(consume_vs_iterate)
{
	struct ue_buffer *buf;
	struct ue_buffer_snap *old, *snap;
	struct ue_buffer_rec rec;
	static uint8_t out[KMAX];
	uint64_t n;
	unsigned int count;

	ASSERT_EQ(ue_buffer_new(3, SMALL, true, &buf), 0);
	ASSERT_FALSE(ue_buffer_has_data(buf, -1));
	ASSERT_ERRNO(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), EAGAIN);
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 0);
	ue_buffer_snap_free(snap);

	/* record n goes to CPU n % 3 at time 100 + n */
	for (n = 0; n < 30; n++)
		ASSERT_EQ(put(buf, n % 3, n, 32, 100 + n), 0);
	ASSERT_TRUE(ue_buffer_has_data(buf, -1));
	ASSERT_TRUE(ue_buffer_has_data(buf, 2));
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &old), 0);

	/* too small a buffer leaves the record in place */
	ASSERT_ERRNO(ue_buffer_consume(buf, -1, &rec, out, 31), EMSGSIZE);
	ASSERT_ERRNO(ue_buffer_consume(buf, -1, &rec, NULL, 0), EMSGSIZE);
	ASSERT_ERRNO(ue_buffer_consume(buf, 3, &rec, out, sizeof(out)), EINVAL);
	ASSERT_ERRNO(ue_buffer_consume(buf, -2, &rec, out, sizeof(out)), EINVAL);

	for (n = 0; n < 10; n++) {
		ASSERT_EQ(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), 32);
		ASSERT_TRUE(intact(&rec, n % 3, n, 32));
		ASSERT_TRUE(rec.data == out);
		ASSERT_EQ(rec.lost, 0);
	}
	/* the older snapshot still has every record */
	for (n = 0; n < 30; n++) {
		ASSERT_EQ(ue_buffer_snap_next(old, &rec), 1);
		ASSERT_TRUE(intact(&rec, n % 3, n, 32));
	}
	ASSERT_EQ(ue_buffer_snap_next(old, &rec), 0);
	ue_buffer_snap_free(old);
	/* a new one only what is left */
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
	for (count = 0; ue_buffer_snap_next(snap, &rec) == 1; count++)
		ASSERT_TRUE(intact(&rec, (10 + count) % 3, 10 + count, 32));
	ASSERT_EQ(count, 20);
	ue_buffer_snap_free(snap);

	/* per CPU: CPU 1 holds 10, 13, ..., 28 now */
	for (n = 10; n < 30; n += 3) {
		ASSERT_EQ(ue_buffer_consume(buf, 1, &rec, out, sizeof(out)), 32);
		ASSERT_TRUE(intact(&rec, 1, n, 32));
	}
	ASSERT_ERRNO(ue_buffer_consume(buf, 1, &rec, out, sizeof(out)), EAGAIN);
	ASSERT_FALSE(ue_buffer_has_data(buf, 1));
	ASSERT_TRUE(ue_buffer_has_data(buf, 0));
	for (n = 11; n < 30; n++) {
		if (n % 3 == 1)
			continue;
		ASSERT_EQ(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), 32);
		ASSERT_TRUE(intact(&rec, n % 3, n, 32));
	}
	ASSERT_ERRNO(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), EAGAIN);
	ASSERT_FALSE(ue_buffer_has_data(buf, -1));
	ASSERT_EQ(stats_of(buf, 0).read, 10);
	ASSERT_EQ(stats_of(buf, 1).read, 10);
	ASSERT_EQ(stats_of(buf, 2).read, 10);
	ASSERT_EQ(stats_of(buf, 0).entries, 0);
	ue_buffer_free(buf);
}

/* Records overwritten between two consumes are reported once, as the kernel's LOST line. */
TEST(consume_lost)
{
	const size_t len = 24; /* 64-byte slots: 128 per ring */
	const uint64_t per_ring = SMALL / 64;
	static uint8_t out[KMAX];
	struct ue_buffer *buf;
	struct ue_buffer_rec rec;
	uint64_t n;

	ASSERT_EQ(slot_bytes(len), 64);
	ASSERT_EQ(ue_buffer_new(1, SMALL, true, &buf), 0);
	for (n = 0; n < 1000; n++)
		ASSERT_EQ(put(buf, 0, n, len, 0), 0);
	ASSERT_EQ(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), (int)len);
	ASSERT_EQ(rec.lost, 1000 - per_ring);
	ASSERT_TRUE(intact(&rec, 0, 1000 - per_ring, len));
	ASSERT_EQ(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), (int)len);
	ASSERT_EQ(rec.lost, 0);
	/* two slots free: 200 more writes overwrite 198 */
	for (n = 1000; n < 1200; n++)
		ASSERT_EQ(put(buf, 0, n, len, 0), 0);
	ASSERT_EQ(ue_buffer_consume(buf, 0, &rec, out, sizeof(out)), (int)len);
	ASSERT_EQ(rec.lost, 198);
	ASSERT_TRUE(intact(&rec, 0, 1200 - per_ring, len));
	ASSERT_EQ(stats_of(buf, 0).overrun, 1000 - per_ring + 198);
	ue_buffer_free(buf);
}

TEST(timestamps)
{
	struct ue_buffer *buf;
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	uint64_t before, after;

	ASSERT_EQ(ue_buffer_new(2, SMALL, true, &buf), 0);
	before = ue_buffer_clock_ns();
	ASSERT_EQ(put(buf, 0, 0, 8, 0), 0);
	after = ue_buffer_clock_ns();
	/* a timestamp older than the ring's newest is raised to it */
	ASSERT_EQ(put(buf, 0, 1, 8, 1), 0);
	ASSERT_EQ(put(buf, 1, 2, 8, 1), 0);
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
	ASSERT_TRUE(intact(&rec, 1, 2, 8));
	ASSERT_EQ(rec.meta.ts_ns, 1);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
	ASSERT_TRUE(intact(&rec, 0, 0, 8));
	ASSERT_TRUE(rec.meta.ts_ns >= before && rec.meta.ts_ns <= after);
	before = rec.meta.ts_ns;
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
	ASSERT_TRUE(intact(&rec, 0, 1, 8));
	ASSERT_EQ(rec.meta.ts_ns, before);
	ue_buffer_snap_free(snap);
	ASSERT_TRUE(stats_of(buf, 0).now_ts_ns >= after);
	ue_buffer_free(buf);
}

TEST(reset)
{
	static uint8_t out[KMAX];
	struct ue_buffer *buf;
	struct ue_buffer_rec rec;
	struct ue_buffer_snap *snap;
	struct ue_buffer_stats st;
	uint64_t n;

	ASSERT_EQ(ue_buffer_new(2, SMALL, true, &buf), 0);
	for (n = 0; n < 500; n++)
		ASSERT_EQ(put(buf, n & 1, n, 100, 0), 0);
	ASSERT_EQ(put(buf, 1, 0, UE_BUFFER_MAX_RECORD + 1, 0), -E2BIG);
	ue_buffer_set_overwrite(buf, false);
	ASSERT_EQ(put(buf, 0, 500, 100, 0), -ENOSPC);
	ASSERT_EQ(ue_buffer_consume(buf, 0, &rec, out, sizeof(out)), 100);
	st = stats_of(buf, 0);
	ASSERT_TRUE(st.entries && st.overrun && st.dropped && st.read);
	ASSERT_TRUE(stats_of(buf, 1).too_big == 1);

	ASSERT_ERRNO(ue_buffer_reset_cpu(buf, 2), EINVAL);
	ASSERT_EQ(ue_buffer_reset_cpu(buf, 1), 0);
	ASSERT_EQ(stats_of(buf, 1).entries, 0);
	ASSERT_EQ(stats_of(buf, 1).too_big, 0);
	ASSERT_TRUE(stats_of(buf, 0).entries > 0);
	ue_buffer_reset(buf);
	for (n = 0; n < 2; n++) {
		st = stats_of(buf, n);
		ASSERT_EQ(st.entries, 0);
		ASSERT_EQ(st.overrun, 0);
		ASSERT_EQ(st.dropped, 0);
		ASSERT_EQ(st.read, 0);
		ASSERT_EQ(st.too_big, 0);
		ASSERT_EQ(st.bytes, 0);
		ASSERT_EQ(st.oldest_ts_ns, 0);
	}
	ASSERT_FALSE(ue_buffer_has_data(buf, -1));
	ASSERT_ERRNO(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), EAGAIN);
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 0);
	ue_buffer_snap_free(snap);
	/* the buffer works again; sequence numbers go on */
	ASSERT_EQ(put(buf, 0, 7, 100, 0), 0);
	ASSERT_EQ(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), 100);
	ASSERT_TRUE(intact(&rec, 0, 7, 100));
	ASSERT_EQ(rec.seq, 250);
	ASSERT_EQ(rec.lost, 0);
	ue_buffer_free(buf);
}

/* Reads every record of CPU 0 and checks they are records first..last-1 of @len bytes. */
static int check_range(struct ue_buffer *buf, uint64_t first, uint64_t last, size_t len)
{
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	uint64_t n = first;
	int bad = 0;

	if (ue_buffer_snapshot(buf, 0, &snap))
		return -1;
	while (ue_buffer_snap_next(snap, &rec) == 1) {
		if (!intact(&rec, 0, n, len) || rec.seq != n)
			bad = 1;
		n++;
	}
	ue_buffer_snap_free(snap);
	return bad || n != last ? -1 : 0;
}

TEST(resize)
{
	/* 100-byte records: 144-byte slots, which do not tile any ring, so padding is moved too */
	static const struct {
		size_t bytes;	/* new size requested */
		uint64_t write;	/* records written after the resize */
		int err;
	} steps[] = {
		{ 16384, 100, 0 },	/* grow: everything kept */
		{ 65536, 1000, 0 },	/* grow a wrapped ring */
		{ 12288, 0, 0 },	/* shrink: only the newest that fit */
		{ 12288, 10, 0 },	/* same size: nothing changes */
		{ 100000, 0, 0 },	/* grow again */
		{ 0, 0, EINVAL },
		{ (size_t)UE_BUFFER_MAX_TOTAL_BYTES, 0, ENOMEM }, /* 2 CPUs: twice the limit */
		{ 1, 30, 0 },		/* to the smallest */
	};
	const size_t len = 100, slot = slot_bytes(len);
	struct ue_buffer *buf;
	uint64_t written = 0, first = 0, n;
	size_t i;

	ASSERT_EQ(ue_buffer_new(2, SMALL, true, &buf), 0);
	for (; written < 100; written++)
		ASSERT_EQ(put(buf, 0, written, len, 0), 0);
	first = written - stats_of(buf, 0).entries;
	ASSERT_EQ(check_range(buf, first, written, len), 0);

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct ue_buffer_stats before = stats_of(buf, 0), st;
		size_t size = ue_buffer_size(buf);

		printf("# step %zu\n", i);
		ASSERT_EQ(ue_buffer_resize(buf, steps[i].bytes), -steps[i].err);
		st = stats_of(buf, 0);
		if (steps[i].err) {
			ASSERT_EQ(ue_buffer_size(buf), size);
		} else {
			size = ue_buffer_size(buf);
			ASSERT_EQ(size, st.size);
			ASSERT_TRUE(size >= steps[i].bytes && size % 4096 == 0);
			if (before.entries * slot <= size) {
				ASSERT_EQ(st.entries, before.entries);
				ASSERT_EQ(st.overrun, before.overrun);
			} else {
				/* the newest records that fit; the others count as overrun */
				ASSERT_EQ(st.entries, size / slot);
				ASSERT_EQ(st.overrun, before.overrun + before.entries - st.entries);
			}
			/* moved records are packed; an unchanged size moves nothing */
			if (size != before.size)
				ASSERT_EQ(st.bytes, st.entries * slot);
		}
		first = written - st.entries;
		ASSERT_EQ(check_range(buf, first, written, len), 0);
		for (n = 0; n < steps[i].write; n++, written++)
			ASSERT_EQ(put(buf, 0, written, len, 0), 0);
		st = stats_of(buf, 0);
		ASSERT_EQ(st.entries + st.overrun, written);
		ASSERT_EQ(check_range(buf, written - st.entries, written, len), 0);
	}
	ue_buffer_free(buf);
}

TEST(recording_off)
{
	struct ue_buffer *buf;
	struct ue_buffer_stats st;

	ASSERT_EQ(ue_buffer_new(1, SMALL, false, &buf), 0);
	ASSERT_EQ(put(buf, 0, 0, 10, 0), 0);
	ue_buffer_set_on(buf, false);
	ASSERT_FALSE(ue_buffer_get_on(buf));
	ASSERT_ERRNO(put(buf, 0, 1, 10, 0), EAGAIN);
	ASSERT_ERRNO(put(buf, 0, 1, KMAX + 1, 0), EAGAIN);
	st = stats_of(buf, 0);
	ASSERT_EQ(st.entries, 1);
	ASSERT_EQ(st.dropped + st.too_big + st.overrun, 0);
	ue_buffer_set_on(buf, true);
	ASSERT_EQ(put(buf, 0, 1, 10, 0), 0);
	ASSERT_EQ(stats_of(buf, 0).entries, 2);
	ue_buffer_set_overwrite(buf, true);
	ASSERT_TRUE(ue_buffer_get_overwrite(buf));
	ue_buffer_free(buf);
}

struct waker {
	struct ue_buffer *buf;
	unsigned int cpu;
	bool wakeup;
};

static void *wake_later(void *arg)
{
	struct waker *w = arg;

	usleep(20000);
	if (w->wakeup)
		ue_buffer_wakeup(w->buf);
	else
		put(w->buf, w->cpu, 0, 8, 0);
	return NULL;
}

TEST(wait)
{
	struct ue_buffer *buf;
	struct waker w;
	pthread_t t;
	static uint8_t out[64];
	struct ue_buffer_rec rec;
	uint64_t start;

	ASSERT_EQ(ue_buffer_new(2, SMALL, true, &buf), 0);
	ASSERT_ERRNO(ue_buffer_wait(buf, 2, 0), EINVAL);
	ASSERT_ERRNO(ue_buffer_wait(buf, -1, 0), ETIMEDOUT);
	ASSERT_ERRNO(ue_buffer_wait(buf, -1, 10), ETIMEDOUT);

	/*
	 * A record on CPU 1 wakes a waiter on any CPU.  The record comes after
	 * 20 ms; a wait that lasts anywhere near its 4 s timeout was not woken.
	 */
	w = (struct waker){ buf, 1, false };
	start = ue_buffer_clock_ns();
	ASSERT_EQ(pthread_create(&t, NULL, wake_later, &w), 0);
	ASSERT_EQ(ue_buffer_wait(buf, -1, 4000), 0);
	ASSERT_LT(ue_buffer_clock_ns() - start, UINT64_C(3000000000));
	pthread_join(t, NULL);
	ASSERT_EQ(ue_buffer_wait(buf, 1, 0), 0);
	ASSERT_ERRNO(ue_buffer_wait(buf, 0, 0), ETIMEDOUT);
	ASSERT_EQ(ue_buffer_consume(buf, -1, &rec, out, sizeof(out)), 8);

	/* one waits on CPU 0 while the record lands on CPU 1: it times out */
	w = (struct waker){ buf, 1, false };
	ASSERT_EQ(pthread_create(&t, NULL, wake_later, &w), 0);
	ASSERT_ERRNO(ue_buffer_wait(buf, 0, 100), ETIMEDOUT);
	pthread_join(t, NULL);
	ASSERT_EQ(ue_buffer_consume(buf, 1, &rec, out, sizeof(out)), 8);

	/* the same for a waiter on CPU 0 */
	w = (struct waker){ buf, 0, false };
	start = ue_buffer_clock_ns();
	ASSERT_EQ(pthread_create(&t, NULL, wake_later, &w), 0);
	ASSERT_EQ(ue_buffer_wait(buf, 0, 4000), 0);
	ASSERT_LT(ue_buffer_clock_ns() - start, UINT64_C(3000000000));
	pthread_join(t, NULL);
	ASSERT_EQ(ue_buffer_consume(buf, 0, &rec, out, sizeof(out)), 8);

	/* ue_buffer_wakeup() ends an endless wait */
	w = (struct waker){ buf, 0, true };
	ASSERT_EQ(pthread_create(&t, NULL, wake_later, &w), 0);
	ASSERT_ERRNO(ue_buffer_wait(buf, -1, -1), EINTR);
	pthread_join(t, NULL);
	ue_buffer_free(buf);
}

/* Concurrent writers: thread t writes records t * PER + i to CPU t % 2, lengths 1..64. */
#define WRITERS 4
#define PER 50000

struct writer {
	struct ue_buffer *buf;
	unsigned int id;
	uint64_t errors;
};

static size_t rec_len(uint64_t n)
{
	return 1 + n % 64;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t i;

	for (i = 0; i < PER; i++) {
		uint64_t n = (uint64_t)w->id * PER + i;

		if (put(w->buf, w->id % 2, n, rec_len(n), 0))
			w->errors++;
	}
	return NULL;
}

struct consumer {
	struct ue_buffer *buf;
	uint8_t *seen;
	uint64_t got;
	uint64_t bad;
	_Atomic bool stop;
};

static void note(uint8_t *seen, const struct ue_buffer_rec *rec, uint64_t *bad)
{
	uint64_t n = (uint64_t)rec->meta.tid;

	if (n >= (uint64_t)WRITERS * PER || seen[n] ||
	    !intact(rec, (unsigned int)((n / PER) % 2), n, rec_len(n)))
		(*bad)++;
	else
		seen[n] = 1;
}

static void *consumer_main(void *arg)
{
	static _Thread_local uint8_t out[KMAX];
	struct consumer *c = arg;
	struct ue_buffer_rec rec;

	for (;;) {
		int ret = ue_buffer_consume(c->buf, -1, &rec, out, sizeof(out));

		if (ret > 0) {
			note(c->seen, &rec, &c->bad);
			c->got++;
		} else if (atomic_load(&c->stop) && !ue_buffer_has_data(c->buf, -1)) {
			return NULL;
		} else {
			ue_buffer_wait(c->buf, -1, 10);
		}
	}
}

/* Writers (@writer_fn, given a struct writer) into rings that hold everything, one consumer. */
static void concurrent_discard(void *(*writer_fn)(void *))
{
	struct ue_buffer *buf;
	struct writer w[WRITERS];
	struct consumer c = { 0 };
	pthread_t t[WRITERS], ct;
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	uint64_t n, left = 0, last_seq[2] = { 0 }, last_ts[2] = { 0 };
	unsigned int i;

	/* big enough for everything: no record may be lost */
	ASSERT_EQ(ue_buffer_new(2, (WRITERS / 2) * PER * slot_bytes(64), false, &buf), 0);
	c.buf = buf;
	c.seen = calloc(WRITERS * PER, 1);
	ASSERT_TRUE(c.seen != NULL);
	ASSERT_EQ(pthread_create(&ct, NULL, consumer_main, &c), 0);
	for (i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){ buf, i, 0 };
		ASSERT_EQ(pthread_create(&t[i], NULL, writer_fn, &w[i]), 0);
	}
	for (i = 0; i < WRITERS; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(w[i].errors, 0);
	}
	atomic_store(&c.stop, true);
	pthread_join(ct, NULL);
	EXPECT_EQ(c.bad, 0);

	/* what the consumer left, in per-CPU order */
	ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
	while (ue_buffer_snap_next(snap, &rec) == 1) {
		note(c.seen, &rec, &c.bad);
		EXPECT_TRUE(rec.seq >= last_seq[rec.meta.cpu]);
		EXPECT_TRUE(rec.meta.ts_ns >= last_ts[rec.meta.cpu]);
		last_seq[rec.meta.cpu] = rec.seq;
		last_ts[rec.meta.cpu] = rec.meta.ts_ns;
		left++;
	}
	ue_buffer_snap_free(snap);
	ASSERT_EQ(c.bad, 0);
	ASSERT_EQ(c.got + left, (uint64_t)WRITERS * PER);
	for (n = 0; n < (uint64_t)WRITERS * PER; n++)
		if (!c.seen[n])
			ASSERT_EQ(n, UINT64_MAX); /* record n is missing */
	for (i = 0; i < 2; i++) {
		struct ue_buffer_stats st = stats_of(buf, i);

		ASSERT_EQ(st.dropped, 0);
		ASSERT_EQ(st.overrun, 0);
		ASSERT_EQ(st.entries + st.read, (WRITERS / 2) * PER);
	}
	free(c.seen);
	ue_buffer_free(buf);
}

TEST(concurrent_writers_discard)
{
	concurrent_discard(writer_main);
}

/* Small rings overwritten by all writers while readers consume and snapshot: the counts add up. */
TEST(concurrent_overwrite)
{
	struct ue_buffer *buf;
	struct writer w[WRITERS];
	struct consumer c = { 0 };
	pthread_t t[WRITERS], ct;
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	uint64_t bad = 0, snaps = 0;
	unsigned int i;

	ASSERT_EQ(ue_buffer_new(2, SMALL, true, &buf), 0);
	c.buf = buf;
	c.seen = calloc(WRITERS * PER, 1);
	ASSERT_TRUE(c.seen != NULL);
	ASSERT_EQ(pthread_create(&ct, NULL, consumer_main, &c), 0);
	for (i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){ buf, i, 0 };
		ASSERT_EQ(pthread_create(&t[i], NULL, writer_main, &w[i]), 0);
	}
	/* snapshots taken during the writes hold intact records */
	while (snaps < 200) {
		uint8_t *seen = calloc(WRITERS * PER, 1);

		ASSERT_EQ(ue_buffer_snapshot(buf, -1, &snap), 0);
		while (ue_buffer_snap_next(snap, &rec) == 1)
			note(seen, &rec, &bad);
		ue_buffer_snap_free(snap);
		free(seen);
		snaps++;
	}
	for (i = 0; i < WRITERS; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(w[i].errors, 0);
	}
	atomic_store(&c.stop, true);
	pthread_join(ct, NULL);
	ASSERT_EQ(bad, 0);
	ASSERT_EQ(c.bad, 0);
	ASSERT_TRUE(c.got > 0);
	for (i = 0; i < 2; i++) {
		struct ue_buffer_stats st = stats_of(buf, i);

		ASSERT_EQ(st.dropped, 0);
		ASSERT_EQ(st.entries + st.overrun + st.read, (WRITERS / 2) * PER);
	}
	free(c.seen);
	ue_buffer_free(buf);
}

/* Record @n of @cpu (as put() makes it) in @w, its bytes in @data. */
static void fill_wrec(struct ue_buffer_wrec *w, uint8_t *data, unsigned int cpu, uint64_t n,
		      size_t len, uint64_t ts)
{
	char comm[48] = { 0 };

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < len && i < KMAX + 8; i++)	/* a longer one is never read */
		data[i] = pattern(cpu, n, i);
	w->meta.ts_ns = ts;
	w->meta.tgid = (int32_t)cpu;
	w->meta.tid = (int32_t)n;
	/* put()'s comm, cut to 15 bytes the same way */
	snprintf(comm, sizeof(comm), "w%u-%llu", cpu, (unsigned long long)n);
	memcpy(w->meta.comm, comm, sizeof(w->meta.comm) - 1);
	w->data = data;
	w->len = len;
}

TEST(write_many_args)
{
	static uint8_t data[3][16];
	struct ue_buffer_wrec w[3];
	struct ue_buffer *buf;
	struct ue_buffer_stats st;

	ASSERT_EQ(ue_buffer_new(2, SMALL, false, &buf), 0);
	for (unsigned int i = 0; i < 3; i++)
		fill_wrec(&w[i], data[i], 0, i, 16, 100 + i);
	ASSERT_ERRNO(ue_buffer_write_many(NULL, 0, w, 3), EINVAL);
	ASSERT_ERRNO(ue_buffer_write_many(buf, 2, w, 3), EINVAL);
	ASSERT_ERRNO(ue_buffer_write_many(buf, 0, NULL, 3), EINVAL);
	ASSERT_ERRNO(ue_buffer_write_many(buf, 0, w, UE_BUFFER_WRITE_MANY_MAX + 1), EINVAL);
	/* one bad record refuses the call before anything is stored */
	w[2].len = 0;
	ASSERT_ERRNO(ue_buffer_write_many(buf, 0, w, 3), EINVAL);
	w[2].len = 16;
	w[1].data = NULL;
	ASSERT_ERRNO(ue_buffer_write_many(buf, 0, w, 3), EINVAL);
	w[1].data = data[1];
	ASSERT_EQ(stats_of(buf, 0).entries, 0);
	ASSERT_EQ(ue_buffer_write_many(buf, 0, NULL, 0), 0);
	ASSERT_EQ(ue_buffer_write_many(buf, 1, w, 0), 0);
	/* recording off: nothing stored, nothing counted, a too-big record included */
	ue_buffer_set_on(buf, false);
	w[0].len = UE_BUFFER_MAX_RECORD + 1;
	ASSERT_ERRNO(ue_buffer_write_many(buf, 0, w, 3), EAGAIN);
	st = stats_of(buf, 0);
	ASSERT_EQ(st.entries + st.dropped + st.too_big + st.overrun, 0);
	ue_buffer_set_on(buf, true);
	/* a too-big record is counted and skipped, the others are stored */
	ASSERT_EQ(ue_buffer_write_many(buf, 0, w, 3), 2);
	st = stats_of(buf, 0);
	ASSERT_EQ(st.entries, 2);
	ASSERT_EQ(st.too_big, 1);
	ASSERT_EQ(stats_of(buf, 1).entries, 0);
	ue_buffer_free(buf);
}

/*
 * ue_buffer_write_many() stores what the same ue_buffer_write() calls store:
 * a sequence of lengths (too big ones included) and timestamps (some older
 * than their predecessor) into a small ring, in discard and in overwrite
 * mode, cut into calls of several sizes; the two buffers must then hold the
 * same records with the same sequence numbers and counters.
 */
TEST(write_many_equals_write)
{
	static const size_t lens[] = { 1, 8, 24, 100, 1000, 3000, KMAX,
				       4 * SMALL, 57, 64, 2000 };	/* larger than the ring */
	static const unsigned int chunks[] = { 1, 2, 7, 64, UE_BUFFER_WRITE_MANY_MAX };
	static uint8_t data[UE_BUFFER_WRITE_MANY_MAX][KMAX + 8];
	static struct ue_buffer_wrec w[UE_BUFFER_WRITE_MANY_MAX];
	const size_t nlens = sizeof(lens) / sizeof(lens[0]);
	const uint64_t total = 1500;

	for (int overwrite = 0; overwrite < 2; overwrite++) {
		for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
			struct ue_buffer *many, *one;
			struct ue_buffer_snap *sm, *so;
			struct ue_buffer_rec rm, ro;
			struct ue_buffer_stats a, b;
			uint64_t n = 0, stored = 0, expect = 0, recs = 0;

			printf("# overwrite %d, calls of %u\n", overwrite, chunks[k]);
			ASSERT_EQ(ue_buffer_new(1, 4 * SMALL, overwrite, &many), 0);
			ASSERT_EQ(ue_buffer_new(1, 4 * SMALL, overwrite, &one), 0);
			while (n < total) {
				unsigned int m = 0;

				for (; m < chunks[k] && n < total; m++, n++) {
					size_t len = lens[(n * 7 + n / 5) % nlens];
					/* every ninth record is older than the one before it */
					uint64_t ts = 1000 + n * 10 - (n % 9 == 8 ? 15 : 0);

					fill_wrec(&w[m], data[m], 0, n, len, ts);
					expect += put(one, 0, n, len, ts) == 0;
				}
				int r = ue_buffer_write_many(many, 0, w, m);

				ASSERT_TRUE(r >= 0);
				stored += (uint64_t)r;
			}
			ASSERT_EQ(stored, expect);
			a = stats_of(many, 0);
			b = stats_of(one, 0);
			ASSERT_EQ(a.entries, b.entries);
			ASSERT_EQ(a.overrun, b.overrun);
			ASSERT_EQ(a.dropped, b.dropped);
			ASSERT_EQ(a.too_big, b.too_big);
			ASSERT_EQ(a.bytes, b.bytes);
			ASSERT_EQ(a.oldest_ts_ns, b.oldest_ts_ns);
			ASSERT_TRUE(overwrite ? a.overrun > 0 : a.dropped > 0);
			ASSERT_TRUE(a.too_big > 0);
			ASSERT_EQ(ue_buffer_snapshot(many, -1, &sm), 0);
			ASSERT_EQ(ue_buffer_snapshot(one, -1, &so), 0);
			while (ue_buffer_snap_next(so, &ro) == 1) {
				ASSERT_EQ(ue_buffer_snap_next(sm, &rm), 1);
				ASSERT_TRUE(intact(&rm, 0, (uint64_t)ro.meta.tid, ro.len));
				ASSERT_EQ(rm.meta.ts_ns, ro.meta.ts_ns);
				ASSERT_EQ(rm.seq, ro.seq);
				recs++;
			}
			ASSERT_EQ(ue_buffer_snap_next(sm, &rm), 0);
			ASSERT_EQ(recs, b.entries);
			ue_buffer_snap_free(sm);
			ue_buffer_snap_free(so);
			ue_buffer_free(many);
			ue_buffer_free(one);
		}
	}
}

/* Zero timestamps take the buffer clock of the call; the ring's order holds. */
TEST(write_many_timestamps)
{
	static uint8_t data[3][8];
	struct ue_buffer_wrec w[3];
	struct ue_buffer *buf;
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	uint64_t before, after, t0;

	ASSERT_EQ(ue_buffer_new(1, SMALL, true, &buf), 0);
	fill_wrec(&w[0], data[0], 0, 0, 8, 0);
	fill_wrec(&w[1], data[1], 0, 1, 8, 5);	/* older than w[0]: raised to it */
	fill_wrec(&w[2], data[2], 0, 2, 8, 0);
	before = ue_buffer_clock_ns();
	ASSERT_EQ(ue_buffer_write_many(buf, 0, w, 3), 3);
	after = ue_buffer_clock_ns();
	ASSERT_EQ(ue_buffer_snapshot(buf, 0, &snap), 0);
	ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
	ASSERT_TRUE(intact(&rec, 0, 0, 8));
	t0 = rec.meta.ts_ns;
	ASSERT_TRUE(t0 >= before && t0 <= after);
	for (uint64_t n = 1; n < 3; n++) {
		ASSERT_EQ(ue_buffer_snap_next(snap, &rec), 1);
		ASSERT_TRUE(intact(&rec, 0, n, 8));
		ASSERT_EQ(rec.meta.ts_ns, t0);
	}
	ue_buffer_snap_free(snap);
	ue_buffer_free(buf);
}

/* Writers 0 and 1 store batches of 1 to 64 records, 2 and 3 single ones, into the same rings. */
static void *batch_writer_main(void *arg)
{
	static _Thread_local uint8_t data[64][64];
	static _Thread_local struct ue_buffer_wrec w[64];
	struct writer *wr = arg;
	uint64_t i = 0;

	if (wr->id >= WRITERS / 2)
		return writer_main(arg);
	while (i < PER) {
		unsigned int m = 0, want = 1 + (unsigned int)(i % 64);

		for (; m < want && i < PER; m++, i++) {
			uint64_t n = (uint64_t)wr->id * PER + i;

			fill_wrec(&w[m], data[m], wr->id % 2, n, rec_len(n), 0);
		}
		if (ue_buffer_write_many(wr->buf, wr->id % 2, w, m) != (int)m)
			wr->errors++;
	}
	return NULL;
}

TEST(concurrent_write_many)
{
	concurrent_discard(batch_writer_main);
}


/* Records of a handed-over channel page: each one's number (its first 4 bytes), in @seen. */
static void chan_page_take(const uint8_t *page, uint32_t *seen, size_t *nseen, uint64_t *missed)
{
	struct ue_rbpage_iter it;
	const void *data;
	size_t len;
	uint64_t ts;

	ASSERT_EQ(ue_rbpage_iter_init(&it, page, UE_CHAN_SUBBUF), 0);
	*missed += it.missed;
	while (ue_rbpage_next(&it, &ts, &data, &len) == 1)
		memcpy(&seen[(*nseen)++], data, 4);
}

/*
 * A reader that attaches to a buffer holding more than its channel takes:
 * it gets all of it, in order, as the tick moves it once it has made room,
 * and the records written meanwhile come after; none is lost.
 */
TEST(first_channel_takes_a_larger_backlog)
{
	enum { OLD = 40000, NEW = 5000, LEN = 96 };
	struct ue_chan_opts o = { .kib_per_cpu = UE_CHAN_MIN_KIB, .flush_ms = 1 };
	struct ue_rec_meta meta = { .tgid = 1, .tid = 1 };
	static uint32_t seen[OLD + NEW];
	struct ue_buffer *buf;
	struct ue_chan *ch;
	uint64_t missed = 0, consumed = 0;
	size_t nseen = 0, maplen;
	unsigned char *map;
	struct ue_chan_hdr *hdr;
	struct ue_chan_cpu *cc;
	int memfd, evfd;
	uint8_t rec[LEN] = { 0 };
	struct iovec iov = { rec, LEN };

	ASSERT_EQ(ue_buffer_new(1, 8u << 20, false, &buf), 0);
	for (uint32_t i = 0; i < OLD; i++) {
		memcpy(rec, &i, 4);
		ASSERT_EQ(ue_buffer_write(buf, 0, &meta, &iov, 1, LEN), 0);
	}
	ASSERT_EQ(ue_chan_new(1, &o, &ch, &memfd, &evfd), 0);
	maplen = ue_chan_bytes(ch);
	map = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	hdr = (struct ue_chan_hdr *)map;
	cc = (struct ue_chan_cpu *)(map + UE_CHAN_CPU_OFF);
	ASSERT_EQ(ue_buffer_attach(buf, ch), 0);
	/* 256 KiB hold about 2,300 of them: the rest stays in the ring for now. */
	EXPECT_TRUE(__atomic_load_n(&cc->produced, __ATOMIC_ACQUIRE) < hdr->nsubbufs);
	for (int round = 0; round < 10000 && nseen < OLD + NEW; round++) {
		uint64_t produced = __atomic_load_n(&cc->produced, __ATOMIC_ACQUIRE);

		for (; consumed < produced; consumed++)
			chan_page_take(map + hdr->data_offset +
					       (consumed % hdr->nsubbufs) * UE_CHAN_SUBBUF,
				       seen, &nseen, &missed);
		__atomic_store_n(&cc->consumed, consumed, __ATOMIC_RELEASE);
		/* Written while the backlog is moved: after it. */
		if (round == 3) {
			for (uint32_t i = OLD; i < OLD + NEW; i++) {
				memcpy(rec, &i, 4);
				ASSERT_EQ(ue_buffer_write(buf, 0, &meta, &iov, 1, LEN), 0);
			}
		}
		ue_buffer_chan_tick(buf, ue_buffer_clock_ns() + 2000000, round > 20 ? ch : NULL);
	}
	EXPECT_EQ(nseen, (size_t)(OLD + NEW));
	EXPECT_EQ(missed, 0);
	for (size_t i = 0; i < nseen; i++) {
		if (seen[i] != i) {
			UE_FAIL_(0, "record %zu is number %u", i, seen[i]);
			break;
		}
	}
	ue_buffer_detach(buf, ch);
	munmap(map, maplen);
	close(memfd);
	close(evfd);
	ue_chan_free(ch);
	ue_buffer_free(buf);
}

UE_TEST_MAIN()
