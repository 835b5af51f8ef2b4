// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * native-drain: the thread that moves records from the sessions' rings into
 * the commit path (events/commit.h) and the trace buffer.  Everything in a
 * ring is untrusted: records are bounded, read once into a private copy,
 * validated as writes are, and stamped with the ring's thread as their pid.
 * A blocking reader's channel holds the drain back (channel.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "commit.h"
#include "counts.h"
#include "lock.h"
#include "native-int.h"
#include "native-proto.h"
#include "rbpage.h"
#include "registry.h"
#include "tasks.h"

/* Hands the staged records to their CPU ring, with one lock round trip. */
static void stage_flush(struct ue_native_server *nat, struct drain_stage *st,
			const struct nsession *s)
{
	int r;

	if (!st->n)
		return;
	r = ue_buffer_write_many(nat->buf, st->cpu, st->w, st->n);
	if (r > 0) {
		nat->records += (uint64_t)r;
		if (s->preload)
			nat->records_preload += (uint64_t)r;
	}
	/* A full ring in discard mode: which of them is not said. */
	if (r >= 0 && (unsigned int)r < st->n)
		st->lost += st->n - (unsigned int)r;
	st->n = 0;
	st->used = 0;
}

/*
 * Writes @r's producer refused (a full ring) since we looked: lost on the
 * way, marked in the channels' pages, counted as @s's (their event unknown).
 */
static void ring_note_dropped(struct ue_native_server *nat, const struct nsession *s,
			      struct nring *r)
{
	uint64_t dropped = __atomic_load_n(&r->hdr->dropped, __ATOMIC_RELAXED);

	if (dropped == r->dropped_seen)
		return;
	if (dropped > r->dropped_seen) {
		ue_buffer_chan_lost(nat->buf, r->cpu, dropped - r->dropped_seen);
		ue_counts_add(nat->counts, s->pid, 0, r->comm, r->tid == s->pid, 0, 0,
			      dropped - r->dropped_seen);
	}
	r->dropped_seen = dropped;
}

/* Events counted in one drain of a ring before they are handed to ue_counts_add(). */
#define DRAIN_COUNTED 16

/* What a drain of @r counted: records of each event, and the losses. */
static void counts_flush(struct ue_native_server *nat, struct nsession *s, const struct nring *r,
			 struct drain_stage *st, uint32_t *ids, unsigned int *nids)
{
	bool main = r->tid == s->pid;

	for (unsigned int i = 0; i < *nids; i++) {
		struct nevent *ev = &s->ev[ids[i]];

		ue_counts_add(nat->counts, s->pid, ev->type, r->comm, main, ev->run_records,
			      ev->run_bytes, 0);
		ev->run_records = 0;
		ev->run_bytes = 0;
	}
	*nids = 0;
	if (st->lost) {
		ue_counts_add(nat->counts, s->pid, 0, r->comm, main, 0, 0, st->lost);
		st->lost = 0;
	}
}

/*
 * The direct run of @st ends: its records counted as stage_flush() counts
 * them (those a full ring in discard mode dropped: lost, as there).
 */
static void direct_end(struct ue_native_server *nat, struct drain_stage *st,
		       const struct nsession *s)
{
	unsigned int n = ue_buffer_direct_end(&st->direct) - st->direct.dropped;

	st->lost += st->direct.dropped;
	st->direct.dropped = 0;
	nat->records += n;
	if (s->preload)
		nat->records_preload += n;
}

/*
 * Whether @cpu's records can be built in place now (the one reader's page, or the ring):
 * a run on @cpu goes on, or a new one starts once what is staged and the
 * run of another CPU are handed over (in their order).  @possible is
 * cleared when the buffer says no (several readers, a backlog, the
 * buffer off), for the rest of the drain.
 */
static bool direct_on(struct ue_native_server *nat, struct drain_stage *st,
		      const struct nsession *s, unsigned int cpu, bool *possible)
{
	if (st->direct.active && st->direct.cpu == cpu)
		return true;
	direct_end(nat, st, s);
	if (!*possible)
		return false;
	stage_flush(nat, st, s);
	if (!ue_buffer_direct_begin(nat->buf, cpu, &st->direct))
		*possible = false;
	return st->direct.active;
}

