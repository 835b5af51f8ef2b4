// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daemon/buffer: per-CPU rings of trace records.  Each ring is one mapping
 * holding 8-byte aligned slots (metadata header, then the record); a slot
 * never wraps, the end of the mapping is filled with a padding slot instead.
 * One mutex per ring; readers copy records out under it.  While consumer
 * channels are attached a writer hands its records to them instead, under
 * the same lock; attaching them and their backlog are channel.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "buffer-int.h"
#include "channel.h"

/* Retries of a merged consume that lost its chosen record to a writer. */
#define CONSUME_RETRIES 8

struct snap_ring {
	unsigned int cpu;
	unsigned char *mem;
	size_t len;
	size_t wrap_at;		/* where the copy of the ring's start begins */
	size_t pos;
	uint64_t first_seq;
	uint64_t seq;
	struct ue_buffer_stats stats;
};

struct ue_buffer_snap {
	unsigned int nrings;
	struct snap_ring rings[];
};

uint64_t ue_buffer_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int round_size(size_t bytes, size_t *ret)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!bytes)
		return -EINVAL;
	if (bytes > UE_BUFFER_MAX_TOTAL_BYTES)
		return -ENOMEM;
	if (bytes < UE_BUFFER_MIN_BYTES_PER_CPU)
		bytes = UE_BUFFER_MIN_BYTES_PER_CPU;
	*ret = (bytes + page - 1) / page * page;
	return 0;
}

static unsigned char *map_ring(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Sequentially consistent: ue_buffer_wait() relies on it against notify(). */
static bool ring_has_data(struct ring *r)
{
	return atomic_load(&r->tail_seq) != atomic_load(&r->head_seq);
}

static void ring_stats(struct ring *r, struct ue_buffer_stats *st)
{
	const struct slot *s = NULL;

	memset(st, 0, sizeof(*st));
	st->entries = atomic_load_explicit(&r->tail_seq, memory_order_relaxed) -
		      atomic_load_explicit(&r->head_seq, memory_order_relaxed);
	st->overrun = r->overrun;
	st->bytes = r->used;
	if (st->entries) {
		s = (const struct slot *)(r->data + r->head);
		/* Padding at the head means the oldest record starts the mapping. */
		if (s->len == SLOT_PAD)
			s = (const struct slot *)r->data;
		st->oldest_ts_ns = s->ts_ns;
	}
	st->now_ts_ns = ue_buffer_clock_ns();
	st->dropped = r->dropped;
	st->read = r->read;
	st->too_big = atomic_load_explicit(&r->too_big, memory_order_relaxed);
	st->size = r->size;
}

int ue_buffer_new(unsigned int ncpus, size_t bytes_per_cpu, bool overwrite,
		  struct ue_buffer **ret)
{
	struct ue_buffer *buf;
	pthread_condattr_t cattr;
	size_t size;
	unsigned int i;
	int err;

	if (!ret || !ncpus || ncpus > UE_BUFFER_MAX_CPUS)
		return -EINVAL;
	err = round_size(bytes_per_cpu, &size);
	if (err)
		return err;
	if ((uint64_t)ncpus * size > UE_BUFFER_MAX_TOTAL_BYTES)
		return -ENOMEM;

	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	if (posix_memalign((void **)&buf->rings, _Alignof(struct ring),
			   ncpus * sizeof(struct ring))) {
		free(buf);
		return -ENOMEM;
	}
	memset(buf->rings, 0, ncpus * sizeof(struct ring));
	for (i = 0; i < ncpus; i++) {
		buf->rings[i].data = map_ring(size);
		if (!buf->rings[i].data)
			break;
		buf->rings[i].size = size;
		ue_mutex_init(&buf->rings[i].lock, UE_LOCK_BUF_RING);
	}
	if (i < ncpus) {
		while (i--) {
			ue_mutex_destroy(&buf->rings[i].lock);
			munmap(buf->rings[i].data, size);
		}
		free(buf->rings);
		free(buf);
		return -ENOMEM;
	}

	buf->ncpus = ncpus;
	atomic_init(&buf->size, size);
	atomic_init(&buf->overwrite, overwrite);
	atomic_init(&buf->on, true);
	atomic_init(&buf->wake_needed, false);
	ue_mutex_init(&buf->resize_lock, UE_LOCK_BUF_RESIZE);
	ue_mutex_init(&buf->chan_lock, UE_LOCK_BUF_CHANNELS);
	atomic_init(&buf->nblocking, 0);
	ue_mutex_init(&buf->wait_lock, UE_LOCK_BUF_WAIT);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&buf->wait_cond, &cattr);
	pthread_condattr_destroy(&cattr);
	*ret = buf;
	return 0;
}

