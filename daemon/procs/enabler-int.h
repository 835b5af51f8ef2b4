/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * enabler-int: what enabler.c (the set, its process handles, registration),
 * enabler-write.c (the writer threads) and fork.c (fork records and proofs)
 * share.  Private to those three files; everyone else uses enabler.h.
 */
#ifndef UE_DAEMON_ENABLER_INT_H
#define UE_DAEMON_ENABLER_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "enabler.h"
#include "lock.h"
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
	/*
	 * When want was last asserted (update) or written (registration,
	 * writer), on the clock of /proc's start times (ue_en_boot_ns()): a fork
	 * child is written only when this is not older than the fork's clock
	 * tick, as the kernel would have written it (fork.c).
	 */
	uint64_t asserted_ns;
};

/* CLOCK_BOOTTIME in ns: the clock of a process's start time in /proc/<pid>/stat. */
uint64_t ue_en_boot_ns(void);

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
	/*
	 * Its exec or exit was read while its memory still looked in use (a
	 * write of ours in flight holds it a moment; a leader thread's exit
	 * leaves the others running): every fork before that report has been
	 * read, so once it is found dead it waits for no report.
	 */
	bool reported;
	uint64_t dead_ns; /* when it was found dead */
	struct ue_mutex io;
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
	/* A look at the child or parent timed out (probe.c): not tried again before. */
	uint64_t not_before_ns;
};

struct ue_enablers {
	struct ue_enabler_ops ops;
	struct ue_enablers_opts opts;
	struct ue_mutex lock;
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
	uint64_t read_until_ns;		      /* every report sent before it was read */
	/*
	 * The children poller: records of children that exec'd before their
	 * proof, kept until their own children, forked before that exec, are
	 * read (ue_enablers_drop_process() of the child ends them).
	 */
	bool keep_exec_forks;
	struct fork_rec *exec_forks;
	pthread_t *workers;
	unsigned int nworkers, idle;
	bool stopping;
	/*
	 * Handed over (ue_enablers_freeze()): the workers write nothing more,
	 * their dirty enablers are the successor's to write; serving counts
	 * the workers still in the middle of one process.
	 */
	bool frozen;
	unsigned int serving;
	uint64_t failed, faults, retries, late, dead;
	uint64_t inherited, shared_vm, refused, gone_forks, probe_retries;
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

/*
 * How long a dead handle waits in the graveyard for its exec or exit report,
 * in the reader's time: until every report sent this long after the handle
 * was found dead has been read (ue_enablers_read_until()).  A death is seen
 * a moment before its report is sent (the memory goes first).
 */
#define UNREPORTED_MAX_NS (2 * 1000000000ull)

/* enabler.c: process handles.  Each *_locked function is called with set->lock held. */

/*
 * A handle of @mem (taken: closed on failure), keyed by its identity, in no
 * list yet.  Return: NULL without memory.
 */
struct proc *ue_en_proc_alloc(struct ue_procmem *mem);

/* Link @p at the head of the list @head (set->procs or set->graveyard). */
void ue_en_proc_list_add(struct proc **head, struct proc *p);

/* Drop a reference; the last one closes the handle and frees @p. */
void ue_en_proc_unref_locked(struct ue_enablers *set, struct proc *p);

/*
 * Unlink @p (@dead: it exited or exec'd, counted); a process with enablers
 * waits in the graveyard for their references to be put.
 */
void ue_en_proc_kill_locked(struct ue_enablers *set, struct proc *p, bool dead);

/* The live handle with identity @id, or NULL. */
struct proc *ue_en_proc_find_locked(struct ue_enablers *set, const struct ue_procmem_id *id);

/* The live handle of process @tgid (the youngest, if a stale one lingers), or NULL. */
struct proc *ue_en_find_tgid_locked(struct ue_enablers *set, pid_t tgid);

/* The enabler of @p at @addr and @bit (a link to it, for unlinking), or NULL. */
struct enabler **ue_en_enabler_find_locked(struct ue_enablers *set, struct proc *p, uint64_t addr,
					   unsigned int bit);

/*
 * Put the references of every parked process and dropped fork record;
 * called with no lock held.  Return: the number of processes released.
 */
int ue_en_release_graveyard(struct ue_enablers *set);

/* enabler-write.c: the writer threads. */

/*
 * Write one bit through @p's handle, with p->io held, retrying transient
 * failures.  Return: 0, -ESRCH (process gone) or -EFAULT (not writable, or
 * gave up).
 */
int ue_en_write_bit(struct ue_enablers *set, struct proc *p, uint64_t byte_addr,
		    unsigned int byte_bit, bool want);

/* Queue @p for a writer (not while it is pending): its dirty enablers get written. */
void ue_en_schedule_locked(struct ue_enablers *set, struct proc *p);

/* ue_en_schedule_locked() when @p has a dirty enabler. */
void ue_en_schedule_dirty_locked(struct ue_enablers *set, struct proc *p);

/* Start one more writer thread.  Return: 0 or -errno. */
int ue_en_spawn_worker_locked(struct ue_enablers *set);

/* fork.c: fork records. */

/* The record of a fork of @child in @list, not cancelled, or NULL. */
struct fork_rec *ue_en_fork_find(struct fork_rec *list, pid_t child);

/* The exec'd child @tgid's own children have been read: its kept record goes. */
void ue_en_exec_forks_end_locked(struct ue_enablers *set, pid_t tgid);

/* The child @tgid exec'd or exited: whatever it would inherit is void. */
void ue_en_forks_cancel_locked(struct ue_enablers *set, pid_t tgid);

/* Drop every fork record not being verified (the set is being freed). */
void ue_en_forks_discard_locked(struct ue_enablers *set);

#endif /* UE_DAEMON_ENABLER_INT_H */
