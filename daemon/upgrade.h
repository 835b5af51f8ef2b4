/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * upgrade: one usereventsd hands its mount to the next without unmounting
 * (usereventsd --upgrade MOUNTPOINT, usereventsd(8) UPGRADE).  The running
 * daemon listens on an abstract socket named by the extended attribute
 * UE_CONTROL_XATTR of its user_events_data; a successor of the same user
 * (or root) connects, the running daemon stops its FUSE loop, writes its
 * state (core/snap.h: the registry, open files, sessions, enablers, trace
 * options, the buffer's unread records, the native path's sessions, rings
 * and channels) into a memfd and sends it with the
 * /dev/fuse descriptor and every descriptor the state names; the successor
 * builds itself from them, says so, and serves; the predecessor exits
 * without unmounting.  A successor that fails says why and the predecessor
 * serves on.
 */
#ifndef UE_DAEMON_UPGRADE_H
#define UE_DAEMON_UPGRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "snap.h"

/* What the predecessor sent, until the successor has restored it. */
struct ue_taken {
	int sock;		/* the connection, for the answer */
	int fuse_fd;
	unsigned char *snap;	/* the snapshot's bytes (a mapping of its memfd) */
	size_t snap_len;
	int *fds;		/* the descriptors that came with it */
	unsigned int nfds;
	struct ue_daemon_opts opts;
	char *fuse_opts;	/* the options libfuse was given */
	unsigned char init[256]; /* the kernel's FUSE_INIT request, header included */
	size_t init_len;
	pid_t from_pid;
	/* Where ue_upgrade_restore() goes on: the daemon section after the init, the next section. */
	struct ue_snap_r daemon_rest;
	size_t next_off;
	int status_fd;		/* detached: the command's parent waits on it */
	int ckpt_fd;		/* the predecessor's checkpoint (checkpoint.h), or -1 */
	/*
	 * A restart after a crash (checkpoint.c): no descriptors, no buffer,
	 * no native path in the snapshot; the dead daemon's requests are
	 * asked for again as after an upgrade.
	 */
	bool crash;
};

/* The running daemon's side: the control socket and its thread. */
int ue_upgrade_listen(struct ue_daemon *d);
void ue_upgrade_stop_listening(struct ue_daemon *d);
const char *ue_upgrade_name(const struct ue_daemon *d);

/*
 * After the FUSE loop returned: whether a successor asked for the mount.
 * ue_upgrade_give() quiesces, sends the state and waits for the answer:
 * 0 when the successor took over (exit now, touching nothing shared),
 * -errno when it did not (serve on: the loop runs again).
 */
bool ue_upgrade_requested(struct ue_daemon *d);
int ue_upgrade_give(struct ue_daemon *d);

/* Capture FUSE_INIT as every daemon reads it (custom io); install on the session. */
int ue_upgrade_io(struct ue_daemon *d);

/*
 * The state as an upgrade sends it, or as a checkpoint keeps it for a crash
 * (@checkpoint: no descriptors, no buffer, no native path).  Free @w with
 * ue_snapw_free() either way.
 */
int ue_upgrade_snapshot(struct ue_daemon *d, struct ue_snap_w *w, bool checkpoint);

/* The successor's side, in main.c's order. */
int ue_upgrade_receive(const char *mountpoint, struct ue_taken *t);
/* The daemon section's head of t->snap (options, FUSE options, FUSE_INIT). */
int ue_upgrade_take_head(struct ue_taken *t);
int ue_upgrade_restore(struct ue_daemon *d, struct ue_taken *t, const char *mountpoint);
int ue_upgrade_adopt_fuse(struct ue_daemon *d, struct ue_taken *t);
/*
 * Without @foreground: into the background as fuse_daemonize() does, but
 * the command exits only once the handover is answered, with its status.
 * Return: 0, -1 when it cannot.
 */
int ue_upgrade_detach(struct ue_taken *t, bool foreground);
void ue_upgrade_answer(struct ue_taken *t, int err);
/* Ask the kernel to send again what the predecessor read and never answered. */
void ue_upgrade_resend(struct ue_daemon *d);
void ue_taken_free(struct ue_taken *t);
void ue_taken_init(struct ue_taken *t);

#endif /* UE_DAEMON_UPGRADE_H */
