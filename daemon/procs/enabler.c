// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * enabler: the set of process handles and their enablers, the caller of a
 * request (proven once) and its registrations, the graveyard of dead
 * handles, sweeps, counters, and what the proc-events listener asks of the
 * set (the processes it knows).  The writer threads are enabler-write.c;
 * fork records and their proofs are fork.c.
 */
#include "enabler-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

uint64_t ue_en_boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct proc *ue_en_proc_alloc(struct ue_procmem *mem)
{
	struct proc *p = calloc(1, sizeof(*p));

	if (!p) {
		ue_procmem_close(mem);
		return NULL;
	}
	ue_mutex_init(&p->io, UE_LOCK_PROC_IO);
	p->mem = mem;
	p->id = *ue_procmem_get_id(mem);
	return p;
}

void ue_en_proc_list_add(struct proc **head, struct proc *p)
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

void ue_en_proc_unref_locked(struct ue_enablers *set, struct proc *p)
{
	ue_mutex_assert_held(&set->lock);

	if (--p->refs)
		return;
	ue_procmem_close(p->mem);
	ue_mutex_destroy(&p->io);
	free(p);
}

static void proc_unref(struct ue_enablers *set, struct proc *p)
{
	ue_mutex_lock(&set->lock);
	ue_en_proc_unref_locked(set, p);
	ue_mutex_unlock(&set->lock);
}

/* Unlink @p; a dead process with enablers waits in the graveyard for put(). */
void ue_en_proc_kill_locked(struct ue_enablers *set, struct proc *p, bool dead)
{
	ue_mutex_assert_held(&set->lock);

	if (p->gone)
		return;
	p->gone = true;
	set->npending -= p->pending;
	proc_list_del(p);
	set->nprocs--;
	if (dead)
		set->dead++;
	if (dead && set->reports && p->enablers && !p->reported) {
		p->unreported = true;
		p->dead_ns = ue_enablers_clock_ns();
	}
	if (p->enablers)
		ue_en_proc_list_add(&set->graveyard, p);
	else
		ue_en_proc_unref_locked(set, p);
	pthread_cond_broadcast(&set->done_cond);
}

/* A process whose last enabler went keeps no descriptors open. */
static void proc_drop_if_empty_locked(struct ue_enablers *set, struct proc *p)
{
	ue_mutex_assert_held(&set->lock);

	if (!p->gone && !p->nenablers)
		ue_en_proc_kill_locked(set, p, false);
}

struct proc *ue_en_proc_find_locked(struct ue_enablers *set, const struct ue_procmem_id *id)
{
	struct proc *p;

	ue_mutex_assert_held(&set->lock);

	for (p = set->procs; p; p = p->next)
		if (ue_procmem_id_equal(&p->id, id))
			return p;
	return NULL;
}

struct proc *ue_en_find_tgid_locked(struct ue_enablers *set, pid_t tgid)
{
	struct proc *p, *best = NULL;

	ue_mutex_assert_held(&set->lock);

	for (p = set->procs; p; p = p->next)
		if (p->id.tgid == tgid && !p->gone &&
		    (!best || p->id.start_time > best->id.start_time))
			best = p;
	return best;
}

