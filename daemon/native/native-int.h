/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * native-int: what the native path's files share: native.c (the server),
 * native-session.c (a client's requests), native-drain.c (its rings into
 * the trace buffer) and native-snap.c (the lot in a state snapshot, for
 * usereventsd --upgrade); nothing else includes it.
 */
#ifndef UE_DAEMON_NATIVE_INT_H
#define UE_DAEMON_NATIVE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <limits.h>

#include "buffer.h"
#include "lock.h"
#include "native.h"
#include "native-proto.h"
#include "tscclock.h"

#define MAX_SESSIONS 1024
#define MAX_EVENTS 4096		/* per session */
#define MAX_RINGS 256		/* per session */
#define MAX_RINGS_ALL 1024	/* all sessions: 1 GiB of rings at most */
#define RING_BYTES (1u << 20)
#define DRAIN_BATCH 4096	/* records of one ring per pass */
#define DRAIN_FLUSH 256		/* records per ue_buffer_write_many() */
#define DRAIN_STAGE_BYTES (DRAIN_FLUSH * 64 + UE_BUFFER_MAX_RECORD + 8)
#define IDLE_SLEEP_MAX_US 20000
#define IDLE_SLEEP_MIN_US 100
#define IDLE_SLEEP_NO_RINGS_US 100000
/* The heartbeat is rewritten when older than this (writers look for 500 ms). */
#define HEARTBEAT_EVERY_NS 100000000ull
/*
 * How long a producer whose ring is full waits for the drain to make room
 * (ue_native_ring.full_wait_ns) before its write is refused (libuserevents)
 * or goes to the system call (the interposer): the drain never waits for a
 * reader unless one asked for blocking mode (then its block_ms, if longer).
 */
#define FULL_WAIT_NS 50000000ull

struct nring {
	struct nring *next;
	struct ue_native_ring *hdr;
	unsigned char *data;
	uint32_t size;
	pid_t tid;
	bool ended;		/* its thread ended (END_RING): freed once drained */
	unsigned int cpu;	/* of the last record drained */
	uint64_t dropped_seen;	/* the producer's dropped count, as last told to the channels */
	char comm[16];
	size_t map_len;
	int fd;			/* its memfd, kept for a successor (upgrade) */
	bool tsc;		/* its records are stamped with the counter (UE_RING_CLOCK_TSC) */
};

struct nevent {
	struct ue_revent *ev;	/* memory reference */
	uint16_t type;		/* ue_revent_id(ev), the records' common_type */
	/* Counted by the drain of one ring, for ue_counts_add() at its end. */
	uint32_t run_records;
	uint64_t run_bytes;
};

/*
 * The drain's private copies of records on their way to one CPU ring: each
 * record is read from the shared ring once, into @stage, and checked there.
 */
struct drain_stage {
	unsigned int cpu;
	unsigned int n;
	size_t used;
	uint64_t lost;	/* records the buffer refused, for ue_counts_add() */
	struct ue_buffer_direct direct;	/* or the records built in place (the reader's page, the ring) */
	struct ue_buffer_wrec w[DRAIN_FLUSH];
	_Alignas(8) unsigned char bytes[DRAIN_STAGE_BYTES];
};

struct ue_native_server;

struct nsession {
	struct nsession *next;
	struct ue_native_server *nat;
	int sock;
	bool hello;		/* the peer showed a writable user_events_data */
	bool preload;		/* the peer is libuserevents-preload.so */
	pid_t pid;
	pthread_t thread;
	bool closing;		/* the client hung up: drain, then free */
	bool done;		/* the session thread has returned */
	struct ue_chan *chan;	/* a reader's consumer channel (CHANNEL), or NULL */
	uint32_t nev;
	struct nevent ev[MAX_EVENTS + 1];
	unsigned int nrings;
	struct nring *rings;
};

