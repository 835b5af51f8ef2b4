// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * enabler: the set of process handles and their enablers, the workers that
 * write enable bits into processes, and the wait that makes a write to an
 * "enable" file return once the bits are set.
 */
#include "enabler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procmem.h"

/*
 * Locking: set->lock guards every list, flag and counter below.  proc->io
 * serializes the writes into one process (two read-modify-writes of the same
 * byte must not interleave) and keeps its enabler list from changing under
 * a writer; it is taken before set->lock, never while holding it.  Writes
 * into a process happen with io held and set->lock released.
 */

struct enabler {
	struct enabler *next;
	void *event;
	uint64_t addr;	    /* as registered: with bit, the key */
	uint64_t byte_addr; /* the byte that holds the bit */
	uint8_t bit;	    /* as registered */
	uint8_t byte_bit;   /* the bit within byte_addr */
	bool want;	    /* the state to mirror */
	bool dirty;	    /* want not written yet */
	bool busy;	    /* a worker is writing it */
};

struct proc {
	struct proc *next; /* set->procs, or set->graveyard once gone */
	struct proc **pprev;
	struct proc *qnext; /* set->queue */
	struct ue_procmem *mem;
	struct ue_procmem_id id;
	struct enabler *enablers;
	unsigned int nenablers;
	unsigned int refs; /* list or graveyard, queue, callers in flight */
	uint64_t req_gen;  /* bumped whenever an enabler becomes dirty */
	uint64_t done_gen; /* req_gen of the last pass that left nothing dirty */
	bool scheduled;	   /* queued or being served */
	bool gone;	   /* unlinked: dead, or emptied */
	bool stalled;	   /* an update stopped waiting for it; cleared when done */
	/*
	 * Inherited at a fork and not confirmed yet: its enablers are kept
	 * but nothing is written until ue_enablers_confirm() or the child's
	 * own request shows the handle is the forked child's memory.
	 */
	bool pending;
	uint64_t opened_ns; /* CLOCK_MONOTONIC when its handle was opened */
	pthread_mutex_t io;
};

struct ue_enablers {
	struct ue_enabler_ops ops;
	struct ue_enablers_opts opts;
	pthread_mutex_t lock;
	pthread_cond_t work_cond; /* workers: the queue changed or stop */
	pthread_cond_t done_cond; /* waiters: a process finished or went */
	struct proc *procs;
	unsigned int nprocs;
	struct proc *graveyard; /* dead, their event references not put yet */
	struct proc *qhead, *qtail;
	unsigned int qlen;
	pthread_t *workers;
	unsigned int nworkers, idle;
	bool stopping;
	uint64_t failed, faults, retries, late, dead;
	uint64_t inherited, shared_vm, refused;
};