/* Put the references of every parked process and dropped fork; called with no lock held. */
int ue_en_release_graveyard(struct ue_enablers *set)
{
	struct fork_rec *forks, *f;
	struct proc *list, *p, *next;
	int n = 0;

	ue_mutex_lock(&set->lock);
	list = NULL;
	for (p = set->graveyard; p; p = next) {
		next = p->next;
		/*
		 * Kept for forks read before its exec or exit; bounded by the
		 * reader's progress in case no report comes.
		 */
		if (p->unreported && set->read_until_ns < p->dead_ns + UNREPORTED_MAX_NS)
			continue;
		proc_list_del(p);
		p->next = list;
		list = p;
	}
	forks = set->dead_forks;
	set->dead_forks = NULL;
	ue_mutex_unlock(&set->lock);

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
		ue_mutex_lock(&p->io);
		while ((e = p->enablers)) {
			p->enablers = e->next;
			set->ops.put(e->event);
			free(e);
		}
		p->nenablers = 0;
		ue_mutex_unlock(&p->io);
		proc_unref(set, p);
		n++;
	}
	return n;
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
	ue_mutex_init(&set->lock, UE_LOCK_ENABLERS);
	pthread_cond_init(&set->work_cond, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&set->done_cond, &ca);
	pthread_condattr_destroy(&ca);
	set->forks_tail = &set->forks;

	ue_mutex_lock(&set->lock);
	r = ue_en_spawn_worker_locked(set);
	ue_mutex_unlock(&set->lock);
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
	ue_mutex_lock(&set->lock);
	set->stopping = true;
	pthread_cond_broadcast(&set->work_cond);
	ue_mutex_unlock(&set->lock);
	for (i = 0; i < set->nworkers; i++)
		pthread_join(set->workers[i], NULL);

	ue_mutex_lock(&set->lock);
	while ((p = set->qhead)) {
		set->qhead = p->qnext;
		ue_en_proc_unref_locked(set, p);
	}
	while ((p = set->procs))
		ue_en_proc_kill_locked(set, p, false);
	/* No verifier runs any more: nothing is claimed. */
	ue_en_forks_discard_locked(set);
	/* No fork is read any more: nothing waits for a report. */
	for (p = set->graveyard; p; p = p->next)
		p->unreported = false;
	ue_mutex_unlock(&set->lock);
	ue_en_release_graveyard(set);

	pthread_cond_destroy(&set->done_cond);
	pthread_cond_destroy(&set->work_cond);
	ue_mutex_destroy(&set->lock);
	free(set->workers);
	free(set);
}

/* Hold @p (or nothing) as @up's process in the set. */
static void caller_cache_locked(struct ue_proc *up, struct proc *p)
{
	ue_mutex_assert_held(&up->set->lock);

	if (up->p == p)
		return;
	if (up->p)
		ue_en_proc_unref_locked(up->set, up->p);
	up->p = p;
	if (p)
		p->refs++;
}

/* @up's process in the set, with a reference, or NULL: looked up once per request. */
static struct proc *caller_find_locked(struct ue_enablers *set, struct ue_proc *up)
{
	struct proc *p = up->p;

	ue_mutex_assert_held(&set->lock);

	if (!p || p->gone) {
		p = ue_en_proc_find_locked(set, ue_procmem_get_id(up->mem));
		caller_cache_locked(up, p);
	}
	if (p)
		p->refs++;
	return p;
}

/*
 * The handle of @up's process with a reference, found as a request finds
 * it (the set unlocked on return), and *@ret_alive: ue_procmem_alive() of
 * it, > 0 or -errno.  NULL when there is none, or when an exec (or a reuse
 * within a tick) killed its mm since: same pid and start time, but the new
 * program registered nothing; that handle is killed off here.
 */
static struct proc *caller_get(struct ue_enablers *set, struct ue_proc *up, int *ret_alive)
{
	struct proc *p;

	ue_mutex_lock(&set->lock);
	p = caller_find_locked(set, up);
	ue_mutex_unlock(&set->lock);
	if (!p)
		return NULL;
	/* Not under the set's lock: a look at another process's memory. */
	*ret_alive = ue_procmem_alive(p->mem);
	if (*ret_alive != 0)
		return p;
	ue_mutex_lock(&set->lock);
	ue_en_proc_kill_locked(set, p, true);
	ue_en_proc_unref_locked(set, p);
	ue_mutex_unlock(&set->lock);
	return NULL;
}

