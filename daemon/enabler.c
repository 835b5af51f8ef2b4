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
	uint64_t fork_seq;  /* the fork it inherited from (fork_rec.seq), or 0 */
	/*
	 * Dead, in the graveyard, and its exec or exit not read from the
	 * connector yet: a fork read before that report is a fork of this
	 * memory, and copies these enablers (see ue_enablers_fork()).
	 */
	bool unreported;
	uint64_t dead_ns; /* when it was found dead */
	pthread_mutex_t io;
};

/*
 * A fork read from the proc connector whose child has no handle yet: the
 * parent's enablers as they were when the fork was read, which is before
 * any later request of the parent was served (each request reads the
 * connector first), each with a reference on its event.  The slow part
 * (kcmp, opening the child's memory, checking it) is done later, outside
 * the connector's lock, by ue_enablers_verify_forks().
 */
struct fork_rec {
	struct fork_rec *next;
	pid_t parent_pid, parent_tgid, child;
	uint64_t seq; /* one per fork; a copy made for the child's request shares it */
	/* The parent's memory: a fork child has the same stack start, and is younger. */
	uint64_t parent_stack, parent_start_time;
	struct enabler *enablers;
	unsigned int nenablers;
	bool cancelled; /* the child exec'd or exited meanwhile */
	/*
	 * The other record of the same fork (the listener's, or the child's
	 * copy) was installed: installing this one too would give back what
	 * the child unregistered since (its handle may even be gone, emptied).
	 */
	bool superseded;
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
	struct fork_rec *forks, **forks_tail; /* not verified yet, oldest first */
	struct fork_rec *claimed;	      /* being verified */
	struct fork_rec *dead_forks;	      /* cancelled, references not put yet */
	unsigned int nforks;		      /* forks + claimed */
	unsigned int npending;		      /* handles with pending set */
	uint64_t fork_seq;		      /* the last fork_rec.seq given */
	bool reports;			      /* a connector reports execs and exits */
	pthread_t *workers;
	unsigned int nworkers, idle;
	bool stopping;
	uint64_t failed, faults, retries, late, dead;
	uint64_t inherited, shared_vm, refused, gone_forks;
};

/*
 * The caller of one request (see ue_proc_open()): its memory, opened while
 * it waits in the request, and its handle in the set once looked up.
 */
struct ue_proc {
	struct ue_enablers *set;
	struct ue_procmem *mem; /* the proof; its identity keys the lookup */
	struct proc *p;		/* a reference, or NULL before the first lookup */
};

/* How long a dead handle waits in the graveyard for its exec or exit report. */
#define UNREPORTED_MAX_NS (2 * 1000000000ull)

static void fork_unlink_locked(struct ue_enablers *set, struct fork_rec **pp, struct fork_rec *f);
static void fork_drop_locked(struct ue_enablers *set, struct fork_rec *f);
static struct fork_rec *fork_find(struct fork_rec *list, pid_t child);

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
	set->npending -= p->pending;
	proc_list_del(p);
	set->nprocs--;
	if (dead)
		set->dead++;
	if (dead && set->reports && p->enablers) {
		p->unreported = true;
		p->dead_ns = ue_enablers_clock_ns();
	}
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