void ue_buffer_free(struct ue_buffer *buf)
{
	unsigned int i;

	if (!buf)
		return;
	for (i = 0; i < buf->ncpus; i++) {
		ue_mutex_destroy(&buf->rings[i].lock);
		munmap(buf->rings[i].data, buf->rings[i].size);
	}
	pthread_cond_destroy(&buf->wait_cond);
	ue_mutex_destroy(&buf->wait_lock);
	ue_mutex_destroy(&buf->resize_lock);
	ue_mutex_destroy(&buf->chan_lock);
	free(buf->rings);
	free(buf);
}

unsigned int ue_buffer_ncpus(const struct ue_buffer *buf)
{
	return buf->ncpus;
}

size_t ue_buffer_size(struct ue_buffer *buf)
{
	return atomic_load_explicit(&buf->size, memory_order_relaxed);
}

/*
 * Makes room for a slot of @need bytes at the tail, padding to the end of
 * the mapping when the slot would cross it.  Called with the ring locked.
 */
static int make_room(struct ring *r, size_t need, bool overwrite)
{
	size_t pad;

	/* An empty ring restarts at offset 0, so a large record never needs padding there. */
	if (!r->used)
		r->head = r->tail = 0;
	for (;;) {
		pad = r->tail + need > r->size ? r->size - r->tail : 0;
		if (r->used + pad + need <= r->size)
			break;
		if (!overwrite)
			return -ENOSPC;
		if (drop_head(r))
			r->overrun++;
		if (!r->used)
			r->head = r->tail = 0;
	}
	if (pad) {
		((struct slot *)(r->data + r->tail))->len = SLOT_PAD;
		r->used += pad;
		r->tail = 0;
	}
	return 0;
}

/*
 * Wakes waiters after a record was committed.  The commit stored tail_seq and
 * a waiter stores wake_needed, each before loading the other's variable, all
 * sequentially consistent: either the waiter sees the record or we see it wait.
 */
static void notify(struct ue_buffer *buf)
{
	if (!atomic_load(&buf->wake_needed) || !atomic_exchange(&buf->wake_needed, false))
		return;
	ue_mutex_lock(&buf->wait_lock);
	pthread_cond_broadcast(&buf->wait_cond);
	ue_mutex_unlock(&buf->wait_lock);
}

/*
 * Room for one record of @len bytes (1 to UE_BUFFER_MAX_RECORD) at the
 * tail, its slot header and the alignment bytes after it written: where its
 * @len bytes go, or NULL (*@err: -E2BIG, or -ENOSPC counted as dropped).
 * Nothing is stored until ring_commit(); as in the kernel's reserve, room
 * made by overwriting stays made.  Called with the ring locked.
 */
static unsigned char *ring_reserve(struct ring *r, bool overwrite, uint64_t ts,
				   const struct ue_rec_meta *meta, size_t len, int *err)
{
	size_t need = slot_size((uint32_t)len);
	unsigned char *dst;
	struct slot *s;

	/* Only in a ring made smaller than the default (buffer_size_kb): no room can be made. */
	if (__builtin_expect(need > r->size, 0)) {
		atomic_fetch_add_explicit(&r->too_big, 1, memory_order_relaxed);
		*err = -E2BIG;
		return NULL;
	}
	if (make_room(r, need, overwrite)) {
		r->dropped++;
		*err = -ENOSPC;
		return NULL;
	}
	s = (struct slot *)(r->data + r->tail);
	if (ts < r->last_ts)
		ts = r->last_ts;
	s->len = (uint32_t)len;
	s->tgid = meta->tgid;
	s->tid = meta->tid;
	s->reserved = 0;
	s->ts_ns = ts;
	memcpy(s->comm, meta->comm, sizeof(s->comm));
	dst = (unsigned char *)(s + 1);
	/* Clear the alignment bytes so no stale data ever reaches a reader. */
	memset(dst + len, 0, need - sizeof(*s) - len);
	r->pending = need;
	r->pending_ts = ts;
	return dst;
}