/* The first record of event @id in this drain of @r (counted already): its place in @ids. */
static void count_first(struct ue_native_server *nat, struct nsession *s, const struct nring *r,
			struct drain_stage *st, uint32_t id, size_t len, uint32_t *ids,
			unsigned int *nids)
{
	if (*nids == DRAIN_COUNTED) {
		/* ue_counts_add() takes the counts' lock: not under a CPU's. */
		direct_end(nat, st, s);
		counts_flush(nat, s, r, st, ids, nids);
	}
	ids[(*nids)++] = id;
	s->ev[id].run_records = 1;
	s->ev[id].run_bytes = len;
}

/* One more record of event @id in this drain: its counts, a table place for its first. */
static inline void count_record(struct ue_native_server *nat, struct nsession *s,
				const struct nring *r, struct drain_stage *st, uint32_t id,
				size_t len, uint32_t *ids, unsigned int *nids)
{
	struct nevent *ev = &s->ev[id];

	if (ev->run_records++)
		ev->run_bytes += len;
	else
		count_first(nat, s, r, st, id, len, ids, nids);
}

/* Whether a record of @len bytes at @pos lies in the ring's area and in what its producer committed (@avail). */
static inline bool rec_len_ok(uint32_t len, uint32_t pos, uint64_t size, uint64_t avail)
{
	return len >= 8 && len % 8 == 0 && len <= size - pos && len <= avail;
}

/* Whether @h's payload lies in its record, and a record of it in the buffer. */
static inline bool rec_payload_ok(const struct ue_native_rec *h)
{
	return h->payload_len <= h->len - sizeof(*h) &&
	       h->payload_len + UE_ENTRY_HDR_SIZE <= UE_BUFFER_MAX_RECORD;
}

/* A record's time stamp in the buffer's clock: ns of CLOCK_MONOTONIC, never 0. */
static inline uint64_t rec_time(const struct ue_native_server *nat, const struct nring *r,
				uint64_t ts)
{
	if (r->tsc)
		ts = ue_tsc_clock_ns(&nat->tsc, ts);
	return ts ? ts : 1;
}

/*
 * The records right after @first (just committed in place) that are of its
 * event and CPU, built in the same place one after another: the reader's
 * page while it takes them at once, or the CPU's ring (@who's slots).  The
 * checks of drain_ring()'s loop on each (bounds, event, CPU, payload), the
 * event's state as @first found it (plain, alive: for at most DRAIN_FLUSH
 * records), its entry header @eh.  Anything else ends the run, and
 * drain_ring() takes that record.  Returns the records taken (@*tail moved
 * past them), invalid ones included; @st->direct.n counts them as
 * drain_ring() does (stored, or lost on the way).
 */
