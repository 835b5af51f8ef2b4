// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fork_writer: fork children that must inherit an enable bit from the
 * daemon, for the rootless tests (test-rootless.sh).  It registers
 * user_events:fork_writer, waits until the tracer (userevents run or record)
 * has enabled it, disables it itself through its `enable` file, forks
 * CHILDREN children while the bit is clear, waits until each has seen its
 * bit clear, then enables it again: each child's copy of the word is set
 * only if the daemon learnt of its fork and gave it the parent's enabler.  Then the parent and every child write
 * WRITES records (field `who`: 0 for the parent, 1..CHILDREN for the
 * children).  Exit 0 when every child saw its bit set after the fork and
 * wrote; 1 otherwise, with the reason on stderr.
 *
 *   fork_writer CHILDREN WRITES      (the tracefs is $USEREVENTS_TRACEFS)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"
#include "enable-file.h"

#define EVENT "fork_writer"
#define WAIT_MS 10000

static volatile uint32_t enabled;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait until the enable bit is @want; false after WAIT_MS. */
static int wait_bit(uint32_t want)
{
	for (int waited = 0; waited < WAIT_MS; waited += 5) {
		if ((enabled & 1) == want)
			return 1;
		sleep_ms(5);
	}
	return 0;
}

static int set_enable(const char *tracefs, const char *v)
{
	return enable_file_write("fork_writer", tracefs, EVENT, *v);
}

static int write_events(int fd, uint32_t idx, uint32_t who, int n)
{
	for (int i = 0; i < n; i++) {
		struct iovec io[2] = { { &idx, sizeof(idx) }, { &who, sizeof(who) } };

		if (writev(fd, io, 2) < 0) {
			fprintf(stderr, "fork_writer: writer %u: writev: %s\n", who, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *tracefs = getenv("USEREVENTS_TRACEFS");
	struct user_reg reg;
	char path[4096];
	int fd, children, writes, failed = 0, ready[2];
	char c;

	if (argc != 3 || !tracefs) {
		fprintf(stderr, "usage: USEREVENTS_TRACEFS=DIR fork_writer CHILDREN WRITES\n");
		return 2;
	}
	children = atoi(argv[1]);
	writes = atoi(argv[2]);
	snprintf(path, sizeof(path), "%s/user_events_data", tracefs);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fork_writer: %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (uintptr_t)EVENT " u32 who";
	reg.enable_addr = (uintptr_t)&enabled;
	reg.enable_size = sizeof(enabled);
	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		fprintf(stderr, "fork_writer: DIAG_IOCSREG: %s\n", strerror(errno));
		return 1;
	}
	/*
	 * The tracer enables what is registered; then the bit goes off for the
	 * forks.  The tool's own scan (every 50 ms) may not have noted yet
	 * that the event is on, and would switch it back on: a few scans first
	 * (seen: a child with its bit set at fork under record -- CMD).
	 */
	if (wait_bit(1))
		sleep_ms(250);
	if (!(enabled & 1) || set_enable(tracefs, "0") < 0 || !wait_bit(0)) {
		fprintf(stderr, "fork_writer: the event was not enabled, then disabled\n");
		return 1;
	}
	/*
	 * Each child says it saw its bit clear before the parent enables the
	 * event: once a fork is known to the daemon (at once when the child
	 * tells it, UE_IOC_FORKED), an enable made before fork() returned in
	 * the child may already show there, as under the kernel.
	 */
	if (pipe(ready) < 0)
		return 1;
	for (int i = 1; i <= children; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "fork_writer: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			close(ready[0]);
			if (enabled & 1) {
				fprintf(stderr, "fork_writer: child %d: bit set at fork\n", i);
				_exit(1);
			}
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			close(ready[1]);
			if (!wait_bit(1)) {
				fprintf(stderr, "fork_writer: child %d: no enable bit inherited\n", i);
				_exit(1);
			}
			_exit(write_events(fd, reg.write_index, (uint32_t)i, writes) < 0);
		}
	}
	close(ready[1]);
	for (int i = 0; i < children; i++)
		if (read(ready[0], &c, 1) != 1)
			failed = 1;
	if (set_enable(tracefs, "1") < 0 || !wait_bit(1) ||
	    write_events(fd, reg.write_index, 0, writes) < 0)
		failed = 1;
	for (int i = 0; i < children; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	printf("fork_writer: %d children, %d writes each, %s\n", children, writes,
	       failed ? "FAILED" : "all inherited");
	return failed;
}
