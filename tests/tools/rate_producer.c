// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rate_producer: a user event written at a fixed rate, for top's tests.
 *
 *   rate_producer RATE SECONDS [NAME [PAD [THREADS]]]
 *
 * registers "NAME u32 n" (default rate_tick; with PAD bytes more,
 * "NAME u32 n; char[PAD] pad", zeros: big records that fill a buffer soon) in $USEREVENTS_TRACEFS's (or
 * /sys/kernel/tracing's) user_events_data and writes it RATE times a second
 * (in steps of a millisecond, on an absolute schedule; RATE 0: as fast as
 * it can) for SECONDS (0: until killed), a write only while the event is
 * enabled; with THREADS, from each of THREADS threads (the main one among
 * them), RATE each.  Prints "wrote N (M refused)" at the end, N the writes
 * made, then "# last tick L" (a comment line in a TAP test that shows it),
 * the n of its last write (a thread's).
 */
#include <fcntl.h>
#include <pthread.h>
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

static int fd, wi;
static uint32_t enabled;
static unsigned long long rate, secs;
static size_t pad;
static char padding[4096];

struct counts {
	unsigned long long wrote, failed, skipped;
};

static void *writer(void *arg)
{
	struct counts *c = arg;
	uint64_t start = now_ns(), end = start + secs * 1000000000ull;
	uint32_t n = 0;

	for (uint64_t ms = 1; !stop && (!secs || now_ns() < end); ms++) {
		unsigned long long due = rate ? rate * ms / 1000 : c->wrote + 1000;
		uint64_t t = start + ms * 1000000ull, now = now_ns();

		for (; c->wrote < due; c->wrote++, n++) {
			struct iovec iov[3] = { { &wi, sizeof(wi) }, { &n, sizeof(n) }, { padding, pad } };

			/* A tracer that just left may refuse one (EBADF): counted, not fatal. */
			if (!__atomic_load_n(&enabled, __ATOMIC_RELAXED))
				c->skipped++;
			else if (writev(fd, iov, pad ? 3 : 2) < 0)
				c->failed++;
		}
		if (rate && t > now)
			nanosleep(&(struct timespec){ .tv_sec = (time_t)((t - now) / 1000000000u),
						      .tv_nsec = (long)((t - now) % 1000000000u) }, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("USEREVENTS_TRACEFS");
	char path[4096], name_args[256];
	struct user_reg reg = { .size = sizeof(reg) };
	struct counts all = { 0 }, *c;
	unsigned long long ticks = 0;
	pthread_t *th;
	unsigned long nth;

	if (argc < 3) {
		fprintf(stderr, "usage: rate_producer RATE SECONDS [NAME [PAD [THREADS]]]\n");
		return 2;
	}
	rate = strtoull(argv[1], NULL, 10);
	secs = strtoull(argv[2], NULL, 10);
	nth = argc > 5 ? strtoul(argv[5], NULL, 10) : 1;
	if (nth < 1 || nth > 64)
		nth = 1;
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
	c = calloc(nth, sizeof(*c));
	th = calloc(nth, sizeof(*th));
	if (!c || !th)
		return 1;
	for (unsigned long i = 1; i < nth; i++)
		if (pthread_create(&th[i], NULL, writer, &c[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	writer(&c[0]);
	for (unsigned long i = 0; i < nth; i++) {
		if (i)
			pthread_join(th[i], NULL);
		all.wrote += c[i].wrote;
		ticks = c[i].wrote > ticks ? c[i].wrote : ticks;
		all.failed += c[i].failed;
		all.skipped += c[i].skipped;
	}
	printf("wrote %llu (%llu refused)\n", all.wrote - all.skipped - all.failed, all.failed);
	/* A thread's n of its last write: 2499 for 500/s in 5 s, unless a late wake-up ended it first. */
	if (ticks)
		printf("# last tick %llu\n", ticks - 1);
	close(fd);
	free(c);
	free(th);
	return 0;
}
