// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pipe.c: trace_pipe (non-blocking, poll, cut lines, EINTR) and the records
 * of an event deleted while they are in the buffer.  Static; see README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>
#include "userevents/abi.h"
static const char *T = "/sys/kernel/tracing";
static uint32_t word;
static void onalrm(int s) { (void)s; }
static void cat(const char *f)
{
	char p[256], buf[65536]; snprintf(p, sizeof p, "%s/%s", T, f);
	int fd = open(p, O_RDONLY); if (fd < 0) { printf("[%s: open %s]\n", f, strerrorname_np(errno)); return; }
	ssize_t n, t = 0; while ((n = read(fd, buf + t, sizeof buf - 1 - t)) > 0) t += n;
	buf[t] = 0; close(fd); printf("--- %s\n%s---\n", f, buf);
}
static int wfile(const char *f, const char *s, int flags)
{
	char p[256]; snprintf(p, sizeof p, "%s/%s", T, f);
	int fd = open(p, O_WRONLY | flags); if (fd < 0) return -errno;
	int r = write(fd, s, strlen(s)); int e = errno; close(fd); return r < 0 ? -e : r;
}
int main(void)
{
	char p[256], buf[4096];
	snprintf(p, sizeof p, "%s/user_events_data", T);
	int data = open(p, O_RDWR);
	struct user_reg r = { .size = sizeof r, .name_args = (uintptr_t)"pp u32 v", .enable_addr = (uintptr_t)&word, .enable_size = 4 };
	printf("reg %d\n", ioctl(data, DIAG_IOCSREG, &r));
	wfile("events/user_events/pp/enable", "1", 0);
	snprintf(p, sizeof p, "%s/trace_pipe", T);
	int tp = open(p, O_RDONLY | O_NONBLOCK);
	ssize_t n = read(tp, buf, sizeof buf);
	printf("nonblock empty read %zd %s\n", n, n < 0 ? strerrorname_np(errno) : "");
	struct pollfd pf = { tp, POLLIN, 0 };
	{ int r_ = poll(&pf, 1, 0); printf("poll empty %d revents=%x\n", r_, pf.revents); }
	uint32_t v = 7; struct iovec io[2] = { { &r.write_index, 4 }, { &v, 4 } };
	writev(data, io, 2); v = 8; writev(data, io, 2);
	{ int r_ = poll(&pf, 1, 0); printf("poll data %d revents=%x\n", r_, pf.revents); }
	n = read(tp, buf, 20); printf("read 20: %zd '%.*s'\n", n, (int)n, buf);
	n = read(tp, buf, sizeof buf); printf("read rest: %zd '%.*s'\n", n, (int)n, buf);
	cat("trace");
	close(tp);
	tp = open(p, O_RDONLY);
	n = read(tp, buf, sizeof buf); printf("read left: %zd\n", n);
	struct sigaction sa = { .sa_handler = onalrm }; sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { .it_value = { 0, 200000 } }; setitimer(ITIMER_REAL, &it, NULL);
	n = read(tp, buf, sizeof buf); printf("blocking read interrupted %zd %s\n", n, n < 0 ? strerrorname_np(errno) : "");
	/* an event deleted while its records are in the buffer */
	wfile("events/user_events/pp/enable", "0", 0);
	v = 9; printf("write disabled: %zd\n", writev(data, io, 2));
	wfile("events/user_events/pp/enable", "1", 0);
	writev(data, io, 2);
	wfile("events/user_events/pp/enable", "0", 0);
	struct user_unreg u = { .size = sizeof u, .disable_addr = (uintptr_t)&word };
	ioctl(data, DIAG_IOCSUNREG, &u);
	close(data);
	usleep(200000);
	cat("user_events_status");
	cat("trace");
	printf("dyn create %d\n", wfile("dynamic_events", "u:qq u64 a", O_APPEND));
	cat("events/user_events/qq/id");
	cat("trace");
	printf("dyn delete %d\n", wfile("dynamic_events", "-:qq u64 a", O_APPEND));
	cat("trace");
	return 0;
}
