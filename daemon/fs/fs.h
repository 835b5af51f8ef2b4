/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The contract of usereventsd's file system, as the kernel's tracefs has it:
 * each file is a row (parent, name, mode, operations: trace_create_file()'s
 * arguments) in the table of the fs-*.c file that owns it, and its struct
 * ue_file_ops (struct file_operations) says what open, read, write, ioctl,
 * poll, flush and release do.  fs.c dispatches FUSE requests through the
 * operations, fs-tree.c maps inode numbers to rows, fs-helpers.c holds what
 * the files share.
 */
#ifndef UE_FS_H
#define UE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "daemon.h"

/**
 * struct ue_file_ops - what one kind of file does; NULL members do what the
 * kernel does for a file without that method
 * @open: after the handle is made (open_flags, ev, multi, option set): 0 or -errno; NULL: 0
 * @show: builds the text a read serves by offset (ue_text_to_fh()), as a
 *	seq_file's show: when a read starts at 0 or there is no text yet
 * @text: the whole content of a file that never changes, instead of @show
 * @read: answers a read itself, instead of @show or @text; @flags are the file's
 *	current flags (O_NONBLOCK); neither: EINVAL (no read method)
 * @write: answers a write; NULL: @set, or EINVAL (no write method)
 * @set: a control file that takes a number, as a debugfs simple attribute:
 *	what is written is read as kstrtoul_from_user() does (its errno
 *	first), then @set applies it (0 or -errno) and the write is answered
 * @ioctl: answers an ioctl; NULL: ENOTTY
 * @poll: answers a poll, keeping @ph to notify; NULL: always ready (DEFAULT_POLLMASK)
 * @flush: a close() of one descriptor; a file with a flush sees every
 *	close() at once, the others none (FUSE's noflush)
 * @release: the file's last close, before its handle is freed
 * @getxattr: the value of the extended attribute @name, or -EOPNOTSUPP; NULL: none
 * @nonseekable: each write() is one request and the file position means nothing
 * @stream: no file position at all, and writes from several threads run in
 *	parallel (FOPEN_STREAM, FOPEN_PARALLEL_DIRECT_WRITES; fs.c)
 *
 * Every file is opened direct_io: generated or consumed on read, never cached.
 */
struct ue_snap_w;
struct ue_snap_r;

struct ue_file_ops {
	int (*open)(fuse_req_t req, struct ue_fh *fh);
	int (*show)(struct ue_daemon *d, struct ue_fh *fh);
	const char *text;
	void (*read)(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off, int flags);
	void (*write)(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off);
	int (*set)(struct ue_daemon *d, struct ue_fh *fh, unsigned long val);
	void (*ioctl)(fuse_req_t req, struct ue_fh *fh, unsigned int cmd, void *arg,
		      unsigned int flags);
	void (*poll)(fuse_req_t req, struct ue_fh *fh, struct fuse_pollhandle *ph);
	void (*flush)(struct ue_daemon *d, struct ue_fh *fh);
	void (*release)(struct ue_daemon *d, struct ue_fh *fh);
	int (*getxattr)(struct ue_daemon *d, const char *name, const char **ret_value);
	/*
	 * What the open file holds beyond fs.c's part, into a state snapshot
	 * and back (fs-snap.c, for usereventsd --upgrade); restore runs on a
	 * handle that open never saw.  Either both or neither.
	 */
	int (*save)(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_w *w);
	int (*restore)(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_r *r);
	bool nonseekable;
	bool stream;
	/*
	 * Its writes carry records (user_events_data, trace_marker) and change
	 * no state a checkpoint keeps: they never wait for one (checkpoint.h).
	 */
	bool payload;
};

/*
 * The directories of the tree: fixed ones (inode FUSE_ROOT_ID + value), and
 * the two kinds that are made per event and per CPU, whose files are the
 * rows that name them as parent.
 */
enum ue_dir {
	UE_DIR_ROOT,
	UE_DIR_EVENTS,			/* events/ */
	UE_DIR_OPTIONS,			/* options/: a file per trace option */
	UE_DIR_PER_CPU,			/* per_cpu/: a cpuN/ per CPU */
	UE_DIR_USER_EVENTS,		/* events/user_events/, while it holds events */
	UE_DIR_USER_EVENTS_MULTI,	/* events/user_events_multi/, likewise */
	UE_DIR_FTRACE,			/* events/ftrace/ */
	UE_DIR_FTRACE_PRINT,		/* events/ftrace/print/ */
	UE_DIR_FTRACE_RAW_DATA,		/* events/ftrace/raw_data/ */
	UE_DIR_FIXED,			/* the count of the fixed ones */
	UE_DIR_EVENT,			/* each events/<system>/<name>/: ue_fh.ev */
	UE_DIR_CPU,			/* each per_cpu/cpuN/: ue_fh.option = N */
};

/**
 * struct ue_fs_file - one file of the tree, as trace_create_file() makes it
 * @parent: its directory; the files of user_events/ and user_events_multi/
 *	exist while the system holds events, as with eventfs
 * @name: its name
 * @mode: its permission bits (tracefs: TRACE_MODE_READ 0440, TRACE_MODE_WRITE 0640)
 * @ops: what it does
 */
