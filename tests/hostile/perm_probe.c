// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * perm_probe: who may do what on a user_events tracefs.  Run as root on a
 * tracefs (or usereventsd) mounted with gid=1234,mode=0750; it forks one child
 * per identity (outsider, group member, group member with CAP_PERFMON), each
 * tries every operation, and prints one line per try.  The same static binary
 * runs on the reference kernel (its output is perm_probe.ref) and here.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userevents/abi.h"

#define PROBE_UID 4321
#define PROBE_GID 1234

static const char *mnt;
static uint32_t enable_word;	/* a new bit for each registration */
static unsigned int next_bit;

static const char *path(const char *rel)
{
	static char buf[4][512];
	static unsigned int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", mnt, rel);
	return p;
}

static const char *res(int r)
{
	static char buf[32];

	if (r >= 0)
		return "ok";
	switch (-r) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBADF: return "EBADF";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case EEXIST: return "EEXIST";
	case EADDRINUSE: return "EADDRINUSE";
	default:
		snprintf(buf, sizeof(buf), "errno%d", -r);
		return buf;
	}
}

static int open_rel(const char *rel, int flags)
{
	int fd = open(path(rel), flags | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int reg(int fd, const char *name_args, unsigned int flags, uint32_t *idx)
{
	struct user_reg r;

	if (fd < 0)
		return -EBADF;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.name_args = (uintptr_t)name_args;
	r.enable_addr = (uintptr_t)&enable_word;
	r.enable_size = sizeof(enable_word);
	r.enable_bit = (uint8_t)(next_bit++ % 32);
	r.flags = (uint16_t)flags;
	if (ioctl(fd, DIAG_IOCSREG, &r) < 0)
		return -errno;
	*idx = r.write_index;
	return 0;
}

static int write_rec(int fd, uint32_t idx)
{
	uint32_t v = 7;
	struct iovec io[2] = { { &idx, sizeof(idx) }, { &v, sizeof(v) } };

	if (fd < 0)
		return -EBADF;
	return writev(fd, io, 2) < 0 ? -errno : 0;
}

static int write_rel(const char *rel, const char *s, int flags)
{
	int fd = open_rel(rel, O_WRONLY | flags), r = 0;

	if (fd < 0)
		return fd;
	if (write(fd, s, strlen(s)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* Deletion as root; an exited child's references may take a moment to go. */
static int delete_retry(const char *cmd)
{
	int r = -EBUSY;

	for (int i = 0; i < 200 && r == -EBUSY; i++) {
		r = write_rel("dynamic_events", cmd, O_APPEND);
		if (r == -EBUSY)
			usleep(10000);
	}
	return r;
}

static void say(const char *who, const char *op, int r)
{
	printf("%s %s: %s\n", who, op, res(r));
}

/* Every operation, as the current identity. */
static void try_all(const char *who)
{
	int rw = open_rel("user_events_data", O_RDWR);
	int ro = open_rel("user_events_data", O_RDONLY);
	uint32_t idx = 0;
	int fd, r;

	say(who, "open user_events_data O_RDWR", rw);
	say(who, "open user_events_data O_RDONLY", ro);
	r = reg(ro, "perm_ro u32 a", 0, &idx);
	say(who, "DIAG_IOCSREG on O_RDONLY", r);
	say(who, "write on O_RDONLY", r < 0 ? r : write_rec(ro, idx));
	r = reg(rw, "perm_rw u32 a", 0, &idx);
	say(who, "DIAG_IOCSREG on O_RDWR", r);
	say(who, "write on O_RDWR", r < 0 ? r : write_rec(rw, idx));
	say(who, "DIAG_IOCSREG PERSIST", reg(rw >= 0 ? rw : ro, "perm_p2 u32 a",
					      USER_EVENT_REG_PERSIST, &idx));
	say(who, "DIAG_IOCSDEL persistent",
	    rw >= 0 || ro >= 0 ? (ioctl(rw >= 0 ? rw : ro, DIAG_IOCSDEL, "perm_persist") < 0 ?
				  -errno : 0) : -EBADF);
	if (rw >= 0)
		close(rw);
	if (ro >= 0)
		close(ro);

	fd = open_rel("trace", O_RDONLY);
	say(who, "open trace O_RDONLY", fd);
	if (fd >= 0)
		close(fd);
	fd = open_rel("trace_pipe", O_RDONLY | O_NONBLOCK);
	say(who, "open trace_pipe", fd);
	if (fd >= 0)
		close(fd);
	fd = open_rel("user_events_status", O_RDONLY);
	say(who, "open user_events_status", fd);
	if (fd >= 0)
		close(fd);
	fd = open_rel("events/user_events/perm_persist/format", O_RDONLY);
	say(who, "open format", fd);
	if (fd >= 0)
		close(fd);
	say(who, "write enable", write_rel("events/user_events/perm_persist/enable", "0", 0));
	say(who, "dynamic_events create", write_rel("dynamic_events", "u:perm_dyn2 u32 a",
						    O_APPEND));
	say(who, "dynamic_events delete", write_rel("dynamic_events", "-:perm_dyn u32 a",
						    O_APPEND));
}

static int set_perfmon_only(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];

	memset(c, 0, sizeof(c));
	c[CAP_PERFMON / 32].effective = 1u << (CAP_PERFMON % 32);
	c[CAP_PERFMON / 32].permitted = 1u << (CAP_PERFMON % 32);
	return (int)syscall(SYS_capset, &h, c);
}

/* Runs try_all() in a child with uid PROBE_UID, the given group, CAP_PERFMON if asked. */
static void as(const char *who, int member, int perfmon)
{
	gid_t g = PROBE_GID;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (setgroups(member ? 1 : 0, &g) < 0 || setgid(member ? PROBE_GID : 4321) < 0 ||
		    (perfmon && prctl(PR_SET_KEEPCAPS, 1) < 0) || setuid(PROBE_UID) < 0 ||
		    (perfmon && set_perfmon_only() < 0)) {
			printf("%s: cannot change identity: %s\n", who, strerror(errno));
			_exit(1);
		}
		try_all(who);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	uint32_t idx;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: perm_probe TRACEFS\n");
		return 2;
	}
	mnt = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* Root makes a persistent and a dynamic event for the others to try to delete. */
	fd = open_rel("user_events_data", O_RDWR);
	say("root", "DIAG_IOCSREG PERSIST", reg(fd, "perm_persist u32 a", USER_EVENT_REG_PERSIST,
						&idx));
	if (fd >= 0) {
		/* Children must not inherit the enabler: it would keep the event busy. */
		struct user_unreg u = { .size = sizeof(u), .disable_addr = (uintptr_t)&enable_word };

		say("root", "DIAG_IOCSUNREG", ioctl(fd, DIAG_IOCSUNREG, &u) < 0 ? -errno : 0);
		close(fd);
	}
	say("root", "dynamic_events create", write_rel("dynamic_events", "u:perm_dyn u32 a",
						       O_APPEND));

	as("outsider", 0, 0);
	as("member", 1, 0);
	say("root", "chmod g+w user_events_data", chmod(path("user_events_data"), 0660) ? -errno : 0);
	say("root", "chmod g+w dynamic_events", chmod(path("dynamic_events"), 0660) ? -errno : 0);
	as("member+w", 1, 0);
	as("outsider+w", 0, 0);
	as("member+perfmon", 1, 1);

	/* Leave nothing behind: the probe may run again on the same mount. */
	say("root", "chmod back", chmod(path("user_events_data"), 0640) ||
		    chmod(path("dynamic_events"), 0640) ? -errno : 0);
	say("root", "delete perm_p2", delete_retry("-:perm_p2 u32 a"));
	say("root", "delete perm_dyn2", delete_retry("-:perm_dyn2 u32 a"));
	say("root", "delete perm_dyn", delete_retry("-:perm_dyn u32 a"));
	say("root", "delete perm_persist", delete_retry("-:perm_persist u32 a"));
	return 0;
}
