/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/native: the daemon's end of libuserevents' zero-syscall path.  A
 * listener on an abstract Unix socket with a name of its own (advertised as
 * UE_NATIVE_XATTR of user_events_data), one thread per client session, and a drain thread that moves records from the
 * clients' shared-memory rings into the trace buffer (core/native-proto.h).
 */
#ifndef UE_DAEMON_NATIVE_H
#define UE_DAEMON_NATIVE_H

#include <stddef.h>

struct ue_buffer;
struct ue_cmdlines;
struct ue_counts;
struct ue_registry;
struct ue_native_server;

/* What the native path stores into: the daemon's events, nothing else. */
struct ue_native_deps {
	struct ue_registry *reg;	/* the events a session adds, by name */
	struct ue_buffer *buf;		/* where records go; consumer channels attach to it */
	struct ue_cmdlines *cmdlines;	/* the tasks whose records were stored */
	struct ue_counts *counts;	/* records per process and event */
};

/**
 * ue_native_start - offer the native path for the mount at @mountpoint
 * @deps: where records go; the FUSE loop must run soon, since sessions
 *     register events through the mount
 * @mountpoint: where usereventsd is mounted
 * @ret: the native path, until ue_native_stop()
 *
 * Return: 0; -errno when the socket or the threads cannot be made (the
 * daemon then works without the native path).
 */
int ue_native_start(const struct ue_native_deps *deps, const char *mountpoint,
		    struct ue_native_server **ret);

/**
 * ue_native_stop - end every session and the threads, free @nat
 * @nat: the native path (NULL is ignored)
 *
 * Call after the mount is gone (closing the sessions' user_events_data
 * descriptors must not wait for the FUSE loop).  Rings still mapped by
 * clients are marked dead, so their writes fail with -EPIPE.
 */
void ue_native_stop(struct ue_native_server *nat);

/**
 * ue_native_name - the abstract socket name clients connect to
 * @nat: the native path, or NULL
 *
 * Unique to this daemon instance (its pid and 64 random bits), so that a
 * daemon restarted on the same mount point never shares it with one that
 * still lives.
 *
 * Return: the name without its leading NUL, or NULL when the native path is off.
 */
const char *ue_native_name(const struct ue_native_server *nat);

/**
 * ue_native_sync - take every record the rings hold now into the trace buffer
 * @nat: the native path (NULL: nothing to do)
 *
 * Called before each request of the file system: a request sees every
 * native write that returned before it, as it would see a kernel write.
 */
void ue_native_sync(struct ue_native_server *nat);

/**
 * ue_native_stats_text - the native path's counters, one "name: value" a line
 * @nat: the native path (NULL: all zero)
 * @buf: where to write (NUL-terminated, cut to @len)
 * @len: bytes at @buf
 *
 * Return: the length of the whole text, as snprintf().
 */
int ue_native_stats_text(struct ue_native_server *nat, char *buf, size_t len);

/*
 * For usereventsd --upgrade (daemon/upgrade.c).  ue_native_pause(): every
 * thread stopped, between requests; what the rings hold drained and every
 * channel page holding records handed to its reader; ue_native_resume()
 * starts them again (the upgrade failed).  ue_native_save(): the listener,
 * each live session (its socket, events, rings with their memfds, its
 * reader's channel) into a snapshot; ue_native_restore(): the same,
 * serving, in a successor whose buffer already holds the predecessor's
 * records.  Return: 0 or -errno.
 */
struct ue_snap_w;
struct ue_snap_r;
void ue_native_pause(struct ue_native_server *nat);
int ue_native_resume(struct ue_native_server *nat);
int ue_native_save(struct ue_native_server *nat, struct ue_snap_w *w);
int ue_native_restore(const struct ue_native_deps *deps, const char *mountpoint,
		      struct ue_snap_r *r, struct ue_native_server **ret);

#endif /* UE_DAEMON_NATIVE_H */
