// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The daemon at the kernel's path for a command the interposer cannot
 * serve (statically linked, or --no-preload), when we are not root: such a
 * program finds user_events_data only at /sys/kernel/tracing, which an
 * unprivileged user may bind over only in a mount namespace of a user
 * namespace of its own.  As root the private namespace of private.c has it.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "launch.h"
#include "util.h"

#define KERNEL_TRACEFS "/sys/kernel/tracing"
#define TRACEFS_MAGIC 0x74726163

/* @name as execvp() finds it, into @out; false when it does not. */
static bool resolve(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(name, '/'))
		return snprintf(out, len, "%s", name) < (int)len;
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = end + !!*end) {
		end = strchrnul(p, ':');
		if (snprintf(out, len, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "", name) <
			    (int)len &&
		    access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* Whether @path is an ELF program without an interpreter (statically linked). */
static bool static_elf(const char *path)
{
	unsigned char buf[4096];
	bool is64, found = false;
	size_t off, size, n;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	got = read(fd, buf, sizeof(buf));
	close(fd);
	if (got < (ssize_t)sizeof(Elf32_Ehdr) || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return false;	/* a script: its interpreter is what runs */
	is64 = buf[EI_CLASS] == ELFCLASS64;
	if (is64 && got < (ssize_t)sizeof(Elf64_Ehdr))
		return false;
	off = is64 ? ((Elf64_Ehdr *)buf)->e_phoff : ((Elf32_Ehdr *)buf)->e_phoff;
	size = is64 ? ((Elf64_Ehdr *)buf)->e_phentsize : ((Elf32_Ehdr *)buf)->e_phentsize;
	n = is64 ? ((Elf64_Ehdr *)buf)->e_phnum : ((Elf32_Ehdr *)buf)->e_phnum;
	if (size < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t at = off + i * size;
		uint32_t type;

		if (at + size > (size_t)got)
			return false;	/* headers past the first page: not worth a guess */
		type = is64 ? ((Elf64_Phdr *)(buf + at))->p_type : ((Elf32_Phdr *)(buf + at))->p_type;
		if (type == PT_INTERP)
			found = true;
	}
	return !found;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		e = -errno;
	close(fd);
	return e;
}

/* Our own user namespace (this user only, as itself) and mount namespace, @tracefs bound there. */
static int bind_in_namespace(const char *tracefs, const char **step)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int e;

	*step = "unshare";
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return -errno;
	*step = "uid_map";
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)uid, (unsigned int)uid);
	if ((e = write_file("/proc/self/uid_map", map)) < 0)
		return e;
	*step = "gid_map";
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned int)gid, (unsigned int)gid);
	if ((e = write_file("/proc/self/setgroups", "deny")) < 0 ||
	    (e = write_file("/proc/self/gid_map", map)) < 0)
		return e;
	*step = "mount";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	*step = "bind mount on " KERNEL_TRACEFS;
	if (mount(tracefs, KERNEL_TRACEFS, NULL, MS_BIND, NULL) < 0)
		return -errno;
	return 0;
}

void uet_project_tracefs(const char *who, char **argv, bool no_preload, const char *tracefs)
{
	char path[PATH_MAX];
	const char *why, *step = "";
	struct statfs sfs;
	int e;

	if (geteuid() == 0 || strcmp(tracefs, KERNEL_TRACEFS) == 0 ||
	    (statfs(tracefs, &sfs) == 0 && sfs.f_type == TRACEFS_MAGIC))
		return;	/* the private namespace has it there, or the kernel's is used */
	if (no_preload)
		why = "runs without the interposer (--no-preload)";
	else if (resolve(argv[0], path, sizeof(path)) && static_elf(path))
		why = "is statically linked";
	else
		return;	/* the interposer leads the kernel's path to the daemon */
	e = bind_in_namespace(tracefs, &step);
	if (e == 0)
		return;
	fprintf(stderr,
		UET_PROG ": %s: %s %s: it finds user_events_data only at " KERNEL_TRACEFS
		", and this kernel does not let uid %u make the user and mount namespace that "
		"would put the daemon there (%s: %s); run it as root, link it dynamically, or "
		"give it the daemon's path (USEREVENTS_TRACEFS=%s)\n",
		who, argv[0], why, (unsigned int)geteuid(), step, strerror(-e), tracefs);
}
