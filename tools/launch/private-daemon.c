// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A private usereventsd for run and record -- CMD: as root in a private mount
 * namespace, also bound over /sys/kernel/tracing (raw-ABI programs hard-code
 * it); as another user through fusermount3.  Stopping it leaves nothing behind,
 * and neither does our death: the daemon watches us (--exit-with-parent).
 * The traced command is the daemon's grandchild, through a launcher its
 * process forks before the exec (child.c): an unprivileged daemon may write
 * only into its descendants under Yama's ptrace_scope 1.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "util.h"

#define KERNEL_TRACEFS "/sys/kernel/tracing"
/* How long the daemon may take to mount. */
#define MOUNT_WAIT_MS 5000

struct uet_private {
	char mnt[PATH_MAX];
	bool have_mnt;
	bool mounted;
	bool bound;		/* also on /sys/kernel/tracing */
	bool root;
	pid_t daemon;
};

static bool executable(const char *p)
{
	return access(p, X_OK) == 0;
}

/*
 * The daemon: $USEREVENTSD; beside the tool in the build tree
 * (build/tools/../daemon/usereventsd); installed next to it (bin/../sbin);
 * else the PATH.
 */
static void find_daemon(char *out, size_t len)
{
	static const char *const rel[] = { "/../daemon/usereventsd", "/usereventsd",
					   "/../sbin/usereventsd" };
	const char *env = getenv("USEREVENTSD");
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				snprintf(out, len, "%s%s", self, rel[i]);
				if (executable(out))
					return;
			}
		}
	}
	snprintf(out, len, "usereventsd");
}

/*
 * 1 once the mount serves, 0 while the directory is still the empty one we
 * made, -errno when something is mounted that we cannot reach (EACCES: its
 * files are another user's).
 */
static int mounted_yet(const char *mnt)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/user_events_data", mnt);
	if (access(p, F_OK) == 0)
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

/*
 * Start usereventsd -f on p->mnt, its process forking @cmd's launcher
 * first, and wait until the mount serves.
 */
static int start_daemon(struct uet_private *p, struct uet_child *cmd)
{
	char daemon[PATH_MAX];
	int waited = 0, st, r;

	find_daemon(daemon, sizeof(daemon));
	if (cmd) {
		r = uet_launcher_open(cmd);
		if (r < 0)
			return r;
	}
	p->daemon = fork();
	if (p->daemon < 0)
		return -errno;
	if (p->daemon == 0) {
		/* As we are: the command's world is the tool's (signals, descriptors). */
		if (cmd)
			uet_launcher_fork(cmd, p->mnt);
		/*
		 * Signals for the group (a ^C, a hang-up, timeout(1)'s SIGTERM) are
		 * for the command and the tool; the tool ends the daemon once it
		 * has read what the daemon holds.  The launcher forked above stays
		 * in the group, and so does the command.
		 */
		setpgid(0, 0);
		signal(SIGINT, SIG_IGN);
		/*
		 * It goes with us however we end (SIGKILL included): unmounted,
		 * its directory removed (docs/tools.md, "Lifetimes").
		 */
		execlp(daemon, "usereventsd", "-f", "--exit-with-parent", "--rmdir", p->mnt,
		       (char *)NULL);
		fprintf(stderr, UET_PROG ": cannot execute %s: %s\n", daemon, strerror(errno));
		_exit(127);
	}
	if (cmd)
		uet_launcher_forked(cmd);
	while ((r = mounted_yet(p->mnt)) <= 0) {
		if (r < 0) {
			/* Mounted, but not for us: say so now rather than time out. */
			p->mounted = true;
			return r;
		}
		if (waitpid(p->daemon, &st, WNOHANG) == p->daemon) {
			p->daemon = 0;
			return -ECHILD;
		}
		if (waited >= MOUNT_WAIT_MS)
			return -ETIMEDOUT;
		uet_sleep_ms(10);
		waited += 10;
	}
	p->mounted = true;
	return 0;
}

/* Whether the daemon ended within @ms (reaped then). */
static bool daemon_gone(struct uet_private *p, int ms)
{
	for (int i = 0; i <= ms / 10; i++) {
		if (waitpid(p->daemon, NULL, WNOHANG) == p->daemon) {
			p->daemon = 0;
			return true;
		}
		if (i < ms / 10)
			uet_sleep_ms(10);
	}
	return false;
}

