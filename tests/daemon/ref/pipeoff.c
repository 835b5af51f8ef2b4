// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pipeoff.c: trace_pipe opens one at a time; end of file once tracing is off
 * after a read; a parked reader is not woken by that.  Static; see README.md.
 * An argument replaces /sys/kernel/tracing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include "userevents/abi.h"
static const char *T = "/sys/kernel/tracing";
static int tp; static char buf[4096];
static void *rd(void *a) { (void)a; ssize_t n = read(tp, buf, sizeof buf); printf("blocked reader got %zd %s\n", n, n < 0 ? strerrorname_np(errno) : ""); return NULL; }
static void wf(const char *f, const char *s) { char p[256]; snprintf(p, sizeof p, "%s/%s", T, f); int fd = open(p, O_WRONLY); write(fd, s, strlen(s)); close(fd); }
int main(int argc, char **argv) {
	if (argc > 1) T = argv[1];
	char p[256]; static uint32_t w;
	snprintf(p, sizeof p, "%s/user_events_data", T); int data = open(p, O_RDWR);
	struct user_reg r = { .size = sizeof r, .name_args = (uintptr_t)"po u32 v", .enable_addr = (uintptr_t)&w, .enable_size = 4 };
	ioctl(data, DIAG_IOCSREG, &r);
	wf("events/user_events/po/enable", "1");
	uint32_t v = 1; struct iovec io[2] = { { &r.write_index, 4 }, { &v, 4 } };
	snprintf(p, sizeof p, "%s/trace_pipe", T);
	tp = open(p, O_RDONLY);
	int second = open(p, O_RDONLY); printf("second open %d %s\n", second, second < 0 ? strerrorname_np(errno) : "");
	writev(data, io, 2);
	ssize_t n = read(tp, buf, sizeof buf); printf("first read %zd\n", n);
	wf("tracing_on", "0");
	n = read(tp, buf, sizeof buf); printf("read after off %zd %s\n", n, n < 0 ? strerrorname_np(errno) : "");
	wf("tracing_on", "1");
	pthread_t th; pthread_create(&th, NULL, rd, NULL);
	usleep(300000);
	wf("tracing_on", "0");
	usleep(300000);
	printf("after off+300ms\n");
	wf("tracing_on", "1");
	writev(data, io, 2);
	pthread_join(th, NULL);
	close(tp);
	int fresh = open(p, O_RDONLY | O_NONBLOCK); printf("reopen %s\n", fresh < 0 ? strerrorname_np(errno) : "ok");
	n = read(fresh, buf, sizeof buf); printf("fresh read %zd\n", n);
	wf("tracing_on", "0");
	n = read(fresh, buf, sizeof buf); printf("fresh nonblock read after off %zd %s\n", n, n < 0 ? strerrorname_np(errno) : "");
	wf("tracing_on", "1");
	return 0;
}
