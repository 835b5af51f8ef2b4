// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * channel: consumer channels (channel.h), all of them: first one channel,
 * then the channels attached to the trace buffer.  The writer side of each
 * CPU is private (the page being filled, counters) and runs under the trace
 * buffer's CPU lock; the shared memory holds the pages and the counters the
 * reader needs.  The reader's consumed counters are untrusted: a bad value
 * only makes its own channel lose records.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buffer-int.h"
#include "channel.h"
#include "native-proto.h"
#include "rbpage.h"
#include "snap.h"

/* Free sub-buffers a blocking channel wants before the drain moves a batch (at most 80 KiB). */
#define ROOM_SUBBUFS 3

struct chan_cpu {
	struct ue_rbpage page;	/* the sub-buffer being filled, when open */
	bool open;
	uint64_t produced;	/* sub-buffers handed over (mirrored in the shared counters) */
	uint64_t first_ts;	/* of the open page's first record */
	uint64_t last_ts;
	uint64_t missed;	/* lost since the last page handed over */
	uint64_t page_missed;	/* of those, what the open page will say */
	uint64_t records, lost, lost_producer;
} __attribute__((aligned(64)));

struct ue_chan {
	unsigned int ncpus;
	uint32_t nsubbufs;
	uint32_t flags;
	uint64_t block_ns, flush_ns;
	unsigned char *map;
	size_t map_bytes;
	struct ue_chan_hdr *hdr;
	int evfd;		/* the daemon's end (the reader has a duplicate) */
	int memfd;		/* kept for a successor (upgrade) */
	_Atomic uint64_t blocked_since;	/* ue_chan_room(): 0 while there is room */
	atomic_bool lossy;	/* block_ms passed without room: losing until there is room */
	struct chan_cpu *cpus;
};

static struct ue_chan_cpu *shared_cpu(struct ue_chan *ch, unsigned int cpu)
{
	return (struct ue_chan_cpu *)(ch->map + UE_CHAN_CPU_OFF) + cpu;
}

static uint8_t *subbuf(struct ue_chan *ch, unsigned int cpu, uint64_t i)
{
	return ch->map + ch->hdr->data_offset +
	       ((size_t)cpu * ch->nsubbufs + (size_t)(i % ch->nsubbufs)) * UE_CHAN_SUBBUF;
}

/* Sub-buffers of @cpu the reader has not given back, by its untrusted counter. */
static uint64_t in_use(struct ue_chan *ch, unsigned int cpu, uint64_t produced)
{
	uint64_t c = __atomic_load_n(&shared_cpu(ch, cpu)->consumed, __ATOMIC_ACQUIRE);

	if (c > produced)
		return 0;
	return produced - c > ch->nsubbufs ? ch->nsubbufs : produced - c;
}

size_t ue_chan_bytes_for(unsigned int ncpus, const struct ue_chan_opts *o)
{
	uint32_t kib = o->kib_per_cpu ? o->kib_per_cpu : UE_CHAN_DEFAULT_KIB;

	return ((UE_CHAN_CPU_OFF + (size_t)ncpus * sizeof(struct ue_chan_cpu) + 4095) & ~(size_t)4095) +
	       (size_t)ncpus * (kib / (UE_CHAN_SUBBUF / 1024)) * UE_CHAN_SUBBUF;
}

