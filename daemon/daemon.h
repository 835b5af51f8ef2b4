/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * usereventsd's private header: the daemon context, the node kinds of the
 * tracefs-like tree and the per-open-file state shared by fs.c (FUSE glue,
 * inode table) and the fs-*.c files, one per tracefs area.
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

#include "buffer.h"
#include "enabler.h"
#include "registry.h"

#define UE_DAEMON_NAME "usereventsd"

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

/* Room for the fixed nodes of the tree (fs.c checks that they fit). */
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
	bool foreground;
	bool debug;
};

struct ue_pipe;
struct ue_tasks;
struct ue_proc_events;
struct ue_raw;
struct ue_raw_reader;

/* Everything a request handler reaches through fuse_req_userdata(). */
struct ue_daemon {
	struct ue_daemon_opts opts;
	struct ue_registry *reg;
	struct ue_buffer *buf;
	struct ue_enablers *enablers;
	struct ue_proc_events *procev;	/* fork/exec/exit of processes (proc-events.c) */
	struct fuse_session *se;
	size_t max_write;		/* negotiated with the kernel at init */
	struct timespec mount_time;
	atomic_uint trace_flags;	/* 1 << UE_OPT_*: trace_options, options/ */
	atomic_size_t buffer_kb;	/* buffer_size_kb as last written */
	struct ue_pipe *pipe;		/* trace_pipe waiters (fs-trace.c) */
	struct ue_tasks *tasks;		/* tid -> comm, tgid (fs-data.c) */
	struct ue_raw *raw;		/* saved_cmdlines of trace_pipe_raw readers (fs-raw.c) */
	/* Data files closed (flushed) whose release has not arrived yet. */
	pthread_mutex_t release_lock;
	pthread_cond_t release_cond;
	unsigned int flushed_files;
	/* Every open file and directory, freed at exit if never released. */
	pthread_mutex_t fh_lock;
	struct ue_fh *fh_list;
	/*
	 * chmod/chown of the fixed nodes (fs.c), as tracefs keeps them; each is
	 * UE_ATTR_SET | value once changed, 0 while the node has its defaults.
	 */
	_Atomic uint64_t node_mode[UE_STATIC_NODES_MAX];
	_Atomic uint64_t node_uid[UE_STATIC_NODES_MAX];
	_Atomic uint64_t node_gid[UE_STATIC_NODES_MAX];
	atomic_uint open_files;		/* against opts.max_files */
	atomic_size_t text_bytes;	/* snapshots held, against opts.max_text_bytes */
};

