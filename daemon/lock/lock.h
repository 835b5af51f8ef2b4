/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lock: every lock of usereventsd, its rank in the daemon's one lock order,
 * and the checks of that order.  With UE_LOCKDEP (meson turns it on in
 * debug and debugoptimized builds and with a sanitizer: docs/ARCHITECTURE.md,
 * "Locking") a thread that takes a lock out of order, unlocks one it does
 * not hold, or enters a *_locked function without its lock aborts, naming
 * the ranks (the kernel's lockdep_assert_held(), with static ranks instead
 * of learned classes).  Without it the wrappers are the pthread calls.
 */
#ifndef UE_DAEMON_LOCK_H
#define UE_DAEMON_LOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/*
 * LOCKING.  The ranks, outermost first: a thread that holds a lock takes
 * only locks of a greater rank.  Two locks of one rank are never held at
 * once, except the rings' (taken in CPU order: UE_LOCK_NESTS).  A lock not
 * listed here does not exist in the daemon; a new one gets a rank here and
 * a line in docs/ARCHITECTURE.md.
 *
 * The one chain that runs through every module: a registration
 * (fs-data.c's DIAG_IOCSREG) calls the registry's register hook without
 * the registry's locks; fs-session.c's hook holds SESSIONS and enables an
 * armed event, which takes REG_STATE and, inside it, waits on ENABLERS
 * (ue_enablers_update_event(), up to 5 s) while the writer threads take
 * PROC_IO then ENABLERS; the enablers take and put event references
 * (REGISTRY, through their ops) under PROC_IO.  So REG_STATE sits above
 * the procs' locks and REGISTRY below them.
 */
enum ue_lock_rank {
	UE_LOCK_NONE,
	UE_LOCK_FH,		/* fs: one open file (struct ue_fh): snapshot, table, reader */
	UE_LOCK_SESSIONS,	/* fs-session.c: the sessions, their holds and armed patterns */
	UE_LOCK_PIPE,		/* fs-pipe.c: parked trace_pipe readers and pollers */
	UE_LOCK_NATIVE,		/* native: sessions, rings, counters; held across a drain pass */
	UE_LOCK_PROC_EVENTS,	/* proc-events.c: the one reader of the connector or poller */
	UE_LOCK_REG_STATE,	/* registry: enable changes, held across enabler updates */
	UE_LOCK_PROC_IO,	/* enablers: one process's writes (struct proc.io) */
	UE_LOCK_ENABLERS,	/* enablers: the set, its processes, queue and fork records */
	UE_LOCK_REGISTRY,	/* registry: the tables, references, counts */
	UE_LOCK_TRIGGERS,	/* registry: one event's triggers (trig_lock) */
	UE_LOCK_FILTER,		/* registry: one event's filter (a rwlock) */
	UE_LOCK_BUF_RESIZE,	/* buffer: a resize */
	UE_LOCK_BUF_CHANNELS,	/* buffer: the consumer channels' list */
	UE_LOCK_BUF_RING,	/* buffer: one CPU's ring (the record path) */
	UE_LOCK_BUF_WAIT,	/* buffer: readers waiting for records */
	UE_LOCK_TASKS,		/* tasks.c: the tid -> comm/tgid cache */
	UE_LOCK_CMDLINES,	/* tasks.c: saved_cmdlines */
	UE_LOCK_COUNTS,		/* counts.c: records per process and event */
	UE_LOCK_NATIVE_WAKE,	/* native: the drain's idle sleep */
	UE_LOCK_RELEASE,	/* fs-data.c: data files closed whose release has not come */
	UE_LOCK_FH_LIST,	/* fs.c: the list of open files */
	UE_LOCK_SWEEPER,	/* main.c: the sweeper's sleep */
	UE_LOCK_PROBES,		/* probe.c: the bounded looks at other processes (fork proofs) */
	UE_LOCK_RANKS,
};

/* The ranks whose locks may be held several at once (in a fixed order). */
#define UE_LOCK_NESTS (1u << UE_LOCK_BUF_RING)

_Static_assert(UE_LOCK_RANKS <= 32, "a rank is a bit of a 32-bit mask");

/* A mutex and its rank; @owner is the holding thread under UE_LOCKDEP (__atomic_* loads and stores). */
struct ue_mutex {
	pthread_mutex_t m;
	unsigned int rank;
	const void *owner;
};

/* A rwlock and its rank (its holders are not tracked: only the order). */
struct ue_rwlock {
	pthread_rwlock_t l;
	unsigned int rank;
};

/* What one thread holds: a bit and a count per rank. */
struct ue_lockdep_thread {
	uint32_t held;
	uint16_t count[UE_LOCK_RANKS];
};

extern __thread struct ue_lockdep_thread ue_lockdep;

/** ue_lockdep_fail - report a broken rule (@what, about a lock of @rank) and abort */
void ue_lockdep_fail(const char *what, unsigned int rank) __attribute__((noreturn, cold));

/** ue_lock_rank_name - the name of @rank, as the enum says it */
const char *ue_lock_rank_name(unsigned int rank);

static inline void ue_lockdep_before(unsigned int rank)
{
#ifdef UE_LOCKDEP
	uint32_t bad = ~0u << rank;

	if (UE_LOCK_NESTS & (1u << rank))
		bad <<= 1;
	if (ue_lockdep.held & bad)
		ue_lockdep_fail("taken out of order", rank);
#else
	(void)rank;
#endif
}

static inline void ue_lockdep_acquired(unsigned int rank)
{
#ifdef UE_LOCKDEP
	ue_lockdep.count[rank]++;
	ue_lockdep.held |= 1u << rank;
#else
	(void)rank;
#endif
}

static inline void ue_lockdep_released(unsigned int rank)
{
#ifdef UE_LOCKDEP
	if (!ue_lockdep.count[rank])
		ue_lockdep_fail("unlocked, not held", rank);
	if (!--ue_lockdep.count[rank])
		ue_lockdep.held &= ~(1u << rank);
#else
	(void)rank;
#endif
}

static inline void ue_mutex_init(struct ue_mutex *l, enum ue_lock_rank rank)
{
	pthread_mutex_init(&l->m, NULL);
	l->rank = rank;
	l->owner = NULL;
}

static inline void ue_mutex_destroy(struct ue_mutex *l)
{
	pthread_mutex_destroy(&l->m);
}

static inline void ue_lockdep_own(struct ue_mutex *l)
{
#ifdef UE_LOCKDEP
	ue_lockdep_acquired(l->rank);
	__atomic_store_n(&l->owner, &ue_lockdep, __ATOMIC_RELAXED);
#else
	(void)l;
#endif
}

/** ue_mutex_assert_held - abort (UE_LOCKDEP) unless this thread holds @l */
static inline void ue_mutex_assert_held(struct ue_mutex *l)
{
#ifdef UE_LOCKDEP
	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) != &ue_lockdep)
		ue_lockdep_fail("not held where it must be", l->rank);
