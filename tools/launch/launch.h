/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/launch: the command run, record, export and top -- CMD trace
 * (child.c), the private usereventsd it may need (private-daemon.c), and
 * the daemon at the kernel's path in a user namespace (userns-bind.c).
 */
#ifndef UE_TOOLS_LAUNCH_H
#define UE_TOOLS_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "util.h"

/* The command run and record -- CMD trace (child.c). */
struct uet_child {
	const char *who;	/* the tool's command ("run"), for messages */
	char **argv;
	bool no_preload;
	pid_t pid;		/* 0: not started */
	int ctl;		/* our end of the launcher's socket; -1: the command is our child */
	int lfd;		/* the launcher's end until the daemon's process has forked */
	int status;		/* wait status once done */
	bool done;
	bool ended;		/* uet_child_end() stopped it (SIGTERM) */
	bool lost;		/* the launcher ended before it said how the command ended */
};

/**
 * uet_project_tracefs - in the command's process, before its exec: when we
 * are not root and the interposer cannot serve it (@no_preload, or @argv[0]
 * is statically linked), a user and mount namespace of its own with
 * @tracefs bound on /sys/kernel/tracing; where the kernel refuses, says why
 * and what to do on stderr (the command runs all the same)
 */
void uet_project_tracefs(const char *who, char **argv, bool no_preload, const char *tracefs);

/** uet_child_init - the command @argv, not started; libuserevents-preload.so unless @no_preload */
void uet_child_init(struct uet_child *c, const char *who, char **argv, bool no_preload);

/**
 * uet_launcher_open - the command will be forked by a launcher (a private
 * daemon's child), not by us: the socket to it
 *
 * Return: 0 or -errno.
 */
int uet_launcher_open(struct uet_child *c);

/**
 * uet_launcher_fork - in the daemon's process, before it execs: fork the
 * launcher of @c, which will run the command with USEREVENTS_TRACEFS=@tracefs
 */
void uet_launcher_fork(const struct uet_child *c, const char *tracefs);

/** uet_launcher_forked - in the tool, once the daemon's process is forked */
void uet_launcher_forked(struct uet_child *c);

/**
 * uet_child_start - run the command with USEREVENTS_TRACEFS=@tracefs, and
 * libuserevents-preload.so in LD_PRELOAD unless no_preload: through its
 * launcher when it has one, else forked here
 *
 * The command exits 127 when the program is not found, 126 when it cannot
 * be executed.  Return: 0, or -errno (the message is printed).
 */
int uet_child_start(struct uet_child *c, const char *tracefs);

/**
 * uet_child_poll - whether the command has exited (reaped when it has)
 *
 * Passes a SIGTERM or SIGHUP the tool received on to the command.
 */
bool uet_child_poll(struct uet_child *c);

/** uet_child_end - a command still running gets SIGTERM and is waited for; its launcher ends */
void uet_child_end(struct uet_child *c);

/**
 * uet_child_stop - a limit reached: SIGINT to a command still running, as a
 * ^C sends it; SIGTERM (uet_child_end()) if it is still there @grace_ms later
 *
 * Return: true when it ended of that SIGINT or SIGTERM (said on stderr):
 * no failure of the command; else its end is uet_child_exit_code()'s to tell.
 */
bool uet_child_stop(struct uet_child *c, int grace_ms);

/**
 * uet_child_exit_code - print how the command ended; the exit code that says it
 *
 * Return: its exit status, 128 + N when killed by signal N.
 */
int uet_child_exit_code(const struct uet_child *c, const char *who);

/* private.c: a private usereventsd, as run and record -- CMD start it. */
struct uet_private;

/**
 * uet_private_start - mount a private usereventsd (root: in a private mount
 * namespace, also bound over /sys/kernel/tracing)
 * @who: the command ("run"), for messages and the mount point's name
 * @ret: the handle, for uet_private_stop()
 * @tracefs: its mount point
 * @len: size of @tracefs
 * @cmd: the command to trace (NULL: none): forked, at uet_child_start(), by
 *       a launcher the daemon's process forks, so that the daemon is its
 *       ancestor (child.c)
 *
 * Return: 0, or -errno (the message is printed).
 */
int uet_private_start(const char *who, struct uet_private **ret, char *tracefs, size_t len,
		      struct uet_child *cmd);

/** uet_private_stop - unmount, end the daemon, remove the mount point (NULL: nothing) */
void uet_private_stop(struct uet_private *p);

#endif /* UE_TOOLS_LAUNCH_H */
