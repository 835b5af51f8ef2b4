/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * keeper: what outlives a crash of usereventsd (usereventsd(8), RESTART).
 *
 * The daemon speaks systemd's notification protocol (sd_notify(3)) to
 * whoever NOTIFY_SOCKET names: READY=1 once it serves, MAINPID= when an
 * upgrade hands the mount on, STOPPING=1 when it ends by choice, and
 * FDSTORE=1 with the /dev/fuse descriptor ("fuse") and its checkpoint
 * (checkpoint.h, "state").  A daemon started again by its keeper finds them
 * in LISTEN_FDS / LISTEN_FDNAMES (sd_listen_fds(3)) and serves the same
 * mount from the last checkpoint.
 *
 * The keeper is systemd (the unit's FileDescriptorStoreMax=, Restart=), or
 * without it `usereventsd --keep`: a small process that speaks the same
 * protocol from the other end: it starts the daemon, holds what it stores,
 * watches the main process, and starts it again with those descriptors
 * when it dies without STOPPING=1.
 */
#ifndef UE_DAEMON_KEEPER_H
#define UE_DAEMON_KEEPER_H

#include <stdbool.h>
#include <sys/types.h>

#include "daemon.h"

/* Names of the stored descriptors. */
#define UE_KEEP_FUSE "fuse"
#define UE_KEEP_STATE "state"

/*
 * The descriptors a keeper gave this process (LISTEN_PID is us): the
 * connection and the checkpoint, or -1.  The variables are unset.
 * Return: true when a connection came (a restart).
 */
bool ue_keeper_listen_fds(int *ret_fuse, int *ret_state);

/* One notification to @sock (NOTIFY_SOCKET's form: a path or @abstract); NULL: none. */
int ue_keeper_notify(const char *sock, const char *msg, const int *fds, unsigned int nfds);
void ue_keeper_main_pid(const char *sock, pid_t pid);

/* The daemon's side: store what a restart needs, say it serves, say it ends. */
void ue_keeper_store(struct ue_daemon *d);
void ue_keeper_ready(struct ue_daemon *d);
void ue_keeper_stopping(struct ue_daemon *d);
/* Drop what was stored (a checkpoint that cannot be restored): the keeper lets go. */
void ue_keeper_let_go(const char *sock);

/*
 * Into the background as fuse_daemonize() does, but the command waits: it
 * exits with the byte the background process writes to *@ret_status_fd
 * (1 when it closes it unwritten).  Return: 0 in the background, -1.
 */
int ue_keeper_detach(int *ret_status_fd);

/*
 * usereventsd --keep: run @argv (usereventsd's own, --keep taken out) as
 * the kept daemon.  Without -f the command returns once the daemon serves.
 * Return: the exit status.
 */
int ue_keeper_run(int argc, char **argv);

#endif /* UE_DAEMON_KEEPER_H */