static uint64_t enable_byte(uint64_t addr, unsigned int bit, unsigned int size)
{
	/*
	 * The kernel treats the word as part of an aligned long and sets bit
	 * (bit + 32) of it for 4-byte words at 4 mod 8 on little endian; either
	 * way the bit lives in byte bit / 8 counted from the word's lowest
	 * address (little endian) or from its highest (big endian).
	 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	(void)size;
	return addr + bit / 8;
#else
	return addr + size - 1 - bit / 8;
#endif
}

static void proc_list_add(struct proc **head, struct proc *p)
{
	p->next = *head;
	if (p->next)
		p->next->pprev = &p->next;
	*head = p;
	p->pprev = head;
}

static void proc_list_del(struct proc *p)
{
	*p->pprev = p->next;
	if (p->next)
		p->next->pprev = p->pprev;
	p->next = NULL;
	p->pprev = NULL;
}

static void proc_unref_locked(struct proc *p)
{
	if (--p->refs)
		return;
	ue_procmem_close(p->mem);
	pthread_mutex_destroy(&p->io);
	free(p);
}

static void proc_unref(struct ue_enablers *set, struct proc *p)
{
	pthread_mutex_lock(&set->lock);
	proc_unref_locked(p);
	pthread_mutex_unlock(&set->lock);
}

/* Unlink @p; a dead process with enablers waits in the graveyard for put(). */
static void proc_kill_locked(struct ue_enablers *set, struct proc *p, bool dead)
{
	if (p->gone)
		return;
	p->gone = true;
	proc_list_del(p);
	set->nprocs--;
	if (dead)
		set->dead++;
	if (p->enablers)
		proc_list_add(&set->graveyard, p);
	else
		proc_unref_locked(p);
	pthread_cond_broadcast(&set->done_cond);
}

/* A process whose last enabler went keeps no descriptors open. */
static void proc_drop_if_empty_locked(struct ue_enablers *set, struct proc *p)
{
	if (!p->gone && !p->nenablers)
		proc_kill_locked(set, p, false);
}

static struct proc *proc_find_locked(struct ue_enablers *set, const struct ue_procmem_id *id)
{
	struct proc *p;

	for (p = set->procs; p; p = p->next)
		if (ue_procmem_id_equal(&p->id, id))
			return p;
	return NULL;
}

/* Put the references of every parked process; called with no lock held. */
static int release_graveyard(struct ue_enablers *set)
{
	struct proc *list, *p;
	int n = 0;

	pthread_mutex_lock(&set->lock);
	list = set->graveyard;
	set->graveyard = NULL;
	pthread_mutex_unlock(&set->lock);

	while ((p = list)) {
		struct enabler *e;

		list = p->next;
		/*
		 * Gone processes are never written again; io keeps a fork that is
		 * copying these enablers (and taking references) out of the way.
		 */
		pthread_mutex_lock(&p->io);
		while ((e = p->enablers)) {
			p->enablers = e->next;
			set->ops.put(e->event);
			free(e);
		}
		p->nenablers = 0;
		pthread_mutex_unlock(&p->io);
		proc_unref(set, p);
		n++;
	}
	return n;
}

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
static int write_bit(struct ue_enablers *set, struct proc *p, uint64_t byte_addr,
		     unsigned int byte_bit, bool want)
{
	unsigned int attempt;
	int r;

	for (attempt = 1;; attempt++) {
		bool stop;

		r = ue_procmem_update_bit(p->mem, byte_addr, byte_bit, want);
		if (r == 0 || r == -ESRCH || r == -EFAULT)
			return r;
		pthread_mutex_lock(&set->lock);
		if (attempt == 1)
			set->faults++;
		stop = set->stopping || p->gone || attempt >= set->opts.max_attempts;
		if (!stop)
			set->retries++;
		pthread_mutex_unlock(&set->lock);
		if (stop)
			return -EFAULT;
		sleep_ms(attempt < 7 ? 1u << (attempt - 1) : 64);
	}
}

/* Write every dirty enabler of @p until none is left. */
static void serve(struct ue_enablers *set, struct proc *p)
{
	pthread_mutex_lock(&p->io);
	pthread_mutex_lock(&set->lock);
	for (;;) {
		uint64_t gen = p->req_gen;
		bool found = false;
		struct enabler *e;

		/* With io held only a kill can change the list, and it sets gone. */
		for (e = p->enablers; e && !p->gone; e = e->next) {
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
			pthread_mutex_unlock(&set->lock);
			r = write_bit(set, p, byte_addr, byte_bit, want);
			pthread_mutex_lock(&set->lock);
			if (p->gone)
				break;
			e->busy = false;
			if (r == -ESRCH)
				proc_kill_locked(set, p, true);
			else if (r < 0)
				set->failed++;
		}
		if (p->gone)
			break;
		if (!found) {
			p->done_gen = gen;
			p->stalled = false;
			break;
		}
	}
	p->scheduled = false;
	pthread_cond_broadcast(&set->done_cond);
	pthread_mutex_unlock(&set->lock);
	pthread_mutex_unlock(&p->io);
}

static void *worker_main(void *arg)
{
	struct ue_enablers *set = arg;

	pthread_mutex_lock(&set->lock);
	while (!set->stopping) {
		struct proc *p = set->qhead;

		if (!p) {
			set->idle++;
			pthread_cond_wait(&set->work_cond, &set->lock);
			set->idle--;
			continue;
		}
		set->qhead = p->qnext;
		if (!set->qhead)
			set->qtail = NULL;
		p->qnext = NULL;
		set->qlen--;
		pthread_mutex_unlock(&set->lock);
		serve(set, p);
		pthread_mutex_lock(&set->lock);
		proc_unref_locked(p);
	}
	pthread_mutex_unlock(&set->lock);
	return NULL;
}

static int spawn_worker_locked(struct ue_enablers *set)
{
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

static void schedule_locked(struct ue_enablers *set, struct proc *p)
{
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
		spawn_worker_locked(set);
	pthread_cond_signal(&set->work_cond);
}

/* A confirmed child: write every enabler's current state into it. */
static void confirm_locked(struct ue_enablers *set, struct proc *p)
{
	struct enabler *e;

	if (!p->pending || p->gone)
		return;
	p->pending = false;
	for (e = p->enablers; e; e = e->next)
		e->dirty = true;
	p->req_gen++;
	schedule_locked(set, p);
}

int ue_enablers_new(const struct ue_enabler_ops *ops, struct ue_enablers **ret_set)
{
	return ue_enablers_new_opts(ops, NULL, ret_set);
}

int ue_enablers_new_opts(const struct ue_enabler_ops *ops, const struct ue_enablers_opts *opts,
			 struct ue_enablers **ret_set)
{
	struct ue_enablers *set;
	pthread_condattr_t ca;
	int r;

	if (!ops || !ops->get || !ops->put || !ret_set)
		return -EINVAL;
	if (opts && opts->sz < sizeof(size_t))
		return -EINVAL;
	set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	set->ops = *ops;
	if (opts)
		memcpy(&set->opts, opts,
		       opts->sz < sizeof(set->opts) ? opts->sz : sizeof(set->opts));
	set->opts.sz = sizeof(set->opts);
	if (!set->opts.max_processes)
		set->opts.max_processes = UE_ENABLERS_DEFAULT_MAX_PROCESSES;
	if (!set->opts.max_per_process)
		set->opts.max_per_process = UE_ENABLERS_DEFAULT_MAX_PER_PROCESS;
	if (!set->opts.max_workers)
		set->opts.max_workers = UE_ENABLERS_DEFAULT_MAX_WORKERS;
	if (!set->opts.wait_ms)
		set->opts.wait_ms = UE_ENABLERS_DEFAULT_WAIT_MS;
	if (!set->opts.max_attempts)
		set->opts.max_attempts = UE_ENABLERS_DEFAULT_MAX_ATTEMPTS;

	set->workers = calloc(set->opts.max_workers, sizeof(*set->workers));
	if (!set->workers) {
		free(set);
		return -ENOMEM;
	}
	pthread_mutex_init(&set->lock, NULL);
	pthread_cond_init(&set->work_cond, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&set->done_cond, &ca);
	pthread_condattr_destroy(&ca);

	pthread_mutex_lock(&set->lock);
	r = spawn_worker_locked(set);
	pthread_mutex_unlock(&set->lock);
	if (r < 0) {
		ue_enablers_free(set);
		return r == -ENOMEM ? r : -EAGAIN;
	}
	*ret_set = set;
	return 0;
}

void ue_enablers_free(struct ue_enablers *set)
{
	unsigned int i;
	struct proc *p;

	if (!set)
		return;
	pthread_mutex_lock(&set->lock);
	set->stopping = true;
	pthread_cond_broadcast(&set->work_cond);
	pthread_mutex_unlock(&set->lock);
	for (i = 0; i < set->nworkers; i++)
		pthread_join(set->workers[i], NULL);

	pthread_mutex_lock(&set->lock);
	while ((p = set->qhead)) {
		set->qhead = p->qnext;
		proc_unref_locked(p);
	}
	while ((p = set->procs))
		proc_kill_locked(set, p, false);
	pthread_mutex_unlock(&set->lock);
	release_graveyard(set);

	pthread_cond_destroy(&set->done_cond);
	pthread_cond_destroy(&set->work_cond);
	pthread_mutex_destroy(&set->lock);
	free(set->workers);
	free(set);
}

/* The live handle of @tid's process, found or created, with a reference. */
static int get_proc(struct ue_enablers *set, pid_t tid, const struct ue_procmem_id *id,
		    struct proc **ret_p)
{
	struct ue_procmem *mem;
	struct proc *p, *q;
	int r;

	pthread_mutex_lock(&set->lock);
	p = proc_find_locked(set, id);
	if (p)
		p->refs++;
	pthread_mutex_unlock(&set->lock);
	if (p) {
		/* Same pid and start time, but an exec (or a reuse within a tick) killed its mm. */
		if (ue_procmem_alive(p->mem) != 0) {
			/* The caller is the child, blocked in our request: the handle is its memory. */
			pthread_mutex_lock(&set->lock);
			confirm_locked(set, p);
			pthread_mutex_unlock(&set->lock);
			*ret_p = p;
			return 0;
		}
		pthread_mutex_lock(&set->lock);
		proc_kill_locked(set, p, true);
		proc_unref_locked(p);
		pthread_mutex_unlock(&set->lock);
	}

	pthread_mutex_lock(&set->lock);
	r = set->nprocs >= set->opts.max_processes ? -ENOMEM : 0;
	pthread_mutex_unlock(&set->lock);
	if (r)
		return r;
	r = ue_procmem_open(tid, &mem);
	if (r < 0)
		return r == -ESRCH ? r : -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p) {
		ue_procmem_close(mem);
		return -ENOMEM;
	}
	pthread_mutex_init(&p->io, NULL);
	p->mem = mem;
	/* Keyed by the identity read after the memory was pinned. */
	p->id = *ue_procmem_get_id(mem);

	pthread_mutex_lock(&set->lock);
	q = proc_find_locked(set, &p->id);
	if (q || set->nprocs >= set->opts.max_processes) {
		if (q)
			q->refs++;
		pthread_mutex_unlock(&set->lock);
		ue_procmem_close(mem);
		pthread_mutex_destroy(&p->io);
		free(p);
		if (!q)
			return -ENOMEM;
		*ret_p = q;
		return 0;
	}
	p->refs = 2;
	proc_list_add(&set->procs, p);
	set->nprocs++;
	pthread_mutex_unlock(&set->lock);
	*ret_p = p;
	return 0;
}

static struct enabler **enabler_find_locked(struct proc *p, uint64_t addr, unsigned int bit)
{
	struct enabler **pe;

	for (pe = &p->enablers; *pe; pe = &(*pe)->next)
		if ((*pe)->addr == addr && (*pe)->bit == bit)
			return pe;
	return NULL;
}

int ue_enabler_add(struct ue_enablers *set, pid_t tid, uint64_t addr, unsigned int bit,
		   unsigned int enable_size, void *event, bool enabled_now)
{
	struct ue_procmem_id id;
	struct enabler *e;
	struct proc *p;
	unsigned int tries;
	bool want;
	int r;

	if (!set || !event || (enable_size != 4 && enable_size != 8) || addr % enable_size ||
	    bit >= enable_size * 8)
		return -EINVAL;
	r = ue_procmem_identify(tid, &id);
	if (r < 0)
		return r;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->event = event;
	e->addr = addr;
	e->bit = (uint8_t)bit;
	e->byte_addr = enable_byte(addr, bit, enable_size);
	e->byte_bit = (uint8_t)(bit % 8);
	set->ops.get(event);

	for (tries = 0;; tries++) {
		r = get_proc(set, tid, &id, &p);
		if (r < 0)
			goto fail;
		pthread_mutex_lock(&p->io);
		pthread_mutex_lock(&set->lock);
		if (!p->gone)
			break;
		/* Killed by a sweep or emptied by a remove meanwhile: look again. */
		pthread_mutex_unlock(&set->lock);
		pthread_mutex_unlock(&p->io);
		proc_unref(set, p);
		if (tries == 3) {
			r = -ESRCH;
			goto fail;
		}
	}

	if (enabler_find_locked(p, addr, bit))
		r = -EADDRINUSE;
	else if (p->nenablers >= set->opts.max_per_process)
		r = -ENOMEM;
	if (r < 0)
		goto unlock;
	want = set->ops.is_enabled ? set->ops.is_enabled(event) : enabled_now;
	pthread_mutex_unlock(&set->lock);

	/* Synchronous, like the kernel: the caller learns whether the word works. */
	r = write_bit(set, p, e->byte_addr, e->byte_bit, want);

	pthread_mutex_lock(&set->lock);
	if (!r && p->gone)
		r = -ESRCH;
	if (r < 0) {
		if (r == -ESRCH)
			proc_kill_locked(set, p, true);
		else
			set->failed++;
		/* The kernel answers ENOMEM when the first write of an enabler fails. */
		if (r == -EFAULT)
			r = -ENOMEM;
		goto unlock;
	}
	e->want = want;
	e->next = p->enablers;
	p->enablers = e;
	p->nenablers++;
	if (set->ops.is_enabled && set->ops.is_enabled(event) != want) {
		/* The state changed while we wrote; the update did not see us yet. */
		e->want = !want;
		e->dirty = true;
		p->req_gen++;
		schedule_locked(set, p);
	}
	e = NULL;
unlock:
	if (r < 0)
		proc_drop_if_empty_locked(set, p);
	pthread_mutex_unlock(&set->lock);
	pthread_mutex_unlock(&p->io);
	proc_unref(set, p);
fail:
	if (e) {
		set->ops.put(event);
		free(e);
	}
	return r;
}

int ue_enabler_exists(struct ue_enablers *set, pid_t tid, uint64_t addr, unsigned int bit)
{
	struct ue_procmem_id id;
	struct proc *p;
	int r;

	if (!set)
		return -EINVAL;
	r = ue_procmem_identify(tid, &id);
	if (r < 0)
		return r;
	pthread_mutex_lock(&set->lock);
	p = proc_find_locked(set, &id);
	if (p)
		p->refs++;
	pthread_mutex_unlock(&set->lock);
	if (!p)
		return 0;
	/* A handle from before an exec holds the old program's enablers, not the caller's. */
	r = ue_procmem_alive(p->mem);
	pthread_mutex_lock(&set->lock);
	if (r > 0) {
		confirm_locked(set, p);
		r = !p->gone && enabler_find_locked(p, addr, bit) ? 1 : 0;
	}
	else if (r == 0)
		proc_kill_locked(set, p, true);
	proc_unref_locked(p);
	pthread_mutex_unlock(&set->lock);
	return r;
}

int ue_enabler_remove(struct ue_enablers *set, pid_t tid, uint64_t addr, unsigned int bit)
{
	struct ue_procmem_id id;
	struct enabler **pe, *e = NULL;
	struct proc *p;
	int r;

	if (!set)
		return -EINVAL;
	r = ue_procmem_identify(tid, &id);
	if (r < 0)
		return r == -ESRCH ? -ENOENT : r;
	pthread_mutex_lock(&set->lock);
	p = proc_find_locked(set, &id);
	if (p)
		p->refs++;
	pthread_mutex_unlock(&set->lock);
	if (!p)
		return -ENOENT;

	if (ue_procmem_alive(p->mem) == 0) {
		/* The handle is from before an exec: the new program registered nothing. */
		pthread_mutex_lock(&set->lock);
		proc_kill_locked(set, p, true);
		proc_unref_locked(p);
		pthread_mutex_unlock(&set->lock);
		return -ENOENT;
	}

	pthread_mutex_lock(&p->io);
	pthread_mutex_lock(&set->lock);
	confirm_locked(set, p);
	pe = p->gone ? NULL : enabler_find_locked(p, addr, bit);
	if (pe) {
		e = *pe;
		*pe = e->next;
		p->nenablers--;
		proc_drop_if_empty_locked(set, p);
	}
	pthread_mutex_unlock(&set->lock);

	r = -ENOENT;
	if (e) {
		/* Cleared whatever the event's state, as the kernel does. */
		r = write_bit(set, p, e->byte_addr, e->byte_bit, false);
		if (r < 0) {
			pthread_mutex_lock(&set->lock);
			set->failed++;
			pthread_mutex_unlock(&set->lock);
			r = -EFAULT;
		}
	}
	pthread_mutex_unlock(&p->io);
	proc_unref(set, p);
	if (e) {
		set->ops.put(e->event);
		free(e);
	}
	return r;
}

struct waiter {
	struct proc *p;
	uint64_t gen;
};

static bool waiter_done(const struct waiter *w)
{
	return w->p->gone || w->p->stalled || w->p->done_gen >= w->gen;
}

int ue_enablers_update_event(struct ue_enablers *set, void *event, bool enabled)
{
	struct waiter *w = NULL;
	struct timespec deadline;
	unsigned int nw = 0, i;
	struct proc *p;
	int pending = 0, ret = 0;

	if (!set || !event)
		return -EINVAL;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += set->opts.wait_ms / 1000;
	deadline.tv_nsec += (long)(set->opts.wait_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}

	pthread_mutex_lock(&set->lock);
	for (p = set->procs; p; p = p->next) {
		struct enabler *e;
		bool hit = false;

		for (e = p->enablers; e; e = e->next) {
			if (e->event != event)
				continue;
			/* Rewritten even when unchanged: the kernel re-asserts the bit too. */
			e->want = enabled;
			e->dirty = true;
			hit = true;
		}
		if (!hit)
			continue;
		p->req_gen++;
		schedule_locked(set, p);
		if (p->stalled || p->pending)
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
					e->dirty = true;
					p->req_gen++;
					schedule_locked(set, p);
				}
			}
		}
	}

	for (;;) {
		bool waiting = false;

		for (i = 0; i < nw && !waiting; i++)
			waiting = !waiter_done(&w[i]);
		if (!waiting)
			break;
		if (pthread_cond_timedwait(&set->done_cond, &set->lock, &deadline) == ETIMEDOUT) {
			bool late = false;

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
	}

	for (p = set->procs; p; p = p->next) {
		struct enabler *e;

		for (e = p->enablers; e; e = e->next)
			if (e->event == event && (e->dirty || e->busy))
				pending++;
	}
	for (i = 0; i < nw; i++)
		proc_unref_locked(w[i].p);
	pthread_mutex_unlock(&set->lock);
	free(w);
	return ret < 0 ? ret : pending;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What a forked child must show at an enable byte: the parent's mapping and byte. */
struct inherit {
	void *event;
	uint64_t addr, byte_addr;
	uint8_t bit, byte_bit;
	bool want;
	uint8_t mask; /* every enable bit the parent has in this byte */
};

static bool vma_same(const struct ue_procmem_vma *a, const struct ue_procmem_vma *b)
{
	if (a->flags != b->flags || a->inode != b->inode || a->dev_major != b->dev_major ||
	    a->dev_minor != b->dev_minor)
		return false;
	/*
	 * Anonymous mappings grow and merge after a fork (brk, neighbouring
	 * mmaps), so their bounds may differ; a file mapping must map the
	 * same file page at the address.
	 */
	return !a->inode || a->offset - a->start == b->offset - b->start;
}

/*
 * Whether @child's memory looks like a fork of @parent's at every enable
 * byte: the same kind of mapping and the same byte outside the enable bits.
 */
static bool child_matches(struct ue_procmem *parent, struct ue_procmem *child,
			  const struct inherit *in, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct ue_procmem_vma pv, cv;
		uint8_t pb, cb;

		if (ue_procmem_vma(parent, in[i].byte_addr, &pv) < 0 ||
		    ue_procmem_vma(child, in[i].byte_addr, &cv) < 0 || !vma_same(&pv, &cv) ||
		    !(cv.flags & UE_VMA_WRITE))
			return false;
		if (ue_procmem_read(parent, in[i].byte_addr, &pb, 1) != 1 ||
		    ue_procmem_read(child, in[i].byte_addr, &cb, 1) != 1)
			return false;
		if ((pb & ~in[i].mask) != (cb & ~in[i].mask))
			return false;
	}
	return true;
}

