/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/buffer: the trace buffers of usereventsd, one ring of records per
 * CPU.  Records are opaque bytes (the caller's struct trace_entry and payload)
 * with metadata kept beside them; the module knows nothing of events.  Writers
 * take one mutex per CPU ring; readers copy records out (snapshot) or consume them.
 */
#ifndef UE_DAEMON_BUFFER_H
#define UE_DAEMON_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * Largest record (struct trace_entry included) a ring takes: a 64 KiB
 * ring-buffer page (core/rbpage.h, UE_RB_PAGE_SIZE_MAX) less its 16-byte
 * header and two 32-bit words of event header, so a user event write carries
 * at most 65504 payload bytes after its write_index (UE_MAX_PAYLOAD).  The
 * kernel's 4 KiB pages stop at 4072 (4064 payload bytes): a deliberate
 * difference (docs/compat.md).  A larger write still returns its byte count,
 * as on Linux 6.12 beyond its limit, and records nothing.
 */
#define UE_BUFFER_MAX_RECORD 65512

/* Bytes of metadata stored in front of every record in a ring. */
#define UE_BUFFER_REC_OVERHEAD 40

/*
 * Smallest ring per CPU (requests below are rounded up, as the kernel keeps
 * two pages); a record larger than a whole ring counts as too_big.
 */
#define UE_BUFFER_MIN_BYTES_PER_CPU 8192

/* Most CPUs a buffer covers. */
#define UE_BUFFER_MAX_CPUS 1024

/* Most memory all rings of one buffer may take together (4 GiB); above is -ENOMEM. */
#define UE_BUFFER_MAX_TOTAL_BYTES (UINT64_C(4) << 30)

/* Metadata of one record. */
struct ue_rec_meta {
	uint64_t ts_ns;		/* CLOCK_MONOTONIC ns; 0 on write: the buffer stamps it */
	unsigned int cpu;	/* filled in on read; ignored on write (see @cpu) */
	int32_t tgid;		/* process id */
	int32_t tid;		/* thread id */
	char comm[16];		/* task name, NUL-padded; "" when unknown */
};

/* One record as a reader sees it. */
struct ue_buffer_rec {
	struct ue_rec_meta meta;
	uint64_t seq;		/* per-CPU number: every record ever committed counts */
	uint64_t lost;		/* consume: overwritten on this CPU since its last consume */
	size_t len;		/* bytes at @data */
	const void *data;	/* struct trace_entry + payload, 8-byte aligned */
};

/* Counters of one CPU ring, the numbers behind per_cpu/cpuN/stats. */
struct ue_buffer_stats {
	uint64_t entries;	/* records in the ring now */
	uint64_t overrun;	/* records overwritten (overwrite mode) or dropped by a shrink */
	uint64_t bytes;		/* ring bytes in use: records, metadata, wrap padding */
	uint64_t oldest_ts_ns;	/* timestamp of the oldest record, 0 when empty */
	uint64_t now_ts_ns;	/* the buffer clock when the counters were read */
	uint64_t dropped;	/* records refused because the ring was full (discard mode) */
	uint64_t read;		/* records consumed by readers */
	uint64_t too_big;	/* records refused as larger than UE_BUFFER_MAX_RECORD or the ring */
	uint64_t size;		/* capacity of the ring in bytes */
};

struct ue_buffer;
struct ue_buffer_snap;
struct ue_chan;

/**
 * ue_buffer_clock_ns - the buffer clock: CLOCK_MONOTONIC in nanoseconds
 *
 * The clock closest to the kernel's default "local" trace clock (time since
 * boot, not counting suspend).
 *
 * Return: the current time.
 */
uint64_t ue_buffer_clock_ns(void);

/**
 * ue_buffer_new - allocate a trace buffer
 * @ncpus: number of CPU rings, 1 to UE_BUFFER_MAX_CPUS
 * @bytes_per_cpu: capacity of each ring; rounded up to a multiple of the page
 *                 size and to at least UE_BUFFER_MIN_BYTES_PER_CPU
 * @overwrite: when a ring is full, drop its oldest records (true) or the new
 *             one (false)
 * @ret: on success, the new buffer (release with ue_buffer_free())
 *
 * All memory is mapped and populated here; writes never allocate.  Recording
 * starts on.
 *
 * Return: 0; -EINVAL on a bad argument; -ENOMEM when the rings would exceed
 * UE_BUFFER_MAX_TOTAL_BYTES or cannot be mapped.  *@ret is untouched on failure.
 */
int ue_buffer_new(unsigned int ncpus, size_t bytes_per_cpu, bool overwrite,
		  struct ue_buffer **ret);

/**
 * ue_buffer_free - release a buffer (NULL is ignored)
 * @buf: the buffer; no other thread may use it any more
 */
void ue_buffer_free(struct ue_buffer *buf);

/** ue_buffer_ncpus - number of CPU rings of @buf */
unsigned int ue_buffer_ncpus(const struct ue_buffer *buf);

/**
 * ue_buffer_size - capacity of each CPU ring in bytes, after rounding
 * @buf: the buffer
 *
 * Return: the size every ring has.
 */
size_t ue_buffer_size(struct ue_buffer *buf);

/**
 * ue_buffer_write - append one record to a CPU ring
 * @buf: the buffer
 * @cpu: ring to append to (the writer's CPU), below ue_buffer_ncpus()
 * @meta: timestamp, ids and comm of the record (@meta->cpu is ignored); a
 *        zero timestamp is replaced by ue_buffer_clock_ns().  Timestamps of
 *        one ring never go backwards: one older than the newest already
 *        stored is raised to it.
 * @iov: the record's bytes (struct trace_entry, then the payload)
 * @iovcnt: number of elements of @iov
 * @len: total bytes of @iov, 1 to UE_BUFFER_MAX_RECORD
 *
 * Safe from any number of threads at once.  In overwrite mode the oldest
 * records of the ring make room and count as overrun; in discard mode a
 * record that does not fit is dropped and counted.
 *
 * Return: 0 when recorded; -EAGAIN when recording is off (see
 * ue_buffer_set_on()); -ENOSPC when dropped because the ring is full;
 * -E2BIG when @len exceeds UE_BUFFER_MAX_RECORD or the ring (counted as
 * too_big; the kernel's write succeeds in that case and records nothing); -EINVAL on a bad
 * argument or when @len is not the sum of @iov.
 */
int ue_buffer_write(struct ue_buffer *buf, unsigned int cpu, const struct ue_rec_meta *meta,
		    const struct iovec *iov, int iovcnt, size_t len);

/* Most records one ue_buffer_write_many() call takes: a bound on how long it holds a ring. */
#define UE_BUFFER_WRITE_MANY_MAX 1024

/* One record of ue_buffer_write_many(). */
struct ue_buffer_wrec {
	struct ue_rec_meta meta;	/* as for ue_buffer_write() */
	const void *data;		/* struct trace_entry, then the payload */
	size_t len;			/* bytes at @data, at least 1 */
};

/* Records built in place, under a CPU's lock: in the one reader's page, or in the ring. */
struct ue_buffer_direct {
	struct ue_buffer *buf;
	struct ue_chan *ch;	/* the one reader's channel; NULL: the CPU's ring (no reader) */
	unsigned int cpu;
	unsigned int n;		/* records taken (lost ones included): the writer counts */
	unsigned int dropped;	/* of them, the ring's (full, discard mode) */
	bool overwrite;		/* the ring's mode when the run began */
	bool active;		/* between a true ue_buffer_direct_begin() and ue_buffer_direct_end() */
};

/**
 * ue_buffer_direct_begin - take @cpu's lock to build records in place
 * @buf: the buffer
 * @cpu: the ring
 * @d: the run, filled in
 *
 * For a writer that would copy each record twice (its own copy, checked,
 * then into the buffer): when exactly one consumer channel (@d->ch) takes
 * the records and @cpu's backlog is in it, or none does (the CPU's ring
 * keeps them), a record is reserved in place (ue_buffer_direct_reserve(),
 * or ue_chan_reserve() on @d->ch), written and checked there, and
 * committed (ue_buffer_direct_commit(), ue_chan_commit()) or dropped by
 * not committing; the writer adds each record taken to @d->n, a lost one
 * (NULL) too.  Nothing that takes another lock runs in between: no
 * trigger, no filter (the writer takes the plain events only,
 * ue_commit_plain()).  At most UE_BUFFER_WRITE_MANY_MAX records a run, as
 * ue_buffer_write_many().
 *
 * Return: true, @cpu's lock held until ue_buffer_direct_end(); false when
 * the buffer is off or the records go elsewhere (nothing held).
 */
bool ue_buffer_direct_begin(struct ue_buffer *buf, unsigned int cpu, struct ue_buffer_direct *d);

/**
 * ue_buffer_direct_reserve - room for one record of @d's CPU, to be built in place
 * @d: the run
 * @ts: timestamp, ns; raised to the CPU's last when older
 * @meta: its process, thread and name (the ring's slot keeps them)
 * @len: the record's bytes (struct trace_entry + payload)
 *
 * Return: where its @len bytes go; NULL when lost (the channel counts it;
 * the ring's, full in discard mode, also in @d->dropped).
 */
uint8_t *ue_buffer_direct_reserve(struct ue_buffer_direct *d, uint64_t ts,
				  const struct ue_rec_meta *meta, size_t len);

/** ue_buffer_direct_commit - the record of the last ue_buffer_direct_reserve() is written: stored */
void ue_buffer_direct_commit(struct ue_buffer_direct *d);

/** ue_buffer_direct_end - release the CPU's lock (the ring's records published); returns @d->n (0 when not active) */
unsigned int ue_buffer_direct_end(struct ue_buffer_direct *d);

/**
 * ue_buffer_write_many - append records to one CPU ring, taking its lock once
 * @buf: the buffer
 * @cpu: ring to append to, below ue_buffer_ncpus()
 * @recs: the records, stored in this order
 * @n: number of @recs, at most UE_BUFFER_WRITE_MANY_MAX
 *
 * Each record is treated as ue_buffer_write() treats it: a zero timestamp
 * becomes the buffer clock (read once for the call), timestamps are raised
 * to keep the ring in order, a record over UE_BUFFER_MAX_RECORD counts as
 * too_big, one that finds a full ring in discard mode counts as dropped (a
 * later, smaller one may still fit), overwrite mode makes room.  Readers and
 * other writers of the ring wait for the whole call; waiters are woken once.
 *
 * Return: the number of records stored; -EAGAIN when recording is off (none
 * is stored or counted); -EINVAL on a bad argument (a record of length 0,
 * @n above the limit), before anything is stored.
 */
int ue_buffer_write_many(struct ue_buffer *buf, unsigned int cpu, const struct ue_buffer_wrec *recs,
			 unsigned int n);

/**
 * ue_buffer_consume - take the oldest record out of the buffer (trace_pipe)
 * @buf: the buffer
 * @cpu: a ring, or -1 for the oldest record of all rings (by timestamp, then CPU)
 * @ret: the record; @ret->data points into @data
 * @data: where to copy the record's bytes, 8-byte aligned
 * @size: bytes at @data; UE_BUFFER_MAX_RECORD always suffices
 *
 * Any number of readers may consume at once; each record goes to one of them.
 * @ret->lost tells how many records of that CPU were overwritten since the
 * previous consume from it (the kernel's "CPU:N [LOST n EVENTS]"), or
 * UE_BUFFER_LOST_UNKNOWN after ue_buffer_lost_unknown() ("[LOST EVENTS]").
 *
 * Return: the record's length; -EAGAIN when there is nothing to consume;
 * -EMSGSIZE when @size is too small (the record stays); -EINVAL on a bad
 * argument.  *@ret is untouched on failure.
 */
int ue_buffer_consume(struct ue_buffer *buf, int cpu, struct ue_buffer_rec *ret, void *data,
		      size_t size);

#define UE_BUFFER_LOST_UNKNOWN UINT64_MAX
/*
 * Records of every CPU were lost and nobody knows how many (a daemon that
 * crashed took its buffer): each CPU's next consume says so.
 */
void ue_buffer_lost_unknown(struct ue_buffer *buf);

/**
 * ue_buffer_has_data - whether a consume would find a record
 * @buf: the buffer
 * @cpu: a ring, or -1 for any
 *
 * Lock-free; meant for poll().
 *
 * Return: true when @cpu (any ring for -1) holds a record.
 */
bool ue_buffer_has_data(struct ue_buffer *buf, int cpu);

/**
 * ue_buffer_wait - sleep until a ring holds a record
 * @buf: the buffer
 * @cpu: a ring, or -1 for any
 * @timeout_ms: most milliseconds to wait; negative waits for ever
 *
 * Writers only pay for a wake-up while somebody waits.  Another thread may
 * consume the record before the caller does: consume, then wait again.
 *
 * Return: 0 when there is data; -ETIMEDOUT; -EINTR when ue_buffer_wakeup()
 * was called during the wait; -EINVAL on a bad @cpu.
 */
int ue_buffer_wait(struct ue_buffer *buf, int cpu, int timeout_ms);

/**
 * ue_buffer_wakeup - make every current ue_buffer_wait() return -EINTR
 * @buf: the buffer
 *
 * For interrupted requests and shutdown.
 */
void ue_buffer_wakeup(struct ue_buffer *buf);

/**
 * ue_buffer_snapshot - copy the records of the buffer for reading (trace)
 * @buf: the buffer
 * @cpu: a ring, or -1 for all rings
 * @ret: on success, the copy (release with ue_buffer_snap_free())
 *
 * Each ring is copied under its lock, one after the other; nothing is
 * consumed and writers continue meanwhile.  Records come out of
 * ue_buffer_snap_next() merged by timestamp (then CPU).
 *
 * Return: 0; -ENOMEM; -EINVAL on a bad argument.  *@ret is untouched on failure.
 */
int ue_buffer_snapshot(struct ue_buffer *buf, int cpu, struct ue_buffer_snap **ret);

/**
 * ue_buffer_snap_next - the next record of a snapshot
 * @snap: the snapshot
 * @ret: the record; @ret->data stays valid until ue_buffer_snap_free()
 *
 * Return: 1 and a record; 0 at the end (and on every later call).
 */
int ue_buffer_snap_next(struct ue_buffer_snap *snap, struct ue_buffer_rec *ret);

/** ue_buffer_snap_rewind - start ue_buffer_snap_next() over from the first record */
void ue_buffer_snap_rewind(struct ue_buffer_snap *snap);

/**
 * ue_buffer_snap_stats - counters of one ring when the snapshot copied it
 * @snap: the snapshot
 * @cpu: a ring the snapshot covers
 * @ret: the counters (the trace header's entries-in-buffer/entries-written)
 *
 * Return: 0; -EINVAL when @snap does not cover @cpu.
 */
int ue_buffer_snap_stats(const struct ue_buffer_snap *snap, unsigned int cpu,
			 struct ue_buffer_stats *ret);

/** ue_buffer_snap_free - release a snapshot (NULL is ignored) */
void ue_buffer_snap_free(struct ue_buffer_snap *snap);

/**
 * ue_buffer_stats - counters of one ring (per_cpu/cpuN/stats)
 * @buf: the buffer
 * @cpu: the ring
 * @ret: the counters
 *
 * Return: 0; -EINVAL on a bad @cpu.
 */
int ue_buffer_stats(struct ue_buffer *buf, unsigned int cpu, struct ue_buffer_stats *ret);

/**
 * ue_buffer_reset - empty every ring and zero its counters (a write to trace)
 * @buf: the buffer
 */
void ue_buffer_reset(struct ue_buffer *buf);

/**
 * ue_buffer_reset_cpu - empty one ring and zero its counters
 * @buf: the buffer
 * @cpu: the ring
 *
 * Return: 0; -EINVAL on a bad @cpu.
 */
int ue_buffer_reset_cpu(struct ue_buffer *buf, unsigned int cpu);

/**
 * ue_buffer_resize - change the capacity of every ring (buffer_size_kb)
 * @buf: the buffer
 * @bytes_per_cpu: new capacity, rounded as by ue_buffer_new()
 *
 * Like the kernel, records are kept: growing keeps all, shrinking keeps the
 * newest that fit and counts the others as overrun.  New rings are mapped
 * before any is changed, so a failure leaves the buffer as it was.
 *
 * Return: 0; -EINVAL when @bytes_per_cpu is 0; -ENOMEM as ue_buffer_new().
 */
int ue_buffer_resize(struct ue_buffer *buf, size_t bytes_per_cpu);

/**
 * ue_buffer_set_overwrite - choose overwrite (true) or discard mode (options/overwrite)
 * @buf: the buffer
 * @overwrite: the mode; records already stored are kept
 */
void ue_buffer_set_overwrite(struct ue_buffer *buf, bool overwrite);

/** ue_buffer_get_overwrite - whether @buf is in overwrite mode */
bool ue_buffer_get_overwrite(struct ue_buffer *buf);

/**
 * ue_buffer_set_on - start or stop recording (tracing_on)
 * @buf: the buffer
 * @on: false makes ue_buffer_write() return -EAGAIN without storing or counting
 */
void ue_buffer_set_on(struct ue_buffer *buf, bool on);

/** ue_buffer_get_on - whether @buf records writes */
bool ue_buffer_get_on(struct ue_buffer *buf);

/* The consumer channels attached to the buffer: channel.h. */

#endif /* UE_DAEMON_BUFFER_H */
