/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the libuserevents tests: a private mount namespace with
 * usereventsd ($USEREVENTSD) mounted on a temporary directory, small tracefs
 * file helpers, and SKIP (exit 77) where the daemon cannot run.
 */
#ifndef UE_TESTS_LIB_DAEMON_H
#define UE_TESTS_LIB_DAEMON_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char mnt[64];
static pid_t daemon_pid;
static bool daemon_killed;	/* a test killed it: its exit status says nothing */

static const char *tpath(const char *rel)
{
	static __thread char buf[4][512];
	static __thread unsigned int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", mnt, rel);
	return p;
}

static ssize_t tfs_write(const char *rel, const char *s)
{
	int fd = open(tpath(rel), O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s));
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The whole file in a malloc'ed string (NULL on failure). */
static char *tfs_read(const char *rel)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int fd = open(tpath(rel), O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Number of lines of trace that contain @needle. */
static int trace_count(const char *needle)
{
	char *t = tfs_read("trace"), *p;
	int n = 0;

	if (!t)
		return -1;
	for (p = t; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(t);
	return n;
}

/*
 * trace_count() once it reaches @want, or after 2 s: records of the native
 * path reach the trace buffer when the daemon's drain thread moves them.
 */
static int trace_wait(const char *needle, int want)
{
	int n = -1;

	for (int i = 0; i < 200; i++) {
		n = trace_count(needle);
		if (n >= want)
			break;
		usleep(10000);
	}
	return n;
}

static void daemon_stop(void)
{
	int status;

	if (daemon_pid <= 0)
		return;
	if (umount(mnt) < 0)
		umount2(mnt, MNT_DETACH);
	for (int i = 0; i < 100; i++) {
		if (waitpid(daemon_pid, &status, WNOHANG) == daemon_pid) {
			rmdir(mnt);
			daemon_pid = 0;
			/* Sanitizer reports (leaks, UB) make the daemon's exit status non-zero. */
			if (!daemon_killed && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
				printf("# usereventsd ended with status 0x%x\n", status);
				_exit(1);
			}
			return;
		}
		usleep(50000);
	}
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, &status, 0);
	daemon_pid = 0;
}

static void daemon_stop_atexit(void)
{
	if (daemon_pid > 0 && getpid() != daemon_pid)
		daemon_stop();
}

/* Start usereventsd with -o @opts (or none) on a new directory; wait for the mount. */
static int daemon_start(const char *opts)
{
	const char *daemon = getenv("USEREVENTSD");
	struct stat st;

	snprintf(mnt, sizeof(mnt), "/tmp/ue-lib.XXXXXX");
	if (!mkdtemp(mnt))
		return -errno;
	daemon_pid = fork();
	if (daemon_pid == 0) {
		if (opts)
			execl(daemon, "usereventsd", "-f", "-o", opts, mnt, (char *)NULL);
		else
			execl(daemon, "usereventsd", "-f", mnt, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		if (stat(tpath("README"), &st) == 0)
			return 0;
		usleep(25000);
	}
	kill(daemon_pid, SIGKILL);
	return -ETIMEDOUT;
}

/*
 * Other usereventsd mounts copied into our private namespace would be found
 * first in the mount table: detach them here (this namespace only).
 */
static void detach_other_daemons(void)
{
	char line[4096], mp[4096];
	FILE *f;

	for (int pass = 0; pass < 16; pass++) {
		bool found = false;

		f = fopen("/proc/self/mountinfo", "re");
		if (!f)
			return;
		while (fgets(line, sizeof(line), f)) {
			if (strstr(line, " - fuse.usereventsd ") &&
			    sscanf(line, "%*u %*u %*s %*s %4095s", mp) == 1) {
				umount2(mp, MNT_DETACH);
				found = true;
			}
		}
		fclose(f);
		if (!found)
			return;
	}
}

/* Root, /dev/fuse, a private mount namespace and a mounted daemon, or SKIP. */
static void daemon_setup(const char *opts)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (a mount namespace, /proc/<pid>/mem)\n");
		exit(77);
	}
	if (access("/dev/fuse", R_OK | W_OK) < 0) {
		printf("1..0 # SKIP no /dev/fuse\n");
		exit(77);
	}
	if (!getenv("USEREVENTSD")) {
		printf("Bail out! USEREVENTSD is not set\n");
		exit(1);
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		printf("1..0 # SKIP cannot make a private mount namespace: %s\n", strerror(errno));
		exit(77);
	}
	detach_other_daemons();
	if (daemon_start(opts) < 0) {
		printf("Bail out! usereventsd did not mount %s\n", mnt);
		exit(1);
	}
	atexit(daemon_stop_atexit);
}

#endif /* UE_TESTS_LIB_DAEMON_H */