/* The live handle of process @tgid with a reference, or NULL. */
static struct proc *find_tgid_ref(struct ue_enablers *set, pid_t tgid)
{
	struct proc *p;

	pthread_mutex_lock(&set->lock);
	for (p = set->procs; p; p = p->next)
		if (p->id.tgid == tgid && !p->gone)
			break;
	if (p)
		p->refs++;
	pthread_mutex_unlock(&set->lock);
	return p;
}

int ue_enablers_fork(struct ue_enablers *set, pid_t parent_pid, pid_t parent_tgid, pid_t child)
{
	struct inherit *in = NULL;
	struct enabler *e, *copies = NULL;
	struct ue_procmem *mem = NULL;
	const struct ue_procmem_id *cid;
	struct proc *parent, *p = NULL;
	unsigned int n = 0, i, j;
	int r = 0;

	if (!set || parent_tgid <= 0 || child <= 0)
		return -EINVAL;
	parent = find_tgid_ref(set, parent_tgid);
	if (!parent)
		return 0;
	if (ue_procmem_alive(parent->mem) <= 0)
		goto out;
	/* CLONE_VM: the parent's handle already writes the memory they share. */
	if (syscall(SYS_kcmp, parent_pid, child, KCMP_VM, 0, 0) == 0 ||
	    syscall(SYS_kcmp, parent_tgid, child, KCMP_VM, 0, 0) == 0) {
		pthread_mutex_lock(&set->lock);
		set->shared_vm++;
		pthread_mutex_unlock(&set->lock);
		goto out;
	}
	r = ue_procmem_open(child, &mem);
	if (r < 0) {
		r = r == -ESRCH ? 0 : r;
		goto out;
	}
	cid = ue_procmem_get_id(mem);
	/* Not the process the event named, or younger than its parent: a reused pid. */
	if (cid->tgid != child || cid->start_time < parent->id.start_time)
		goto refuse;

	pthread_mutex_lock(&parent->io);
	pthread_mutex_lock(&set->lock);
	if (!parent->gone && parent->nenablers) {
		in = calloc(parent->nenablers, sizeof(*in));
		for (e = in ? parent->enablers : NULL; e; e = e->next) {
			in[n].event = e->event;
			in[n].addr = e->addr;
			in[n].byte_addr = e->byte_addr;
			in[n].bit = e->bit;
			in[n].byte_bit = e->byte_bit;
			in[n].want = e->want;
			n++;
		}
	}
	pthread_mutex_unlock(&set->lock);
	/* Under io the parent's enablers (and their references) stay. */
	for (i = 0; i < n; i++)
		set->ops.get(in[i].event);
	pthread_mutex_unlock(&parent->io);
	if (!n) {
		r = 0;
		goto close;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (in[j].byte_addr == in[i].byte_addr)
				in[i].mask |= (uint8_t)(1u << in[j].byte_bit);
	if (!child_matches(parent->mem, mem, in, n))
		goto refuse;

	for (i = 0; i < n; i++) {
		e = calloc(1, sizeof(*e));
		if (!e) {
			r = -ENOMEM;
			goto put;
		}
		e->event = in[i].event;
		e->addr = in[i].addr;
		e->byte_addr = in[i].byte_addr;
		e->bit = in[i].bit;
		e->byte_bit = in[i].byte_bit;
		e->want = in[i].want;
		e->next = copies;
		copies = e;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		r = -ENOMEM;
		goto put;
	}
	pthread_mutex_init(&p->io, NULL);
	p->mem = mem;
	p->id = *cid;
	p->pending = true;
	p->opened_ns = mono_ns();
	p->enablers = copies;
	p->nenablers = n;
	pthread_mutex_lock(&set->lock);
	if (proc_find_locked(set, &p->id) || set->nprocs >= set->opts.max_processes) {
		pthread_mutex_unlock(&set->lock);
		pthread_mutex_destroy(&p->io);
		free(p);
		r = 0;
		goto put;
	}
	p->refs = 1;
	proc_list_add(&set->procs, p);
	set->nprocs++;
	set->inherited++;
	pthread_mutex_unlock(&set->lock);
	free(in);
	proc_unref(set, parent);
	return 1;

refuse:
	pthread_mutex_lock(&set->lock);
	set->refused++;
	pthread_mutex_unlock(&set->lock);
put:
	while ((e = copies)) {
		copies = e->next;
		free(e);
	}
	for (i = 0; i < n; i++)
		set->ops.put(in[i].event);
close:
	ue_procmem_close(mem);
out:
	free(in);
	proc_unref(set, parent);
	return r;
}

int ue_enablers_confirm(struct ue_enablers *set, uint64_t opened_before_ns)
{
	struct proc **list = NULL, *p;
	unsigned int n = 0, i;
	int done = 0;

	if (!set)
		return -EINVAL;
	pthread_mutex_lock(&set->lock);
	if (set->nprocs)
		list = malloc(set->nprocs * sizeof(*list));
	for (p = list ? set->procs : NULL; p; p = p->next) {
		if (!p->pending || p->opened_ns > opened_before_ns)
			continue;
		p->refs++;
		list[n++] = p;
	}
	pthread_mutex_unlock(&set->lock);
	for (i = 0; i < n; i++) {
		int alive = ue_procmem_alive(list[i]->mem);

		pthread_mutex_lock(&set->lock);
		if (alive > 0 && list[i]->pending && !list[i]->gone) {
			confirm_locked(set, list[i]);
			done++;
		} else if (alive == 0) {
			proc_kill_locked(set, list[i], true);
		}
		proc_unref_locked(list[i]);
		pthread_mutex_unlock(&set->lock);
	}
	free(list);
	release_graveyard(set);
	return done;
}

uint64_t ue_enablers_clock_ns(void)
{
	return mono_ns();
}

/* Drop the handles of dead processes (all, or those of @tgid when > 0). */
static int drop_dead(struct ue_enablers *set, pid_t tgid)
{
	struct proc **list = NULL, *p;
	unsigned int n = 0, i;

	pthread_mutex_lock(&set->lock);
	if (set->nprocs)
		list = malloc(set->nprocs * sizeof(*list));
	for (p = list ? set->procs : NULL; p; p = p->next) {
		if (tgid > 0 && p->id.tgid != tgid)
			continue;
		p->refs++;
		list[n++] = p;
	}
	pthread_mutex_unlock(&set->lock);

	/* Probed without the lock: a probe may wait for the process's mmap lock. */
	for (i = 0; i < n; i++) {
		/*
		 * An exec or exit reported after a fork child's handle was
		 * opened: that handle may be the new program's, never write it.
		 */
		if (tgid > 0 && list[i]->pending) {
			pthread_mutex_lock(&set->lock);
			if (list[i]->pending && !list[i]->gone) {
				set->refused++;
				proc_kill_locked(set, list[i], true);
			}
			pthread_mutex_unlock(&set->lock);
			continue;
		}
		if (ue_procmem_alive(list[i]->mem) == 0) {
			pthread_mutex_lock(&set->lock);
			proc_kill_locked(set, list[i], true);
			pthread_mutex_unlock(&set->lock);
		}
	}
	pthread_mutex_lock(&set->lock);
	for (i = 0; i < n; i++)
		proc_unref_locked(list[i]);
	pthread_mutex_unlock(&set->lock);
	free(list);
	return release_graveyard(set);
}

int ue_enablers_drop_process(struct ue_enablers *set, pid_t tgid)
{
	if (!set || tgid <= 0)
		return -EINVAL;
	return drop_dead(set, tgid);
}

int ue_enablers_refuse_unconfirmed(struct ue_enablers *set)
{
	struct proc *p, *next;
	int n = 0;

	if (!set)
		return -EINVAL;
	pthread_mutex_lock(&set->lock);
	for (p = set->procs; p; p = next) {
		next = p->next;
		if (p->pending && !p->gone) {
			set->refused++;
			proc_kill_locked(set, p, true);
			n++;
		}
	}
	pthread_mutex_unlock(&set->lock);
	release_graveyard(set);
	return n;
}

int ue_enablers_sweep(struct ue_enablers *set)
{
	if (!set)
		return -EINVAL;
	return drop_dead(set, 0);
}

void ue_enablers_stats(struct ue_enablers *set, struct ue_enablers_stats *ret_stats)
{
	struct ue_enablers_stats s;
	struct enabler *e;
	struct proc *p;

	memset(&s, 0, sizeof(s));
	pthread_mutex_lock(&set->lock);
	s.processes = set->nprocs;
	for (p = set->procs; p; p = p->next) {
		s.enablers += p->nenablers;
		s.stalled += p->stalled;
		s.unconfirmed += p->pending;
		for (e = p->enablers; e; e = e->next)
			s.pending += e->dirty || e->busy;
	}
	for (p = set->graveyard; p; p = p->next)
		s.parked += p->nenablers;
	s.workers = set->nworkers;
	s.failed_writes = set->failed;
	s.faults = set->faults;
	s.retries = set->retries;
	s.late_updates = set->late;
	s.dead_processes = set->dead;
	s.inherited = set->inherited;
	s.shared_vm = set->shared_vm;
	s.refused_forks = set->refused;
	pthread_mutex_unlock(&set->lock);
	*ret_stats = s;
}
