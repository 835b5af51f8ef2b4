/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * checkpoint: the daemon's state kept current in a memfd that outlives the
 * daemon, for the one that serves the mount after a crash (usereventsd(8),
 * RESTART).  The memfd and the /dev/fuse descriptor are held by a keeper:
 * systemd's file descriptor store, or usereventsd --keep (keeper.h).
 *
 * What is kept is a state snapshot (core/snap.h) without descriptors: the
 * trace options, the registry, every open file and session, the enablers
 * by process identity.  What is not: the buffer's unread records and the
 * native path (its producers and readers connect again by themselves).
 * Requests that change the state hold ue_daemon.state_rw for reading and
 * wake the checkpoint's thread, which writes a new snapshot at most every
 * UE_CKPT_GAP_MS (or more, see below) into the memfd's spare slot, then names it current: a
 * daemon killed at any instant leaves the last complete one.
 */
#ifndef UE_DAEMON_CHECKPOINT_H
#define UE_DAEMON_CHECKPOINT_H

#include "daemon.h"
#include "upgrade.h"

/*
 * Least time between two checkpoints: a storm of registrations costs one
 * per gap (ten times the last one's time under the lock when that is more,
 * up to a second).
 */
#define UE_CKPT_GAP_MS 5

/*
 * The checkpoint of @d into @memfd (a restarted daemon's, from its keeper),
 * or into a new memfd when @memfd is -1.  Its thread starts with
 * ue_ckpt_start() and writes a first checkpoint at once.
 */
int ue_ckpt_new(struct ue_daemon *d, int memfd);
int ue_ckpt_fd(const struct ue_daemon *d);
int ue_ckpt_start(struct ue_daemon *d);
/* Stop the thread (before an upgrade's snapshot: the successor writes from now on). */
void ue_ckpt_stop(struct ue_daemon *d);
void ue_ckpt_free(struct ue_daemon *d);

/*
 * A restart: the last complete checkpoint in @memfd, as a state taken
 * (t->crash set).  Return: 0, -ENOENT when none was written, -EINVAL when
 * the file is not a checkpoint.
 */
int ue_ckpt_take(int memfd, struct ue_taken *t);

#endif /* UE_DAEMON_CHECKPOINT_H */