static unsigned int run_on(struct nsession *s, struct nring *r, struct drain_stage *st,
			   uint64_t *tail, uint64_t head, unsigned int budget,
			   const struct ue_native_rec *first, struct nevent *ev,
			   const struct ue_entry_hdr *eh, const struct ue_check *check,
			   const struct ue_rec_meta *who)
{
	struct ue_native_server *nat = s->nat;
	struct ue_rbpage *pg = NULL;
	uint64_t t = *tail, size = r->size;
	unsigned int taken = 0, committed = 0, lost = 0;

	if (!st->direct.active || st->direct.n >= DRAIN_FLUSH)
		return 0;
	if (st->direct.ch && !(pg = ue_chan_run_page(st->direct.ch, st->direct.cpu)))
		return 0;
	if (budget > DRAIN_FLUSH - st->direct.n)
		budget = DRAIN_FLUSH - st->direct.n;
	while (t != head && taken < budget) {
		uint32_t pos = (uint32_t)(t & (size - 1));
		struct ue_native_rec h;
		uint64_t ts;
		uint8_t *rec;
		size_t len;
		int err;

		/* The length first: a record header's 32 bytes lie in the area only once it says so. */
		memcpy(&h, r->data + pos, 8);
		if (h.id != first->id || !rec_len_ok(h.len, pos, size, head - t) || h.len < sizeof(h))
			break;
		memcpy((unsigned char *)&h + 8, r->data + pos + 8, sizeof(h) - 8);
		if (h.cpu != first->cpu || !rec_payload_ok(&h))
			break;
		ts = rec_time(nat, r, h.ts_ns);
		len = UE_ENTRY_HDR_SIZE + h.payload_len;
		if (pg) {
			/* Raised to the CPU's last, as ue_chan_reserve() does (the page holds a record). */
			ts = ts < pg->last_ts ? pg->last_ts : ts;
			rec = ue_rbpage_reserve(pg, ts, len, &err);
			if (!rec)
				break;	/* the page is full: the channel hands it over */
		} else {
			rec = ue_buffer_direct_reserve(&st->direct, ts, who, len);
			if (!rec) {
				/* Dropped by the ring (full, discard mode): taken, counted at the run's end. */
				t += h.len;
				taken++;
				lost++;
				continue;
			}
		}
		memcpy(rec, eh, sizeof(*eh));
		ue_copy_exact(rec + sizeof(*eh), r->data + pos + sizeof(h), h.payload_len);
		t += h.len;
		taken++;
		if (ue_check_record(check, rec, len) < 0) {
			nat->invalid++;	/* left uncommitted: not stored */
			continue;
		}
		if (pg)
			ue_rbpage_commit(pg);
		else
			ue_buffer_direct_commit(&st->direct);
		committed++;
		ev->run_records++;
		ev->run_bytes += len;
	}
	if (pg)
		ue_chan_run_end(st->direct.ch, st->direct.cpu, committed);
	/* As drain_ring() counts: the records stored or lost on the way (an invalid one is not). */
	st->direct.n += committed + lost;
	*tail = t;
	return taken;
}

