/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * usereventsd's context: its options and limits, the modules it holds
 * (registry, buffers, enablers, proc connector) and the trace options, as
 * main.c builds it and every request handler reaches it.  The file
 * system's own contract (files, their operations, open files) is fs.h.
 */
#ifndef UE_DAEMON_H
#define UE_DAEMON_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "buffer.h"
#include "enabler.h"
#include "lock.h"
#include "registry.h"

#define UE_DAEMON_NAME "usereventsd"
/* Extended attribute of user_events_data naming the control socket (upgrade.c). */
#define UE_CONTROL_XATTR "user.usereventsd.control"

/* Default per-CPU buffer size, the kernel's default buffer_size_kb. */
#define UE_DEFAULT_BUFFER_KB 1410

/* Most bytes a text snapshot (trace, status, ...) may take. */
#define UE_TEXT_MAX (256u << 20)
/* Defaults of the limits on open files and on all snapshots together. */
#define UE_DEFAULT_MAX_FILES 65536
#define UE_DEFAULT_MAX_TEXT_MB 256
/* Events one open user_events_data may hold (its write_index table). */
#define UE_DEFAULT_MAX_FILE_EVENTS 4096

/* Lines of the kernel's parsers: EVENT_BUF_SIZE for set_event words. */
#define UE_EVENT_BUF_SIZE 127

/* Room for the fixed nodes of the tree (fs-tree.c checks that they fit). */
#define UE_STATIC_NODES_MAX 48
#define UE_ATTR_SET (UINT64_C(1) << 32)

struct ue_daemon_opts {
	uid_t uid;
	gid_t gid;
	mode_t root_mode;	/* mode= : the root directory, as tracefs */
	unsigned int max_events;
	size_t buffer_kb;	/* per CPU */
	unsigned int max_threads;
	unsigned int max_files;	/* open files and directories at a time (EMFILE) */
	size_t max_text_bytes;	/* all text snapshots together (ENOMEM) */
	unsigned int max_enablers;	   /* of one process (ENOMEM); 0: the default */
	unsigned int max_enabler_processes; /* processes with enablers (ENOMEM); 0: default */
	unsigned int max_file_events;	   /* of one user_events_data (ENOMEM); 0: default */
	bool owner_only;	/* -o owner_only: struct ue_who in registry.h */
	bool foreground;
	bool debug;
};

struct ue_fh;
struct ue_native_server;
struct ue_pipe;
struct ue_tasks;
struct ue_proc_events;
struct ue_cmdlines;
struct ue_counts;
struct ue_raw_reader;
struct ue_sessions;

/* Everything a request handler reaches through fuse_req_userdata(). */
struct ue_daemon {
	struct ue_daemon_opts opts;
	struct ue_registry *reg;
	struct ue_buffer *buf;
	struct ue_enablers *enablers;
	struct ue_proc_events *procev;	/* fork/exec/exit of processes (proc-events.c) */
	struct fuse_session *se;
	size_t max_write;		/* negotiated with the kernel at init */
	bool stream_pos;		/* FUSE 7.31+: FOPEN_STREAM writes start at offset 0 */
	struct timespec mount_time;
	atomic_uint trace_flags;	/* 1 << UE_OPT_*: trace_options, options/ */
	atomic_size_t buffer_kb;	/* buffer_size_kb as last written */
	struct ue_pipe *pipe;		/* trace_pipe waiters (fs-pipe.c) */
	struct ue_tasks *tasks;		/* tid -> comm, tgid of writers (events/tasks.c) */
	struct ue_cmdlines *cmdlines;	/* saved_cmdlines, saved_tgids (events/tasks.c) */
	struct ue_counts *counts;	/* records per process and event (events/counts.c) */
	struct ue_native_server *native; /* libuserevents' rings (native/); NULL: the path is off */
	struct ue_sessions *sessions;	/* usereventsd_session: holds, armed patterns (fs-session.c) */
	/* Data files closed (flushed) whose release has not arrived yet. */
	struct ue_mutex release_lock;
	pthread_cond_t release_cond;
	unsigned int flushed_files;
	/* Every open file and directory, freed at exit if never released. */
	struct ue_mutex fh_lock;
	struct ue_fh *fh_list;
	/*
	 * fi->fh is the file's slot plus one in its low 32 bits and the epoch
	 * of the daemon that opened it in its high ones (fs.c); fh_ids[slot]
	 * is the whole number of the file in that slot, fh_free the free slots.
	 */
	struct ue_fh **fh_slots;
	_Atomic uint64_t *fh_ids;
	uint32_t *fh_free;
	uint32_t fh_nfree;
	/*
	 * One per daemon that served this mount: a file opened after the last
	 * checkpoint of a daemon that crashed (checkpoint.c) has an older
	 * epoch than its successor's, so its number never names a new file.
	 */
	uint32_t fh_epoch;
	/*
	 * chmod/chown of the fixed nodes (fs-tree.c), as tracefs keeps them; each is
	 * UE_ATTR_SET | value once changed, 0 while the node has its defaults.
	 */
	_Atomic uint64_t node_mode[UE_STATIC_NODES_MAX];
	_Atomic uint64_t node_uid[UE_STATIC_NODES_MAX];
	_Atomic uint64_t node_gid[UE_STATIC_NODES_MAX];
	atomic_uint open_files;		/* against opts.max_files */
	atomic_size_t text_bytes;	/* snapshots held, against opts.max_text_bytes */
	/* Writes that came through FUSE, for usereventsd_stats (the native ones: native-drain.c). */
	unsigned long long fuse_writes;
	/* Handing the mount to a successor (upgrade.c). */
	char *fuse_opts;		/* what libfuse was given, for the successor */
	unsigned char init_req[256];	/* the kernel's FUSE_INIT, as read */
	size_t init_len;
	atomic_bool init_fake;		/* a successor: the next read is the FUSE_INIT again */
	atomic_bool init_answering;	/* that FUSE_INIT is read and not answered yet */
	pthread_t main_thread;
	int ctl_sock;			/* the control socket, -1: none */
	int ctl_stop;			/* an eventfd: its thread returns once it is readable */
	pthread_t ctl_thread;
	char ctl_name[108];
	atomic_int upgrade_conn;	/* a successor's connection, -1: none */
	int taken_procev;		/* the predecessor's proc connector socket, -1: none */
	struct ue_proc_seen *taken_seen; /* and its children poller's children met, or NULL */
	uint64_t upgrades;		/* daemons this one's state went through */
	/*
	 * The checkpoint kept for a crash (checkpoint.c).  Requests that change
	 * what it keeps (open, release, ioctl, flush, setattr, writes to the
	 * control files) hold state_rw for reading, the checkpoint for writing,
	 * so it never sees a file half made or freed; each bumps state_gen and
	 * wakes the checkpoint's thread when it sleeps (ckpt_idle).
	 */
	pthread_rwlock_t state_rw;
	atomic_uint_fast64_t state_gen;
	atomic_bool ckpt_idle;
	int ckpt_wake;			/* an eventfd, -1: no checkpoint */
	struct ue_ckpt *ckpt;
	uint64_t restarts;		/* crashes this mount's state went through */
	/* Checkpoints written, the last one's bytes, the longest hold of state_rw (ns). */
	_Atomic uint64_t ckpt_written, ckpt_bytes, ckpt_last_ns, ckpt_max_ns;
	char *notify_socket;		/* the keeper's (NOTIFY_SOCKET), or NULL */
};