/* The native path of one daemon (ue_daemon.native). */
struct ue_native_server {
	struct ue_registry *reg;
	struct ue_buffer *buf;
	struct ue_cmdlines *cmdlines;
	struct ue_counts *counts;
	struct sockaddr_un addr;	/* abstract: sun_path[0] is NUL, the name follows */
	socklen_t addr_len;
	char data_path[PATH_MAX];	/* MOUNTPOINT/user_events_data, as /proc shows it */
	char mnt_dev[32];		/* our mount's "major:minor" in mountinfo, once known */
	int lsock;
	pthread_t listener, drain;
	struct drain_stage *stage;	/* the drain thread's */
	_Atomic bool stop;
	struct ue_mutex lock;		/* sessions, rings, counters below */
	struct nsession *sessions;
	unsigned int nsessions;
	unsigned int nrings;		/* all sessions */
	uint64_t records, invalid, dropped_gone, sessions_total;
	uint64_t lost_reconnect;	/* records clients could not write while no daemon served */
	uint64_t records_preload;	/* of records: from interposed programs */
	uint64_t full_wait_ns;		/* what the rings' headers say (under lock) */
	struct ue_mutex wake_lock;	/* the drain's idle sleep, cut short by a new ring */
	pthread_cond_t wake;
	bool woken;
	bool blocked;			/* a pass stopped for a blocking channel (under lock) */
	bool paused;			/* ue_native_pause(): no thread runs */
	/*
	 * The counter's conversion: anchored by the drain (its thread only,
	 * once started).  tsc_per_ms: the ticks in a millisecond, when the
	 * counter is offered at all (ue_native_tsc_init()); tsc_offer: the
	 * same told to new rings (relaxed atomic: session threads read it),
	 * or 0 while the kernel's clocksource is not the counter, which the
	 * drain looks at once a second (tsc_checked_ns, its own).
	 */
	struct ue_tsc_clock tsc;
	uint32_t tsc_per_ms, tsc_offer;
	uint64_t tsc_checked_ns;
	int pause_fd;			/* an eventfd: readable while session threads are to return */
};

/* native.c: the listener and the drain, started by ue_native_start() and ue_native_restore(). */
int ue_native_threads_start(struct ue_native_server *nat);
/* native-session.c: the listener's thread, and the thread of each session. */
void *ue_native_listener_main(void *arg);
void *ue_native_session_main(void *arg);
/* native-drain.c: the drain's thread, its wake-up (a new ring, the stop), a session's end once drained. */
void *ue_native_drain_main(void *arg);
void ue_native_drain_wake(struct ue_native_server *nat);
void ue_native_session_free(struct nsession *s);
/*
 * native.c: the counter measured (at most ~1 ms, once); @offer: new rings
 * may be stamped with it (the kernel keeps time with it and
 * USEREVENTSD_TSC is not 0).  Before any thread starts.
 */
void ue_native_tsc_init(struct ue_native_server *nat, bool offer);
/* native.c: whether the kernel keeps time with the counter and USEREVENTSD_TSC allows it. */
bool ue_native_tsc_offered(void);
/*
 * An anchor of the counter's conversion, taken now (core/tscclock.h): the
 * narrowest of three brackets of the clock between two counter readings.
 * Under nat->lock once the threads run (the drain's passes, a sync).
 */
static inline void ue_native_tsc_anchor(struct ue_native_server *nat)
{
	uint64_t b0 = 0, bns = 0, b1 = UINT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t t0 = ue_tsc_read(), ns = ue_buffer_clock_ns(), t1 = ue_tsc_read();

		if (t1 - t0 < b1 - b0) {
			b0 = t0;
			bns = ns;
			b1 = t1;
		}
	}
	ue_tsc_clock_anchor(&nat->tsc, b0, bns, b1);
}
/* native.c: a server with no socket, session or thread yet (free: ue_native_free()). */
struct ue_native_server *ue_native_alloc(const struct ue_native_deps *deps);
void ue_native_free(struct ue_native_server *nat);
int ue_native_find_data_path(const char *mountpoint, char *ret_data_path);

#endif /* UE_DAEMON_NATIVE_INT_H */