/* Put the references of every parked process and dropped fork; called with no lock held. */
static int release_graveyard(struct ue_enablers *set)
{
	struct fork_rec *forks, *f;
	struct proc *list, *p, *next;
	int n = 0;

	pthread_mutex_lock(&set->lock);
	list = NULL;
	for (p = set->graveyard; p; p = next) {
		next = p->next;
		/* Kept for forks read before its exec or exit; bounded in case no report comes. */
		if (p->unreported && ue_enablers_clock_ns() - p->dead_ns < UNREPORTED_MAX_NS)
			continue;
		proc_list_del(p);
		p->next = list;
		list = p;
	}
	forks = set->dead_forks;
	set->dead_forks = NULL;
	pthread_mutex_unlock(&set->lock);

	while ((f = forks)) {
		struct enabler *e;

		forks = f->next;
		while ((e = f->enablers)) {
			f->enablers = e->next;
			set->ops.put(e->event);
			free(e);
		}
		free(f);
	}

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
	set->npending--;
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
	set->forks_tail = &set->forks;

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
	struct fork_rec *f;
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
	/* No verifier runs any more: nothing is claimed. */
	while ((f = set->forks)) {
		fork_unlink_locked(set, &set->forks, f);
		fork_drop_locked(set, f);
	}
	pthread_mutex_unlock(&set->lock);
	release_graveyard(set);

	pthread_cond_destroy(&set->done_cond);
	pthread_cond_destroy(&set->work_cond);
	pthread_mutex_destroy(&set->lock);
	free(set->workers);
	free(set);
}

/* Hold @p (or nothing) as @up's process in the set. */
static void caller_cache_locked(struct ue_proc *up, struct proc *p)
{
	if (up->p == p)
		return;
	if (up->p)
		proc_unref_locked(up->p);
	up->p = p;
	if (p)
		p->refs++;
}

/* @up's process in the set, with a reference, or NULL: looked up once per request. */
static struct proc *caller_find_locked(struct ue_enablers *set, struct ue_proc *up)
{
	struct proc *p = up->p;

	if (!p || p->gone) {
		p = proc_find_locked(set, ue_procmem_get_id(up->mem));
		caller_cache_locked(up, p);
	}
	if (p)
		p->refs++;
	return p;
}

