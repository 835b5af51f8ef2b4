// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reconnect_producer: a producer that outlives daemons, for
 * test-reconnect.sh.
 *
 *   reconnect_producer raw|lib RATE SECONDS NAME STATUS
 *
 * registers "NAME u32 n" in $USEREVENTS_TRACEFS's user_events_data, raw
 * (open, DIAG_IOCSREG, writev: run it under the interposer, or static) or
 * through libuserevents (built with -DRP_LIB), and writes it RATE times a
 * second for SECONDS, a write only while its enable bit is set, as
 * producers do.  Every millisecond it publishes, in the file STATUS (eight
 * native-endian u64: `od -An -t u8 -w8`): its enable bit, writes made,
 * writes refused, writes skipped (bit clear), what libuserevents counts as
 * lost (ue_provider_lost(); 0 raw), the last refusal's errno, refusals with
 * ENOTCONN, and the longest write in microseconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"
#ifdef RP_LIB
#include "userevents/userevents.h"
#endif

enum { ST_BIT, ST_WROTE, ST_REFUSED, ST_SKIPPED, ST_LOST, ST_ERRNO, ST_ENOTCONN, ST_MAX_US, ST_N };

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
	static uint32_t enabled;
	char path[4096], name_args[256];
	volatile uint64_t *st;
	uint64_t start, end, rate, secs;
	uint32_t n = 0;
	int fd = -1, sfd, wi = 0;
	bool lib;
#ifdef RP_LIB
	static struct ue_tracepoint tp;
	struct ue_provider *p = NULL;
#endif

	if (argc != 6 || (strcmp(argv[1], "raw") && strcmp(argv[1], "lib"))) {
		fprintf(stderr, "usage: reconnect_producer raw|lib RATE SECONDS NAME STATUS\n");
		return 2;
	}
	lib = strcmp(argv[1], "lib") == 0;
	rate = strtoull(argv[2], NULL, 10);
	secs = strtoull(argv[3], NULL, 10);
	snprintf(name_args, sizeof(name_args), "%s u32 n", argv[4]);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	sfd = open(argv[5], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (sfd < 0 || ftruncate(sfd, ST_N * 8) < 0) {
		perror(argv[5]);
		return 1;
	}
	st = mmap(NULL, ST_N * 8, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	if (st == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (lib) {
#ifdef RP_LIB
		int r = ue_provider_open(NULL, &p);

		tp.name_args = name_args;
		if (r == 0)
			r = ue_tracepoint_register(p, &tp, NULL);
		if (r < 0) {
			fprintf(stderr, "reconnect_producer: %s\n", strerror(-r));
			return 1;
		}
#else
		fprintf(stderr, "reconnect_producer: built without libuserevents\n");
		return 2;
#endif
	} else {
		struct user_reg reg = { .size = sizeof(reg) };

		snprintf(path, sizeof(path), "%s/user_events_data", dir ? dir : "/sys/kernel/tracing");
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
	}
	start = now_ns();
	end = start + secs * 1000000000ull;
	for (uint64_t ms = 1; !stop && now_ns() < end; ms++) {
		uint64_t due = rate * ms / 1000, t = start + ms * 1000000ull, now;
		uint32_t bit;

		for (; st[ST_WROTE] + st[ST_REFUSED] + st[ST_SKIPPED] < due; n++) {
			uint64_t t0 = now_ns(), us;
			int err = 0;

#ifdef RP_LIB
			bit = lib ? ue_tracepoint_enabled(&tp) : __atomic_load_n(&enabled, __ATOMIC_RELAXED);
#else
			bit = __atomic_load_n(&enabled, __ATOMIC_RELAXED);
#endif
			if (!bit) {
				st[ST_SKIPPED]++;
				continue;
			}
			if (lib) {
#ifdef RP_LIB
				struct iovec iov = { &n, sizeof(n) };

				err = -ue_tracepoint_writev(&tp, &iov, 1);
#endif
			} else {
				struct iovec iov[2] = { { &wi, sizeof(wi) }, { &n, sizeof(n) } };

				if (writev(fd, iov, 2) < 0)
					err = errno;
			}
			us = (now_ns() - t0) / 1000;
			if (us > st[ST_MAX_US])
				st[ST_MAX_US] = us;
			if (err) {
				st[ST_REFUSED]++;
				st[ST_ERRNO] = (uint64_t)err;
				st[ST_ENOTCONN] += err == ENOTCONN;
			} else {
				st[ST_WROTE]++;
			}
		}
#ifdef RP_LIB
		st[ST_BIT] = lib ? ue_tracepoint_enabled(&tp) : __atomic_load_n(&enabled, __ATOMIC_RELAXED);
		if (lib)
			st[ST_LOST] = ue_provider_lost(p);
#else
		st[ST_BIT] = __atomic_load_n(&enabled, __ATOMIC_RELAXED);
#endif
		now = now_ns();
		if (t > now)
			nanosleep(&(struct timespec){ .tv_sec = (time_t)((t - now) / 1000000000u),
						      .tv_nsec = (long)((t - now) % 1000000000u) }, NULL);
	}
	printf("%s: wrote %llu refused %llu (last %s, %llu ENOTCONN) skipped %llu lost %llu\n",
	       argv[4], (unsigned long long)st[ST_WROTE], (unsigned long long)st[ST_REFUSED],
	       st[ST_ERRNO] ? strerror((int)st[ST_ERRNO]) : "none",
	       (unsigned long long)st[ST_ENOTCONN], (unsigned long long)st[ST_SKIPPED],
	       (unsigned long long)st[ST_LOST]);
#ifdef RP_LIB
	if (p)
		ue_provider_close(p);
#endif
	return 0;
}
