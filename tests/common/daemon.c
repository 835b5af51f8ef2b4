// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test support: usereventsd on a private mount (daemon.h).  Starting,
 * restarting and stopping the daemon, the file and raw-ABI helpers on its
 * mount, and still_serving(), the end of many tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

#define FUSE_SUPER_MAGIC 0x65735546

char mnt[256];
pid_t daemon_pid;
bool daemon_killed;

/* The process that started the daemon: only it stops it at exit. */
static pid_t daemon_owner;

const char *path(const char *rel)
{
	static __thread char buf[4][1024];
	static __thread unsigned int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", mnt, rel);
	return p;
}

ssize_t write_rel_flags(const char *rel, const char *s, int flags)
{
	int fd = open(path(rel), O_WRONLY | O_CLOEXEC | flags);
	ssize_t r;

	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s));
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

ssize_t write_rel(const char *rel, const char *s)
{
	return write_rel_flags(rel, s, 0);
}

ssize_t read_rel(const char *rel, char *buf, size_t size)
{
	ssize_t n, total = 0;
	int fd = open(path(rel), O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		buf[0] = '\0';
		return -errno;
	}
	while ((n = read(fd, buf + total, size - 1 - (size_t)total)) > 0)
		total += n;
	if (n < 0)
		total = -errno;
	close(fd);
	buf[total < 0 ? 0 : total] = '\0';
	return total;
}

char *read_rel_alloc(const char *rel)
{
	size_t cap = 1 << 16, len = 0;
	int fd = open(path(rel), O_RDONLY | O_CLOEXEC);
	char *buf, *nb;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	while (buf && (n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

int trace_count(const char *needle)
{
	char *t = read_rel_alloc("trace"), *p;
	int n = 0;

	if (!t)
		return -1;
	for (p = t; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	free(t);
	return n;
}

int trace_wait(const char *needle, int want)
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

int reg_full(int fd, const void *name_args, void *addr, int size, int bit, unsigned int flags,
	     uint32_t *idx)
{
	struct user_reg r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.name_args = (uintptr_t)name_args;
	r.enable_addr = (uintptr_t)addr;
	r.enable_size = (uint8_t)size;
	r.enable_bit = (uint8_t)bit;
	r.flags = (uint16_t)flags;
	r.write_index = 0xdeadbeef;
	if (ioctl(fd, DIAG_IOCSREG, &r) < 0)
		return -errno;
	if (idx)
		*idx = r.write_index;
	return 0;
}

int reg_at(int fd, const void *name_args, void *addr, int bit, uint32_t *idx)
{
	return reg_full(fd, name_args, addr, 4, bit, 0, idx);
}

int unreg_at(int fd, void *addr, int bit)
{
	struct user_unreg u;

	memset(&u, 0, sizeof(u));
	u.size = sizeof(u);
	u.disable_addr = (uintptr_t)addr;
	u.disable_bit = (uint8_t)bit;
	return ioctl(fd, DIAG_IOCSUNREG, &u) < 0 ? -errno : 0;
}

int del_at(int fd, const void *name)
{
	return ioctl(fd, DIAG_IOCSDEL, name) < 0 ? -errno : 0;
}

long long stat_of(const char *key)
{
	char buf[4096], *line;
	size_t klen = strlen(key);

	if (read_rel("usereventsd_stats", buf, sizeof(buf)) <= 0)
		return -1;
	for (line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		if (!strncmp(line, key, klen) && line[klen] == ':' && line[klen + 1] == ' ')
			return strtoll(line + klen + 2, NULL, 10);
	return -1;
}

bool stats_has(const char *key, const char *value)
{
	char buf[4096], want[128];

	if (read_rel("usereventsd_stats", buf, sizeof(buf)) <= 0)
		return false;
	snprintf(want, sizeof(want), "%s: %s\n", key, value);
	return strstr(buf, want) != NULL;
}

bool bit_becomes(const uint32_t *word, uint32_t want)
{
	for (int i = 0; i < 500; i++) {
		if ((__atomic_load_n(word, __ATOMIC_RELAXED) & 1) == want)
			return true;
		usleep(10000);
	}
	return false;
}

void still_serving(const char *name)
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

int daemon_start(const char *opts)
{
	const char *exe = getenv("USEREVENTSD");
	struct statfs sfs;
	struct stat st;

	daemon_killed = false;
	daemon_pid = fork();
	if (daemon_pid < 0) {
		daemon_pid = 0;
		return -1;
	}
	if (daemon_pid == 0) {
		/* Should the test die, the daemon ends too instead of keeping the mount. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (opts)
			execl(exe, "usereventsd", "-f", "-o", opts, mnt, (char *)NULL);
		else
			execl(exe, "usereventsd", "-f", mnt, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 400; i++) {
		/* statfs reaches the daemon: stat may answer from a dead mount's cache. */
		if (statfs(mnt, &sfs) == 0 && sfs.f_type == FUSE_SUPER_MAGIC &&
		    stat(path("README"), &st) == 0)
			return 0;
		usleep(25000);
	}
	kill(daemon_pid, SIGKILL);
	waitpid(daemon_pid, NULL, 0);
	daemon_pid = 0;
	return -1;
}

int daemon_unmount(long ms)
{
	int status;

	if (daemon_pid <= 0)
		return -1;
	if (umount(mnt) < 0)
		umount2(mnt, MNT_DETACH);
	status = wait_for(daemon_pid, ms);
	daemon_pid = 0;
	rmdir(mnt);
	return status;
}

void daemon_stop(void)
{
	int status;

	if (daemon_pid <= 0 || getpid() != daemon_owner)
		return;
	status = daemon_unmount(10000);
	if (status == -1) {
		printf("# usereventsd still ran 10 s after the unmount\n");
		_exit(1);
	}
	if (!daemon_killed && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
		printf("# usereventsd ended with status 0x%x\n", status);
		_exit(1);
	}
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

/*
 * meson reads the TAP plan "1..0 # SKIP": the exit status must be 0 (with
 * the TAP protocol, 77 is an error).
 */
static void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

void daemon_setup(const char *opts)
{
	char why[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0)
		skip_all("needs root (a mount namespace, /proc/<pid>/mem)");
	if (access("/dev/fuse", R_OK | W_OK) < 0)
		skip_all("no /dev/fuse");
	if (!getenv("USEREVENTSD")) {
		printf("Bail out! USEREVENTSD is not set\n");
		exit(1);
	}
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(why, sizeof(why), "cannot make a private mount namespace: %s",
			 strerror(errno));
		skip_all(why);
	}
	detach_other_daemons();
	snprintf(mnt, sizeof(mnt), "/tmp/ue-%s.XXXXXX", program_invocation_short_name);
	if (!mkdtemp(mnt)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		exit(1);
	}
	daemon_owner = getpid();
	if (daemon_start(opts) < 0) {
		printf("Bail out! usereventsd did not mount %s\n", mnt);
		rmdir(mnt);
		exit(1);
	}
	atexit(daemon_stop);
}
