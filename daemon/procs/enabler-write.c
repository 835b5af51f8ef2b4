// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * enabler-write: the writer threads that mirror an event's state into the
 * enable words of every process, one process at a time each, with bounded
 * retries of transient faults, and the wait that makes a write to an
 * "enable" file return once the bits are set.
 */
#include "enabler-int.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Write one bit, retrying transient failures (a fault the kernel would have
 * resolved asynchronously) a bounded number of times.  Called with p->io held.
 * Return: 0, -ESRCH (process gone) or -EFAULT (not writable, or gave up).
 */
int ue_en_write_bit(struct ue_enablers *set, struct proc *p, uint64_t byte_addr,
		    unsigned int byte_bit, bool want)
{
	unsigned int attempt;
	int r;

	for (attempt = 1;; attempt++) {
		bool stop;

		r = ue_procmem_update_bit(p->mem, byte_addr, byte_bit, want);
		if (r == 0 || r == -ESRCH || r == -EFAULT)
			return r;
		ue_mutex_lock(&set->lock);
		if (attempt == 1)
			set->faults++;
		stop = set->stopping || p->gone || attempt >= set->opts.max_attempts;
		if (!stop)
			set->retries++;
		ue_mutex_unlock(&set->lock);
		if (stop)
			return -EFAULT;
		sleep_ms(attempt < 7 ? 1u << (attempt - 1) : 64);
	}
}

/* Write every dirty enabler of @p until none is left. */
static void serve(struct ue_enablers *set, struct proc *p)
{
	ue_mutex_lock(&p->io);
	ue_mutex_lock(&set->lock);
	for (;;) {
		uint64_t gen = p->req_gen;
		bool found = false;
		struct enabler *e;

		/* With io held only a kill can change the list, and it sets gone. */
		for (e = p->enablers; e && !p->gone && !set->frozen; e = e->next) {
			uint64_t byte_addr;
			unsigned int byte_bit;
			bool want;
			int r;

			if (!e->dirty)
				continue;
			found = true;
			e->dirty = false;
			e->busy = true;
			byte_addr = e->byte_addr;
			byte_bit = e->byte_bit;
			want = e->want;
			ue_mutex_unlock(&set->lock);
			r = ue_en_write_bit(set, p, byte_addr, byte_bit, want);
			ue_mutex_lock(&set->lock);
			if (p->gone)
				break;
			e->busy = false;
			/* The byte is final now: a fork before may have the old one. */
			e->asserted_ns = ue_en_boot_ns();
			if (r == -ESRCH)
				ue_en_proc_kill_locked(set, p, true);
			else if (r < 0)
				set->failed++;
		}
		if (p->gone || set->frozen)
			break;
		if (!found) {
			p->done_gen = gen;
			p->stalled = false;
			break;
		}
	}
	p->scheduled = false;
	pthread_cond_broadcast(&set->done_cond);
	ue_mutex_unlock(&set->lock);
	ue_mutex_unlock(&p->io);
}

static void *worker_main(void *arg)
{
	struct ue_enablers *set = arg;

	ue_mutex_lock(&set->lock);
	while (!set->stopping) {
		struct proc *p = set->frozen ? NULL : set->qhead;

		if (!p) {
			set->idle++;
			ue_cond_wait(&set->work_cond, &set->lock);
			set->idle--;
			continue;
		}
		set->qhead = p->qnext;
		if (!set->qhead)
			set->qtail = NULL;
		p->qnext = NULL;
		set->qlen--;
		set->serving++;
		ue_mutex_unlock(&set->lock);
		serve(set, p);
		ue_mutex_lock(&set->lock);
		set->serving--;
		pthread_cond_broadcast(&set->done_cond);
		ue_en_proc_unref_locked(set, p);
	}
	ue_mutex_unlock(&set->lock);
	return NULL;
}

int ue_en_spawn_worker_locked(struct ue_enablers *set)
{
	ue_mutex_assert_held(&set->lock);

	sigset_t all, old;
	int r;

	/* Workers take no signals: they belong to the daemon's main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&set->workers[set->nworkers], NULL, worker_main, set);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	set->nworkers++;
	return 0;
}

void ue_en_schedule_locked(struct ue_enablers *set, struct proc *p)
{
	ue_mutex_assert_held(&set->lock);

	if (p->scheduled || p->pending)
		return;
	p->scheduled = true;
	p->refs++;
	p->qnext = NULL;
	if (set->qtail)
		set->qtail->qnext = p;
	else
		set->qhead = p;
	set->qtail = p;
	set->qlen++;
	/* One worker per queued process, so a stalled one holds up only itself. */
	if (set->qlen > set->idle && set->nworkers < set->opts.max_workers)
		ue_en_spawn_worker_locked(set);
	pthread_cond_signal(&set->work_cond);
}

void ue_en_schedule_dirty_locked(struct ue_enablers *set, struct proc *p)
{
	for (struct enabler *e = p->enablers; e; e = e->next)
		if (e->dirty) {
			p->req_gen++;
			ue_en_schedule_locked(set, p);
			return;
		}
}

struct waiter {
	struct proc *p;
	uint64_t gen;
};

static bool waiter_done(const struct waiter *w)
{
	return w->p->gone || w->p->stalled || w->p->done_gen >= w->gen;
}