/* The trace options, in the order of the kernel's trace_options file. */
enum ue_trace_option {
	UE_OPT_PRINT_PARENT,
	UE_OPT_SYM_OFFSET,
	UE_OPT_SYM_ADDR,
	UE_OPT_VERBOSE,
	UE_OPT_RAW,
	UE_OPT_HEX,
	UE_OPT_BIN,
	UE_OPT_BLOCK,
	UE_OPT_FIELDS,
	UE_OPT_TRACE_PRINTK,
	UE_OPT_ANNOTATE,
	UE_OPT_USERSTACKTRACE,
	UE_OPT_SYM_USEROBJ,
	UE_OPT_PRINTK_MSG_ONLY,
	UE_OPT_CONTEXT_INFO,
	UE_OPT_LATENCY_FORMAT,
	UE_OPT_RECORD_CMD,
	UE_OPT_RECORD_TGID,
	UE_OPT_OVERWRITE,
	UE_OPT_DISABLE_ON_FREE,
	UE_OPT_IRQ_INFO,
	UE_OPT_MARKERS,
	UE_OPT_EVENT_FORK,
	UE_OPT_TRACE_PRINTK_DEST,
	UE_OPT_PAUSE_ON_TRACE,
	UE_OPT_HASH_PTR,
	UE_OPT_STACKTRACE,
	UE_OPT_TEST_NOP_ACCEPT,	/* the nop tracer's own two */
	UE_OPT_TEST_NOP_REFUSE,
	UE_OPT_COUNT,
};

/* Name of an option (as in options/) and whether it starts set. */
struct ue_option_desc {
	const char *name;
	bool set;
};
extern const struct ue_option_desc ue_trace_options[UE_OPT_COUNT];

/* The flags as the daemon starts with them. */
unsigned int ue_trace_flags_default(void);

static inline struct ue_daemon *ue_req_daemon(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* The native path (NULL: off), published by main.c before the FUSE loop runs. */
static inline struct ue_native_server *ue_daemon_native(struct ue_daemon *d)
{
	return __atomic_load_n(&d->native, __ATOMIC_ACQUIRE);
}

/**
 * ue_deadline_ms - the CLOCK_MONOTONIC time @ms milliseconds from now
 * @ret: the deadline, for ue_cond_timedwait() on a monotonic condition
 * @ms: how far, below 1000
 */
/* Something a checkpoint keeps changed (a native registration, a request below). */
static inline void ue_state_changed(struct ue_daemon *d)
{
	atomic_fetch_add(&d->state_gen, 1);
	if (atomic_load_explicit(&d->ckpt_idle, memory_order_relaxed) &&
	    atomic_exchange(&d->ckpt_idle, false))
		(void)!write(d->ckpt_wake, &(uint64_t){ 1 }, sizeof(uint64_t));
}

/* Around a request that changes what a checkpoint keeps (see ue_daemon.state_rw). */
static inline void ue_state_begin(struct ue_daemon *d)
{
	pthread_rwlock_rdlock(&d->state_rw);
}

static inline void ue_state_end(struct ue_daemon *d)
{
	pthread_rwlock_unlock(&d->state_rw);
	ue_state_changed(d);
}

static inline void ue_deadline_ms(struct timespec *ret, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ret);
	ret->tv_nsec += (long)ms * 1000000L;
	if (ret->tv_nsec >= 1000000000L) {
		ret->tv_sec++;
		ret->tv_nsec -= 1000000000L;
	}
}

#endif /* UE_DAEMON_H */