int ue_chan_new(unsigned int ncpus, const struct ue_chan_opts *o, struct ue_chan **ret,
		int *ret_memfd, int *ret_eventfd)
{
	uint32_t kib = o->kib_per_cpu ? o->kib_per_cpu : UE_CHAN_DEFAULT_KIB;
	struct ue_chan *ch;
	size_t head, bytes;
	int mfd, efd = -1, e;

	if (!ncpus || ncpus > 1024 || kib < UE_CHAN_MIN_KIB || kib > UE_CHAN_MAX_KIB ||
	    (o->flags & ~UE_CHAN_BLOCK) || o->block_ms > UE_CHAN_BLOCK_MS_MAX ||
	    o->flush_ms > 60000)
		return -EINVAL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->ncpus = ncpus;
	ch->nsubbufs = kib / (UE_CHAN_SUBBUF / 1024);
	ch->flags = o->flags;
	ch->block_ns = (o->flags & UE_CHAN_BLOCK) ? (uint64_t)o->block_ms * 1000000u : 0;
	ch->flush_ns = (uint64_t)(o->flush_ms ? o->flush_ms : UE_CHAN_DEFAULT_FLUSH_MS) * 1000000u;
	head = (UE_CHAN_CPU_OFF + (size_t)ncpus * sizeof(struct ue_chan_cpu) + 4095) & ~(size_t)4095;
	bytes = head + (size_t)ncpus * ch->nsubbufs * UE_CHAN_SUBBUF;
	if (posix_memalign((void **)&ch->cpus, 64, ncpus * sizeof(*ch->cpus))) {
		free(ch);
		return -ENOMEM;
	}
	memset(ch->cpus, 0, ncpus * sizeof(*ch->cpus));
	mfd = memfd_create("usereventsd-channel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0) {
		e = -errno;
		goto fail;
	}
	/* Sealed: a reader that shrank it would make our next write fault. */
	if (ftruncate(mfd, (off_t)bytes) < 0 ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		e = -errno;
		goto fail;
	}
	ch->map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, mfd, 0);
	if (ch->map == MAP_FAILED) {
		ch->map = NULL;
		e = -ENOMEM;
		goto fail;
	}
	ch->map_bytes = bytes;
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0) {
		e = -errno;
		goto fail;
	}
	ch->evfd = efd;
	/* The reader's own descriptor of it: the caller closes what it sends. */
	efd = fcntl(ch->evfd, F_DUPFD_CLOEXEC, 0);
	if (efd < 0) {
		e = -errno;
		efd = ch->evfd;
		goto fail;
	}
	ch->hdr = (struct ue_chan_hdr *)ch->map;
	ch->hdr->magic = UE_CHAN_MAGIC;
	ch->hdr->major = UE_NATIVE_MAJOR;
	ch->hdr->minor = UE_NATIVE_MINOR;
	ch->hdr->ncpus = ncpus;
	ch->hdr->subbuf_size = UE_CHAN_SUBBUF;
	ch->hdr->nsubbufs = ch->nsubbufs;
	ch->hdr->flags = o->flags;
	ch->hdr->data_offset = head;
	ch->hdr->map_bytes = bytes;
	for (unsigned int c = 0; c < ncpus; c++)
		shared_cpu(ch, c)->open_ts = UINT64_MAX;
	ch->memfd = fcntl(mfd, F_DUPFD_CLOEXEC, 3);
	if (ch->memfd < 0) {
		e = -errno;
		goto fail;
	}
	*ret = ch;
	*ret_memfd = mfd;
	*ret_eventfd = efd;
	return 0;
fail:
	if (efd >= 0)
		close(efd);
	if (ch->map)
		munmap(ch->map, bytes);
	if (mfd >= 0)
		close(mfd);
	free(ch->cpus);
	free(ch);
	return e;
}

void ue_chan_free(struct ue_chan *ch)
{
	if (!ch)
		return;
	munmap(ch->map, ch->map_bytes);
	close(ch->evfd);
	close(ch->memfd);
	free(ch->cpus);
	free(ch);
}

int ue_chan_save(const struct ue_chan *ch, struct ue_snap_w *w)
{
	ue_snapw_u64(w, ch->ncpus);
	ue_snapw_u64(w, ch->nsubbufs);
	ue_snapw_u64(w, ch->flags);
	ue_snapw_u64(w, ch->block_ns);
	ue_snapw_u64(w, ch->flush_ns);
	ue_snapw_fd(w, ch->memfd);
	ue_snapw_fd(w, ch->evfd);
	for (unsigned int c = 0; c < ch->ncpus; c++) {
		const struct chan_cpu *cc = &ch->cpus[c];

		/* An open page held no record (the pause handed the others over): it goes. */
		ue_snapw_u64(w, cc->produced);
		ue_snapw_u64(w, cc->missed);
		ue_snapw_u64(w, cc->records);
		ue_snapw_u64(w, cc->lost);
		ue_snapw_u64(w, cc->lost_producer);
	}
	return w->err;
}