static void deadline_add_ms(struct timespec *t, unsigned int ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static bool ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

int ue_enablers_update_event(struct ue_enablers *set, void *event, bool enabled)
{
	struct waiter *w = NULL;
	struct timespec deadline, cap;
	unsigned int nw = 0, ndone = 0, i;
	struct proc *p;
	int pending = 0, ret = 0;
	uint64_t now;

	if (!set || !event)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	cap = deadline;
	deadline_add_ms(&deadline, set->opts.wait_ms);
	deadline_add_ms(&cap, UE_ENABLERS_MAX_WAIT_MS);

	ue_mutex_lock(&set->lock);
	now = ue_en_boot_ns();
	for (p = set->procs; p; p = p->next) {
		struct enabler *e;
		bool hit = false;

		for (e = p->enablers; e; e = e->next) {
			if (e->event != event)
				continue;
			/* Rewritten even when unchanged: the kernel re-asserts the bit too. */
			e->want = enabled;
			e->asserted_ns = now;
			e->dirty = true;
			hit = true;
		}
		if (!hit)
			continue;
		p->req_gen++;
		ue_en_schedule_locked(set, p);
		/*
		 * A fork child not confirmed yet is written once it is (within
		 * the grace): waited for too, as the kernel would have its bit
		 * set on return.  Not one an update already gave up on.
		 */
		if (p->stalled)
			continue;
		if (!w) {
			w = malloc(set->nprocs * sizeof(*w));
			if (!w) {
				ret = -ENOMEM;
				break;
			}
		}
		w[nw].p = p;
		w[nw].gen = p->req_gen;
		p->refs++;
		nw++;
	}
	if (ret < 0) {
		/* Still hand the remaining writes over, just without waiting. */
		for (; p; p = p->next) {
			struct enabler *e;

			for (e = p->enablers; e; e = e->next) {
				if (e->event == event) {
					e->want = enabled;
					e->asserted_ns = now;
					e->dirty = true;
					p->req_gen++;
					ue_en_schedule_locked(set, p);
				}
			}
		}
	}

	/*
	 * Wait while the writes go on: until wait_ms pass with none of the
	 * remaining processes done (a loaded machine writing many of them
	 * finishes them all), UE_ENABLERS_MAX_WAIT_MS at most in all.  The
	 * ones still not done then are stalled, left to finish in the
	 * background.  The wait_ms count from the last one done, not in
	 * windows from the start: a window in which others were written must
	 * not earn a stalled process a second whole window.
	 */
	for (;;) {
		unsigned int done = 0;
		bool late = false;

		for (i = 0; i < nw; i++)
			done += waiter_done(&w[i]);
		if (done == nw)
			break;
		if (done > ndone) {
			ndone = done;
			clock_gettime(CLOCK_MONOTONIC, &deadline);
			deadline_add_ms(&deadline, set->opts.wait_ms);
			if (ts_before(&cap, &deadline))
				deadline = cap;
		}
		if (ue_cond_timedwait(&set->done_cond, &set->lock, &deadline) != ETIMEDOUT)
			continue;
		/* One done as the wait timed out is progress too (unless the cap is reached). */
		for (i = 0, done = 0; i < nw; i++)
			done += waiter_done(&w[i]);
		if (done > ndone && ts_before(&deadline, &cap))
			continue;
		for (i = 0; i < nw; i++) {
			if (!waiter_done(&w[i])) {
				w[i].p->stalled = true;
				late = true;
			}
		}
		if (late)
			set->late++;
		break;
	}

	for (p = set->procs; p; p = p->next) {
		struct enabler *e;

		for (e = p->enablers; e; e = e->next)
			if (e->event == event && (e->dirty || e->busy))
				pending++;
	}
	for (i = 0; i < nw; i++)
		ue_en_proc_unref_locked(set, w[i].p);
	ue_mutex_unlock(&set->lock);
	free(w);
	return ret < 0 ? ret : pending;
}

int ue_enablers_settle_caller(struct ue_enablers *set, struct ue_proc *caller)
{
	struct timespec deadline;
	struct enabler *e;
	struct proc *p;
	struct waiter w;
	bool dirty = false;
	int r = 0;

	if (!set || !caller)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline_add_ms(&deadline, set->opts.wait_ms);
	ue_mutex_lock(&set->lock);
	p = ue_en_proc_find_locked(set, ue_procmem_get_id(caller->mem));
	for (e = p && !p->pending && !p->stalled ? p->enablers : NULL; e; e = e->next)
		dirty |= e->dirty || e->busy;
	if (dirty) {
		/* A pass that leaves nothing dirty reaches this generation. */
		w = (struct waiter){ p, ++p->req_gen };
		p->refs++;
		ue_en_schedule_locked(set, p);
		while (!waiter_done(&w)) {
			if (ue_cond_timedwait(&set->done_cond, &set->lock, &deadline) ==
			    ETIMEDOUT) {
				r = -ETIMEDOUT;
				break;
			}
		}
		ue_en_proc_unref_locked(set, p);
	}
	ue_mutex_unlock(&set->lock);
	return r;
}

void ue_enablers_freeze(struct ue_enablers *set)
{
	struct timespec deadline;

	if (!set)
		return;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec++;
	ue_mutex_lock(&set->lock);
	set->frozen = true;
	/*
	 * A write under way ends (its enabler stays dirty or busy, saved as
	 * to be written).  Bounded: a write stuck on the process's memory is
	 * left to finish, stale by then; the successor writes after it.
	 */
	while (set->serving &&
	       ue_cond_timedwait(&set->done_cond, &set->lock, &deadline) != ETIMEDOUT)
		;
	ue_mutex_unlock(&set->lock);
}

void ue_enablers_thaw(struct ue_enablers *set)
{
	if (!set)
		return;
	ue_mutex_lock(&set->lock);
	set->frozen = false;
	/* What a frozen worker left: every process with a dirty enabler, queued again. */
	for (struct proc *p = set->procs; p; p = p->next)
		ue_en_schedule_dirty_locked(set, p);
	pthread_cond_broadcast(&set->work_cond);
	ue_mutex_unlock(&set->lock);
}
