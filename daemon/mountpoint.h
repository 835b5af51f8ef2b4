/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mountpoint: the checks usereventsd makes before it mounts (main.c), and
 * the detach of a mount it left behind.  Each says what is wrong on
 * stderr itself.
 */
#ifndef UE_DAEMON_MOUNTPOINT_H
#define UE_DAEMON_MOUNTPOINT_H

#include <stdbool.h>

/**
 * ue_mountpoint_check - whether the daemon may mount on @mountpoint
 * @replace: a live usereventsd there is to be replaced (--replace)
 *
 * A stale usereventsd mount there is detached.  Return: 0, or -1 (said why).
 */
int ue_mountpoint_check(const char *mountpoint, bool replace);

/** ue_mountpoint_detach - detach the mount on @mountpoint (lazily); 0 or -errno */
int ue_mountpoint_detach(const char *mountpoint);

/** ue_mountpoint_failed - the mount on @mountpoint failed: say what usually causes it */
void ue_mountpoint_failed(const char *mountpoint);

/** ue_mountpoint_proc_ours - 0 when /proc is the /proc of our pid namespace, else -1 (said why) */
int ue_mountpoint_proc_ours(void);

#endif /* UE_DAEMON_MOUNTPOINT_H */
