/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * proc-events: the netlink proc connector (fork, exec, exit of every
 * process) feeding the enablers, so that fork children inherit enablers and
 * exec and exit release them promptly; a periodic sweep when it is missing.
 */
#ifndef UE_DAEMON_PROC_EVENTS_H
#define UE_DAEMON_PROC_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "enabler.h"
#include "snap.h"

/* The children poller's children already met, carried by an upgrade (proc-poller.c). */
struct ue_proc_seen;

/* How long a fork child's handle waits for a late exec report (see ue_enablers_confirm()). */
#define UE_PROC_EVENTS_GRACE_MS 20
/* Longest a request waits for the fork/exec/exit sync while nothing progresses (see ue_proc_events_sync()). */
#define UE_PROC_EVENTS_SYNC_WAIT_MS 2000
/* ... and in all, however busy the holder of the connector's lock is. */
#define UE_PROC_EVENTS_SYNC_MAX_MS 30000

struct ue_proc_events;

struct ue_proc_events_stats {
	bool connected;		/* the proc connector is in use */
	bool polling;		/* else forks are found in /proc/PID/task/TID/children */
	uint64_t events;	/* fork, exec and exit events read */
	uint64_t forks;		/* forks of processes that held enablers */
	uint64_t overruns;	/* times the socket lost events (ENOBUFS) */
	uint64_t sync_timeouts;	/* requests served without the sync (it was blocked) */
	uint64_t passes;	/* the thread's passes (polling: at most 50 ms apart) */
};

/**
 * ue_proc_events_start - listen to the proc connector and start the thread
 * @set: the enablers to keep current
 * @ret: the listener
 *
 * Without the connector (no CAP_NET_ADMIN, no CONFIG_PROC_EVENTS, another
 * network namespace) it says so once on stderr and does nothing: fork
 * children inherit nothing and exits and execs are left to the daemon's
 * periodic ue_enablers_sweep(); @ret is still returned, and
 * ue_proc_events_stats() says which it is.
 *
 * Return: 0, -ENOMEM or -EAGAIN (no thread).
 */
int ue_proc_events_start(struct ue_enablers *set, struct ue_proc_events **ret);

/**
 * ue_proc_events_start_taken - ue_proc_events_start() on a predecessor's socket
 * @set: the enablers to keep current
 * @sock: the connector socket a predecessor read up to its snapshot (now
 *        ours), or -1 for a new one
 * @seen: the predecessor's poller's children met (taken; NULL: none)
 * @ret: the listener
 *
 * Return: as ue_proc_events_start().
 */
int ue_proc_events_start_taken(struct ue_enablers *set, int sock, struct ue_proc_seen *seen,
			       struct ue_proc_events **ret);

/**
 * ue_proc_seen_save - the children poller's children already met, into @w
 * @pe: the listener, paused (ue_proc_events_pause()); NULL or the connector:
 *      none are written
 *
 * A successor's poller that took them for new forks would give them back
 * what they unregistered since.
 */
void ue_proc_seen_save(struct ue_proc_events *pe, struct ue_snap_w *w);

/** ue_proc_seen_read - what ue_proc_seen_save() wrote, for ue_proc_events_start_taken(); NULL: none */
struct ue_proc_seen *ue_proc_seen_read(struct ue_snap_r *r);

/** ue_proc_seen_free - release what ue_proc_seen_read() gave and nobody took (NULL is ignored) */
void ue_proc_seen_free(struct ue_proc_seen *seen);

/**
 * ue_proc_events_pause - stop the thread, for a snapshot of the enablers
 * @pe: the listener (NULL: none)
 *
 * Nothing reads the connector after it returns (the FUSE loop has stopped):
 * what the kernel reports from then on waits in the socket, for a successor
 * or for ue_proc_events_resume().
 *
 * Return: the connector's socket (still ours), or -1 without one.
 */
int ue_proc_events_pause(struct ue_proc_events *pe);

/** ue_proc_events_resume - start the thread again after ue_proc_events_pause() */
int ue_proc_events_resume(struct ue_proc_events *pe);

/**
 * ue_proc_events_stop - stop the thread and close the socket (NULL is ignored)
 * @pe: the listener
 */
void ue_proc_events_stop(struct ue_proc_events *pe);

/**
 * ue_proc_events_sync - handle every event the kernel reported so far
 * @pe: the listener (NULL is ignored)
 * @caller: the caller of the request (ue_proc_open()), or NULL
 *
 * Called before an ioctl is served.  The kernel queues a fork's event
 * before the fork returns, so a parent's later (un)registration is never
 * copied into a child forked before it; and the caller's own fork, if it
 * has one not handled yet, is verified here, so the caller's first request
 * finds its inherited enablers.  Waits at most UE_PROC_EVENTS_SYNC_WAIT_MS
 * for another reader of the socket (counted in sync_timeouts).
 */
void ue_proc_events_sync(struct ue_proc_events *pe, struct ue_proc *caller);

/**
 * ue_proc_events_closing - a process closed a file of ours (FUSE FLUSH)
 * @pe: the listener (NULL is ignored)
 * @tid: the thread that closed it
 *
 * Without the connector: a process exiting closes its descriptors before
 * its children are reparented, so the children of a known process are read
 * once more now.  Reads nothing of @tid itself (it may be in an exec).
 */
void ue_proc_events_closing(struct ue_proc_events *pe, pid_t tid);

/** ue_proc_events_stats - counters of the listener */
void ue_proc_events_stats(struct ue_proc_events *pe, struct ue_proc_events_stats *ret);

#endif /* UE_DAEMON_PROC_EVENTS_H */
