// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * backend: where user_events_data is.  The caller's directory, then
 * $USEREVENTS_TRACEFS, then the kernel's tracefs, then a usereventsd mount
 * from /proc/self/mountinfo; the file system type tells kernel from daemon.
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

/* The first mount whose type is fuse.usereventsd (or source usereventsd). */
static int try_mountinfo(char *ret_dir, int *ret_backend, int err)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return err;
	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *mp = NULL, *type = NULL, *src = NULL, *tok;
		int i = 0;
		bool dash = false;

		for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
			if (!dash && i == 4)
				mp = tok;
			if (dash) {
				if (!type)
					type = tok;
				else if (!src)
					src = tok;
			}
			if (!dash && i >= 6 && strcmp(tok, "-") == 0)
				dash = true;
			i++;
		}
		if (!mp || !type)
			continue;
		if (strcmp(type, "fuse.usereventsd") != 0 &&
		    !(strncmp(type, "fuse", 4) == 0 && src && strcmp(src, "usereventsd") == 0))
			continue;
		ue_mountinfo_unescape(mp);
		int fd = try_dir(mp, ret_dir, ret_backend);

		if (fd >= 0) {
			free(line);
			fclose(f);
			return fd;
		}
		if (err == -ENOENT)
			err = fd;
	}
	free(line);
	fclose(f);
	return err;
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
