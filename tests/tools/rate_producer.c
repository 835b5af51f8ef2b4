// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rate_producer: a user event written at a fixed rate, for top's tests.
 *
 *   rate_producer RATE SECONDS [NAME [PAD]]
 *
 * registers "NAME u32 n" (default rate_tick; with PAD bytes more,
 * "NAME u32 n; char[PAD] pad", zeros: big records that fill a buffer soon) in $USEREVENTS_TRACEFS's (or
 * /sys/kernel/tracing's) user_events_data and writes it RATE times a second
 * (in steps of a millisecond, on an absolute schedule; RATE 0: as fast as
 * it can) for SECONDS (0: until killed), a write only while the event is
 * enabled.  Prints "wrote N (M refused)" at the end, N the writes made.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("USEREVENTS_TRACEFS");
	char path[4096], name_args[256];
	struct user_reg reg = { .size = sizeof(reg) };
	uint32_t enabled = 0, n = 0;
	unsigned long long wrote = 0, failed = 0, skipped = 0, rate, secs;
	uint64_t start, end;
	static char padding[4096];
	size_t pad;
	int fd, wi;

	if (argc < 3) {
		fprintf(stderr, "usage: rate_producer RATE SECONDS [NAME [PAD]]\n");
		return 2;
	}
	rate = strtoull(argv[1], NULL, 10);
	secs = strtoull(argv[2], NULL, 10);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	snprintf(path, sizeof(path), "%s/user_events_data", dir ? dir : "/sys/kernel/tracing");
	pad = argc > 4 ? strtoul(argv[4], NULL, 10) : 0;
	if (pad > sizeof(padding))
		pad = sizeof(padding);
	snprintf(name_args, sizeof(name_args), pad ? "%s u32 n; char[%zu] pad" : "%s u32 n",
		 argc > 3 ? argv[3] : "rate_tick", pad);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	reg.enable_size = 4;
	reg.enable_addr = (uint64_t)(uintptr_t)&enabled;
	reg.name_args = (uint64_t)(uintptr_t)name_args;
	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		perror("DIAG_IOCSREG");
		return 1;
	}
	wi = (int)reg.write_index;
	start = now_ns();
	end = start + secs * 1000000000ull;
	for (uint64_t ms = 1; !stop && (!secs || now_ns() < end); ms++) {
		unsigned long long due = rate ? rate * ms / 1000 : wrote + 1000;
		uint64_t t = start + ms * 1000000ull, now = now_ns();

		for (; wrote < due; wrote++, n++) {
			struct iovec iov[3] = { { &wi, sizeof(wi) }, { &n, sizeof(n) }, { padding, pad } };

			/* A tracer that just left may refuse one (EBADF): counted, not fatal. */
			if (!__atomic_load_n(&enabled, __ATOMIC_RELAXED))
				skipped++;
			else if (writev(fd, iov, pad ? 3 : 2) < 0)
				failed++;
		}
		if (rate && t > now)
			nanosleep(&(struct timespec){ .tv_sec = (time_t)((t - now) / 1000000000u),
						      .tv_nsec = (long)((t - now) % 1000000000u) }, NULL);
	}
	printf("wrote %llu (%llu refused)\n", wrote - skipped - failed, failed);
	close(fd);
	return 0;
}
