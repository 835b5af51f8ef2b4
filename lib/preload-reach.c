// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * preload-reach: the kernel's paths lead to the usereventsd that serves this
 * program.  An open of /sys/kernel/tracing/user_events_data (or of the debugfs
 * path, or of user_events_data in any tracefs) goes to the daemon's when the
 * kernel has no user_events there, or always when $USEREVENTS_TRACEFS names
 * one; a mounts table read with no tracefs in it shows the daemon as one.
 * The kernel's own user_events is never hidden; with no daemon the answers
 * are the kernel's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core.h"
#include "preload.h"
#include "slurp.h"

#define TRACEFS_MAGIC 0x74726163
#define DATA_NAME "user_events_data"
#define KERNEL_DATA "/sys/kernel/tracing/" DATA_NAME
#define DEBUGFS_DATA "/sys/kernel/debug/tracing/" DATA_NAME

/* Our own calls go to the kernel: the wrappers of preload.c would come back here. */
static int sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

static void sys_close(int fd)
{
	int saved = errno;

	syscall(SYS_close, fd);
	errno = saved;
}

static ssize_t sys_read(void *ctx, void *buf, size_t n)
{
	ssize_t r = syscall(SYS_read, *(int *)ctx, buf, n);

	return r < 0 ? -errno : r;
}

/* A whole file of /proc (no size to stat): NUL-terminated, malloc'd; NULL on failure. */
static char *slurp(const char *path, size_t *ret_len)
{
	int fd = sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
	char *buf;

	if (fd < 0)
		return NULL;
	buf = ue_slurp(sys_read, &fd, 16384, ret_len);
	sys_close(fd);
	return buf;
}

static bool has_data(const char *dir, int mode)
{
	char p[PATH_MAX];

	return snprintf(p, sizeof(p), "%s/" DATA_NAME, dir) < (int)sizeof(p) &&
	       access(p, mode) == 0;
}

/*
 * The daemon that serves us, in @dir: $USEREVENTS_TRACEFS (@asked: the user
 * named it), else the last usereventsd mount of our mount namespace whose
 * user_events_data we can reach, as `userevents` picks it.  A daemon found is
 * kept; none is looked for again at the next open (one may have come since).
 */
static bool daemon_dir(char *dir, bool *asked)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char found[PATH_MAX];
	/* Not in a set-uid program: its caller would choose what it opens. */
	const char *env = secure_getenv("USEREVENTS_TRACEFS");
	char *table, *line, *next;
	bool ok;

	*asked = env && *env;
	if (*asked) {
		snprintf(dir, PATH_MAX, "%s", env);
		return strlen(env) < PATH_MAX;
	}
	pthread_mutex_lock(&lock);
	if (!found[0] && (table = slurp("/proc/self/mountinfo", NULL))) {
		for (line = table; *line; line = next) {
			struct ue_mount_entry m;

			next = strchr(line, '\n');
			next = next ? next + 1 : line + strlen(line);
			if (next[-1] == '\n')
				next[-1] = '\0';
			if (ue_mountinfo_split(line, &m) < 0 || !ue_mount_is_usereventsd(&m))
				continue;
			ue_mountinfo_unescape(m.mount_point);
			if (strlen(m.mount_point) < PATH_MAX && has_data(m.mount_point, F_OK))
				snprintf(found, sizeof(found), "%s", m.mount_point);
		}
		free(table);
	}
	ok = found[0] != '\0';
	if (ok)
		snprintf(dir, PATH_MAX, "%s", found);
	pthread_mutex_unlock(&lock);
	return ok;
}

/*
 * Whether this kernel has no user_events, for a caller its tracefs is
 * closed to (EACCES: tracefs is 0700): /proc/kallsyms names every function
 * to everyone, and user_events' file operations are functions
 * (user_events_open, user_events_ioctl, ...).  Unreadable: we cannot tell,
 * and the kernel's answer stands.  Read once, only on that path (~70 ms).
 */
static bool kernel_lacks_user_events(void)
{
	static int known;	/* 0: not read, 1: lacks, 2: has or cannot tell */
	char *syms;

	if (__atomic_load_n(&known, __ATOMIC_ACQUIRE))
		return known == 1;
	syms = slurp("/proc/kallsyms", NULL);
	/* Each line: "ADDRESS TYPE NAME[ \t[MODULE]]". */
	int k = syms && *syms && !strstr(syms, " user_events_") ? 1 : 2;

	free(syms);
	__atomic_store_n(&known, k, __ATOMIC_RELEASE);
	return k == 1;
}

/* The directory part of @path opened at @dirfd is a tracefs. */
static bool in_tracefs(int dirfd, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct statfs sfs;
	int fd, r;

	if (!slash) {
		if (dirfd == AT_FDCWD)
			r = statfs(".", &sfs);
		else
			r = fstatfs(dirfd, &sfs);
		return r == 0 && sfs.f_type == TRACEFS_MAGIC;
	}
	if ((size_t)(slash - path) >= sizeof(dir))
		return false;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash == path ? 1 : slash - path] = '\0';
	if (slash == path)
		dir[0] = '/';
	fd = sys_openat(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	r = fstatfs(fd, &sfs);
	sys_close(fd);
	return r == 0 && sfs.f_type == TRACEFS_MAGIC;
}