/* The live handle of @up's process, found or created, with a reference. */
static int get_proc(struct ue_enablers *set, struct ue_proc *up, struct proc **ret_p)
{
	struct ue_procmem *mem;
	struct proc *p, *q;
	int r;

	/* A fork child's handle stays pending: only ue_enablers_confirm() after a read of the connector proves it. */
	p = caller_get(set, up, &r);
	if (p) {
		*ret_p = p;
		return 0;
	}

	ue_mutex_lock(&set->lock);
	r = set->nprocs >= set->opts.max_processes ? -ENOMEM : 0;
	ue_mutex_unlock(&set->lock);
	if (r)
		return r;
	/* The request's proof, duplicated: the same address space, never looked up again. */
	r = ue_procmem_dup(up->mem, &mem);
	if (r < 0)
		return -ENOMEM;
	/* Keyed by the identity read after the memory was pinned. */
	p = ue_en_proc_alloc(mem);
	if (!p)
		return -ENOMEM;

	ue_mutex_lock(&set->lock);
	q = ue_en_proc_find_locked(set, &p->id);
	if (q || set->nprocs >= set->opts.max_processes) {
		if (q) {
			q->refs++;
			caller_cache_locked(up, q);
		}
		ue_mutex_unlock(&set->lock);
		ue_procmem_close(mem);
		ue_mutex_destroy(&p->io);
		free(p);
		if (!q)
			return -ENOMEM;
		*ret_p = q;
		return 0;
	}
	p->refs = 2;
	ue_en_proc_list_add(&set->procs, p);
	set->nprocs++;
	caller_cache_locked(up, p);
	ue_mutex_unlock(&set->lock);
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
		ue_mutex_lock(&up->set->lock);
		ue_en_proc_unref_locked(up->set, up->p);
		ue_mutex_unlock(&up->set->lock);
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

struct enabler **ue_en_enabler_find_locked(struct ue_enablers *set, struct proc *p, uint64_t addr,
					   unsigned int bit)
{
	struct enabler **pe;

	ue_mutex_assert_held(&set->lock);

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

	if (!set || !up || !event || (enable_size != 4 && enable_size != 8) || addr % enable_size ||
	    bit >= enable_size * 8)
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
		ue_mutex_lock(&p->io);
		ue_mutex_lock(&set->lock);
		if (!p->gone)
			break;
		/* Killed by a sweep or emptied by a remove meanwhile: look again. */
		ue_mutex_unlock(&set->lock);
		ue_mutex_unlock(&p->io);
		proc_unref(set, p);
		if (tries == 3) {
			r = -ESRCH;
			goto fail;
		}
	}

	if (ue_en_enabler_find_locked(set, p, addr, bit))
		r = -EADDRINUSE;
	else if (p->nenablers >= set->opts.max_per_process)
		r = -ENOMEM;
	if (r < 0)
		goto unlock;
	want = set->ops.is_enabled ? set->ops.is_enabled(event) : enabled_now;
	ue_mutex_unlock(&set->lock);

	/* Synchronous, like the kernel: the caller learns whether the word works. */
	r = ue_en_write_bit(set, p, e->byte_addr, e->byte_bit, want);

	ue_mutex_lock(&set->lock);
	if (!r && p->gone)
		r = -ESRCH;
	if (r < 0) {
		if (r == -ESRCH)
			ue_en_proc_kill_locked(set, p, true);
		else
			set->failed++;
		/* The kernel answers ENOMEM when the first write of an enabler fails. */
		if (r == -EFAULT)
			r = -ENOMEM;
		goto unlock;
	}
	e->want = want;
	e->asserted_ns = ue_en_boot_ns();
	e->next = p->enablers;
	p->enablers = e;
	p->nenablers++;
	if (set->ops.is_enabled && set->ops.is_enabled(event) != want) {
		/* The state changed while we wrote; the update did not see us yet. */
		e->want = !want;
		e->dirty = true;
		p->req_gen++;
		ue_en_schedule_locked(set, p);
	}
	e = NULL;
unlock:
	if (r < 0)
		proc_drop_if_empty_locked(set, p);
	ue_mutex_unlock(&set->lock);
	ue_mutex_unlock(&p->io);
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
	/* A handle from before an exec holds the old program's enablers, not the caller's. */
	p = caller_get(set, up, &r);
	if (!p)
		return 0;
	ue_mutex_lock(&set->lock);
	if (r > 0)
		r = !p->gone && ue_en_enabler_find_locked(set, p, addr, bit) ? 1 : 0;
	ue_en_proc_unref_locked(set, p);
	ue_mutex_unlock(&set->lock);
	return r;
}

