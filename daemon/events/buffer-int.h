/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * buffer-int: the trace buffer's rings as buffer.c (records in and out,
 * snapshots, resize) and channel.c (the consumer channels attached to the
 * buffer, fed under the same ring locks) both see them; nothing else
 * includes it.
 */
#ifndef UE_DAEMON_BUFFER_INT_H
#define UE_DAEMON_BUFFER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "buffer.h"
#include "channel.h"
#include "lock.h"

/* slot.len of the padding that fills a ring from its tail to its end. */
#define SLOT_PAD UINT32_MAX

struct slot {
	uint32_t len;
	int32_t tgid;
	int32_t tid;
	uint32_t reserved;
	uint64_t ts_ns;
	char comm[16];
};

_Static_assert(sizeof(struct slot) == UE_BUFFER_REC_OVERHEAD, "slot header size");
_Static_assert(UE_BUFFER_MIN_BYTES_PER_CPU >= UE_BUFFER_REC_OVERHEAD + 4072 + 8,
	       "the smallest ring must hold the kernel's largest record");

struct ring {
	struct ue_mutex lock;
	unsigned char *data;
	size_t size;
	size_t head;		/* offset of the oldest slot */
	size_t tail;		/* offset of the next slot */
	size_t used;		/* bytes from head to tail, padding included */
	/* Read without the lock by has_data(); written under it. */
	_Atomic uint64_t head_seq;	/* seq of the oldest record */
	_Atomic uint64_t tail_seq;	/* seq the next record gets */
	uint64_t last_ts;
	uint64_t overrun;
	uint64_t dropped;
	uint64_t read;
	uint64_t last_overrun;	/* overrun at the previous consume */
	bool lost_unknown;	/* some were lost before the next consume, count unknown */
	_Atomic uint64_t too_big;
	/*
	 * What the ring held when the first channel attached, not yet moved
	 * into it: records of this CPU keep coming here, behind it, until the
	 * channel has taken the lot (backlog_move()).
	 */
	bool backlog;
	/* ring_reserve()'s slot, stored by ring_commit(): its bytes and time */
	size_t pending;
	uint64_t pending_ts;
} __attribute__((aligned(64)));

/*
 * A ring's lock is on every record's path: its order checks run only in
 * debug and sanitizer builds (UE_LOCKDEP_HOT, lock.h), not in the
 * debugoptimized build that make bench measures.
 */
static inline void ring_lock(struct ring *r)
{
	ue_mutex_lock_hot(&r->lock);
}

static inline void ring_unlock(struct ring *r)
{
	ue_mutex_unlock_hot(&r->lock);
}

struct ue_buffer {
	unsigned int ncpus;
	_Atomic size_t size;
	atomic_bool overwrite;
	atomic_bool on;
	atomic_bool wake_needed;
	struct ue_mutex resize_lock;
	struct ue_mutex wait_lock;
	pthread_cond_t wait_cond;
	uint64_t wake_gen;	/* under wait_lock */
	struct ring *rings;
	/*
	 * Consumer channels: changed under chan_lock and every ring's lock,
	 * so a writer holding its ring's lock reads them as they are.
	 */
	struct ue_mutex chan_lock;
	unsigned int nchans;
	atomic_uint nblocking;		/* channels in blocking mode */
	struct ue_chan *chans[UE_BUFFER_MAX_CHANNELS];
	uint64_t chan_since[UE_BUFFER_MAX_CHANNELS];	/* when each attached (buffer clock) */
	struct ue_chan *backlog_chan;	/* the channel the rings' backlog is for */
	/* Their shared memory, counted before it is made (ue_buffer_chan_open()). */
	uint64_t chan_bytes;
};

static inline size_t slot_size(uint32_t len)
{
	return sizeof(struct slot) + (((size_t)len + 7) & ~(size_t)7);
}

/* Bytes of the slot at the head: a record, or the padding up to the end. */
static inline size_t head_step(const struct ring *r, bool *is_record)
{
	const struct slot *s = (const struct slot *)(r->data + r->head);

	*is_record = s->len != SLOT_PAD;
	return *is_record ? slot_size(s->len) : r->size - r->head;
}

static inline void head_advance(struct ring *r, size_t n)
{
	r->used -= n;
	r->head += n;
	if (r->head == r->size)
		r->head = 0;
}

/* Removes the oldest slot; returns whether it was a record. */
static inline bool drop_head(struct ring *r)
{
	bool is_record;

	head_advance(r, head_step(r, &is_record));
	if (is_record)
		atomic_store_explicit(&r->head_seq, atomic_load_explicit(&r->head_seq,
				      memory_order_relaxed) + 1, memory_order_release);
	return is_record;
}

/* The oldest record, padding before it removed; NULL when the ring is empty. */
static inline struct slot *peek_head(struct ring *r)
{
	while (r->used) {
		struct slot *s = (struct slot *)(r->data + r->head);

		if (s->len != SLOT_PAD)
			return s;
		drop_head(r);
	}
	return NULL;
}

#endif /* UE_DAEMON_BUFFER_INT_H */