int ue_chan_adopt(struct ue_snap_r *r, unsigned int ncpus, struct ue_chan **ret)
{
	struct ue_chan *ch;
	struct stat st;
	uint64_t n = ue_snapr_u64_max(r, 1024);
	int e = -EINVAL;

	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->memfd = ch->evfd = -1;
	ch->ncpus = (unsigned int)n;
	ch->nsubbufs = (uint32_t)ue_snapr_u64_max(r, UE_CHAN_MAX_KIB);
	ch->flags = (uint32_t)ue_snapr_u64_max(r, UE_CHAN_BLOCK);
	ch->block_ns = ue_snapr_u64(r);
	ch->flush_ns = ue_snapr_u64(r);
	ch->memfd = ue_snapr_fd(r);
	ch->evfd = ue_snapr_fd(r);
	if (r->err || ch->ncpus != ncpus || !ch->nsubbufs || ch->memfd < 0 || ch->evfd < 0 ||
	    fstat(ch->memfd, &st) < 0)
		goto fail;
	if (posix_memalign((void **)&ch->cpus, 64, ncpus * sizeof(*ch->cpus))) {
		ch->cpus = NULL;
		e = -ENOMEM;
		goto fail;
	}
	memset(ch->cpus, 0, ncpus * sizeof(*ch->cpus));
	for (unsigned int c = 0; c < ncpus; c++) {
		ch->cpus[c].produced = ue_snapr_u64(r);
		ch->cpus[c].missed = ue_snapr_u64(r);
		ch->cpus[c].records = ue_snapr_u64(r);
		ch->cpus[c].lost = ue_snapr_u64(r);
		ch->cpus[c].lost_producer = ue_snapr_u64(r);
	}
	ch->map_bytes = (size_t)st.st_size;
	ch->map = mmap(NULL, ch->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, ch->memfd, 0);
	if (r->err || ch->map == MAP_FAILED) {
		ch->map = NULL;
		goto fail;
	}
	ch->hdr = (struct ue_chan_hdr *)ch->map;
	if (ch->hdr->ncpus != ncpus || ch->hdr->nsubbufs != ch->nsubbufs ||
	    ch->hdr->map_bytes != ch->map_bytes ||
	    ch->hdr->data_offset + (uint64_t)ncpus * ch->nsubbufs * UE_CHAN_SUBBUF > ch->map_bytes)
		goto fail;
	for (unsigned int c = 0; c < ncpus; c++)
		shared_cpu(ch, c)->open_ts = UINT64_MAX;
	*ret = ch;
	return 0;
fail:
	if (ch->map)
		munmap(ch->map, ch->map_bytes);
	if (ch->memfd >= 0)
		close(ch->memfd);
	if (ch->evfd >= 0)
		close(ch->evfd);
	free(ch->cpus);
	free(ch);
	return e;
}

size_t ue_chan_bytes(const struct ue_chan *ch)
{
	return ch->map_bytes;
}

uint64_t ue_chan_blocks(const struct ue_chan *ch)
{
	return ch->block_ns;
}

/* Publish the counters the reader reads (its progress line, the closing count). */
static void publish_counts(struct ue_chan *ch, unsigned int cpu, struct chan_cpu *c)
{
	struct ue_chan_cpu *s = shared_cpu(ch, cpu);

	__atomic_store_n(&s->records, c->records, __ATOMIC_RELAXED);
	__atomic_store_n(&s->lost, c->lost, __ATOMIC_RELAXED);
	__atomic_store_n(&s->lost_producer, c->lost_producer, __ATOMIC_RELAXED);
}

/* The open page is done: its header written, handed to the reader, the reader woken if it sleeps. */
static void hand_over(struct ue_chan *ch, unsigned int cpu, struct chan_cpu *c)
{
	uint64_t one = 1;

	ue_rbpage_finish(&c->page, c->page_missed);
	c->missed -= c->page_missed;
	c->page_missed = 0;
	c->open = false;
	c->produced++;
	publish_counts(ch, cpu, c);
	__atomic_store_n(&shared_cpu(ch, cpu)->open_ts, UINT64_MAX, __ATOMIC_RELEASE);
	/* Sequentially consistent against the reader's store of waiting, then its load of produced. */
	__atomic_store_n(&shared_cpu(ch, cpu)->produced, c->produced, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ch->hdr->waiting, __ATOMIC_SEQ_CST) &&
	    __atomic_exchange_n(&ch->hdr->waiting, 0, __ATOMIC_SEQ_CST))
		(void)!write(ch->evfd, &one, sizeof(one));
}

