/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The test programs' write of an event's `enable` file (fork_writer,
 * fork_follow): "0" or "1" into TRACEFS/events/user_events/EVENT/enable.
 */
#ifndef UE_TESTS_ENABLE_FILE_H
#define UE_TESTS_ENABLE_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 0, or -1 with the reason on stderr (@who first). */
static inline int enable_file_write(const char *who, const char *tracefs, const char *event,
				    char v)
{
	char path[4096];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/events/user_events/%s/enable", tracefs, event);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		return -1;
	}
	ok = write(fd, &v, 1) == 1;
	if (!ok)
		fprintf(stderr, "%s: write %c to %s: %s\n", who, v, path, strerror(errno));
	close(fd);
	return ok ? 0 : -1;
}

#endif