/* What a node is; fs.c maps inode numbers to these. */
enum ue_node {
	UE_N_NONE = 0,
	UE_N_ROOT,
	UE_N_README,
	UE_N_AVAILABLE_EVENTS,
	UE_N_BUFFER_SIZE_KB,
	UE_N_BUFFER_TOTAL_KB,
	UE_N_DYNAMIC_EVENTS,
	UE_N_EVENTS,
	UE_N_OPTIONS,
	UE_N_SET_EVENT,
	UE_N_TRACE,
	UE_N_TRACE_PIPE,
	UE_N_TRACING_ON,
	UE_N_DATA,
	UE_N_STATUS,
	UE_N_TRACE_OPTIONS,
	UE_N_CURRENT_TRACER,
	UE_N_AVAILABLE_TRACERS,
	UE_N_OPTION,		/* options/<name>, ue_fh.option */
	UE_N_EVENTS_ENABLE,
	UE_N_HEADER_PAGE,
	UE_N_HEADER_EVENT,
	UE_N_SYS_DIR,		/* events/user_events, events/user_events_multi */
	UE_N_SYS_ENABLE,
	UE_N_SYS_FILTER,
	UE_N_EV_DIR,		/* events/<system>/<name> */
	UE_N_EV_ENABLE,
	UE_N_EV_FILTER,
	UE_N_EV_FORMAT,
	UE_N_EV_ID,
	UE_N_EV_TRIGGER,
	UE_N_PER_CPU,		/* per_cpu/ */
	UE_N_CPU_DIR,		/* per_cpu/cpuN/, ue_fh.option = N */
	UE_N_CPU_BUFFER_SIZE_KB,
	UE_N_CPU_STATS,
	UE_N_CPU_TRACE,
	UE_N_CPU_PIPE_RAW,	/* per_cpu/cpuN/trace_pipe_raw (fs-raw.c) */
	UE_N_TRACE_CLOCK,
	UE_N_SAVED_CMDLINES,
	UE_N_SAVED_CMDLINES_SIZE,
	UE_N_SAVED_TGIDS,
	UE_N_FTRACE_DIR,	/* events/ftrace/, events/ftrace/print/ */
	UE_N_FTRACE_FORMAT,	/* events/ftrace/print/format (fs-raw.c) */
	UE_N_FTRACE_ID,
	UE_N_USEREVENTSD_STATS,	/* usereventsd_stats: enablers and proc connector (fs-text.c) */
	UE_N_TRACE_MARKER,	/* trace_marker (fs-marker.c) */
	UE_N_TRACE_MARKER_RAW,	/* trace_marker_raw (fs-marker.c) */
	UE_N_FTRACE_RAW_FORMAT,	/* events/ftrace/raw_data/format (fs-marker.c) */
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

/* user_events_data: the file's references, indexed by write_index. */
struct ue_data_file {
	struct ue_revent **events;
	uint32_t count;
	uint32_t cap;
	bool flushed;
	/*
	 * A write larger than FUSE's max_write arrives in pieces, one request
	 * after the other; the piece that may have more after it sets these.
	 */
	bool split;
	uint64_t split_next;	/* offset the next piece of that write has */
};

/* trace_pipe: text of a record a previous read could not take whole. */
struct ue_pipe_reader {
	char *left;
	size_t left_len;
	size_t left_off;
	bool has_read;		/* returned data once: tracing off then means EOF */
	struct fuse_pollhandle *ph;
};

struct ue_dirent {
	char *name;
	fuse_ino_t ino;
	mode_t mode;
};

/* One open file or directory (fi->fh). */
struct ue_fh {
	struct ue_fh *prev, *next;	/* ue_daemon.fh_list */
	struct ue_daemon *d;		/* whose limits its snapshot counts against */
	enum ue_node kind;
	bool multi;			/* system of UE_N_SYS_* */
	unsigned int option;		/* UE_N_OPTION; the CPU of UE_N_CPU_* */
	struct ue_revent *ev;		/* memory reference, UE_N_EV_* */
	int open_flags;
	pthread_mutex_t lock;
	char *text;			/* snapshot served by offset */
	size_t text_len;
	bool have_text;
	union {
		struct ue_data_file data;
		struct ue_pipe_reader pipe;
		struct ue_raw_reader *raw;	/* UE_N_CPU_PIPE_RAW */
		struct {
			struct ue_dirent *ents;
			size_t n;
		} dir;
	};
};

static inline struct ue_daemon *ue_req_daemon(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* A growable text; out of memory sticks (failed) and is reported once. */
struct ue_text {
	char *buf;
	size_t len;
	size_t cap;
	bool failed;
};

/** ue_text_add - append @n bytes of @s to @t (kept NUL-terminated) */
void ue_text_add(struct ue_text *t, const char *s, size_t n);

/** ue_text_printf - append printf-formatted text to @t */
void ue_text_printf(struct ue_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * ue_text_render - append what a core renderer produces
 * @t: the text
 * @fn: called as snprintf-like renderers are: first to measure, then to write
 * @arg: passed to @fn
 */
void ue_text_render(struct ue_text *t, int (*fn)(void *arg, char *buf, size_t len), void *arg);

/**
 * ue_text_to_fh - make @t the read snapshot of @fh
 * @t: the text; emptied
 * @fh: the open file; its previous snapshot is freed
 *
 * Return: 0, or -ENOMEM when building @t failed or the snapshots of all
 * open files would pass max_text_bytes (nothing changes).
 */
int ue_text_to_fh(struct ue_text *t, struct ue_fh *fh);

/**
 * ue_parse_ulong - a number written to a control file, as kstrtoul_from_user()
 * @buf: the bytes written (not NUL-terminated; the first NUL ends them)
 * @size: their count; beyond 66 bytes are ignored, as in the kernel
 * @ret: the value
 *
 * Accepts an optional '+', decimal digits and one optional '\n'.
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int ue_parse_ulong(const char *buf, size_t size, unsigned long *ret);

/**
 * ue_caller_capable - perfmon_capable() for the thread that sent a request
 * @tid: the thread (fuse_req_ctx()->pid)
 *
 * Return: true when its effective capabilities hold CAP_PERFMON or CAP_SYS_ADMIN.
 */
bool ue_caller_capable(pid_t tid);

/**
 * ue_deadline_ms - the CLOCK_MONOTONIC time @ms milliseconds from now
 * @ret: the deadline, for pthread_cond_timedwait() on a monotonic condition
 * @ms: how far, below 1000
 */
static inline void ue_deadline_ms(struct timespec *ret, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, ret);
	ret->tv_nsec += (long)ms * 1000000L;
	if (ret->tv_nsec >= 1000000000L) {
		ret->tv_sec++;
		ret->tv_nsec -= 1000000000L;
	}
}

/* fs.c: the FUSE operations. */
extern const struct fuse_lowlevel_ops ue_fs_ops;

/** ue_fs_cleanup - release the files the kernel never closed (the session ended first) */
void ue_fs_cleanup(struct ue_daemon *d);

/**
 * ue_fs_serve_text - answer a read from @fh's text snapshot
 * @req: the read
 * @fh: the open file
 * @size: bytes asked for
 * @off: where from
 * @generate: builds the snapshot; called when the read starts at 0 or there is none
 *
 * @fh is not touched after the reply: the file may be released at once.
 */
void ue_fs_serve_text(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off,
		      int (*generate)(struct ue_daemon *d, struct ue_fh *fh));

/*
 * fs-data.c: user_events_data.  Each function below answers its request
 * (or, for the others, runs on the request's thread) and returns nothing.
 */

/** ue_tasks_new - the tid -> comm/tgid cache written records carry */
int ue_tasks_new(struct ue_tasks **ret);
/** ue_tasks_free - free the cache (NULL is ignored) */
void ue_tasks_free(struct ue_tasks *tasks);
/**
 * ue_task_lookup - the comm and tgid a record of @tid carries, as the
 * kernel's saved_cmdlines/tgid maps would say (cached up to 1 s)
 * @tasks: the cache
 * @tid: the writing thread
 * @meta: its tid, tgid and comm are set ("" when unknown)
 */
void ue_task_lookup(struct ue_tasks *tasks, pid_t tid, struct ue_rec_meta *meta);
/** ue_data_open - a new open of user_events_data: an empty write_index table */
void ue_data_open(struct ue_daemon *d, struct ue_fh *fh);
/** ue_data_write - a write(): [u32 write_index][payload] into the trace buffer */
void ue_data_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off);
/** ue_data_writes - write requests user_events_data received through FUSE so far */
unsigned long long ue_data_writes(void);
/** ue_data_ioctl - DIAG_IOCSREG, DIAG_IOCSDEL, DIAG_IOCSUNREG; ENOTTY otherwise */
void ue_data_ioctl(fuse_req_t req, struct ue_fh *fh, unsigned int cmd, void *arg,
		   unsigned int flags);
/** ue_data_flush - a close() of one descriptor: the release may follow */
void ue_data_flush(struct ue_daemon *d, struct ue_fh *fh);
/** ue_data_release - the file's last close: its event references go */
void ue_data_release(struct ue_daemon *d, struct ue_fh *fh);
/**
 * ue_data_busy_hook - the registry's busy hook: drop the references of
 * exited processes, wait briefly for releases of closed files
 * @arg: the daemon
 */
void ue_data_busy_hook(void *arg);

/* fs-events.c: events/ */

/** ue_events_open - open a file of events/: ENOENT for a deleted event */
int ue_events_open(fuse_req_t req, struct ue_fh *fh);
/** ue_events_read - enable, filter, format, id, trigger, header_*: from a snapshot */
void ue_events_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off);
/** ue_events_write - "0"/"1" to an enable file; "0" to a filter */
void ue_events_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size);

