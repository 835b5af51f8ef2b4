/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One request and its reply on the native path's socket, shared by
 * libuserevents (native.c) and the interposer (preload-write.c).
 */
#ifndef UE_LIB_NATIVE_MSG_H
#define UE_LIB_NATIVE_MSG_H

#include <sched.h>
#include <stdbool.h>
#include <sys/rseq.h>
#include <time.h>

#include "native-proto.h"
#include "tscclock.h"

/*
 * Whether a ring the daemon just made is stamped with the CPU's counter
 * (UE_RING_CLOCK_TSC, core/tscclock.h); *@ret_stale: @stale_ns in the
 * stamps' unit, for the heartbeat check.  Read once, when it is mapped.
 */
static inline bool ue_ring_counter(const struct ue_native_ring *h, uint64_t stale_ns,
				   uint64_t *ret_stale)
{
	bool counter = UE_TSC_AVAILABLE && h->clock == UE_RING_CLOCK_TSC && h->tsc_per_ms;

	*ret_stale = counter ? (uint64_t)h->tsc_per_ms * (stale_ns / 1000000) : stale_ns;
	return counter;
}

/*
 * A record's stamp now: the counter on a counter-stamped ring (the daemon
 * turns it into the clock), else CLOCK_MONOTONIC; *@ret_beat: the daemon's
 * heartbeat in the same unit.  Async-signal-safe.
 */
static inline uint64_t ue_ring_stamp(const struct ue_native_ring *h, bool counter,
				     uint64_t *ret_beat)
{
	struct timespec ts;

	if (counter) {
		*ret_beat = __atomic_load_n(&h->heartbeat_tsc, __ATOMIC_RELAXED);
		return ue_tsc_read();
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*ret_beat = __atomic_load_n(&h->heartbeat_ns, __ATOMIC_RELAXED);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The CPU this thread runs on, for a record's cpu: the kernel's rseq area
 * that glibc registered for each thread (one load, ~0.3 ns), or
 * sched_getcpu() (~3 ns here, a tenth of a native write) where it did not
 * (GLIBC_TUNABLES=glibc.pthread.rseq=0, an old kernel).  Async-signal-safe.
 */
static inline unsigned int ue_this_cpu(void)
{
	if (__rseq_size) {
		const struct rseq *rs =
			(const struct rseq *)((const char *)__builtin_thread_pointer() + __rseq_offset);
		int32_t cpu = (int32_t)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);

		if (cpu >= 0)
			return (unsigned int)cpu;
	}
	return (unsigned int)sched_getcpu();
}

/**
 * ue_native_xchg - send @m on @sock and read the daemon's reply into @m
 * @sock: the connected SOCK_SEQPACKET socket
 * @m: the request; the reply on return (its status in m->status)
 * @ret_fd: NULL, or where a descriptor sent with the reply goes if *@ret_fd
 *          is still negative (others are closed)
 *
 * Async-signal-safe (the interposer calls it from any context).
 *
 * Return: 0 with the reply in @m; -EPIPE when the daemon is gone or answered
 * with something that is not a reply of this protocol.
 */
int ue_native_xchg(int sock, struct ue_native_msg *m, int *ret_fd);

/*
 * A drain whose heartbeat is this old has stopped passing over the rings (a
 * stopped daemon): a full ring does not wait for it.  It passes at least
 * every 20 ms and rewrites the heartbeat when 100 ms old.
 */
#define UE_RING_WAIT_STALE_NS 250000000ull

/**
 * ue_native_ring_wait - a write found its ring full: wait for the drain
 * @h: the ring's header
 * @head: the producer's head
 * @need: bytes the write needs from @head (its padding included)
 *
 * Waits while the daemon's full_wait_ns allows (yielding, then sleeping
 * 20 us at a time), so a producer faster than the drain is held back to its
 * pace rather than losing records; not at all when the drain's heartbeat is
 * UE_RING_WAIT_STALE_NS old.  Async-signal-safe.
 *
 * Return: the daemon's tail as last read: room enough when
 * size - (@head - tail) >= @need, else the wait ran out (or the ring died).
 */
uint64_t ue_native_ring_wait(struct ue_native_ring *h, uint64_t head, uint64_t need);

#endif /* UE_LIB_NATIVE_MSG_H */