/* The record of the last ring_reserve() is written: stored (ring_publish() shows it). */
static void ring_commit(struct ring *r)
{
	r->last_ts = r->pending_ts;
	r->tail += r->pending;
	if (r->tail == r->size)
		r->tail = 0;
	r->used += r->pending;
	r->pending = 0;
	atomic_store_explicit(&r->tail_seq,
			      atomic_load_explicit(&r->tail_seq, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * Stores one record of @len bytes (1 to UE_BUFFER_MAX_RECORD) at the tail,
 * or counts it as dropped.  Called with the ring locked; ring_publish()
 * makes what it stored visible to lock-free readers.
 */
static int ring_append(struct ring *r, bool overwrite, uint64_t ts, const struct ue_rec_meta *meta,
		       const struct iovec *iov, int iovcnt, size_t len)
{
	int err = 0;
	unsigned char *dst = ring_reserve(r, overwrite, ts, meta, len, &err);

	if (!dst)
		return err;
	for (int i = 0; i < iovcnt; i++) {
		if (!iov[i].iov_len)
			continue;
		memcpy(dst, iov[i].iov_base, iov[i].iov_len);
		dst += iov[i].iov_len;
	}
	ring_commit(r);
	return 0;
}

/*
 * The sequentially consistent store notify() pairs with (see there), once
 * per call of a writer rather than once per record.  Called with the ring locked.
 */
static void ring_publish(struct ring *r)
{
	atomic_store(&r->tail_seq, atomic_load_explicit(&r->tail_seq, memory_order_relaxed));
}

/*
 * A record into the ring, with its lock held.  Behind a channel's backlog a
 * record the ring cannot keep (full, or overwriting its oldest) is lost to
 * the channels: counted and marked there, as the kernel marks a reader's.
 */
static int ring_store(struct ue_buffer *buf, struct ring *r, unsigned int cpu, uint64_t ts,
		      const struct ue_rec_meta *meta, const struct iovec *iov, int iovcnt,
		      size_t len)
{
	uint64_t overrun = r->overrun;
	int err = ring_append(r, atomic_load_explicit(&buf->overwrite, memory_order_relaxed), ts,
			      meta, iov, iovcnt, len);

	if (r->backlog) {
		uint64_t lost = r->overrun - overrun + (err ? 1 : 0);

		for (unsigned int k = 0; lost && k < buf->nchans; k++)
			ue_chan_lost(buf->chans[k], cpu, lost);
	}
	return err;
}

int ue_buffer_write(struct ue_buffer *buf, unsigned int cpu, const struct ue_rec_meta *meta,
		    const struct iovec *iov, int iovcnt, size_t len)
{
	struct ring *r;
	size_t sum = 0;
	uint64_t ts;
	int i, err;

	if (!buf || cpu >= buf->ncpus || !meta || iovcnt < 0 || (!iov && iovcnt) || !len)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > len - sum)
			return -EINVAL;
		sum += iov[i].iov_len;
	}
	if (sum != len)
		return -EINVAL;
	if (!atomic_load_explicit(&buf->on, memory_order_relaxed))
		return -EAGAIN;
	r = &buf->rings[cpu];
	if (len > UE_BUFFER_MAX_RECORD) {
		atomic_fetch_add_explicit(&r->too_big, 1, memory_order_relaxed);
		return -E2BIG;
	}
	/* Read the clock before locking; ring_append()'s clamp keeps the ring's order anyway. */
	ts = meta->ts_ns ? meta->ts_ns : ue_buffer_clock_ns();

	ring_lock(r);
	if (buf->nchans && !r->backlog) {
		/* Read at once by the channels' readers, as a reader of trace_pipe_raw consumes. */
		for (unsigned int k = 0; k < buf->nchans; k++)
			ue_chan_append(buf->chans[k], cpu, ts, iov, iovcnt, len);
		ring_unlock(r);
		return 0;
	}
	err = ring_store(buf, r, cpu, ts, meta, iov, iovcnt, len);
	if (!err)
		ring_publish(r);
	ring_unlock(r);
	if (err)
		return err;
	notify(buf);
	return 0;
}

int ue_buffer_write_many(struct ue_buffer *buf, unsigned int cpu, const struct ue_buffer_wrec *recs,
			 unsigned int n)
{
	uint64_t now = 0;
	unsigned int i, stored = 0, taken = 0;
	struct ring *r;

	if (!buf || cpu >= buf->ncpus || (!recs && n) || n > UE_BUFFER_WRITE_MANY_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!recs[i].len || !recs[i].data)
			return -EINVAL;
	if (!atomic_load_explicit(&buf->on, memory_order_relaxed))
		return -EAGAIN;
	r = &buf->rings[cpu];

	ring_lock(r);
	for (i = 0; i < n; i++) {
		const struct ue_buffer_wrec *w = &recs[i];
		struct iovec iov = { (void *)w->data, w->len };

		if (w->len > UE_BUFFER_MAX_RECORD) {
			atomic_fetch_add_explicit(&r->too_big, 1, memory_order_relaxed);
			continue;
		}
		/* Read under the lock, unlike ue_buffer_write(): the clamp keeps the order anyway. */
		if (!w->meta.ts_ns && !now)
			now = ue_buffer_clock_ns();
		if (buf->nchans && !r->backlog) {
			for (unsigned int k = 0; k < buf->nchans; k++)
				ue_chan_append(buf->chans[k], cpu,
					       w->meta.ts_ns ? w->meta.ts_ns : now, &iov, 1, w->len);
			taken++;
		} else if (ring_store(buf, r, cpu, w->meta.ts_ns ? w->meta.ts_ns : now, &w->meta,
				      &iov, 1, w->len) == 0) {
			stored++;
		}
	}
	if (stored)
		ring_publish(r);
	ring_unlock(r);
	if (stored)
		notify(buf);
	return (int)(stored + taken);
}

bool ue_buffer_direct_begin(struct ue_buffer *buf, unsigned int cpu, struct ue_buffer_direct *d)
{
	struct ring *r;

	d->active = false;
	if (cpu >= buf->ncpus || !atomic_load_explicit(&buf->on, memory_order_relaxed))
		return false;
	r = &buf->rings[cpu];
	ring_lock(r);
	/* One reader, its CPU's backlog moved, or none: the records go nowhere else. */
	if (buf->nchans > 1 || r->backlog) {
		ring_unlock(r);
		return false;
	}
	d->buf = buf;
	d->ch = buf->nchans ? buf->chans[0] : NULL;
	d->cpu = cpu;
	d->n = 0;
	d->dropped = 0;
	d->overwrite = atomic_load_explicit(&buf->overwrite, memory_order_relaxed);
	d->active = true;
	return true;
}

uint8_t *ue_buffer_direct_reserve(struct ue_buffer_direct *d, uint64_t ts,
				  const struct ue_rec_meta *meta, size_t len)
{
	uint8_t *at;
	int err;

	if (d->ch)
		return ue_chan_reserve(d->ch, d->cpu, ts, len);
	at = ring_reserve(&d->buf->rings[d->cpu], d->overwrite, ts, meta, len, &err);
	if (!at)
		d->dropped++;
	return at;
}

void ue_buffer_direct_commit(struct ue_buffer_direct *d)
{
	if (d->ch)
		ue_chan_commit(d->ch, d->cpu);
	else
		ring_commit(&d->buf->rings[d->cpu]);
}

unsigned int ue_buffer_direct_end(struct ue_buffer_direct *d)
{
	struct ring *r;
	bool stored;

	if (!d->active)
		return 0;
	d->active = false;
	r = &d->buf->rings[d->cpu];
	/* Into the ring: published and its readers woken, as ue_buffer_write_many() does. */
	stored = !d->ch && d->n > d->dropped;
	if (stored)
		ring_publish(r);
	ring_unlock(r);
	if (stored)
		notify(d->buf);
	return d->n;
}

static void fill_rec(struct ue_buffer_rec *rec, const struct slot *s, unsigned int cpu,
		     uint64_t seq, const void *data)
{
	memset(rec, 0, sizeof(*rec));
	rec->meta.ts_ns = s->ts_ns;
	rec->meta.cpu = cpu;
	rec->meta.tgid = s->tgid;
	rec->meta.tid = s->tid;
	memcpy(rec->meta.comm, s->comm, sizeof(rec->meta.comm));
	rec->seq = seq;
	rec->len = s->len;
	rec->data = data;
}

/* The ring whose oldest record is the oldest of all (by ts, then CPU), or -1. */
static int oldest_ring(struct ue_buffer *buf, uint64_t *ret_seq)
{
	uint64_t best_ts = 0;
	int best = -1;
	unsigned int c;

	for (c = 0; c < buf->ncpus; c++) {
		struct ring *r = &buf->rings[c];
		struct slot *s;

		if (!ring_has_data(r))
			continue;
		ring_lock(r);
		s = peek_head(r);
		if (s && (best < 0 || s->ts_ns < best_ts)) {
			best = (int)c;
			best_ts = s->ts_ns;
			*ret_seq = atomic_load_explicit(&r->head_seq, memory_order_relaxed);
		}
		ring_unlock(r);
	}
	return best;
}

int ue_buffer_consume(struct ue_buffer *buf, int cpu, struct ue_buffer_rec *ret, void *data,
		      size_t size)
{
	unsigned int tries;

	if (!buf || cpu < -1 || (cpu >= 0 && (unsigned int)cpu >= buf->ncpus) || !ret ||
	    (!data && size))
		return -EINVAL;

	for (tries = 0;; tries++) {
		uint64_t seq = 0;
		int c = cpu;
		struct ring *r;
		struct slot *s;
		int len;

		if (cpu < 0) {
			c = oldest_ring(buf, &seq);
			if (c < 0)
				return -EAGAIN;
		}
		r = &buf->rings[c];
		ring_lock(r);
		s = peek_head(r);
		if (!s) {
			ring_unlock(r);
			if (cpu >= 0)
				return -EAGAIN;
			continue;
		}
		/*
		 * A writer overwrote the record we chose: another ring may now
		 * hold the oldest one, so look again (a few times at most).
		 */
		if (cpu < 0 && atomic_load_explicit(&r->head_seq, memory_order_relaxed) != seq &&
		    tries < CONSUME_RETRIES) {
			ring_unlock(r);
			continue;
		}
		if (s->len > size) {
			ring_unlock(r);
			return -EMSGSIZE;
		}
		memcpy(data, s + 1, s->len);
		fill_rec(ret, s, (unsigned int)c,
			 atomic_load_explicit(&r->head_seq, memory_order_relaxed), data);
		ret->lost = r->lost_unknown ? UE_BUFFER_LOST_UNKNOWN : r->overrun - r->last_overrun;
		r->last_overrun = r->overrun;
		r->lost_unknown = false;
		len = (int)s->len;
		drop_head(r);
		r->read++;
		ring_unlock(r);
		return len;
	}
}

bool ue_buffer_has_data(struct ue_buffer *buf, int cpu)
{
	unsigned int c;

	if (cpu >= 0)
		return (unsigned int)cpu < buf->ncpus && ring_has_data(&buf->rings[cpu]);
	for (c = 0; c < buf->ncpus; c++)
		if (ring_has_data(&buf->rings[c]))
			return true;
	return false;
}

int ue_buffer_wait(struct ue_buffer *buf, int cpu, int timeout_ms)
{
	struct timespec deadline;
	uint64_t gen;
	int ret;

	if (!buf || cpu < -1 || (cpu >= 0 && (unsigned int)cpu >= buf->ncpus))
		return -EINVAL;
	if (timeout_ms >= 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout_ms / 1000;
		deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
	}

	ue_mutex_lock(&buf->wait_lock);
	gen = buf->wake_gen;
	for (;;) {
		atomic_store(&buf->wake_needed, true);
		if (ue_buffer_has_data(buf, cpu)) {
			ret = 0;
			break;
		}
		if (buf->wake_gen != gen) {
			ret = -EINTR;
			break;
		}
		if (timeout_ms < 0) {
			ue_cond_wait(&buf->wait_cond, &buf->wait_lock);
		} else if (ue_cond_timedwait(&buf->wait_cond, &buf->wait_lock, &deadline) ==
			   ETIMEDOUT) {
			ret = ue_buffer_has_data(buf, cpu) ? 0 : -ETIMEDOUT;
			break;
		}
	}
	ue_mutex_unlock(&buf->wait_lock);
	return ret;
}

void ue_buffer_wakeup(struct ue_buffer *buf)
{
	ue_mutex_lock(&buf->wait_lock);
	buf->wake_gen++;
	pthread_cond_broadcast(&buf->wait_cond);
	ue_mutex_unlock(&buf->wait_lock);
}

/* Copies one ring's slots, oldest first, into a fresh allocation. */
static int snap_copy(struct ring *r, struct snap_ring *sr)
{
	size_t cap = 0;

	for (;;) {
		size_t first;

		ring_lock(r);
		if (r->used > cap) {
			/* Allocate unlocked; the ring may grow meanwhile, hence the loop. */
			cap = r->used;
			ring_unlock(r);
			free(sr->mem);
			sr->mem = malloc(cap);
			if (!sr->mem)
				return -ENOMEM;
			continue;
		}
		first = r->size - r->head < r->used ? r->size - r->head : r->used;
		if (first)
			memcpy(sr->mem, r->data + r->head, first);
		if (r->used - first)
			memcpy(sr->mem + first, r->data, r->used - first);
		sr->len = r->used;
		sr->wrap_at = first;
		sr->first_seq = atomic_load_explicit(&r->head_seq, memory_order_relaxed);
		ring_stats(r, &sr->stats);
		ring_unlock(r);
		sr->seq = sr->first_seq;
		sr->pos = 0;
		return 0;
	}
}

void ue_buffer_snap_free(struct ue_buffer_snap *snap)
{
	unsigned int i;

	if (!snap)
		return;
	for (i = 0; i < snap->nrings; i++)
		free(snap->rings[i].mem);
	free(snap);
}

int ue_buffer_snapshot(struct ue_buffer *buf, int cpu, struct ue_buffer_snap **ret)
{
	struct ue_buffer_snap *snap;
	unsigned int n, i;

	if (!buf || !ret || cpu < -1 || (cpu >= 0 && (unsigned int)cpu >= buf->ncpus))
		return -EINVAL;
	n = cpu < 0 ? buf->ncpus : 1;
	snap = calloc(1, sizeof(*snap) + n * sizeof(snap->rings[0]));
	if (!snap)
		return -ENOMEM;
	snap->nrings = n;
	for (i = 0; i < n; i++) {
		unsigned int c = cpu < 0 ? i : (unsigned int)cpu;

		snap->rings[i].cpu = c;
		if (snap_copy(&buf->rings[c], &snap->rings[i])) {
			ue_buffer_snap_free(snap);
			return -ENOMEM;
		}
	}
	*ret = snap;
	return 0;
}

static const struct slot *snap_peek(struct snap_ring *sr)
{
	while (sr->pos < sr->len) {
		const struct slot *s = (const struct slot *)(sr->mem + sr->pos);

		if (s->len != SLOT_PAD)
			return s;
		sr->pos = sr->wrap_at;
	}
	return NULL;
}

int ue_buffer_snap_next(struct ue_buffer_snap *snap, struct ue_buffer_rec *ret)
{
	const struct slot *best = NULL;
	struct snap_ring *bsr = NULL;
	unsigned int i;

	for (i = 0; i < snap->nrings; i++) {
		const struct slot *s = snap_peek(&snap->rings[i]);

		if (s && (!best || s->ts_ns < best->ts_ns)) {
			best = s;
			bsr = &snap->rings[i];
		}
	}
	if (!best)
		return 0;
	fill_rec(ret, best, bsr->cpu, bsr->seq, best + 1);
	bsr->pos += slot_size(best->len);
	bsr->seq++;
	return 1;
}

void ue_buffer_snap_rewind(struct ue_buffer_snap *snap)
{
	unsigned int i;

	for (i = 0; i < snap->nrings; i++) {
		snap->rings[i].pos = 0;
		snap->rings[i].seq = snap->rings[i].first_seq;
	}
}

int ue_buffer_snap_stats(const struct ue_buffer_snap *snap, unsigned int cpu,
			 struct ue_buffer_stats *ret)
{
	unsigned int i;

	for (i = 0; i < snap->nrings; i++) {
		if (snap->rings[i].cpu == cpu) {
			*ret = snap->rings[i].stats;
			return 0;
		}
	}
	return -EINVAL;
}

int ue_buffer_stats(struct ue_buffer *buf, unsigned int cpu, struct ue_buffer_stats *ret)
{
	struct ring *r;

	if (!buf || !ret || cpu >= buf->ncpus)
		return -EINVAL;
	r = &buf->rings[cpu];
	ring_lock(r);
	ring_stats(r, ret);
	ring_unlock(r);
	return 0;
}

int ue_buffer_reset_cpu(struct ue_buffer *buf, unsigned int cpu)
{
	struct ring *r;

	if (!buf || cpu >= buf->ncpus)
		return -EINVAL;
	r = &buf->rings[cpu];
	ring_lock(r);
	r->head = r->tail = r->used = 0;
	/* Sequence numbers go on counting, so a reader never sees one twice. */
	atomic_store(&r->head_seq, atomic_load_explicit(&r->tail_seq, memory_order_relaxed));
	r->overrun = r->dropped = r->read = r->last_overrun = 0;
	atomic_store_explicit(&r->too_big, 0, memory_order_relaxed);
	ring_unlock(r);
	return 0;
}

void ue_buffer_reset(struct ue_buffer *buf)
{
	unsigned int c;

	for (c = 0; c < buf->ncpus; c++)
		ue_buffer_reset_cpu(buf, c);
}

/* Moves a ring's records into @mem of @size bytes, keeping the newest that fit. */
static void ring_move(struct ring *r, unsigned char *mem, size_t size)
{
	size_t live = 0, off, pos = 0;
	struct slot *s;

	for (off = 0; off < r->used;) {
		s = (struct slot *)(r->data + (r->head + off) % r->size);
		if (s->len == SLOT_PAD) {
			off += r->size - (r->head + off) % r->size;
			continue;
		}
		live += slot_size(s->len);
		off += slot_size(s->len);
	}
	while (live > size) {
		s = peek_head(r);
		live -= slot_size(s->len);
		drop_head(r);
		r->overrun++;
	}
	while ((s = peek_head(r))) {
		size_t n = slot_size(s->len);

		memcpy(mem + pos, s, n);
		pos += n;
		/* Not drop_head(): the record moves, its sequence number stays. */
		head_advance(r, n);
	}
	r->data = mem;
	r->size = size;
	r->head = 0;
	r->tail = pos == size ? 0 : pos;
	r->used = pos;
}

int ue_buffer_resize(struct ue_buffer *buf, size_t bytes_per_cpu)
{
	unsigned char **maps;
	size_t size, old_size;
	unsigned int i;
	int err;

	if (!buf)
		return -EINVAL;
	err = round_size(bytes_per_cpu, &size);
	if (err)
		return err;
	if ((uint64_t)buf->ncpus * size > UE_BUFFER_MAX_TOTAL_BYTES)
		return -ENOMEM;

	ue_mutex_lock(&buf->resize_lock);
	old_size = atomic_load(&buf->size);
	if (size == old_size) {
		ue_mutex_unlock(&buf->resize_lock);
		return 0;
	}
	maps = calloc(buf->ncpus, sizeof(*maps));
	if (!maps) {
		ue_mutex_unlock(&buf->resize_lock);
		return -ENOMEM;
	}
	for (i = 0; i < buf->ncpus; i++) {
		maps[i] = map_ring(size);
		if (!maps[i]) {
			while (i--)
				munmap(maps[i], size);
			free(maps);
			ue_mutex_unlock(&buf->resize_lock);
			return -ENOMEM;
		}
	}
	for (i = 0; i < buf->ncpus; i++) {
		struct ring *r = &buf->rings[i];
		unsigned char *old;

		ring_lock(r);
		old = r->data;
		ring_move(r, maps[i], size);
		ring_unlock(r);
		munmap(old, old_size);
	}
	atomic_store(&buf->size, size);
	ue_mutex_unlock(&buf->resize_lock);
	free(maps);
	return 0;
}

void ue_buffer_set_overwrite(struct ue_buffer *buf, bool overwrite)
{
	atomic_store_explicit(&buf->overwrite, overwrite, memory_order_relaxed);
}

bool ue_buffer_get_overwrite(struct ue_buffer *buf)
{
	return atomic_load_explicit(&buf->overwrite, memory_order_relaxed);
}

void ue_buffer_set_on(struct ue_buffer *buf, bool on)
{
	atomic_store_explicit(&buf->on, on, memory_order_relaxed);
}

bool ue_buffer_get_on(struct ue_buffer *buf)
{
	return atomic_load_explicit(&buf->on, memory_order_relaxed);
}

void ue_buffer_lost_unknown(struct ue_buffer *buf)
{
	for (unsigned int cpu = 0; cpu < buf->ncpus; cpu++) {
		struct ring *r = &buf->rings[cpu];

		ring_lock(r);
		r->lost_unknown = true;
		ring_unlock(r);
	}
}