int ue_enabler_remove(struct ue_enablers *set, struct ue_proc *up, uint64_t addr, unsigned int bit)
{
	struct enabler **pe, *e = NULL;
	struct proc *p;
	int r;

	if (!set || !up)
		return -EINVAL;
	/* None, or a handle from before an exec: the new program registered nothing. */
	p = caller_get(set, up, &r);
	if (!p)
		return -ENOENT;

	ue_mutex_lock(&p->io);
	ue_mutex_lock(&set->lock);
	pe = p->gone ? NULL : ue_en_enabler_find_locked(set, p, addr, bit);
	if (pe) {
		e = *pe;
		*pe = e->next;
		p->nenablers--;
		proc_drop_if_empty_locked(set, p);
	}
	ue_mutex_unlock(&set->lock);

	r = -ENOENT;
	if (e) {
		/* Cleared whatever the event's state, as the kernel does. */
		r = ue_en_write_bit(set, p, e->byte_addr, e->byte_bit, false);
		if (r < 0) {
			ue_mutex_lock(&set->lock);
			set->failed++;
			ue_mutex_unlock(&set->lock);
			r = -EFAULT;
		}
	}
	ue_mutex_unlock(&p->io);
	proc_unref(set, p);
	if (e) {
		set->ops.put(e->event);
		free(e);
	}
	return r;
}

/*
 * Drop the handles of dead processes (all, or those of @tgid when > 0).
 * @polled: @tgid's report comes from the children poller, which found an
 * earlier process of that pid dead (a handle in the graveyard, or a child
 * that exec'd before its proof) some time after the fact: by then the pid
 * may be a new process's, forked, recorded, even proven.  Nothing of that
 * process is voided; only what waited for this report ends.
 */
static int drop_dead(struct ue_enablers *set, pid_t tgid, bool polled)
{
	struct proc **list = NULL, *p;
	unsigned int n = 0, i;

	ue_mutex_lock(&set->lock);
	if (tgid > 0 && polled)
		ue_en_exec_forks_end_locked(set, tgid);
	else if (tgid > 0)
		ue_en_forks_cancel_locked(set, tgid);

	if (set->nprocs)
		list = malloc(set->nprocs * sizeof(*list));
	for (p = list ? set->procs : NULL; p; p = p->next) {
		if (tgid > 0 && p->id.tgid != tgid)
			continue;
		p->refs++;
		list[n++] = p;
	}
	ue_mutex_unlock(&set->lock);

	/* Probed without the lock: a probe may wait for the process's mmap lock. */
	for (i = 0; i < n; i++) {
		/*
		 * An exec or exit reported after a fork child's handle was
		 * opened: that handle may be the new program's, never write it.
		 */
		if (tgid > 0 && !polled && list[i]->pending) {
			ue_mutex_lock(&set->lock);
			if (list[i]->pending && !list[i]->gone) {
				set->gone_forks++;
				ue_en_proc_kill_locked(set, list[i], true);
			}
			ue_mutex_unlock(&set->lock);
			continue;
		}
		if (ue_procmem_alive(list[i]->mem) == 0) {
			ue_mutex_lock(&set->lock);
			ue_en_proc_kill_locked(set, list[i], true);
			ue_mutex_unlock(&set->lock);
		} else if (tgid > 0 && !polled) {
			ue_mutex_lock(&set->lock);
			list[i]->reported = true;
			ue_mutex_unlock(&set->lock);
		}
	}
	ue_mutex_lock(&set->lock);
	for (i = 0; i < n; i++)
		ue_en_proc_unref_locked(set, list[i]);
	/* Reported: a fork read from now on is of another memory. */
	for (p = set->graveyard; p && tgid > 0; p = p->next)
		if (p->id.tgid == tgid)
			p->unreported = false;
	ue_mutex_unlock(&set->lock);
	free(list);
	return ue_en_release_graveyard(set);
}

int ue_enablers_drop_process(struct ue_enablers *set, pid_t tgid)
{
	if (!set || tgid <= 0)
		return -EINVAL;
	return drop_dead(set, tgid, false);
}

int ue_enablers_report_dead(struct ue_enablers *set, pid_t tgid)
{
	if (!set || tgid <= 0)
		return -EINVAL;
	return drop_dead(set, tgid, true);
}

int ue_enablers_sweep(struct ue_enablers *set)
{
	if (!set)
		return -EINVAL;
	return drop_dead(set, 0, false);
}