/* The live handle of @up's process, found or created, with a reference. */
static int get_proc(struct ue_enablers *set, struct ue_proc *up, struct proc **ret_p)
{
	struct ue_procmem *mem;
	struct proc *p, *q;
	int r;

	pthread_mutex_lock(&set->lock);
	p = caller_find_locked(set, up);
	pthread_mutex_unlock(&set->lock);
	if (p) {
		/*
		 * Same pid and start time, but an exec (or a reuse within a tick)
		 * killed its mm.  A fork child's handle stays pending: only
		 * ue_enablers_confirm() after a read of the connector proves it.
		 */
		if (ue_procmem_alive(p->mem) != 0) {
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
	/* The request's proof, duplicated: the same address space, never looked up again. */
	r = ue_procmem_dup(up->mem, &mem);
	if (r < 0)
		return -ENOMEM;
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
		if (q) {
			q->refs++;
			caller_cache_locked(up, q);
		}
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
	caller_cache_locked(up, p);
	pthread_mutex_unlock(&set->lock);
	*ret_p = p;
	return 0;
}

int ue_proc_open(struct ue_enablers *set, pid_t tid, struct ue_proc **ret_proc)
{
	struct ue_proc *up;
	int r;

	if (!set || !ret_proc)
		return -EINVAL;
	up = calloc(1, sizeof(*up));
	if (!up)
		return -ENOMEM;
	r = ue_procmem_open(tid, &up->mem);
	if (r < 0) {
		free(up);
		return r;
	}
	up->set = set;
	*ret_proc = up;
	return 0;
}

void ue_proc_close(struct ue_proc *up)
{
	if (!up)
		return;
	if (up->p) {
		pthread_mutex_lock(&up->set->lock);
		proc_unref_locked(up->p);
		pthread_mutex_unlock(&up->set->lock);
	}
	ue_procmem_close(up->mem);
	free(up);
}

struct ue_procmem *ue_proc_mem(const struct ue_proc *up)
{
	return up->mem;
}

pid_t ue_proc_tgid(const struct ue_proc *up)
{
	return ue_procmem_get_id(up->mem)->tgid;
}

static struct enabler **enabler_find_locked(struct proc *p, uint64_t addr, unsigned int bit)
{
	struct enabler **pe;

	for (pe = &p->enablers; *pe; pe = &(*pe)->next)
		if ((*pe)->addr == addr && (*pe)->bit == bit)
			return pe;
	return NULL;
}

int ue_enabler_add(struct ue_enablers *set, struct ue_proc *up, uint64_t addr, unsigned int bit,
		   unsigned int enable_size, void *event, bool enabled_now)
{
	struct enabler *e;
	struct proc *p;
	unsigned int tries;
	bool want;
	int r;

	if (!set || !up || !event || (enable_size != 4 && enable_size != 8) ||
	    addr % enable_size || bit >= enable_size * 8)
		return -EINVAL;
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
		r = get_proc(set, up, &p);
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

int ue_enabler_exists(struct ue_enablers *set, struct ue_proc *up, uint64_t addr, unsigned int bit)
{
	struct proc *p;
	int r;

	if (!set || !up)
		return -EINVAL;
	pthread_mutex_lock(&set->lock);
	p = caller_find_locked(set, up);
	pthread_mutex_unlock(&set->lock);
	if (!p)
		return 0;
	/* A handle from before an exec holds the old program's enablers, not the caller's. */
	r = ue_procmem_alive(p->mem);
	pthread_mutex_lock(&set->lock);
	if (r > 0)
		r = !p->gone && enabler_find_locked(p, addr, bit) ? 1 : 0;
	else if (r == 0)
		proc_kill_locked(set, p, true);
	proc_unref_locked(p);
	pthread_mutex_unlock(&set->lock);
	return r;
}

int ue_enabler_remove(struct ue_enablers *set, struct ue_proc *up, uint64_t addr, unsigned int bit)
{
	struct enabler **pe, *e = NULL;
	struct proc *p;
	int r;

	if (!set || !up)
		return -EINVAL;
	pthread_mutex_lock(&set->lock);
	p = caller_find_locked(set, up);
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

/* What a forked child must show at an enable byte: the parent's mapping and byte. */
struct inherit {
	uint64_t byte_addr;
	uint8_t mask; /* every enable bit the fork or the parent has in this byte */
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
 * byte: a writable mapping, of the same kind as the parent's, holding the
 * same byte outside the enable bits.  Without the parent's memory (NULL: it
 * has only a fork record; or it has exited since) only the first holds.
 */
static bool child_matches(struct ue_procmem *parent, struct ue_procmem *child,
			  const struct inherit *in, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct ue_procmem_vma pv, cv;
		uint8_t pb, cb;

		if (ue_procmem_vma(child, in[i].byte_addr, &cv) < 0 || !(cv.flags & UE_VMA_WRITE))
			return false;
		if (!parent)
			continue;
		if (ue_procmem_vma(parent, in[i].byte_addr, &pv) < 0 ||
		    ue_procmem_read(parent, in[i].byte_addr, &pb, 1) != 1) {
			/* A parent that exits right after forking is common (daemons). */
			if (ue_procmem_alive(parent) != 0)
				return false;
			parent = NULL;
			continue;
		}
		if (!vma_same(&pv, &cv) || ue_procmem_read(child, in[i].byte_addr, &cb, 1) != 1 ||
		    (pb & ~in[i].mask) != (cb & ~in[i].mask))
			return false;
	}
	return true;
}

/* The live handle of process @tgid (the youngest, if a stale one lingers), or NULL. */
static struct proc *find_tgid_locked(struct ue_enablers *set, pid_t tgid)
{
	struct proc *p, *best = NULL;

	for (p = set->procs; p; p = p->next)
		if (p->id.tgid == tgid && !p->gone &&
		    (!best || p->id.start_time > best->id.start_time))
			best = p;
	return best;
}

static struct fork_rec *fork_find(struct fork_rec *list, pid_t child)
{
	while (list && (list->child != child || list->cancelled))
		list = list->next;
	return list;
}

/* Unlink @f from the list at @pp (set->forks or set->claimed). */
static void fork_unlink_locked(struct ue_enablers *set, struct fork_rec **pp, struct fork_rec *f)
{
	while (*pp != f)
		pp = &(*pp)->next;
	*pp = f->next;
	if (set->forks_tail == &f->next)
		set->forks_tail = pp;
	f->next = NULL;
}

/* @f (unlinked) is done with: its references are put by release_graveyard(). */
static void fork_drop_locked(struct ue_enablers *set, struct fork_rec *f)
{
	f->next = set->dead_forks;
	set->dead_forks = f;
	set->nforks--;
}

/* The child @tgid exec'd or exited: whatever it would inherit is void. */
static void forks_cancel_locked(struct ue_enablers *set, pid_t tgid)
{
	struct fork_rec *f;

	while ((f = fork_find(set->forks, tgid))) {
		fork_unlink_locked(set, &set->forks, f);
		set->gone_forks++;
		fork_drop_locked(set, f);
	}
	for (f = set->claimed; f; f = f->next)
		if (f->child == tgid)
			f->cancelled = true;
}

int ue_enablers_fork(struct ue_enablers *set, pid_t parent_pid, pid_t parent_tgid, pid_t child)
{
	struct enabler *src = NULL, *e, *c;
	struct fork_rec *f;
	struct proc *parent;
	int r = 1;

	if (!set || parent_pid <= 0 || parent_tgid <= 0 || child <= 0)
		return -EINVAL;
	if (!set->ops.dup)
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->parent_pid = parent_pid;
	f->parent_tgid = parent_tgid;
	f->child = child;

	pthread_mutex_lock(&set->lock);
	f->seq = ++set->fork_seq;
	parent = find_tgid_locked(set, parent_tgid);
	if (!parent) {
		/*
		 * Found dead (by a writer, say) after it forked and exec'd or
		 * exited, before this fork was read: the child still inherits.
		 */
		for (struct proc *q = set->graveyard; q; q = q->next)
			if (q->id.tgid == parent_tgid && q->unreported &&
			    (!parent || q->id.start_time > parent->id.start_time))
				parent = q;
	}
	if (parent) {
		src = parent->enablers;
		f->parent_stack = parent->id.start_stack;
		f->parent_start_time = parent->id.start_time;
	} else {
		/* A child of a child not verified yet inherits what its parent will. */
		struct fork_rec *pf = fork_find(set->forks, parent_tgid);

		if (!pf)
			pf = fork_find(set->claimed, parent_tgid);
		if (pf) {
			src = pf->enablers;
			f->parent_stack = pf->parent_stack;
			f->parent_start_time = pf->parent_start_time;
		}
	}
	if (!src || set->nprocs + set->nforks >= set->opts.max_processes) {
		if (src)
			set->refused++;
		pthread_mutex_unlock(&set->lock);
		free(f);
		return 0;
	}
	for (e = src; e; e = e->next) {
		c = malloc(sizeof(*c));
		if (!c) {
			r = -ENOMEM;
			break;
		}
		*c = *e;
		c->dirty = c->busy = false;
		c->next = f->enablers;
		f->enablers = c;
		f->nenablers++;
		set->ops.dup(e->event);
	}
	set->nforks++;
	if (r < 0) {
		set->refused++;
		fork_drop_locked(set, f);
	} else {
		*set->forks_tail = f;
		set->forks_tail = &f->next;
	}
	pthread_mutex_unlock(&set->lock);
	return r;
}

/* Add @f's enablers to @p (the child's handle, or its own registrations' handle). */
static void fork_install_locked(struct ue_enablers *set, struct proc *p, struct fork_rec *f)
{
	struct enabler *e, *left = NULL;
	struct fork_rec *g;

	for (g = set->claimed; g; g = g->next)
		if (g != f && g->seq == f->seq)
			g->superseded = true;
	for (g = set->forks; g; g = g->next)
		if (g->seq == f->seq)
			g->superseded = true;

	while ((e = f->enablers)) {
		f->enablers = e->next;
		if (enabler_find_locked(p, e->addr, e->bit) ||
		    p->nenablers >= set->opts.max_per_process) {
			/* Registered again by the child itself meanwhile: that one wins. */
			e->next = left;
			left = e;
			continue;
		}
		/* The state now, not when the fork was read: updates since went to handles only. */
		if (set->ops.is_enabled)
			e->want = set->ops.is_enabled(e->event);
		e->dirty = true;
		e->next = p->enablers;
		p->enablers = e;
		p->nenablers++;
	}
	f->enablers = left;
	p->req_gen++;
	schedule_locked(set, p);
}

/* Check @f's child (claimed by the caller) and give it a handle, or drop it. */
static int fork_verify(struct ue_enablers *set, struct fork_rec *f)
{
	struct ue_procmem *mem = NULL, *pmem = NULL;
	const struct ue_procmem_id *cid;
	struct inherit *in = NULL;
	struct proc *parent, *p;
	struct enabler *e;
	unsigned int n = 0, i;
	bool proven;
	int r = 0;

	/* CLONE_VM: the parent's handle already writes the memory they share. */
	if (syscall(SYS_kcmp, f->parent_pid, f->child, KCMP_VM, 0, 0) == 0 ||
	    syscall(SYS_kcmp, f->parent_tgid, f->child, KCMP_VM, 0, 0) == 0) {
		pthread_mutex_lock(&set->lock);
		set->shared_vm++;
		goto drop_locked;
	}
	r = ue_procmem_open(f->child, &mem);
	if (r < 0) {
		pthread_mutex_lock(&set->lock);
		if (r == -ESRCH)
			set->gone_forks++;
		else
			set->refused++;
		r = 0;
		goto drop_locked;
	}
	cid = ue_procmem_get_id(mem);

	in = calloc(f->nenablers, sizeof(*in));
	pthread_mutex_lock(&set->lock);
	/* The parent's handle, if it still has the memory the child was forked from. */
	parent = find_tgid_locked(set, f->parent_tgid);
	if (parent && parent->id.start_stack != f->parent_stack)
		parent = NULL;
	if (parent)
		parent->refs++;
	for (e = in ? f->enablers : NULL; e; e = e->next) {
		for (i = 0; i < n && in[i].byte_addr != e->byte_addr; i++)
			;
		in[i].byte_addr = e->byte_addr;
		in[i].mask |= (uint8_t)(1u << e->byte_bit);
		n += i == n;
	}
	/* The parent's bits may have come or gone since the fork: they are not compared. */
	for (e = parent && !parent->gone ? parent->enablers : NULL; e; e = e->next)
		for (i = 0; i < n; i++)
			if (in[i].byte_addr == e->byte_addr)
				in[i].mask |= (uint8_t)(1u << e->byte_bit);
	pmem = parent ? parent->mem : NULL;
	pthread_mutex_unlock(&set->lock);

	/*
	 * Not the process the event named, older than its parent (a reused
	 * pid), or with another stack start: a fork copies the parent's
	 * mm->start_stack, an exec sets a new one before it is reported.
	 */
	proven = in && cid->tgid == f->child && cid->start_time >= f->parent_start_time &&
		 cid->start_stack == f->parent_stack && child_matches(pmem, mem, in, n);
	pthread_mutex_lock(&set->lock);
	if (parent)
		proc_unref_locked(parent);
	if (f->superseded) {
		/* Installed by the other verifier, perhaps unregistered from since. */
		r = 1;
		goto drop_locked;
	}
	if (!proven) {
		/*
		 * Another stack start, or memory no task uses any more: the child
		 * exec'd (or exited) before its fork was verified.
		 */
		if (in && cid->tgid == f->child &&
		    (cid->start_stack != f->parent_stack || ue_procmem_alive(mem) == 0))
			set->gone_forks++;
		else
			set->refused++;
		goto drop_locked;
	}
	if (f->cancelled) {
		set->gone_forks++;
		goto drop_locked;
	}
	p = proc_find_locked(set, cid);
	if (p && p->fork_seq == f->seq) {
		/* The other verifier of this fork (listener or child's request) was first. */
		r = 1;
		goto drop_locked;
	}
	if (p) {
		/* The child registered on its own before its fork was verified: merge, under io. */
		p->refs++;
		pthread_mutex_unlock(&set->lock);
		pthread_mutex_lock(&p->io);
		pthread_mutex_lock(&set->lock);
		if (!p->gone && !f->cancelled && p->fork_seq != f->seq) {
			p->fork_seq = f->seq;
			fork_install_locked(set, p, f);
			set->inherited++;
			r = 1;
		}
		proc_unref_locked(p);
		fork_unlink_locked(set, &set->claimed, f);
		fork_drop_locked(set, f);
		pthread_mutex_unlock(&set->lock);
		pthread_mutex_unlock(&p->io);
		goto out;
	}
	p = calloc(1, sizeof(*p));
	if (!p || set->nprocs >= set->opts.max_processes) {
		free(p);
		set->refused++;
		goto drop_locked;
	}
	pthread_mutex_init(&p->io, NULL);
	p->mem = mem;
	mem = NULL;
	p->id = *cid;
	p->pending = true;
	set->npending++;
	/* Taken after the open: a read of the connector that starts later sees an exec before it. */
	p->opened_ns = ue_enablers_clock_ns();
	p->fork_seq = f->seq;
	p->refs = 1;
	proc_list_add(&set->procs, p);
	set->nprocs++;
	set->inherited++;
	/* No worker runs for a pending handle: install only marks the enablers dirty. */
	fork_install_locked(set, p, f);
	r = 1;
drop_locked:
	fork_unlink_locked(set, &set->claimed, f);
	fork_drop_locked(set, f);
	pthread_mutex_unlock(&set->lock);
out:
	free(in);
	ue_procmem_close(mem);
	release_graveyard(set);
	return r;
}

/* A second record of @f's fork for the child's own request (references duplicated). */
static struct fork_rec *fork_copy_locked(struct ue_enablers *set, const struct fork_rec *f)
{
	struct fork_rec *g = calloc(1, sizeof(*g));
	struct enabler *e, *c;

	if (!g)
		return NULL;
	*g = *f;
	g->enablers = NULL;
	g->nenablers = 0;
	for (e = f->enablers; e; e = e->next) {
		c = malloc(sizeof(*c));
		if (!c)
			break;
		*c = *e;
		c->next = g->enablers;
		g->enablers = c;
		g->nenablers++;
		set->ops.dup(e->event);
	}
	set->nforks++;
	if (e) {
		fork_drop_locked(set, g);
		return NULL;
	}
	return g;
}

/* Prove the fork records of @child (the caller of a request), or of every child (0). */
static int verify_forks(struct ue_enablers *set, pid_t child)
{
	int done = 0;

	pthread_mutex_lock(&set->lock);
	for (;;) {
		struct fork_rec *f = child > 0 ? fork_find(set->forks, child) : set->forks;

		if (f) {
			fork_unlink_locked(set, &set->forks, f);
		} else if (child > 0 && (f = fork_find(set->claimed, child))) {
			/*
			 * The listener is on it, perhaps slowed down: the child's
			 * request does not wait for it but proves a copy itself
			 * (the child is blocked in that request, so nothing it
			 * does can hold it up); the second to install drops its own.
			 */
			f = fork_copy_locked(set, f);
			if (!f)
				break;
		} else {
			break;
		}
		f->next = set->claimed;
		set->claimed = f;
		pthread_mutex_unlock(&set->lock);
		done += fork_verify(set, f) > 0;
		pthread_mutex_lock(&set->lock);
		if (child > 0)
			break;
	}
	pthread_mutex_unlock(&set->lock);
	return done;
}

int ue_enablers_verify_forks(struct ue_enablers *set)
{
	if (!set)
		return -EINVAL;
	return verify_forks(set, 0);
}

/* Confirm the pending handles of @tgid (0: of every process) opened before @opened_before_ns. */
static int confirm(struct ue_enablers *set, pid_t tgid, uint64_t opened_before_ns)
{
	struct proc **list = NULL, *p;
	unsigned int n = 0, i;
	int done = 0;

	pthread_mutex_lock(&set->lock);
	/* Called before every request: nothing to walk most of the time. */
	if (set->npending)
		list = malloc(set->npending * sizeof(*list));
	for (p = list ? set->procs : NULL; p; p = p->next) {
		if (!p->pending || p->opened_ns > opened_before_ns || (tgid > 0 && p->id.tgid != tgid))
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

int ue_enablers_confirm(struct ue_enablers *set, struct ue_proc *caller, uint64_t opened_before_ns)
{
	if (!set)
		return -EINVAL;
	return confirm(set, caller ? ue_proc_tgid(caller) : 0, opened_before_ns);
}

/* Whether @tgid has an unconfirmed handle opened at or after @since_ns. */
static bool pending_since(struct ue_enablers *set, pid_t tgid, uint64_t since_ns)
{
	bool found = false;

	pthread_mutex_lock(&set->lock);
	for (struct proc *p = set->npending ? set->procs : NULL; p && !found; p = p->next)
		found = p->pending && !p->gone && p->id.tgid == tgid && p->opened_ns >= since_ns;
	pthread_mutex_unlock(&set->lock);
	return found;
}

int ue_enablers_prove_caller(struct ue_enablers *set, struct ue_proc *caller, uint64_t read_ns)
{
	pid_t tgid;

	if (!set || !caller)
		return -EINVAL;
	tgid = ue_proc_tgid(caller);
	/*
	 * The listener may have proved the fork and opened the handle since
	 * the read: then too the caller reads again first.
	 */
	if (verify_forks(set, tgid) > 0 || pending_since(set, tgid, read_ns))
		return 1;
	confirm(set, tgid, read_ns);
	return 0;
}

void ue_enablers_track_reports(struct ue_enablers *set)
{
	pthread_mutex_lock(&set->lock);
	set->reports = true;
	pthread_mutex_unlock(&set->lock);
}

/* Drop the handles of dead processes (all, or those of @tgid when > 0). */
static int drop_dead(struct ue_enablers *set, pid_t tgid)
{
	struct proc **list = NULL, *p;
	unsigned int n = 0, i;

	pthread_mutex_lock(&set->lock);
	if (tgid > 0)
		forks_cancel_locked(set, tgid);

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
				set->gone_forks++;
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
	/* Reported: a fork read from now on is of another memory. */
	for (p = set->graveyard; p && tgid > 0; p = p->next)
		if (p->id.tgid == tgid)
			p->unreported = false;
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
	struct fork_rec *f;
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
	while ((f = set->forks)) {
		fork_unlink_locked(set, &set->forks, f);
		set->refused++;
		fork_drop_locked(set, f);
		n++;
	}
	for (f = set->claimed; f; f = f->next)
		f->cancelled = true;
	/* Their reports may be among the lost events. */
	for (p = set->graveyard; p; p = p->next)
		p->unreported = false;
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
	s.unconfirmed += set->nforks;
	s.workers = set->nworkers;
	s.failed_writes = set->failed;
	s.faults = set->faults;
	s.retries = set->retries;
	s.late_updates = set->late;
	s.dead_processes = set->dead;
	s.inherited = set->inherited;
	s.shared_vm = set->shared_vm;
	s.refused_forks = set->refused;
	s.gone_forks = set->gone_forks;
	pthread_mutex_unlock(&set->lock);
	*ret_stats = s;
}