struct ue_fs_file {
	enum ue_dir parent;
	const char *name;
	mode_t mode;
	const struct ue_file_ops *ops;
};

/* The files an fs-*.c owns, in the order they are listed. */
struct ue_fs_files {
	const struct ue_fs_file *file;
	size_t n;
};
#define UE_FS_FILES(rows) { (rows), sizeof(rows) / sizeof((rows)[0]) }

/* Each fs-*.c's files; fs-tree.c serves them in this order. */
extern const struct ue_fs_files ue_text_files;		/* README, status, dynamic_events ... */
extern const struct ue_fs_files ue_trace_files;		/* trace, tracing_on, buffer sizes ... */
extern const struct ue_fs_files ue_pipe_files;		/* trace_pipe */
extern const struct ue_fs_files ue_data_files;		/* user_events_data */
extern const struct ue_fs_files ue_events_files;	/* events/ */
extern const struct ue_fs_files ue_raw_files;		/* trace_pipe_raw, saved_cmdlines ... */
extern const struct ue_fs_files ue_marker_files;	/* trace_marker, trace_marker_raw */
extern const struct ue_fs_files ue_session_files;	/* usereventsd_session */
/* options/<name>: one file per trace option, ue_fh.option its index (fs-trace.c). */
extern const struct ue_file_ops ue_option_fops;

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
	uint64_t id;			/* fi->fh: its slot + 1 (fs.c) */
	fuse_ino_t ino;			/* the node it was opened on */
	struct ue_daemon *d;		/* whose limits its snapshot counts against */
	const struct ue_file_ops *ops;	/* NULL: a directory, holding its listing */
	bool multi;			/* of user_events_multi (its system's files, its events) */
	unsigned int option;		/* options/<name>: its index; per_cpu/cpuN/: N */
	struct ue_revent *ev;		/* memory reference, events/<system>/<name>/ */
	int open_flags;
	struct ue_mutex lock;
	char *text;			/* snapshot served by offset */
	size_t text_len;
	bool have_text;
	union {
		struct ue_data_file data;
		struct ue_pipe_reader pipe;
		struct ue_raw_reader *raw;	/* trace_pipe_raw */
		struct ue_session *session;	/* usereventsd_session */
		struct {
			struct ue_dirent *ents;
			size_t n;
		} dir;
	};
};

/* fs.c: the FUSE operations. */
extern const struct fuse_lowlevel_ops ue_fs_ops;

/*
 * A handle not in any slot yet (ue_fh_alloc()), and one put in slot @id - 1
 * as a predecessor had it (fs-snap.c), before the first open: -EINVAL for a
 * slot taken or out of range.
 */
struct ue_fh *ue_fh_alloc(struct ue_daemon *d, const struct ue_file_ops *ops);
/* What a handle holds, and the handle, freed; it is in no slot or list (fh_free() unlinks first). */
void ue_fh_destroy(struct ue_daemon *d, struct ue_fh *fh);
/* A directory handle's listing, grown one entry at a time (ue_tree_list()'s @add). */
struct ue_dir_fill {
	struct ue_fh *fh;
	size_t cap;
};
int ue_fh_dir_add(void *arg, const char *name, fuse_ino_t ino, mode_t mode);
int ue_fh_put_in_slot(struct ue_daemon *d, struct ue_fh *fh, uint64_t id);

/** ue_fs_cleanup - release the files the kernel never closed (the session ended first) */
void ue_fs_cleanup(struct ue_daemon *d);

/* fs-tree.c: inode numbers, lookups, attributes and listings of the tree. */

/* A resolved inode. */
struct ue_node {
	fuse_ino_t ino;
	mode_t mode;			/* with its S_IFDIR or S_IFREG */
	const struct ue_file_ops *ops;	/* a file's; NULL for a directory */
	enum ue_dir dir;		/* a directory's */
	bool multi;			/* of user_events_multi */
	bool dynamic;			/* may disappear: not cached */
	unsigned int option;		/* options/<name>: its index; per_cpu/cpuN/: N */
	struct ue_revent *ev;		/* reference, events/<system>/<name>/ */
};

/**
 * ue_tree_check - whether the files' tables fit the inode numbering
 *
 * Return: 0, or -E2BIG naming nothing: a table was given too many rows.
 */
int ue_tree_check(void);

/**
 * ue_tree_resolve - the node of inode @ino
 * @d: the daemon
 * @ino: the inode number
 * @ret: the node; put it with ue_node_put()
 *
 * Return: 0 or -ENOENT (no such inode, or one that went: a deleted event).
 */
int ue_tree_resolve(struct ue_daemon *d, fuse_ino_t ino, struct ue_node *ret);

/**
 * ue_tree_lookup - the entry @name of directory @parent
 * @d: the daemon
 * @parent: the directory's inode
 * @name: the entry
 * @ret: the node; put it with ue_node_put()
 *
 * Return: 0 or -ENOENT.
 */
int ue_tree_lookup(struct ue_daemon *d, fuse_ino_t parent, const char *name,
		   struct ue_node *ret);

