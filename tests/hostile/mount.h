/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the hostile tests: a private mount namespace with usereventsd
 * ($USEREVENTSD) mounted on a temporary directory with the options a test
 * asks for, the raw-ABI calls the tests make, and the check every test ends
 * with: another client still registers and writes.
 */
#ifndef UE_HOSTILE_MOUNT_H
#define UE_HOSTILE_MOUNT_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"

static char mnt[64];
static pid_t daemon_pid;

static const char *path(const char *rel)
{
	static __thread char buf[4][512];
	static __thread unsigned int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", mnt, rel);
	return p;
}

static int reg_at(int fd, const void *name_args, void *addr, int bit, uint32_t *idx)
{
	struct user_reg r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.name_args = (uintptr_t)name_args;
	r.enable_addr = (uintptr_t)addr;
	r.enable_size = 4;
	r.enable_bit = (uint8_t)bit;
	if (ioctl(fd, DIAG_IOCSREG, &r) < 0)
		return -errno;
	if (idx)
		*idx = r.write_index;
	return 0;
}

static int unreg_at(int fd, void *addr, int bit)
{
	struct user_unreg u;

	memset(&u, 0, sizeof(u));
	u.size = sizeof(u);
	u.disable_addr = (uintptr_t)addr;
	u.disable_bit = (uint8_t)bit;
	return ioctl(fd, DIAG_IOCSUNREG, &u) < 0 ? -errno : 0;
}

static ssize_t write_rel(const char *rel, const char *s)
{
	int fd = open(path(rel), O_WRONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s));
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * Whether bit 0 of @word reaches @want within 5 s.  An enable write returns
 * once the bits are written or after the enablers' bounded wait (100 ms);
 * on a loaded machine the write may land after that.
 */
static bool bit_becomes(const uint32_t *word, uint32_t want)
{
	for (int i = 0; i < 500; i++) {
		if ((__atomic_load_n(word, __ATOMIC_RELAXED) & 1) == want)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * The end of every hostile test: a fresh client registers, the event is
 * enabled, its enable bit is set and a write lands.
 */
static void still_serving(const char *name)
{
	static uint32_t word;
	char name_args[128], rel[256];
	uint32_t idx = 0, v = 42;
	struct iovec io[2] = { { &idx, sizeof(idx) }, { &v, sizeof(v) } };
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);

	ASSERT_GE(fd, 0);
	snprintf(name_args, sizeof(name_args), "%s u32 v", name);
	word = 0;
	ASSERT_EQ(reg_at(fd, name_args, &word, 0, &idx), 0);
	snprintf(rel, sizeof(rel), "events/user_events/%s/enable", name);
	ASSERT_EQ(write_rel(rel, "1"), 1);
	EXPECT_TRUE(bit_becomes(&word, 1));
	EXPECT_EQ(writev(fd, io, 2), (ssize_t)sizeof(idx) + (ssize_t)sizeof(v));
	EXPECT_EQ(write_rel(rel, "0"), 1);
	EXPECT_TRUE(bit_becomes(&word, 0));
	/* Whatever failed above, leave nothing registered for the next test. */
	EXPECT_EQ(unreg_at(fd, &word, 0), 0);
	close(fd);
}

static void hostile_teardown(void)
{
	int status;

	if (umount(mnt) < 0)
		umount2(mnt, MNT_DETACH);
	for (int i = 0; i < 100; i++) {
		if (waitpid(daemon_pid, &status, WNOHANG) == daemon_pid) {
			rmdir(mnt);
			if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
				printf("# usereventsd ended with status 0x%x\n", status);
				_exit(1);
			}
			return;
		}
		usleep(100000);
	}
	printf("# usereventsd still runs 10 s after the unmount\n");
	kill(daemon_pid, SIGKILL);
	_exit(1);
}

/*
 * Starts usereventsd ($USEREVENTSD) on mnt with @opts, again after it ended or
 * died too; 0 once it serves (within 10 s), -1 after killing it otherwise.
 */
static int hostile_start_daemon(const char *opts)
{
	const char *daemon = getenv("USEREVENTSD");
	struct statfs sfs;
	struct stat st;

	daemon_pid = fork();
	if (daemon_pid == 0) {
		execl(daemon, "usereventsd", "-f", "-o", opts, mnt, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		/* statfs reaches the daemon: stat may answer from a dead mount's cache. */
		if (statfs(mnt, &sfs) == 0 && sfs.f_type == 0x65735546 &&
		    stat(path("README"), &st) == 0)
			return 0;
		usleep(50000);
	}
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, NULL, 0);
	return -1;
}

/* Mounts the daemon with @opts (-o); SKIPs (exit 77) where it cannot run. */
static void hostile_setup(const char *opts)
{
	const char *daemon = getenv("USEREVENTSD");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (a mount namespace, /proc/<pid>/mem)\n");
		exit(77);
	}
	if (access("/dev/fuse", R_OK | W_OK) < 0) {
		printf("1..0 # SKIP no /dev/fuse\n");
		exit(77);
	}
	if (!daemon) {
		printf("Bail out! USEREVENTSD is not set\n");
		exit(1);
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		printf("1..0 # SKIP cannot make a private mount namespace: %s\n", strerror(errno));
		exit(77);
	}
	snprintf(mnt, sizeof(mnt), "/tmp/ue-hostile.XXXXXX");
	if (!mkdtemp(mnt)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	if (hostile_start_daemon(opts) < 0) {
		printf("Bail out! usereventsd did not mount %s\n", mnt);
		exit(1);
	}
	atexit(hostile_teardown);
}

#endif /* UE_HOSTILE_MOUNT_H */
