/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * enabler: every process that registered an enable word, its enablers
 * {event, addr, bit, size}, and the writes that mirror an event's state into
 * those words (the kernel's struct user_event_mm and user_event_enabler);
 * what fork children inherit.  Thread-safe; writes into processes run on
 * worker threads of this module.  Implemented by enabler.c, enabler-write.c
 * and fork.c.
 */
#ifndef UE_DAEMON_ENABLER_H
#define UE_DAEMON_ENABLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Defaults of struct ue_enablers_opts (a field left 0 takes its default). */
#define UE_ENABLERS_DEFAULT_MAX_PROCESSES   4096 /* two fds each: size RLIMIT_NOFILE */
#define UE_ENABLERS_DEFAULT_MAX_PER_PROCESS 4096
#define UE_ENABLERS_DEFAULT_MAX_WORKERS	    16
#define UE_ENABLERS_DEFAULT_WAIT_MS	    100
/* Longest an update waits while its writes still progress (see ue_enablers_update_event()). */
#define UE_ENABLERS_MAX_WAIT_MS		    5000
#define UE_ENABLERS_DEFAULT_MAX_ATTEMPTS    10 /* the kernel's bound on fault retries */

/*
 * How an enabler keeps its event alive.  The events belong to the caller
 * (the registry); to this module an event is an opaque pointer.
 *
 * get() is called once for each enabler kept, put() once for each enabler
 * dropped.  Both are called with no lock of this module held, on the thread
 * of the ue_enabler*() call that adds or drops the enabler: ue_enabler_add()
 * (get, and put on failure), ue_enabler_remove(), ue_enablers_sweep(),
 * ue_enablers_drop_process(), ue_enablers_verify_forks(),
 * ue_enablers_prove_caller(), ue_enablers_confirm(),
 * ue_enablers_refuse_unconfirmed() and ue_enablers_free().  Never from
 * ue_enablers_update_event() and never on a worker thread: enablers of a
 * process a worker found dead are parked until the next sweep, drop or free,
 * so the registry may hold its own lock across update_event.
 *
 * is_enabled() is optional.  When set, ue_enabler_add() reads the event's
 * state through it under this module's lock, so a state change that races
 * with a registration is never lost (the caller must then store the new
 * state before calling ue_enablers_update_event()).  It is called with this
 * module's lock held: it must be quick (an atomic load), must not call into
 * this module, and must not take a lock that is held around calls into this
 * module.  Without it the caller must keep ue_enabler_add() and
 * ue_enablers_update_event() of one event from overlapping.
 *
 * dup() is optional: one more reference of an event that an enabler of this
 * module holds, taken with this module's lock held (so it must not block or
 * take a lock held around calls into this module: an atomic increment).
 * ue_enablers_fork() needs it; without it fork children inherit nothing.
 */
struct ue_enabler_ops {
	void (*get)(void *event);
	void (*put)(void *event);
	bool (*is_enabled)(void *event);
	void (*dup)(void *event);
};

/* Limits and tuning; extensible: set @sz to sizeof(struct ue_enablers_opts). */
struct ue_enablers_opts {
	size_t sz;
	unsigned int max_processes;   /* processes with at least one enabler */
	unsigned int max_per_process; /* enablers of one process */
	unsigned int max_workers;     /* writer threads (one is started at once) */
	unsigned int wait_ms;	      /* how long update_event waits for writes */
	unsigned int max_attempts;    /* tries of one write that fails transiently */
};

struct ue_enablers_stats {
	uint64_t processes;	 /* process handles held */
	uint64_t enablers;	 /* enablers held */
	uint64_t pending;	 /* enablers whose state is not written yet */
	uint64_t stalled;	 /* processes an update stopped waiting for */
	uint64_t parked;	 /* enablers of dead processes awaiting sweep */
	uint64_t workers;	 /* writer threads running */
	uint64_t failed_writes;	 /* writes given up: not writable (cumulative) */
	uint64_t faults;	 /* writes that met a transient fault (cumulative) */
	uint64_t retries;	 /* writes tried again after a transient failure */
	uint64_t late_updates;	 /* update_event calls that returned on the bound */
	uint64_t dead_processes; /* handles dropped: process exited or exec'd */
	uint64_t unconfirmed;	 /* fork children not verified or not confirmed yet */
	uint64_t inherited;	 /* fork children that inherited enablers (cumulative) */
	uint64_t shared_vm;	 /* CLONE_VM children seen sharing a handle's memory */
	uint64_t refused_forks;	 /* fork children refused: identity not proven, or a limit */
	uint64_t gone_forks;	 /* fork children that exec'd or exited before confirmation */
	uint64_t probe_retries;	 /* fork proofs tried again: a look at a process in an exec timed out */
};

struct ue_enablers;
struct ue_procmem;

/*
 * The caller of a request, proven once: the handle on its memory that
 * ue_proc_open() opens while the caller is blocked in the request (so it
 * pins the caller's address space), the identity read after it, and the
 * caller's handle in the set once a call has looked it up.  Every call of
 * the request that concerns the caller's process takes it; none reads
 * /proc again.  Owned by the request, one thread at a time.
 */
struct ue_proc;

/**
 * ue_enablers_new - create an empty set with the default limits
 * @ops: reference callbacks (copied); get and put are required
 * @ret_set: the new set
 *
 * Return: 0, -EINVAL, -ENOMEM, or -EAGAIN when no worker can be started.
 */
int ue_enablers_new(const struct ue_enabler_ops *ops, struct ue_enablers **ret_set);

/**
 * ue_enablers_new_opts - create an empty set with chosen limits
 * @ops: reference callbacks (copied)
 * @opts: limits, or NULL for the defaults
 * @ret_set: the new set
 *
 * Return: as ue_enablers_new().
 */
int ue_enablers_new_opts(const struct ue_enabler_ops *ops, const struct ue_enablers_opts *opts,
			 struct ue_enablers **ret_set);

/**
 * ue_enablers_free - stop the workers and drop every enabler (NULL ignored)
 * @set: the set; no other call on it may be running or follow
 *
 * Puts every event reference still held.  Bits are left as they are, like
 * the kernel leaves them when the daemon-side state goes away.  Waits for
 * the writes in progress, so a process whose memory stalls delays it.
 */
void ue_enablers_free(struct ue_enablers *set);

/**
 * ue_proc_open - prove the caller of a request, once for the whole request
 * @set: the set the request's enabler calls use
 * @tid: the calling thread, blocked in the request being served (so it
 *       cannot exec or exit meanwhile)
 * @ret_proc: the caller (release with ue_proc_close() before replying)
 *
 * Opens /proc/<tid>/mem and maps and reads the process's identity
 * (ue_procmem_open()): the only /proc reads of the request.
 *
 * Return: 0; -EINVAL; as ue_procmem_open() (-ESRCH when the thread is gone
 * or cannot be seen, another pid namespace).
 */
int ue_proc_open(struct ue_enablers *set, pid_t tid, struct ue_proc **ret_proc);

/** ue_proc_close - release a request's caller (NULL is ignored) */
void ue_proc_close(struct ue_proc *proc);

/**
 * ue_enablers_settle_caller - wait until the caller's enable words are written
 * @set: the set
 * @caller: the request's caller (proven)
 *
 * For a fork child's first request: enablers it inherited that changed
 * since its fork are written before the request returns, as the kernel's
 * fork copies them at once.  Waits wait_ms at most.
 *
 * Return: 0, -ETIMEDOUT when the writes go on in the background, -EINVAL.
 */
int ue_enablers_settle_caller(struct ue_enablers *set, struct ue_proc *caller);

/** ue_proc_mem - the caller's memory: read its arguments, write its answers */
struct ue_procmem *ue_proc_mem(const struct ue_proc *proc);

/** ue_proc_tgid - the caller's process id */
pid_t ue_proc_tgid(const struct ue_proc *proc);

/**
 * ue_enabler_add - register an enable bit of a process (DIAG_IOCSREG)
 * @set: the set
 * @proc: the registering process (the caller of the request being served)
 * @addr: address of the enable word (naturally aligned)
 * @bit: bit of the word that mirrors @event's state
 * @enable_size: 4 or 8
 * @event: the event (a reference is taken on success)
 * @enabled_now: its state, used unless ops->is_enabled is set
 *
 * Finds the process's handle in the set, or makes one of a duplicate of
 * @proc's memory handle (the same address space), and writes the
 * current state synchronously, as the kernel does.  The byte written is
 * @addr + @bit / 8, bit @bit % 8, on a little-endian machine: the same bit
 * the kernel's align_addr_bit() reaches for 4-byte words at 4 mod 8.
 *
 * Return: 0; -EINVAL for a size other than 4 or 8, a misaligned @addr, a
 * @bit outside the word, or a NULL @event; -EADDRINUSE when this process
 * already has an enabler at @addr and @bit (for any event; the size does not
 * count); -ENOMEM when the word is not mapped writable in the process (the
 * kernel's DIAG_IOCSREG answer, seen on Linux 6.12), or a limit
 * (max_processes, max_per_process) or memory is exhausted; -ESRCH when the
 * process is gone (its memory no longer in use).
 */
int ue_enabler_add(struct ue_enablers *set, struct ue_proc *proc, uint64_t addr, unsigned int bit,
		   unsigned int enable_size, void *event, bool enabled_now);

/**
 * ue_enabler_exists - whether a process already uses an address and bit
 * @set: the set
 * @proc: the process asking (the caller of the request being served)
 * @addr: the enable word's address
 * @bit: the bit
 *
 * The kernel's first check of DIAG_IOCSREG, made before name_args is read:
 * an enabler of the caller's process at @addr and @bit, for any event and
 * any size.
 *
 * Return: 1 when there is one, 0 when not, -errno from /proc.
 */
int ue_enabler_exists(struct ue_enablers *set, struct ue_proc *proc, uint64_t addr,
		      unsigned int bit);

/**
 * ue_enabler_remove - unregister an enable bit of a process (DIAG_IOCSUNREG)
 * @set: the set
 * @proc: the process asking (the caller of the request being served)
 * @addr: the address given at registration
 * @bit: the bit given at registration
 *
 * Drops the enabler (putting its event reference) and clears the bit,
 * whatever the event's state, as the kernel does.
 *
 * Return: 0; -ENOENT when this process has no enabler at @addr and @bit;
 * -EFAULT when the enabler was dropped but the bit could not be cleared
 * (the word is no longer mapped writable); other -errno from /proc.
 */
int ue_enabler_remove(struct ue_enablers *set, struct ue_proc *proc, uint64_t addr,
		      unsigned int bit);

/**
 * ue_enablers_update_event - mirror an event's new state into every process
 * @set: the set
 * @event: the event
 * @enabled: its new state
 *
 * Marks every enabler of @event and hands the writes to the workers, then
 * waits until they are all written or wait_ms has passed with none of them
 * done (at most UE_ENABLERS_MAX_WAIT_MS in all), so that a write to an
 * "enable" file returns with the bits set, as with the kernel.  Processes
 * that do not finish in time are written later; while one is still stalled,
 * further updates do not wait for it.  Writes that fail because the word is
 * no longer writable are counted and given up (the enabler stays, and the
 * next update tries again), like the kernel.
 *
 * Return: the number of enablers of @event still pending when it returned
 * (0 normally), or -ENOMEM (the writes are scheduled anyway).
 */
int ue_enablers_update_event(struct ue_enablers *set, void *event, bool enabled);

/**
 * ue_enablers_drop_process - forget a process that exited or exec'd
 * @set: the set
 * @tgid: its process id
 *
 * For the proc connector: drops every handle of @tgid whose memory is no
 * longer in use (a handle opened after an exec is kept), with its enablers;
 * a fork child of that id not confirmed yet loses what it would inherit
 * (its fork record, or its pending handle) whatever its state.
 *
 * Return: the number of handles dropped.
 */
int ue_enablers_drop_process(struct ue_enablers *set, pid_t tgid);

/**
 * ue_enablers_report_dead - the children poller's report of a dead process
 * @set: the set
 * @tgid: the pid of a process found dead (ue_enablers_unreported() listed
 *        it), whose children have been read since
 *
 * What waited for the report ends: its handles in the graveyard are
 * released, the record kept for a child that exec'd before its proof
 * (ue_enablers_keep_exec_forks()) goes, a handle whose memory is no longer
 * used is dropped.  Unlike ue_enablers_drop_process(), nothing else of
 * @tgid is voided: the report comes late, and the pid may be a new
 * process's by then, with a fork record or an unconfirmed handle of its own
 * (a connector reports an exit before any fork of a new process).
 *
 * Return: the number of handles dropped.
 */
int ue_enablers_report_dead(struct ue_enablers *set, pid_t tgid);

/**
 * ue_enablers_fork - a process forked: note what the child inherits
 * @set: the set
 * @parent_pid: the forking thread (PROC_EVENT_FORK's parent_pid)
 * @parent_tgid: its process
 * @child: the child, a new process (child_pid == child_tgid)
 *
 * For the proc connector, in the order its events come, before any request
 * served after the fork: copies the parent's enablers as they are now (the
 * kernel copies them at fork time; no later request of the parent has been
 * served yet), with a reference on each event, into a fork record.  Quick:
 * takes only this module's lock and needs ops->dup.  The child gets nothing
 * written until ue_enablers_verify_forks() proved its memory and
 * ue_enablers_confirm() saw no exec after that.  The caller must call
 * ue_enablers_drop_process() for every exec or exit it learns of after
 * this call, which voids the record (or kills the child's unconfirmed
 * handle).  See docs/processes.md.
 *
 * Return: 1 when a record was made, 0 when there is nothing to inherit
 * (or a limit refused it, counted), -EINVAL, -ENOMEM.
 */
int ue_enablers_fork(struct ue_enablers *set, pid_t parent_pid, pid_t parent_tgid, pid_t child);

/**
 * ue_enablers_verify_forks - turn every fork record into a handle on its child
 * @set: the set
 *
 * For the proc connector's thread.  Slow: a CLONE_VM child (kcmp KCMP_VM)
 * shares its parent's handle and needs nothing; a forked child's memory is
 * opened and checked (the parent's stack start, not older than the parent,
 * and at each enable byte a writable mapping of the same kind holding the
 * same byte outside the enable bits as the parent's, when the parent's
 * memory is still there).  Then the child has a handle with the inherited
 * enablers, *unconfirmed* (pending).  kcmp() and open() wait for a process
 * in an exec that holds its exec update lock, and that exec may wait for
 * this daemon (the FLUSH of a close-on-exec descriptor on its mount): they
 * run on probe.c's workers, waited for UE_PROBE_MS; a record whose look
 * timed out goes back to the list and is tried again after as long.
 *
 * Return: the number of children given a handle (or found given one).
 */
int ue_enablers_verify_forks(struct ue_enablers *set);

/**
 * ue_enablers_prove_caller - the caller's own fork comes before its request
 * @set: the set
 * @caller: the caller of the request being served
 * @read_ns: when the request's read of the connector started
 *            (ue_enablers_clock_ns())
 *
 * Verifies the caller's fork record as ue_enablers_verify_forks() does (a
 * record the connector's thread is verifying is verified again from a copy
 * rather than waited for; the fork is installed once).  The caller is
 * blocked in its request, so a handle of it opened before @read_ns is its
 * memory: confirmed now.  A handle opened at or after @read_ns (by this
 * call, or by the connector's thread since the read) is not: then the
 * request must read the connector once more (an exec before the open shows
 * there) and call ue_enablers_confirm() with that read's time.
 *
 * Return: 1 when the request must read again and confirm, 0 when done,
 * -EINVAL.
 */
int ue_enablers_prove_caller(struct ue_enablers *set, struct ue_proc *caller, uint64_t read_ns);

/**
 * ue_enablers_confirm - start writing into fork children that proved themselves
 * @set: the set
 * @caller: only the children of the caller's process id, or NULL for all
 * @opened_before_ns: ue_enablers_clock_ns() bound: only children whose
 *                    handle was opened before it are confirmed
 *
 * The caller has read every exec and exit event up to a time after
 * @opened_before_ns and passed them to ue_enablers_drop_process(), so an
 * exec that switched a child's memory before its handle was opened has
 * been seen.  A confirmed child gets its dirty enablers written: those
 * whose state changed since its fork (fork.c), not the others.
 *
 * Return: the number of children confirmed.
 */
int ue_enablers_confirm(struct ue_enablers *set, struct ue_proc *caller, uint64_t opened_before_ns);

/**
 * ue_enablers_known - the processes whose forks matter
 * @set: the set
 * @buf: where to put their ids
 * @max: room in @buf
 *
 * For the children poller (no proc connector): the tgid of every process
 * with a live handle and of every child whose fork record is not proven yet.
 *
 * Return: how many were put in @buf (at most @max).
 */
size_t ue_enablers_known(struct ue_enablers *set, pid_t *buf, size_t max);

/**
 * ue_enablers_unreported - processes found dead whose exec or exit is not reported
 * @set: the set (ue_enablers_track_reports() on)
 * @buf: where to put their ids
 * @max: room in @buf
 *
 * For the children poller: their children are read once more, then they
 * are reported (ue_enablers_report_dead()).
 *
 * Return: how many were put in @buf (at most @max).
 */
size_t ue_enablers_unreported(struct ue_enablers *set, pid_t *buf, size_t max);

/**
 * ue_enablers_keep_exec_forks - keep the record of a child that exec'd before its proof
 * @set: the set
 *
 * For the children poller, which learns of forks late: a child found
 * exec'd inherits nothing, but its own children forked before that exec
 * still inherit its record, until ue_enablers_report_dead() of it (the
 * poller calls it once it has read those children: ue_enablers_unreported()
 * lists it until then).
 */
void ue_enablers_keep_exec_forks(struct ue_enablers *set);

/**
 * ue_enablers_knows - whether @tgid has a live handle or a fork record, or
 * is dead and not reported yet
 */
bool ue_enablers_knows(struct ue_enablers *set, pid_t tgid);

/**
 * ue_enablers_knows_caller - whether the caller of a request is known itself
 * @set: the set
 * @caller: the caller (proven)
 *
 * For the children poller: a live handle on the caller's own memory (its
 * identity, not only its pid: a handle of an earlier process that had the
 * pid is not the caller), or a fork record of its pid not proven yet.
 */
bool ue_enablers_knows_caller(struct ue_enablers *set, struct ue_proc *caller);

/**
 * ue_enablers_track_reports - a proc connector reports every exec and exit
 * @set: the set
 *
 * From then on a handle found dead stays in the graveyard, with its
 * enablers, until ue_enablers_drop_process() reports its exec or exit: a
 * fork read before that report is of the dead memory, made before it died,
 * and the child inherits its enablers.  A report that never comes (lost in
 * an overrun) ends the wait once the reader has read every report sent
 * until UNREPORTED_MAX_NS after the death was seen (ue_enablers_read_until()).
 */
void ue_enablers_track_reports(struct ue_enablers *set);

/**
 * ue_enablers_read_until - every report sent before @ns has been read and applied
 * @set: the set (ue_enablers_track_reports() on)
 * @ns: ue_enablers_clock_ns() when the reader's last read began
 *
 * The graveyard's wait is measured in the reader's progress, not in time:
 * on a loaded machine (or across an upgrade, when nothing reads) the reader
 * may lag seconds behind, and a dead handle let go before its report would
 * leave a child forked before that death without its inherited enablers.
 */
void ue_enablers_read_until(struct ue_enablers *set, uint64_t ns);

/** ue_enablers_clock_ns - the clock of ue_enablers_confirm() (CLOCK_MONOTONIC, ns) */
static inline uint64_t ue_enablers_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * ue_enablers_freeze - the writer threads write nothing more (an upgrade)
 * @set: the set (NULL is ignored)
 *
 * Returns once no write is under way (or after 1 s): what is dirty then is
 * the successor's to write, from the snapshot taken after this.  Without
 * it a write of the old state could land after the successor's newer one.
 */
void ue_enablers_freeze(struct ue_enablers *set);

/** ue_enablers_thaw - undo ue_enablers_freeze() (the upgrade failed): writes resume */
void ue_enablers_thaw(struct ue_enablers *set);

/**
 * ue_enablers_refuse_unconfirmed - drop every fork child not confirmed yet
 * @set: the set
 *
 * For a proc connector that lost events: an exec among them may have
 * replaced such a child's memory.
 *
 * Return: the number dropped.
 */
int ue_enablers_refuse_unconfirmed(struct ue_enablers *set);

/**
 * ue_enablers_sweep - drop every process that exited or exec'd
 * @set: the set
 *
 * Checks each handle and releases the enablers (and event references) of
 * dead processes, including those a worker already found dead.  Call it
 * periodically so that an event referenced only by dead processes can go.
 *
 * Return: the number of handles dropped.
 */
int ue_enablers_sweep(struct ue_enablers *set);

/**
 * ue_enablers_stats - counters of the set
 * @set: the set
 * @ret_stats: filled in
 */
void ue_enablers_stats(struct ue_enablers *set, struct ue_enablers_stats *ret_stats);

/*
 * enabler-snap.c: the set in a state snapshot, for the daemon that takes
 * the mount over (daemon/upgrade.c): every proven process with enablers,
 * its /proc descriptors and its enablers, events named by @event_key();
 * restored into a set with no process yet, @event_get() giving each event
 * back with a reference (as ops->get).  Return: 0 or -errno.
 */
struct ue_snap_w;
struct ue_snap_r;
int ue_enablers_save(struct ue_enablers *set, struct ue_snap_w *w,
		     uint64_t (*event_key)(void *event));
int ue_enablers_restore(struct ue_enablers *set, struct ue_snap_r *r,
			void *(*event_get)(void *arg, uint64_t key), void *arg);

#endif /* UE_DAEMON_ENABLER_H */