static void stop_daemon(struct uet_private *p)
{
	if (p->bound)
		umount2(KERNEL_TRACEFS, MNT_DETACH);
	p->bound = false;
	/*
	 * SIGTERM first: the daemon unmounts its own mount and goes.  Unmounted
	 * first, it would serve on while CMD (outliving us) keeps files open,
	 * and the SIGTERM that follows made libfuse say it failed to unmount
	 * a mount that was gone.
	 */
	if (p->daemon > 0) {
		kill(p->daemon, SIGTERM);
		if (daemon_gone(p, 2000))
			p->mounted = false;
	}
	if (p->mounted) {
		/* A daemon stuck for 2 s: its mount goes from here. */
		if (p->root) {
			umount2(p->mnt, MNT_DETACH);
		} else {
			pid_t f = fork();

			if (f == 0) {
				execlp("fusermount3", "fusermount3", "-u", "-z", p->mnt, (char *)NULL);
				_exit(127);
			}
			if (f > 0)
				waitpid(f, NULL, 0);
		}
		p->mounted = false;
	}
	if (p->daemon > 0 && !daemon_gone(p, 1000)) {
		kill(p->daemon, SIGKILL);
		waitpid(p->daemon, NULL, 0);
		p->daemon = 0;
	}
	if (p->have_mnt)
		rmdir(p->mnt);
	p->have_mnt = false;
}

/* Private mount namespace, mounts not propagated back to the host. */
static int private_namespace(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	return 0;
}

/* Every step of the set-up; says why on failure, stop_daemon() undoes any part. */
static int setup(struct uet_private *p, const char *who, struct uet_child *cmd)
{
	const char *tmp = getenv("TMPDIR");
	int e;

	if (p->root) {
		e = private_namespace();
		if (e < 0) {
			uet_err("%s: private mount namespace: %s", who, strerror(-e));
			return e;
		}
	} else if (access("/dev/fuse", R_OK | W_OK) < 0) {
		e = -errno;
		uet_err("%s: /dev/fuse: %s (run as root, or give this user access to /dev/fuse)",
			who, strerror(-e));
		return e;
	}
	snprintf(p->mnt, sizeof(p->mnt), "%s/userevents-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
		 who);
	if (!mkdtemp(p->mnt)) {
		e = -errno;
		uet_err("%s: mkdtemp %s: %s", who, p->mnt, strerror(-e));
		return e;
	}
	p->have_mnt = true;
	e = start_daemon(p, cmd);
	if (e < 0) {
		if (e == -EACCES)
			uet_err("%s: usereventsd mounted %s, but its files are not open to uid %u: "
				"its owner must be this user (usereventsd -o uid=,gid=)",
				who, p->mnt, (unsigned int)geteuid());
		else
			uet_err("%s: usereventsd did not mount %s: %s", who, p->mnt,
				e == -ECHILD ? "it exited (its message is above)" : strerror(-e));
		return e;
	}
	if (p->root) {
		if (mount(p->mnt, KERNEL_TRACEFS, NULL, MS_BIND, NULL) < 0) {
			e = -errno;
			uet_err("%s: bind %s on " KERNEL_TRACEFS ": %s", who, p->mnt, strerror(-e));
			return e;
		}
		p->bound = true;
	}
	return 0;
}

int uet_private_start(const char *who, struct uet_private **ret, char *tracefs, size_t len,
		      struct uet_child *cmd)
{
	struct uet_private *p = calloc(1, sizeof(*p));
	int e;

	if (!p)
		return -ENOMEM;
	p->root = geteuid() == 0;
	e = setup(p, who, cmd);
	if (e == 0 && strlen(p->mnt) >= len)
		e = -ENAMETOOLONG;
	if (e < 0) {
		stop_daemon(p);
		free(p);
		return e;
	}
	snprintf(tracefs, len, "%s", p->mnt);
	*ret = p;
	return 0;
}

void uet_private_stop(struct uet_private *p)
{
	if (!p)
		return;
	stop_daemon(p);
	free(p);
}