/* Start a page in the next free sub-buffer; false when the reader holds them all. */
static bool open_page(struct ue_chan *ch, unsigned int cpu, struct chan_cpu *c, uint64_t ts)
{
	if (in_use(ch, cpu, c->produced) >= ch->nsubbufs)
		return false;
	ue_rbpage_init(&c->page, subbuf(ch, cpu, c->produced), UE_CHAN_SUBBUF);
	/* Room for the count of what was lost before this page, after its records. */
	c->page_missed = c->missed;
	c->page.reserve = c->missed ? 8 : 0;
	c->first_ts = ts;
	c->open = true;
	__atomic_store_n(&shared_cpu(ch, cpu)->open_ts, ts, __ATOMIC_RELEASE);
	return true;
}

static void lose(struct ue_chan *ch, unsigned int cpu, struct chan_cpu *c)
{
	c->missed++;
	c->lost++;
	publish_counts(ch, cpu, c);
}

uint8_t *ue_chan_reserve(struct ue_chan *ch, unsigned int cpu, uint64_t ts, size_t len)
{
	struct chan_cpu *c = &ch->cpus[cpu];
	uint8_t *at;
	int r = 0;

	if (ts < c->last_ts)
		ts = c->last_ts;
	if (!c->open && !open_page(ch, cpu, c, ts)) {
		lose(ch, cpu, c);
		return NULL;
	}
	at = ue_rbpage_reserve(&c->page, ts, len, &r);
	if (!at && r == -ENOSPC) {
		hand_over(ch, cpu, c);
		if (!open_page(ch, cpu, c, ts)) {
			lose(ch, cpu, c);
			return NULL;
		}
		at = ue_rbpage_reserve(&c->page, ts, len, &r);
	}
	/* Larger than a page can hold with its loss count: lost, and said so. */
	if (!at)
		lose(ch, cpu, c);
	return at;
}

void ue_chan_commit(struct ue_chan *ch, unsigned int cpu)
{
	struct chan_cpu *c = &ch->cpus[cpu];

	ue_rbpage_commit(&c->page);
	c->last_ts = c->page.last_ts;
	c->records++;
	/* The reader's count of records, every 256 (and at each hand-over): no store a record. */
	if (!(c->records & 255))
		publish_counts(ch, cpu, c);
}

struct ue_rbpage *ue_chan_run_page(struct ue_chan *ch, unsigned int cpu)
{
	struct chan_cpu *c = &ch->cpus[cpu];

	return c->open ? &c->page : NULL;
}

void ue_chan_run_end(struct ue_chan *ch, unsigned int cpu, unsigned int n)
{
	struct chan_cpu *c = &ch->cpus[cpu];
	uint64_t before = c->records;

	if (!n)
		return;
	c->last_ts = c->page.last_ts;
	c->records += n;
	/* As ue_chan_commit(): the reader's count at every 256th record. */
	if (before >> 8 != c->records >> 8)
		publish_counts(ch, cpu, c);
}

bool ue_chan_append(struct ue_chan *ch, unsigned int cpu, uint64_t ts, const struct iovec *iov,
		    int iovcnt, size_t len)
{
	uint8_t *at = ue_chan_reserve(ch, cpu, ts, len);
	size_t left = len;

	if (!at)
		return false;
	for (int i = 0; i < iovcnt && left; i++) {
		size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;

		memcpy(at, iov[i].iov_base, k);
		at += k;
		left -= k;
	}
	ue_chan_commit(ch, cpu);
	return true;
}

bool ue_chan_can_take(struct ue_chan *ch, unsigned int cpu)
{
	struct chan_cpu *c = &ch->cpus[cpu];

	return in_use(ch, cpu, c->produced) + (c->open ? 1 : 0) < ch->nsubbufs;
}

