// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * backend: where user_events_data is.  The caller's directory, then
 * $USEREVENTS_TRACEFS, then the kernel's tracefs, then the last usereventsd
 * mount of /proc/self/mountinfo; the file system type tells kernel from daemon.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core.h"
#include "lib.h"

#define FUSE_SUPER_MAGIC 0x65735546

static int try_dir(const char *dir, char *ret_dir, int *ret_backend)
{
	char path[PATH_MAX];
	struct statfs sfs;
	int fd;

	if (snprintf(path, sizeof(path), "%s/user_events_data", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_backend = sfs.f_type == FUSE_SUPER_MAGIC ? UE_BACKEND_DAEMON : UE_BACKEND_KERNEL;
	snprintf(ret_dir, PATH_MAX, "%s", dir);
	return fd;
}

/*
 * The last (most recent) usereventsd mount whose user_events_data opens, as
 * the tool picks it: the one a tracer started without --tracefs reads.
 */
static int try_mountinfo(char *ret_dir, int *ret_backend, int err)
{
	char *line = NULL, dir[PATH_MAX];
	size_t cap = 0;
	int fd = -1, backend = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return err;
	while (getline(&line, &cap, f) > 0) {
		struct ue_mount_entry m;
		int r;

		if (ue_mountinfo_split(line, &m) < 0 || !ue_mount_is_usereventsd(&m))
			continue;
		ue_mountinfo_unescape(m.mount_point);
		r = try_dir(m.mount_point, dir, &backend);
		if (r >= 0) {
			if (fd >= 0)
				close(fd);
			fd = r;
			snprintf(ret_dir, PATH_MAX, "%s", dir);
			*ret_backend = backend;
		} else if (err == -ENOENT) {
			err = r;
		}
	}
	free(line);
	fclose(f);
	return fd >= 0 ? fd : err;
}

int ue__find_tracefs(const char *explicit_dir, bool no_kernel, char *ret_dir, int *ret_backend)
{
	static const char *const kernel_dirs[] = { "/sys/kernel/tracing",
						   "/sys/kernel/debug/tracing" };
	const char *env = getenv("USEREVENTS_TRACEFS");
	int err = -ENOENT, fd;

	if (explicit_dir)
		return try_dir(explicit_dir, ret_dir, ret_backend);
	if (env && *env)
		return try_dir(env, ret_dir, ret_backend);
	if (!no_kernel) {
		for (size_t i = 0; i < sizeof(kernel_dirs) / sizeof(kernel_dirs[0]); i++) {
			fd = try_dir(kernel_dirs[i], ret_dir, ret_backend);
			if (fd >= 0)
				return fd;
			/* A tracefs without user_events says ENOENT; keep the more telling error. */
			if (fd != -ENOENT && err == -ENOENT)
				err = fd;
		}
	}
	return try_mountinfo(ret_dir, ret_backend, err);
}