#else
	(void)l;
#endif
}

static inline void ue_mutex_lock(struct ue_mutex *l)
{
	ue_lockdep_before(l->rank);
	pthread_mutex_lock(&l->m);
	ue_lockdep_own(l);
}

/* pthread_mutex_timedlock(): 0 (held) or its error. */
static inline int ue_mutex_timedlock(struct ue_mutex *l, const struct timespec *abstime)
{
	int r;

	ue_lockdep_before(l->rank);
	r = pthread_mutex_timedlock(&l->m, abstime);
	if (r == 0)
		ue_lockdep_own(l);
	return r;
}

static inline void ue_mutex_unlock(struct ue_mutex *l)
{
#ifdef UE_LOCKDEP
	ue_mutex_assert_held(l);
	__atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
	ue_lockdep_released(l->rank);
#endif
	pthread_mutex_unlock(&l->m);
}

/*
 * A lock on every record's path (the rings'): the checks above cost about
 * 40 instructions a lock and unlock, a tenth of a small record's write
 * (bench_buffer), so they run only with UE_LOCKDEP_HOT (debug builds and
 * sanitizers), not in debugoptimized builds, which make bench measures.
 * Every lock and unlock of such a lock goes through these two.
 */
#ifdef UE_LOCKDEP_HOT
#define ue_mutex_lock_hot(l) ue_mutex_lock(l)
#define ue_mutex_unlock_hot(l) ue_mutex_unlock(l)
#else
#define ue_mutex_lock_hot(l) pthread_mutex_lock(&(l)->m)
#define ue_mutex_unlock_hot(l) pthread_mutex_unlock(&(l)->m)
#endif

/* pthread_cond_wait() on @l, which the caller holds (and holds again on return). */
static inline int ue_cond_wait(pthread_cond_t *c, struct ue_mutex *l)
{
	int r;

	ue_mutex_assert_held(l);
	__atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
	r = pthread_cond_wait(c, &l->m);
	__atomic_store_n(&l->owner, &ue_lockdep, __ATOMIC_RELAXED);
	return r;
}

/* pthread_cond_timedwait() on @l, likewise. */
static inline int ue_cond_timedwait(pthread_cond_t *c, struct ue_mutex *l,
				    const struct timespec *abstime)
{
	int r;

	ue_mutex_assert_held(l);
	__atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
	r = pthread_cond_timedwait(c, &l->m, abstime);
	__atomic_store_n(&l->owner, &ue_lockdep, __ATOMIC_RELAXED);
	return r;
}

static inline void ue_rwlock_init(struct ue_rwlock *l, enum ue_lock_rank rank)
{
	pthread_rwlock_init(&l->l, NULL);
	l->rank = rank;
}

static inline void ue_rwlock_destroy(struct ue_rwlock *l)
{
	pthread_rwlock_destroy(&l->l);
}

static inline void ue_rwlock_rdlock(struct ue_rwlock *l)
{
	ue_lockdep_before(l->rank);
	pthread_rwlock_rdlock(&l->l);
	ue_lockdep_acquired(l->rank);
}

static inline void ue_rwlock_wrlock(struct ue_rwlock *l)
{
	ue_lockdep_before(l->rank);
	pthread_rwlock_wrlock(&l->l);
	ue_lockdep_acquired(l->rank);
}

static inline void ue_rwlock_unlock(struct ue_rwlock *l)
{
	ue_lockdep_released(l->rank);
	pthread_rwlock_unlock(&l->l);
}

#endif /* UE_DAEMON_LOCK_H */
