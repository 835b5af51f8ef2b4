/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * proc-events-int: what proc-events.c (the proc connector, the thread,
 * requests' syncs) and proc-poller.c (the children poller, without the
 * connector) share; nothing else includes it.
 */
#ifndef UE_DAEMON_PROC_EVENTS_INT_H
#define UE_DAEMON_PROC_EVENTS_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "enabler.h"
#include "lock.h"
#include "proc-events.h"

#ifndef PIDFS_MAGIC
#define PIDFS_MAGIC 0x50494446 /* linux/magic.h, Linux 6.9 */
#endif

/* Receive buffer asked for: a burst of forks must not overrun it. */
#define RCVBUF_BYTES (8 << 20)
#define RECV_BYTES 8192
/* Without the connector: how often the children of known processes are read. */
#define POLL_MS 50
/* How often the reader reads while dead handles wait for their reports. */
#define PARKED_READ_MS 500
/* Most children the poller remembers at a time; more inherit nothing. */
#define MAX_SEEN_CHILDREN 65536
/* How far up a caller's ancestors the poller looks for a known process. */
#define MAX_ANCESTORS 16

struct pevent {
	unsigned int what;
	uint64_t ts;		/* when the kernel sent it (CLOCK_MONOTONIC ns) */
	pid_t pid, tgid;	/* exec, exit: the task; fork: the child */
	pid_t ppid, ptgid;	/* fork: the parent */
};

struct ue_proc_events {
	struct ue_enablers *set;
	int sock;		/* -1 without the connector */
	int stop_fd;		/* eventfd that ends the thread */
	int kick_fd;		/* eventfd: fork records for the thread to verify */
	pthread_t thread;
	bool running;
	struct ue_mutex lock;	/* one reader of the socket at a time */
	struct pevent *batch;
	size_t n, cap;
	bool overrun;
	unsigned int new_forks;	/* fork records made by the last read */
	uint64_t events, forks, overruns;
	uint64_t sync_timeouts;	/* requests served without waiting for the sync */
	uint64_t progress;	/* events applied and processes scanned, by any holder of lock */
	/* Without the connector: the children poller (pe->sock < 0, polling). */
	bool polling;
	bool aslr_off;		/* kernel.randomize_va_space is 0 */
	bool pidfs;		/* pidfds' inode numbers tell processes apart */
	struct seen_child *seen; /* children met so far, by tgid */
	size_t nseen, capseen;
	pid_t *queue;		/* processes to scan in one pass */
	size_t nqueue, capqueue;
	uint64_t polled_forks, unseen_forks;
	uint64_t passes;	/* listener passes done (the poller's, when polling) */
};

/* A child the poller met: its fork is noted once, whatever its parent does later. */
struct seen_child {
	pid_t tgid;
	bool mark;		/* listed by a scan of this pass */
	uint64_t ino;		/* its pidfd's inode number (child_key()), or 0 */
};

/* proc-poller.c: the children poller's part (pe->polling), all with pe->lock held but the setup. */
/** ue_poller_pass_locked - a pass over every known process's children */
void ue_poller_pass_locked(struct ue_proc_events *pe);
/** ue_poller_caller_locked - before a request: the children of the caller @tgid and of its known @ancestor */
void ue_poller_caller_locked(struct ue_proc_events *pe, pid_t tgid, pid_t ancestor);
/** ue_poller_known_ancestor - the nearest known ancestor of @caller, or 0 (without pe->lock) */
pid_t ue_poller_known_ancestor(struct ue_proc_events *pe, struct ue_proc *caller);
/** ue_poller_scan_from - the children of @tgid and theirs, as a pass reads them */
void ue_poller_scan_from(struct ue_proc_events *pe, pid_t tgid);
/** ue_poller_seen_adopt - a predecessor's children met (@seen taken; NULL: none) */
void ue_poller_seen_adopt(struct ue_proc_events *pe, struct ue_proc_seen *seen);
/* What the poller needs of the kernel, read at start. */
bool ue_poller_aslr_off(void);
bool ue_poller_children_listed(void);
bool ue_poller_pidfs(void);

#endif /* UE_DAEMON_PROC_EVENTS_INT_H */
