// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tp_producer: a raw-ABI producer that finds user_events_data as
 * LinuxTracepoints' libtracepoint and the Rust tracepoint crate do (none of
 * their code): open("/sys/kernel/tracing/user_events_data", O_WRONLY), else
 * the first tracefs (else debugfs + "/tracing") of /proc/mounts read with
 * fopen(); then DIAG_IOCSREG of user_events:tp_reach and WRITES writes of
 * it with writev(), each made only while its enable bit is set (waiting up
 * to 5 s for the first).  For test-reach.sh; built dynamic and static.
 *
 *   tp_producer WRITES [kernel|mounts|mountinfo]
 *
 * `mounts` skips the first open (a program that reads the table first),
 * `mountinfo` reads /proc/self/mountinfo with open() instead.  Prints
 * "tp_producer: PATH: wrote N" (exit 0), or the errno of the open (exit 2)
 * or of another step (exit 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"

static volatile uint32_t enabled;

/* The first tracefs mount point of a mounts line set, else debugfs's + /tracing. */
static int from_table(const char *table_path, bool mountinfo, char *path, size_t len)
{
	char line[4096], debugfs[4096] = "";
	FILE *f;
	int fd;

	if (mountinfo) {
		fd = open(table_path, O_RDONLY | O_CLOEXEC);
		f = fd >= 0 ? fdopen(fd, "r") : NULL;
	} else {
		f = fopen(table_path, "r");
	}
	if (!f)
		return -errno;
	path[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char *fields[12] = { 0 }, *save = NULL, *t, *mnt, *type;
		int n = 0, dash = -1;

		for (t = strtok_r(line, " \n", &save); t && n < 12; t = strtok_r(NULL, " \n", &save)) {
			if (mountinfo && dash < 0 && n >= 6 && strcmp(t, "-") == 0)
				dash = n;
			fields[n++] = t;
		}
		mnt = mountinfo ? fields[4] : fields[1];
		type = mountinfo ? (dash > 0 ? fields[dash + 1] : NULL) : fields[2];
		if (!mnt || !type)
			continue;
		if (strcmp(type, "tracefs") == 0) {
			snprintf(path, len, "%s/user_events_data", mnt);
			break;
		}
		if (strcmp(type, "debugfs") == 0 && !debugfs[0])
			snprintf(debugfs, sizeof(debugfs), "%s/tracing/user_events_data", mnt);
	}
	fclose(f);
	if (!path[0] && debugfs[0])
		snprintf(path, len, "%s", debugfs);
	return path[0] ? 0 : -ENOTSUP;
}

int main(int argc, char **argv)
{
	const char *how = argc > 2 ? argv[2] : "kernel";
	char path[4096] = "/sys/kernel/tracing/user_events_data";
	struct user_reg reg;
	uint32_t n = 0;
	int fd = -1, writes, r;

	if (argc < 2 || (writes = atoi(argv[1])) < 0) {
		fprintf(stderr, "usage: tp_producer WRITES [kernel|mounts|mountinfo]\n");
		return 1;
	}
	if (strcmp(how, "kernel") == 0)
		fd = open(path, O_WRONLY);
	if (fd < 0) {
		bool mi = strcmp(how, "mountinfo") == 0;

		r = from_table(mi ? "/proc/self/mountinfo" : "/proc/mounts", mi, path, sizeof(path));
		if (r < 0) {
			printf("tp_producer: no tracefs in the mounts table: %s\n", strerror(-r));
			return 2;
		}
		fd = open(path, O_WRONLY);
	}
	if (fd < 0) {
		printf("tp_producer: %s: %s\n", path, strerror(errno));
		return 2;
	}
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = 0;
	reg.enable_size = sizeof(enabled);
	reg.enable_addr = (uintptr_t)&enabled;
	reg.name_args = (uintptr_t)"tp_reach u32 n";
	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		printf("tp_producer: DIAG_IOCSREG: %s\n", strerror(errno));
		return 1;
	}
	for (int waited = 0; !(enabled & 1) && waited < 5000; waited += 5)
		nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	for (int i = 0; i < writes && (enabled & 1); i++) {
		struct iovec io[2] = { { &reg.write_index, sizeof(reg.write_index) },
				       { &n, sizeof(n) } };

		if (writev(fd, io, 2) < 0) {
			printf("tp_producer: writev: %s\n", strerror(errno));
			return 1;
		}
		n++;
	}
	printf("tp_producer: %s: wrote %u\n", path, n);
	return 0;
}