/* Move up to DRAIN_BATCH records of @r into the trace buffer; returns how many. */
static unsigned int drain_ring(struct nsession *s, struct nring *r, struct drain_stage *st)
{
	struct ue_native_server *nat = s->nat;
	struct ue_native_ring *h = r->hdr;
	uint64_t tail = h->tail, head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE), now;
	unsigned int ncpus = ue_buffer_ncpus(nat->buf), n = 0, nids = 0;
	uint32_t ids[DRAIN_COUNTED];
	struct ue_rec_meta who = { .tgid = s->pid, .tid = r->tid };
	bool direct = true;

	/*
	 * The producer reads the heartbeat's line and the tail's at every
	 * write: each store here costs it a cache miss, so neither is
	 * written when it would not change (or, the heartbeat, not by much).
	 */
	now = ue_buffer_clock_ns();
	if (now - h->heartbeat_ns >= HEARTBEAT_EVERY_NS) {
		if (r->tsc)
			h->heartbeat_tsc = ue_tsc_read();
		h->heartbeat_ns = now;
	}
	if (h->full_wait_ns != nat->full_wait_ns)
		h->full_wait_ns = nat->full_wait_ns;
	ring_note_dropped(nat, s, r);
	if (tail == head)
		return 0;
	memcpy(who.comm, r->comm, sizeof(who.comm));
	/* A blocking reader's channel is full: the records wait in the ring, the producer for room. */
	if (ue_buffer_chan_room(nat->buf, now)) {
		nat->blocked = true;
		return 0;
	}
	if (head - tail > r->size) {
		/* A client that wrote its head wrong has lost its ring. */
		__atomic_store_n(&h->state, UE_RING_DEAD, __ATOMIC_RELEASE);
		nat->invalid++;
		h->tail = head;
		return 0;
	}
	while (tail != head && n < DRAIN_BATCH) {
		uint32_t pos = (uint32_t)(tail & (r->size - 1)), cpu;
		struct ue_native_rec hdr;
		struct ue_entry_hdr eh;
		struct ue_buffer_wrec *w;
		struct ue_filter_ctx fctx;
		struct ue_commit commit;
		struct nevent *ev;
		unsigned int verdict;
		unsigned char *rec;
		size_t len;

		/*
		 * len and id first: padding at the end of the area may be
		 * shorter than a record header, and the area ends there.
		 */
		memcpy(&hdr, r->data + pos, 8);
		if (!rec_len_ok(hdr.len, pos, r->size, head - tail)) {
			__atomic_store_n(&h->state, UE_RING_DEAD, __ATOMIC_RELEASE);
			nat->invalid++;
			tail = head;
			break;
		}
		tail += hdr.len;
		if (hdr.id == 0)
			continue;
		n++;
		if (hdr.len < sizeof(hdr)) {
			nat->invalid++;
			continue;
		}
		memcpy((unsigned char *)&hdr + 8, r->data + pos + 8, sizeof(hdr) - 8);
		if (hdr.id > s->nev || !s->ev[hdr.id].ev || !rec_payload_ok(&hdr)) {
			nat->invalid++;
			continue;
		}
		ev = &s->ev[hdr.id];
		if (ue_revent_dead(ev->ev))
			continue;
		hdr.ts_ns = rec_time(nat, r, hdr.ts_ns);
		cpu = hdr.cpu < ncpus ? hdr.cpu : hdr.cpu % ncpus;
		len = UE_ENTRY_HDR_SIZE + hdr.payload_len;
		eh.type = ev->type;
		eh.flags = 0;
		eh.preempt_count = 0;
		eh.pid = r->tid;
		if (ue_commit_plain(ev->ev) && direct_on(nat, st, s, cpu, &direct)) {
			const struct ue_check *check = ue_revent_check(ev->ev);

			/*
			 * The common record, copied once: into the reader's
			 * page or the ring, where it is checked (the producer
			 * cannot reach it there) and kept by a commit, or left
			 * uncommitted.
			 */
			rec = ue_buffer_direct_reserve(&st->direct, hdr.ts_ns, &who, len);
			if (!rec) {
				/*
				 * Lost in the channel (counted there) or dropped by the
				 * ring (direct_end() counts it): taken, as
				 * ue_buffer_write_many() takes it.
				 */
				st->direct.n++;
			} else {
				memcpy(rec, &eh, sizeof(eh));
				ue_copy_exact(rec + sizeof(eh), r->data + pos + sizeof(hdr), hdr.payload_len);
				if (ue_check_record(check, rec, len) < 0) {
					nat->invalid++;	/* left uncommitted: not in the page */
				} else {
					ue_buffer_direct_commit(&st->direct);
					st->direct.n++;
					r->cpu = cpu;
					count_record(nat, s, r, st, hdr.id, len, ids, &nids);
					/* Those that follow of the same event and CPU, in a tighter loop. */
					n += run_on(s, r, st, &tail, head, DRAIN_BATCH - n, &hdr, ev, &eh,
						    check, &who);
				}
			}
			/* A run holds the CPU's lock: at most DRAIN_FLUSH records, lost ones too. */
			if (st->direct.n >= DRAIN_FLUSH) {
				direct_end(nat, st, s);
				__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
				if (ue_buffer_chan_room(nat->buf, ue_buffer_clock_ns())) {
					nat->blocked = true;
					break;
				}
			}
			continue;
		}
		/* Triggers and filters may take locks: not under a CPU's. */
		direct_end(nat, st, s);
		if (!ue_commit_begin(&commit, ev->ev, nat->buf))
			continue;
		if (st->n && st->cpu != cpu)
			stage_flush(nat, st, s);
		/* The one read of the payload: checked and stored from this copy only. */
		rec = st->bytes + st->used;
		memcpy(rec, &eh, sizeof(eh));
		memcpy(rec + sizeof(eh), r->data + pos + sizeof(hdr), hdr.payload_len);
		if (ue_check_record(ue_revent_check(ev->ev), rec, len) < 0) {
			nat->invalid++;
			continue;
		}
		fctx.cpu = cpu;
		fctx.comm = r->comm;
		verdict = ue_commit_decide(&commit, rec, len, &fctx);
		if (!(verdict & UE_COMMIT_STORE)) {
			if (verdict & UE_COMMIT_THEN_TRIGGER)
				ue_commit_trigger(&commit);
			continue;
		}
		count_record(nat, s, r, st, hdr.id, len, ids, &nids);
		w = &st->w[st->n++];
		w->meta.ts_ns = hdr.ts_ns;
		w->meta.cpu = 0;
		w->meta.tgid = s->pid;
		w->meta.tid = r->tid;
		memcpy(w->meta.comm, r->comm, sizeof(w->meta.comm));
		w->data = rec;
		w->len = len;
		st->cpu = cpu;
		r->cpu = cpu;
		st->used += (len + 7) & ~(size_t)7;
		if (verdict & UE_COMMIT_THEN_TRIGGER) {
			/* traceoff acts once its record is in the buffer, before the next one. */
			stage_flush(nat, st, s);
			ue_commit_trigger(&commit);
		}
		if (st->n == DRAIN_FLUSH || st->used + UE_BUFFER_MAX_RECORD > sizeof(st->bytes)) {
			stage_flush(nat, st, s);
			/* Copied out: the producer may reuse the space already. */
			__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
			if (ue_buffer_chan_room(nat->buf, ue_buffer_clock_ns())) {
				nat->blocked = true;
				break;
			}
		}
	}
	direct_end(nat, st, s);
	stage_flush(nat, st, s);
	counts_flush(nat, s, r, st, ids, &nids);
	if (h->tail != tail)
		__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
	if (n)
		ue_cmdlines_remember(nat->cmdlines, &who);
	return n;
}