/* fs-trace.c: trace, trace_pipe, per_cpu/, tracing_on, buffer sizes, options */

/** ue_pipe_start - start the thread that answers parked trace_pipe reads and polls */
int ue_pipe_start(struct ue_daemon *d);
/** ue_pipe_stop - stop it; parked reads get EINTR (before the session goes) */
void ue_pipe_stop(struct ue_daemon *d);
/**
 * ue_trace_open - open one of these files; O_TRUNC on trace clears the
 * buffer; trace_pipe is open once at a time (EBUSY)
 */
int ue_trace_open(fuse_req_t req, struct ue_fh *fh);
/**
 * ue_trace_read - read one of these files
 * @flags: the file's current flags (O_NONBLOCK for trace_pipe)
 */
void ue_trace_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off, int flags);
/** ue_trace_write - write one of these files */
void ue_trace_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size);
/** ue_trace_poll - poll trace_pipe; @ph is kept and notified when records come */
void ue_trace_poll(fuse_req_t req, struct ue_fh *fh, struct fuse_pollhandle *ph);
/** ue_trace_flush - a close() of a trace_pipe descriptor: its release may follow */
void ue_trace_flush(struct ue_daemon *d, struct ue_fh *fh);
/** ue_trace_release - a trace_pipe's last close: its poll handle and cut line go */
void ue_trace_release(struct ue_daemon *d, struct ue_fh *fh);