/* What the proc-events listener asks of the set, and tells it. */

size_t ue_enablers_known(struct ue_enablers *set, pid_t *buf, size_t max)
{
	struct fork_rec *f;
	struct proc *p;
	size_t n = 0;

	if (!set)
		return 0;
	ue_mutex_lock(&set->lock);
	for (p = set->procs; p && n < max; p = p->next)
		if (!p->gone)
			buf[n++] = p->id.tgid;
	for (f = set->forks; f && n < max; f = f->next)
		buf[n++] = f->child;
	for (f = set->claimed; f && n < max; f = f->next)
		buf[n++] = f->child;
	ue_mutex_unlock(&set->lock);
	return n;
}

size_t ue_enablers_unreported(struct ue_enablers *set, pid_t *buf, size_t max)
{
	size_t n = 0;

	if (!set)
		return 0;
	ue_mutex_lock(&set->lock);
	for (struct proc *p = set->graveyard; p && n < max; p = p->next)
		if (p->unreported)
			buf[n++] = p->id.tgid;
	for (struct fork_rec *f = set->exec_forks; f && n < max; f = f->next)
		buf[n++] = f->child;
	ue_mutex_unlock(&set->lock);
	return n;
}

void ue_enablers_keep_exec_forks(struct ue_enablers *set)
{
	ue_mutex_lock(&set->lock);
	set->keep_exec_forks = true;
	ue_mutex_unlock(&set->lock);
}

bool ue_enablers_knows(struct ue_enablers *set, pid_t tgid)
{
	bool found;

	if (!set)
		return false;
	ue_mutex_lock(&set->lock);
	found = ue_en_find_tgid_locked(set, tgid) || ue_en_fork_find(set->forks, tgid) ||
		ue_en_fork_find(set->claimed, tgid) || ue_en_fork_find(set->exec_forks, tgid);
	for (struct proc *p = set->graveyard; p && !found; p = p->next)
		found = p->unreported && p->id.tgid == tgid;
	ue_mutex_unlock(&set->lock);
	return found;
}

bool ue_enablers_knows_caller(struct ue_enablers *set, struct ue_proc *caller)
{
	struct proc *p;
	bool found;
	int alive;

	if (!set || !caller)
		return false;
	ue_mutex_lock(&set->lock);
	found = ue_en_fork_find(set->forks, ue_proc_tgid(caller)) ||
		ue_en_fork_find(set->claimed, ue_proc_tgid(caller));
	p = found ? NULL : ue_en_proc_find_locked(set, ue_procmem_get_id(caller->mem));
	if (p)
		p->refs++;
	ue_mutex_unlock(&set->lock);
	if (!p)
		return found;
	/* The same identity on a dead memory: a pid given again within a clock tick. */
	alive = ue_procmem_alive(p->mem);
	ue_mutex_lock(&set->lock);
	found = !p->gone && alive != 0;
	ue_en_proc_unref_locked(set, p);
	ue_mutex_unlock(&set->lock);
	return found;
}

void ue_enablers_track_reports(struct ue_enablers *set)
{
	ue_mutex_lock(&set->lock);
	set->reports = true;
	ue_mutex_unlock(&set->lock);
}

void ue_enablers_read_until(struct ue_enablers *set, uint64_t ns)
{
	bool release;

	if (!set)
		return;
	ue_mutex_lock(&set->lock);
	/* Called at every read of the connector: the graveyard is walked only when it holds any. */
	release = ns > set->read_until_ns && set->graveyard;
	if (ns > set->read_until_ns)
		set->read_until_ns = ns;
	ue_mutex_unlock(&set->lock);
	if (release)
		ue_en_release_graveyard(set);
}

void ue_enablers_stats(struct ue_enablers *set, struct ue_enablers_stats *ret_stats)
{
	struct ue_enablers_stats s;
	struct enabler *e;
	struct proc *p;

	memset(&s, 0, sizeof(s));
	ue_mutex_lock(&set->lock);
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
	s.probe_retries = set->probe_retries;
	ue_mutex_unlock(&set->lock);
	*ret_stats = s;
}