void ue_native_session_free(struct nsession *s)
{
	struct ue_native_server *nat = s->nat;
	pthread_join(s->thread, NULL);
	ue_buffer_chan_close(nat->buf, s->chan);
	while (s->rings) {
		struct nring *r = s->rings;

		s->rings = r->next;
		__atomic_store_n(&r->hdr->state, UE_RING_DEAD, __ATOMIC_RELEASE);
		ring_note_dropped(nat, s, r);
		ue_mutex_lock(&nat->lock);
		nat->dropped_gone += r->hdr->dropped;
		nat->nrings--;
		ue_mutex_unlock(&nat->lock);
		munmap(r->hdr, r->map_len);
		close(r->fd);
		free(r);
	}
	for (uint32_t i = 1; i <= s->nev; i++)
		ue_revent_release(s->ev[i].ev);
	close(s->sock);
	free(s);
}

/* Sleep @us, or less when a ring is made (its producer is about to fill it). */
static void drain_sleep(struct ue_native_server *nat, unsigned int us)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += (long)us * 1000;
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	ue_mutex_lock(&nat->wake_lock);
	while (!nat->woken &&
	       ue_cond_timedwait(&nat->wake, &nat->wake_lock, &until) == 0)
		;
	nat->woken = false;
	ue_mutex_unlock(&nat->wake_lock);
}

void ue_native_drain_wake(struct ue_native_server *nat)
{
	ue_mutex_lock(&nat->wake_lock);
	nat->woken = true;
	pthread_cond_signal(&nat->wake);
	ue_mutex_unlock(&nat->wake_lock);
}

