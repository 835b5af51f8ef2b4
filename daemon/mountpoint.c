// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mountpoint: what usereventsd checks before it mounts: a usereventsd mount
 * already there (live: refused or replaced; stale: detached), the
 * environment (/proc of our pid namespace, ptrace scope), and, when the
 * mount fails, the likely cause.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core.h"
#include "daemon.h"
#include "mountpoint.h"

/*
 * Whether the mount on top of @mountpoint is a usereventsd mount (fstype and
 * source ours, mounted at its root): the mount's id from the descriptor's
 * fdinfo, its fields from mountinfo.  @at, when not NULL, is the path the
 * mount must sit on (mountinfo's mount point); a dead mount cannot be
 * resolved, so that check is only made on a live one.
 */
static bool usereventsd_mount_on(const char *mountpoint, const char *at)
{
	char line[4096], fstype[256], source[256], root[PATH_MAX], mp[PATH_MAX];
	int fd, id, mnt_id = -1;
	bool found = false;
	FILE *f;

	fd = open(mountpoint, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	snprintf(line, sizeof(line), "/proc/self/fdinfo/%d", fd);
	f = fopen(line, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %d", &id) == 1)
			mnt_id = id;
	if (f)
		fclose(f);
	close(fd);
	f = mnt_id >= 0 ? fopen("/proc/self/mountinfo", "re") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		if (sscanf(line, "%d %*s %*s %4095s %4095s", &id, root, mp) != 3 || id != mnt_id ||
		    !sep)
			continue;
		ue_mountinfo_unescape(mp);
		found = sscanf(sep, " - %255s %255s", fstype, source) == 2 &&
			strcmp(root, "/") == 0 && strcmp(fstype, "fuse.usereventsd") == 0 &&
			strcmp(source, "usereventsd") == 0 && (!at || strcmp(mp, at) == 0);
		break;
	}
	if (f)
		fclose(f);
	return found;
}

/* Detach the mount on @mountpoint: umount2() as root, fusermount3 -u -z otherwise. */
int ue_mountpoint_detach(const char *mountpoint)
{
	int st;
	pid_t pid;

	if (geteuid() == 0)
		return umount2(mountpoint, MNT_DETACH) < 0 ? -errno : 0;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execlp("fusermount3", "fusermount3", "-u", "-z", mountpoint, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EPERM;
}

/*
 * Our mount on @mountpoint whose daemon died (statfs fails with ENOTCONN):
 * only a dead usereventsd mount is detached, so a restart serves at once;
 * anything else is left as it is.
 */
static int recover_stale_mount(const char *mountpoint)
{
	int r;

	if (!usereventsd_mount_on(mountpoint, NULL))
		return -ENOTCONN;
	r = ue_mountpoint_detach(mountpoint);
	if (r < 0)
		return r;
	fprintf(stderr, UE_DAEMON_NAME ": %s: detached the mount of a usereventsd that died\n",
		mountpoint);
	return 0;
}

/*
 * A live usereventsd on @mountpoint: mounting over it would hide its events
 * from everyone who looks there.  Refused, unless @replace: then it is
 * detached (its daemon ends when its last open file is closed).
 */
static int check_live_mount(const char *mountpoint, bool replace)
{
	char real[PATH_MAX];
	int r;

	if (!realpath(mountpoint, real) || !usereventsd_mount_on(mountpoint, real))
		return 0;
	if (!replace) {
		fprintf(stderr,
			UE_DAEMON_NAME ": %s: a usereventsd is already mounted there and serving; "
				       "a second mount would hide its events (unmount it first, or "
				       "use --replace)\n",
			mountpoint);
		return -EBUSY;
	}
	r = ue_mountpoint_detach(mountpoint);
	if (r < 0) {
		fprintf(stderr, UE_DAEMON_NAME ": %s: cannot detach the usereventsd there: %s\n",
			mountpoint, strerror(-r));
		return r;
	}
	fprintf(stderr, UE_DAEMON_NAME ": %s: replaced the usereventsd mounted there\n",
		mountpoint);
	return 0;
}

/*
 * Unprivileged, the daemon reads and writes its clients' memory as the user
 * (/proc/PID/mem: ptrace access).  Yama narrows that to descendants (1) or
 * to nobody (2, 3; 3 even for root): say so, since the clients will only
 * see EFAULT.
 */
static void warn_ptrace_scope(bool root)
{
	char c = '0';
	int fd = open("/proc/sys/kernel/yama/ptrace_scope", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	if (root && c != '3')
		return;
	if (c == '1')
		fprintf(stderr,
			UE_DAEMON_NAME ": kernel.yama.ptrace_scope is 1: not root, this daemon "
				       "reaches the memory of its own descendants only (userevents "
				       "run and record -- CMD start their command below it); other "
				       "programs get EFAULT when they register (run it as root, or "
				       "set the scope to 0)\n");
	else if (c != '0')
		fprintf(stderr,
			UE_DAEMON_NAME ": kernel.yama.ptrace_scope is %c: this daemon cannot "
				       "reach any program's memory; registrations get EFAULT%s\n",
			c, c == '2' ? " (run it as root)" : " (even as root)");
}

/* Say what is wrong in terms a user can act on, before libfuse tries. */
int ue_mountpoint_check(const char *mountpoint, bool replace)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	/* statfs, unlike stat, is never answered from FUSE's cache: it finds a dead mount. */
	if (statfs(mountpoint, &sfs) < 0) {
		if (errno == ENOTCONN)
			recover_stale_mount(mountpoint);
	} else if (check_live_mount(mountpoint, replace) < 0) {
		return -1;
	}
	if (stat(mountpoint, &st) < 0) {
		fprintf(stderr, UE_DAEMON_NAME ": mount point %s: %s\n", mountpoint,
			strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, UE_DAEMON_NAME ": mount point %s is not a directory\n", mountpoint);
		return -1;
	}
	if (stat("/dev/fuse", &st) < 0) {
		fprintf(stderr,
			UE_DAEMON_NAME ": /dev/fuse is missing: load the fuse module "
				       "(modprobe fuse), or give the container the device "
				       "(e.g. --device /dev/fuse)\n");
		return -1;
	}
	if (geteuid() == 0) {
		fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr,
				UE_DAEMON_NAME ": cannot open /dev/fuse: %s (a container may need "
					       "the device allowed and CAP_SYS_ADMIN)\n",
				strerror(errno));
			return -1;
		}
		close(fd);
		warn_ptrace_scope(true);
	} else if (access("/dev/fuse", R_OK | W_OK) < 0) {
		fprintf(stderr,
			UE_DAEMON_NAME ": /dev/fuse is not open to this user (%s): run as root\n",
			strerror(errno));
		return -1;
	} else if (access("/usr/bin/fusermount3", X_OK) < 0 &&
		   access("/bin/fusermount3", X_OK) < 0) {
		fprintf(stderr,
			UE_DAEMON_NAME ": not root and fusermount3 is not installed: run as root "
				       "or install fuse3\n");
		return -1;
	} else {
		warn_ptrace_scope(false);
	}
	return 0;
}