/* user_events_data where the kernel keeps it: its two paths, or any tracefs. */
static bool kernel_data_path(int dirfd, const char *path)
{
	return strcmp(path, KERNEL_DATA) == 0 || strcmp(path, DEBUGFS_DATA) == 0 ||
	       in_tracefs(dirfd, path);
}

static int open_data(int dirfd, const char *path, int flags, mode_t mode)
{
	char dir[PATH_MAX], p[PATH_MAX + sizeof("/" DATA_NAME)];
	bool asked;
	int fd, e;

	if (daemon_dir(dir, &asked) && asked && kernel_data_path(dirfd, path)) {
		snprintf(p, sizeof(p), "%s/" DATA_NAME, dir);
		return sys_openat(AT_FDCWD, p, flags, mode);
	}
	fd = sys_openat(dirfd, path, flags, mode);
	if (fd >= 0 || (errno != ENOENT && errno != EACCES))
		return fd;
	e = errno;
	/* ENOENT: no user_events there; EACCES: not ours to see, unless the kernel has none. */
	if (!kernel_data_path(dirfd, path) || !daemon_dir(dir, &asked) ||
	    (e == EACCES && !kernel_lacks_user_events())) {
		errno = e;
		return -1;
	}
	snprintf(p, sizeof(p), "%s/" DATA_NAME, dir);
	return sys_openat(AT_FDCWD, p, flags, mode);
}

/* A mounts table of this process: 1 /proc/PID/mounts, 2 /proc/PID/mountinfo, 0 neither. */
static int mounts_kind(const char *path)
{
	static const char *const dirs[] = { "/proc/", "/proc/self/", "/proc/thread-self/" };
	char pid[32], link[64];
	ssize_t n;

	if (strcmp(path, "/etc/mtab") == 0) {
		/* A link to /proc/self/mounts (or ../proc/mounts), as systemd makes it. */
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			return 0;
		link[n] = '\0';
		n = (ssize_t)strlen(link);
		return n >= 6 && strcmp(link + n - 6, "mounts") == 0 && strstr(link, "proc/") ? 1 : 0;
	}
	if (strncmp(path, "/proc/", 6) != 0)
		return 0;
	snprintf(pid, sizeof(pid), "/proc/%d/", (int)getpid());
	for (size_t i = 0; i < 4; i++) {
		const char *d = i < 3 ? dirs[i] : pid;
		size_t l = strlen(d);

		if (strncmp(path, d, l) != 0)
			continue;
		if (strcmp(path + l, "mounts") == 0)
			return 1;
		if (strcmp(path + l, "mountinfo") == 0 && i != 0)
			return 2;
	}
	return 0;
}

/* @s with mountinfo's escapes (space, tab, newline, backslash), into @out. */
static void escape(const char *s, char *out, size_t len)
{
	size_t w = 0;

	for (; *s && w + 5 < len; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			w += (size_t)snprintf(out + w, len - w, "\\%03o", (unsigned char)*s);
		else
			out[w++] = *s;
	}
	out[w] = '\0';
}

static bool write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = syscall(SYS_write, fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		s += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * The table with the daemon shown as a tracefs at its own path, when the
 * table has no tracefs nor debugfs mount (where the kernel's user_events
 * could be): a program that reads the table first looks for them, then
 * opens user_events_data below.  An anonymous file, or -1: the real table.
 */
static int mounts_view(int kind, const char *path, int flags)
{
	char dir[PATH_MAX], esc[PATH_MAX * 4], line[PATH_MAX * 4 + 128], *table;
	size_t len;
	bool asked;
	int fd, n;

	/* Never for init: systemd makes units of what the table lists. */
	if ((flags & O_ACCMODE) != O_RDONLY || getpid() == 1)
		return -1;
	table = slurp(path, &len);
	if (!table)
		return -1;
	/* The table first: with a tracefs in it (most hosts), no daemon is asked anything. */
	if ((kind == 1 && (strstr(table, " tracefs ") || strstr(table, " debugfs "))) ||
	    (kind == 2 && (strstr(table, " - tracefs ") || strstr(table, " - debugfs "))) ||
	    !daemon_dir(dir, &asked) || !has_data(dir, F_OK)) {
		free(table);
		return -1;
	}
	escape(dir, esc, sizeof(esc));
	if (kind == 1)
		n = snprintf(line, sizeof(line),
			     "tracefs %s tracefs rw,nosuid,nodev,noexec,relatime 0 0\n", esc);
	else
		n = snprintf(line, sizeof(line),
			     "0 0 0:0 / %s rw,nosuid,nodev,noexec,relatime - tracefs tracefs rw\n", esc);
	fd = (int)syscall(SYS_memfd_create, "mounts", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd >= 0 && (!write_all(fd, table, len) || !write_all(fd, line, (size_t)n) ||
			lseek(fd, 0, SEEK_SET) < 0)) {
		sys_close(fd);
		fd = -1;
	}
	free(table);
	return fd;
}

int pl_reach_kind(const char *path)
{
	const char *base;

	if (!path)
		return 0;
	if (path[0] == '/' && (path[1] == 'p' || path[1] == 'e') && mounts_kind(path))
		return 2;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strcmp(base, DATA_NAME) == 0 ? 1 : 0;
}

int pl_reach_open(int kind, int dirfd, const char *path, int flags, mode_t mode)
{
	int fd;

	if (kind == 1)
		return open_data(dirfd, path, flags, mode);
	fd = mounts_view(mounts_kind(path), path, flags);
	return fd >= 0 ? fd : sys_openat(dirfd, path, flags, mode);
}