void ue_chan_lost(struct ue_chan *ch, unsigned int cpu, uint64_t n)
{
	struct chan_cpu *c = &ch->cpus[cpu];

	c->missed += n;
	c->lost += n;
	c->lost_producer += n;
	publish_counts(ch, cpu, c);
}

void ue_chan_tick(struct ue_chan *ch, unsigned int cpu, uint64_t now, bool all)
{
	struct chan_cpu *c = &ch->cpus[cpu];

	if (c->open && c->page.events && (all || now - c->first_ts >= ch->flush_ns ||
					  c->first_ts > now))
		hand_over(ch, cpu, c);
	else if (!c->open && c->missed && in_use(ch, cpu, c->produced) < ch->nsubbufs) {
		/* Losses with no record after them: an empty page carries their count. */
		open_page(ch, cpu, c, now);
		hand_over(ch, cpu, c);
	}
}

bool ue_chan_room(struct ue_chan *ch, uint64_t now)
{
	bool room = true;
	uint64_t since;

	if (!ch->block_ns)
		return true;
	for (unsigned int cpu = 0; cpu < ch->ncpus && room; cpu++) {
		uint64_t used = in_use(ch, cpu, __atomic_load_n(&shared_cpu(ch, cpu)->produced,
								__ATOMIC_RELAXED));

		if (used + ROOM_SUBBUFS + 1 > ch->nsubbufs)
			room = false;
	}
	if (room) {
		atomic_store_explicit(&ch->lossy, false, memory_order_relaxed);
		atomic_store_explicit(&ch->blocked_since, 0, memory_order_relaxed);
		return true;
	}
	/* Given up on this reader: records go on (and are lost) until it makes room. */
	if (atomic_load_explicit(&ch->lossy, memory_order_relaxed))
		return true;
	since = atomic_load_explicit(&ch->blocked_since, memory_order_relaxed);
	if (!since) {
		atomic_store_explicit(&ch->blocked_since, now ? now : 1, memory_order_relaxed);
		return false;
	}
	if (now - since < ch->block_ns)
		return false;
	/* The reader kept its pages for block_ms: lose records rather than stall every writer. */
	atomic_store_explicit(&ch->lossy, true, memory_order_relaxed);
	return true;
}

/*
 * The channels attached to the trace buffer (buffer-int.h): the list, the
 * rings' backlog for the first reader, the hand-over tick, losses on the
 * way, whether a blocking reader holds writers back, and the memory of them
 * all.  The list changes under chan_lock and every ring's lock, so a writer
 * holding its ring's lock reads it as it is.
 */

/* Every ring locked, in order: the channel list may change. */
static void lock_rings(struct ue_buffer *buf)
{
	for (unsigned int c = 0; c < buf->ncpus; c++)
		ring_lock(&buf->rings[c]);
}

static void unlock_rings(struct ue_buffer *buf)
{
	for (unsigned int c = buf->ncpus; c-- > 0;)
		ring_unlock(&buf->rings[c]);
}

/*
 * Move CPU @cpu's backlog into the channels while the first has a free
 * sub-buffer, with the ring's lock held: the records a reader of the ring
 * would have got, in order, none lost for want of room (the rest waits for
 * the next tick).  A channel that attached later gets those written since.
 */
static void backlog_move(struct ue_buffer *buf, struct ring *r, unsigned int cpu)
{
	struct ue_chan *first = buf->backlog_chan;
	struct slot *sl;

	while ((sl = peek_head(r))) {
		struct iovec iov = { sl + 1, sl->len };

		if (!ue_chan_can_take(first, cpu))
			return;
		for (unsigned int k = 0; k < buf->nchans; k++)
			if (buf->chans[k] == first || sl->ts_ns >= buf->chan_since[k])
				ue_chan_append(buf->chans[k], cpu, sl->ts_ns, &iov, 1, sl->len);
		drop_head(r);
		r->read++;
	}
	r->backlog = false;
}