/* fs-text.c: README, user_events_status, dynamic_events, available_events, set_event */

/** ue_textfile_open - open one; O_TRUNC on dynamic_events deletes, on set_event disables */
int ue_textfile_open(fuse_req_t req, struct ue_fh *fh);
/** ue_textfile_read - read one, from a snapshot made at offset 0 */
void ue_textfile_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off);
/** ue_textfile_write - lines of dynamic_events, a word of set_event */
void ue_textfile_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size);

/* fs-marker.c: trace_marker, trace_marker_raw, events/ftrace/raw_data/format */

/* The common fields of an ftrace event's format file (ftrace:print, raw_data). */
#define UE_FTRACE_COMMON_FIELDS                                                      \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"        \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"        \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/**
 * ue_marker_write - a write to trace_marker (an ftrace:print record) or
 * trace_marker_raw (an ftrace:raw_data record), with the kernel's limits
 * and errnos: EINVAL when options/markers is off, EBADF when the buffer
 * takes nothing (tracing_on 0, a full ring in discard mode)
 */
void ue_marker_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size);
/** ue_marker_read - events/ftrace/raw_data/format; EINVAL on the markers (no read method) */
void ue_marker_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off);

/* fs-raw.c: per_cpu/cpuN/trace_pipe_raw, trace_clock, saved_cmdlines, saved_tgids */

/** ue_raw_new - the pid table behind saved_cmdlines and saved_tgids */
int ue_raw_new(struct ue_raw **ret);
/** ue_raw_free - free it (NULL is ignored) */
void ue_raw_free(struct ue_raw *raw);
/** ue_raw_open - open one of these files (a trace_pipe_raw gets its page buffer) */
int ue_raw_open(fuse_req_t req, struct ue_fh *fh);
/**
 * ue_raw_read - read one; trace_pipe_raw consumes whole pages of its CPU
 * @flags: the file's current flags: O_NONBLOCK makes an empty ring EAGAIN
 */
void ue_raw_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off, int flags);
/** ue_raw_write - trace_clock (mono only), saved_cmdlines_size (accepted) */
void ue_raw_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size);
/** ue_raw_release - a trace_pipe_raw's last close: its page buffer goes */
void ue_raw_release(struct ue_daemon *d, struct ue_fh *fh);

#endif /* UE_DAEMON_H */