void ue_mountpoint_failed(const char *mountpoint)
{
	FILE *f;
	char line[4096];
	bool mounted = false;

	/* libfuse printed the system's reason; add what usually causes it. */
	f = fopen("/proc/self/mountinfo", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			char mp[PATH_MAX];

			if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 &&
			    strcmp(mp, mountpoint) == 0)
				mounted = true;
		}
		fclose(f);
	}
	if (geteuid() != 0)
		fprintf(stderr,
			UE_DAEMON_NAME ": cannot mount %s: missing privileges (run as root, or "
				       "as its owner with fusermount3 installed)\n",
			mountpoint);
	else if (mounted)
		fprintf(stderr,
			UE_DAEMON_NAME ": cannot mount %s: the mount point is busy (something "
				       "is mounted there already)\n",
			mountpoint);
	else
		fprintf(stderr, UE_DAEMON_NAME ": cannot mount %s\n", mountpoint);
}

/*
 * FUSE names each caller by its pid in our pid namespace, and we find its
 * memory under /proc by that number: a /proc of another pid namespace (a
 * daemon in a new pid namespace without a /proc of its own) would name
 * other processes.  /proc/self must be us.
 */
int ue_mountpoint_proc_ours(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	if (n < 0 || (buf[n] = '\0', strtol(buf, NULL, 10) != (long)getpid())) {
		fprintf(stderr,
			UE_DAEMON_NAME ": /proc is not the /proc of this pid namespace "
				       "(/proc/self: %s, pid %ld): mount one (unshare --mount-proc)\n",
			n < 0 ? strerror(errno) : buf, (long)getpid());
		return -1;
	}
	return 0;
}