/* No ring has a backlog left: nobody owns it. */
static void backlog_check(struct ue_buffer *buf)
{
	for (unsigned int c = 0; c < buf->ncpus; c++)
		if (buf->rings[c].backlog)
			return;
	__atomic_store_n(&buf->backlog_chan, NULL, __ATOMIC_RELAXED);
}

static int attach(struct ue_buffer *buf, struct ue_chan *ch, bool backlog)
{
	int r = 0;

	ue_mutex_lock(&buf->chan_lock);
	if (buf->nchans == UE_BUFFER_MAX_CHANNELS) {
		r = -ENOSPC;
	} else {
		lock_rings(buf);
		/*
		 * What the rings hold goes to the first reader, consumed as
		 * trace_pipe_raw would: as much as its channel takes now, the
		 * rest as the reader makes room.
		 */
		if (!buf->nchans && backlog) {
			__atomic_store_n(&buf->backlog_chan, ch, __ATOMIC_RELAXED);
			for (unsigned int c = 0; c < buf->ncpus; c++)
				buf->rings[c].backlog = buf->rings[c].used != 0;
		}
		buf->chan_since[buf->nchans] = ue_buffer_clock_ns();
		buf->chans[buf->nchans++] = ch;
		if (buf->backlog_chan == ch) {
			for (unsigned int c = 0; c < buf->ncpus; c++)
				if (buf->rings[c].backlog)
					backlog_move(buf, &buf->rings[c], c);
			backlog_check(buf);
		}
		unlock_rings(buf);
		if (ue_chan_blocks(ch))
			atomic_fetch_add(&buf->nblocking, 1);
	}
	ue_mutex_unlock(&buf->chan_lock);
	return r;
}

int ue_buffer_attach(struct ue_buffer *buf, struct ue_chan *ch)
{
	return attach(buf, ch, true);
}

/* The daemon's channels' memory: reserved before a channel is made, so the limit holds at every moment. */
static int budget(struct ue_buffer *buf, int64_t bytes)
{
	int r = 0;

	ue_mutex_lock(&buf->chan_lock);
	if (bytes > 0 && buf->chan_bytes + (uint64_t)bytes > UE_CHAN_BYTES_ALL)
		r = -ENOSPC;
	else
		buf->chan_bytes += (uint64_t)bytes;
	ue_mutex_unlock(&buf->chan_lock);
	return r;
}

int ue_buffer_chan_open(struct ue_buffer *buf, const struct ue_chan_opts *o, struct ue_chan **ret,
			int *ret_memfd, int *ret_eventfd)
{
	size_t bytes = ue_chan_bytes_for(buf->ncpus, o);
	struct ue_chan *ch;
	int r;

	r = budget(buf, (int64_t)bytes);
	if (r < 0)
		return r;
	r = ue_chan_new(buf->ncpus, o, &ch, ret_memfd, ret_eventfd);
	if (r == 0) {
		r = attach(buf, ch, true);
		if (r < 0) {
			ue_chan_free(ch);
			close(*ret_memfd);
			close(*ret_eventfd);
		}
	}
	if (r < 0) {
		budget(buf, -(int64_t)bytes);
		return r;
	}
	*ret = ch;
	return 0;
}

int ue_buffer_chan_adopt(struct ue_buffer *buf, struct ue_snap_r *r, struct ue_chan **ret)
{
	struct ue_chan *ch;
	int err = ue_chan_adopt(r, buf->ncpus, &ch);

	if (err < 0)
		return err;
	/* The records the buffer holds are not its backlog: its reader had them from the predecessor. */
	err = attach(buf, ch, false);
	if (err < 0) {
		ue_chan_free(ch);
		return err;
	}
	budget(buf, (int64_t)ue_chan_bytes(ch));
	*ret = ch;
	return 0;
}

void ue_buffer_chan_close(struct ue_buffer *buf, struct ue_chan *ch)
{
	if (!ch)
		return;
	ue_buffer_detach(buf, ch);
	budget(buf, -(int64_t)ue_chan_bytes(ch));
	ue_chan_free(ch);
}

void ue_buffer_chan_usage(struct ue_buffer *buf, unsigned int *ret_n, uint64_t *ret_bytes)
{
	ue_mutex_lock(&buf->chan_lock);
	*ret_n = buf->nchans;
	*ret_bytes = buf->chan_bytes;
	ue_mutex_unlock(&buf->chan_lock);
}