void *ue_native_drain_main(void *arg)
{
	struct ue_native_server *nat = arg;
	unsigned int sleep_us = IDLE_SLEEP_MIN_US;

	/* Named, so that top -H and /proc/PID/task/TID/schedstat show what the drain costs. */
	pthread_setname_np(pthread_self(), "ue-drain");
	while (!nat->stop) {
		struct nsession *gone = NULL;
		unsigned int moved = 0;
		uint64_t block = ue_buffer_chan_block_ns(nat->buf);
		bool blocked;

		/*
		 * A kernel that finds the counter unstable keeps time with
		 * another clock from then on: new rings are stamped with
		 * clock_gettime() (those made before keep their counter).  A
		 * file read: not under the lock FUSE writes take (ue_native_sync()).
		 */
		if (nat->tsc_per_ms) {
			uint64_t now = ue_buffer_clock_ns();

			if (now - nat->tsc_checked_ns >= 1000000000ull) {
				nat->tsc_checked_ns = now;
				__atomic_store_n(&nat->tsc_offer,
						 ue_native_tsc_offered() ? nat->tsc_per_ms : 0,
						 __ATOMIC_RELAXED);
			}
		}
		ue_mutex_lock(&nat->lock);
		/* Every pass, idle ones too: a record lies between the anchors before and after it. */
		if (nat->tsc.ready)
			ue_native_tsc_anchor(nat);
		nat->blocked = false;
		nat->full_wait_ns = block > FULL_WAIT_NS ? block : FULL_WAIT_NS;
		for (struct nsession **ps = &nat->sessions; *ps;) {
			struct nsession *s = *ps;
			unsigned int m = 0;

			for (struct nring **pr = &s->rings; *pr;) {
				struct nring *r = *pr;
				bool ended = r->ended;

				m += drain_ring(s, r, nat->stage);
				/* Its thread is gone and wrote nothing since we read its end. */
				if (ended && r->hdr->tail == __atomic_load_n(&r->hdr->head,
									     __ATOMIC_ACQUIRE)) {
					*pr = r->next;
					ring_note_dropped(nat, s, r);
					nat->dropped_gone += r->hdr->dropped;
					s->nrings--;
					nat->nrings--;
					munmap(r->hdr, r->map_len);
					close(r->fd);
					free(r);
					continue;
				}
				pr = &r->next;
			}
			moved += m;
			/* Gone once its rings are empty (not merely held back for a blocking reader). */
			if (s->closing && m == 0 && !(nat->blocked && s->rings)) {
				*ps = s->next;
				nat->nsessions--;
				s->next = gone;
				gone = s;
				continue;
			}
			ps = &s->next;
		}
		blocked = nat->blocked;
		ue_mutex_unlock(&nat->lock);
		/* Pages of the channels that hold records flush_ms old go to their readers. */
		ue_buffer_chan_tick(nat->buf, ue_buffer_clock_ns(), NULL);
		/* Joining a session thread: not under the lock it may wait for. */
		while (gone) {
			struct nsession *s = gone;

			gone = s->next;
			ue_native_session_free(s);
		}
		/*
		 * Much to do: at once.  A few records: let them gather first.
		 * A drain that follows a producer record by record reads the
		 * lines it is writing (and its head) as it writes them, and
		 * costs it a cache miss a record; 100 us of a fast producer
		 * fit in a ring many times over.
		 */
		if (moved >= DRAIN_FLUSH) {
			sleep_us = IDLE_SLEEP_MIN_US;
			continue;
		}
		/* Held back for a blocking reader: look again soon, its room comes back at once. */
		if (moved || blocked)
			sleep_us = IDLE_SLEEP_MIN_US;
		drain_sleep(nat, sleep_us);
		/*
		 * Idle: up to 20 ms while there are rings (a producer whose ring
		 * fills waits FULL_WAIT_NS for us), 100 ms without (the channels'
		 * pages of FUSE writes are then handed over that much later).
		 */
		if (!moved && sleep_us < (__atomic_load_n(&nat->nrings, __ATOMIC_RELAXED)
						  ? IDLE_SLEEP_MAX_US : IDLE_SLEEP_NO_RINGS_US))
			sleep_us *= 2;
	}
	return NULL;
}

void ue_native_sync(struct ue_native_server *nat)
{
	if (!nat ||
	    !__atomic_load_n(&nat->nsessions, __ATOMIC_RELAXED))
		return;
	ue_mutex_lock(&nat->lock);
	if (nat->tsc.ready)
		ue_native_tsc_anchor(nat);
	for (struct nsession *s = nat->sessions; s; s = s->next) {
		for (struct nring *r = s->rings; r; r = r->next) {
			uint64_t head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);

			ring_note_dropped(nat, s, r);
			/* What was written before the request came; a busy writer does not hold us. */
			for (int k = 0; k < 64 && (int64_t)(head - r->hdr->tail) > 0; k++)
				if (!drain_ring(s, r, nat->stage))
					break;
		}
	}
	ue_mutex_unlock(&nat->lock);
}