/**
 * ue_tree_list - the entries of directory @dir, "." and ".." first
 * @d: the daemon
 * @dir: a resolved directory
 * @add: called for each entry; a negative return stops the listing
 * @arg: passed to @add
 *
 * Return: 0 or what @add returned.
 */
int ue_tree_list(struct ue_daemon *d, const struct ue_node *dir,
		 int (*add)(void *arg, const char *name, fuse_ino_t ino, mode_t mode), void *arg);

/** ue_tree_attr - the attributes of @n: its mode, or what chmod/chown made them */
void ue_tree_attr(struct ue_daemon *d, const struct ue_node *n, struct stat *ret);

/**
 * ue_tree_setattr - chmod/chown of a fixed node sticks, as on tracefs; the
 * nodes of events/<system>/, per_cpu/ and options/ keep theirs
 * @d: the daemon
 * @ino: the node
 * @attr: the new values
 * @to_set: FUSE_SET_ATTR_MODE, _UID, _GID
 */
void ue_tree_setattr(struct ue_daemon *d, fuse_ino_t ino, const struct stat *attr, int to_set);

/** ue_node_put - drop what @n holds (its event reference) */
void ue_node_put(struct ue_node *n);

/* fs-helpers.c: what the files share. */

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

/** ue_fs_show_text - the show of a file whose content is its ops' @text */
int ue_fs_show_text(struct ue_daemon *d, struct ue_fh *fh);

/**
 * ue_fs_reply_write - answer a write that took all @size bytes, or failed
 * @req: the write
 * @err: 0 or -errno
 * @size: the bytes written
 */
void ue_fs_reply_write(fuse_req_t req, int err, size_t size);

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

/*
 * fs-data.c: user_events_data.  Each function below answers its request
 * (or, for the others, runs on the request's thread) and returns nothing.
 */

/** ue_data_open - a new open of user_events_data: an empty write_index table */
void ue_data_open(struct ue_daemon *d, struct ue_fh *fh);
/** ue_data_write - a write(): [u32 write_index][payload] into the trace buffer */
void ue_data_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off);
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

/* fs-pipe.c: trace_pipe's parked readers and pollers */

/** ue_pipe_start - start the thread that answers parked trace_pipe reads and polls */
int ue_pipe_start(struct ue_daemon *d);
/** ue_pipe_stop - stop it; parked reads get EINTR (before the session goes) */
void ue_pipe_stop(struct ue_daemon *d);
/*
 * ue_pipe_handover - wake every poller of trace_pipe (it polls again, and
 * the daemon that took the mount over answers); parked reads stay unanswered
 * for the kernel to send again (FUSE_NOTIFY_RESEND, upgrade.c).
 */
void ue_pipe_handover(struct ue_daemon *d);

/*
 * fs-snap.c: every open file and directory in a state snapshot, and back
 * into their slots (each file's own part through its ops' save and
 * restore).  Restore before the first request, with the registry, the
 * sessions and trace_pipe's thread there.  Return: 0 or -errno.
 */
int ue_fs_save(struct ue_daemon *d, struct ue_snap_w *w);
int ue_fs_restore(struct ue_daemon *d, struct ue_snap_r *r);

/* fs-trace.c: the text of records, for trace and trace_pipe */

/* A few recently seen events, so a run of records costs one lookup. */
#define UE_EV_CACHE 16

struct ue_ev_cache {
	struct ue_revent *ev[UE_EV_CACHE];
	unsigned int id[UE_EV_CACHE];
	unsigned int next;
};

/** ue_ev_cache_clear - drop the cache's event references */
void ue_ev_cache_clear(struct ue_ev_cache *c);

/**
 * ue_trace_render_record - one trace line, as print_trace_line() makes it
 * for a user event or a marker
 * @d: the daemon
 * @c: events looked up so far
 * @rec: the record
 * @flags: the trace options (1 << UE_OPT_*)
 * @t: where the line goes
 */
void ue_trace_render_record(struct ue_daemon *d, struct ue_ev_cache *c,
			    const struct ue_buffer_rec *rec, unsigned int flags, struct ue_text *t);

/* fs-marker.c, fs-raw.c: the common fields of an ftrace event's format file. */
#define UE_FTRACE_COMMON_FIELDS                                                      \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"        \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"        \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* fs-session.c: usereventsd_session's sessions and their armed patterns */

/* Armed patterns of one session, and of all sessions of the daemon (ENOSPC beyond). */
#define UE_SESSION_MAX_ARMS 64
#define UE_SESSIONS_MAX_ARMS 1024

/** ue_sessions_new - the daemon's (empty) session list; hooks the registry's registrations */
int ue_sessions_new(struct ue_daemon *d);
/** ue_sessions_free - free it, once every session was released (ue_fs_cleanup()) */
void ue_sessions_free(struct ue_daemon *d);
/** ue_sessions_stats_text - the armed_patterns and armed_enables lines of usereventsd_stats */
void ue_sessions_stats_text(struct ue_daemon *d, struct ue_text *t);

#endif /* UE_FS_H */