void ue_buffer_detach(struct ue_buffer *buf, struct ue_chan *ch)
{
	ue_mutex_lock(&buf->chan_lock);
	for (unsigned int k = 0; k < buf->nchans; k++) {
		if (buf->chans[k] != ch)
			continue;
		lock_rings(buf);
		buf->nchans--;
		buf->chans[k] = buf->chans[buf->nchans];
		buf->chan_since[k] = buf->chan_since[buf->nchans];
		if (buf->backlog_chan == ch) {
			/* The backlog goes on to the next reader, or stays for the ring's. */
			__atomic_store_n(&buf->backlog_chan, buf->nchans ? buf->chans[0] : NULL,
					 __ATOMIC_RELAXED);
			for (unsigned int c = 0; !buf->backlog_chan && c < buf->ncpus; c++)
				buf->rings[c].backlog = false;
		}
		unlock_rings(buf);
		if (ue_chan_blocks(ch))
			atomic_fetch_sub(&buf->nblocking, 1);
		break;
	}
	ue_mutex_unlock(&buf->chan_lock);
}

void ue_buffer_chan_tick(struct ue_buffer *buf, uint64_t now, const struct ue_chan *only)
{
	bool backlog = false;

	if (!__atomic_load_n(&buf->nchans, __ATOMIC_RELAXED))
		return;
	for (unsigned int c = 0; c < buf->ncpus; c++) {
		struct ring *r = &buf->rings[c];

		ring_lock(r);
		if (r->backlog) {
			backlog_move(buf, r, c);
			backlog |= r->backlog;
		}
		for (unsigned int k = 0; k < buf->nchans; k++)
			if (!only || buf->chans[k] == only)
				ue_chan_tick(buf->chans[k], c, now, only != NULL);
		ring_unlock(r);
	}
	if (!backlog && __atomic_load_n(&buf->backlog_chan, __ATOMIC_RELAXED)) {
		ue_mutex_lock(&buf->chan_lock);
		lock_rings(buf);
		backlog_check(buf);
		unlock_rings(buf);
		ue_mutex_unlock(&buf->chan_lock);
	}
}

void ue_buffer_chan_lost(struct ue_buffer *buf, unsigned int cpu, uint64_t n)
{
	struct ring *r;

	if (!n || cpu >= buf->ncpus || !__atomic_load_n(&buf->nchans, __ATOMIC_RELAXED))
		return;
	r = &buf->rings[cpu];
	ring_lock(r);
	for (unsigned int k = 0; k < buf->nchans; k++)
		ue_chan_lost(buf->chans[k], cpu, n);
	ring_unlock(r);
}

uint64_t ue_buffer_chan_room(struct ue_buffer *buf, uint64_t now)
{
	uint64_t wait = 0;

	if (!atomic_load_explicit(&buf->nblocking, memory_order_relaxed))
		return 0;
	ue_mutex_lock(&buf->chan_lock);
	for (unsigned int k = 0; k < buf->nchans; k++)
		if (!ue_chan_room(buf->chans[k], now) && ue_chan_blocks(buf->chans[k]) > wait)
			wait = ue_chan_blocks(buf->chans[k]);
	ue_mutex_unlock(&buf->chan_lock);
	return wait;
}

void ue_buffer_chan_wait_room(struct ue_buffer *buf)
{
	while (ue_buffer_chan_room(buf, ue_buffer_clock_ns())) {
		struct timespec ts = { 0, 100000 };

		nanosleep(&ts, NULL);
	}
}

uint64_t ue_buffer_chan_block_ns(struct ue_buffer *buf)
{
	uint64_t most = 0;

	if (!atomic_load_explicit(&buf->nblocking, memory_order_relaxed))
		return 0;
	ue_mutex_lock(&buf->chan_lock);
	for (unsigned int k = 0; k < buf->nchans; k++)
		if (ue_chan_blocks(buf->chans[k]) > most)
			most = ue_chan_blocks(buf->chans[k]);
	ue_mutex_unlock(&buf->chan_lock);
	return most;
}
