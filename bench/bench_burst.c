// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_burst: THREADS threads each write EVENTS events of burst_ev (four
 * u32 and a 5-byte string, as bench_lib's event) as fast as they can, once
 * the event is enabled: the producer of the sustained-recording benchmark
 * (bench/record), run as `userevents record -- bench_burst ...`.
 *   bench_burst THREADS EVENTS      libuserevents' native path
 *   bench_burst_raw THREADS EVENTS  the raw ABI as libtracepoint writes it
 *                                   (writev of [write_index][payload]; the
 *                                   interposer under run/record -- CMD)
 *   ... THREADS EVENTS tail         and, 300 ms after, one more event (a
 *                                   reader then has a record after any loss)
 * Prints "burst: written W refused R seconds S" on stderr: W writes that
 * succeeded, R that failed (a full ring: -ENOBUFS, or any error).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifdef BURST_RAW
#include "userevents/abi.h"
#else
#include "userevents/userevents.h"
UE_EVENT(burst_ev, UE_U32(a), UE_U32(b), UE_U32(c), UE_U32(d), UE_STR(s))
#endif

static unsigned long events;
static _Atomic unsigned long written, refused;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#ifdef BURST_RAW
static int data_fd;
static uint32_t write_index;
static volatile uint32_t enabled;

struct payload {
	uint32_t a, b, c, d;
	uint32_t s_loc;		/* __rel_loc: 5 bytes right after this field */
} __attribute__((packed));

/* As libtracepoint: the kernel's path first, else $USEREVENTS_TRACEFS. */
static int setup(void)
{
	struct user_reg reg = { .size = sizeof(reg) };
	const char *dir = getenv("USEREVENTS_TRACEFS");
	char path[4096];

	data_fd = open("/sys/kernel/tracing/user_events_data", O_WRONLY | O_CLOEXEC);
	if (data_fd < 0 && dir) {
		snprintf(path, sizeof(path), "%s/user_events_data", dir);
		data_fd = open(path, O_WRONLY | O_CLOEXEC);
	}
	if (data_fd < 0)
		return -errno;
	reg.enable_bit = 0;
	reg.enable_size = sizeof(enabled);
	reg.enable_addr = (uint64_t)(uintptr_t)&enabled;
	reg.name_args = (uint64_t)(uintptr_t)"burst_ev u32 a; u32 b; u32 c; u32 d; __rel_loc char[] s";
	if (ioctl(data_fd, DIAG_IOCSREG, &reg) < 0)
		return -errno;
	write_index = reg.write_index;
	return 0;
}

static bool is_enabled(void)
{
	return __atomic_load_n(&enabled, __ATOMIC_RELAXED) & 1;
}

static int write_one(uint32_t a)
{
	struct payload p = { a, 2, 3, 4, (5u << 16) | 0 };
	struct iovec io[3] = {
		{ &write_index, sizeof(write_index) }, { &p, sizeof(p) }, { "eth0", 5 },
	};

	return writev(data_fd, io, 3) < 0 ? -errno : 0;
}
#else
static int setup(void)
{
	struct ue_provider *p;
	int e = ue_provider_open(NULL, &p);

	return e < 0 ? e : ue_burst_ev_register(p);
}

static bool is_enabled(void)
{
	return ue_burst_ev_enabled();
}

static int write_one(uint32_t a)
{
	return ue_burst_ev_write(a, 2, 3, 4, "eth0");
}
#endif

static void *producer(void *arg)
{
	unsigned long ok = 0, bad = 0;

	(void)arg;
	for (unsigned long i = 0; i < events; i++) {
		if (is_enabled() && write_one((uint32_t)i) == 0)
			ok++;
		else
			bad++;
	}
	written += ok;
	refused += bad;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int threads, e;
	uint64_t t0;

	if (argc < 3 || argc > 4 || (threads = atoi(argv[1])) < 1 || threads > 64 ||
	    !(events = strtoul(argv[2], NULL, 10)) || (argc == 4 && strcmp(argv[3], "tail"))) {
		fprintf(stderr, "usage: %s THREADS EVENTS [tail]\n", argv[0]);
		return 2;
	}
	e = setup();
	if (e < 0) {
		fprintf(stderr, "burst: user_events_data: %s\n", strerror(-e));
		return 1;
	}
	/* Enabled at registration when a recorder armed it; else wait for it (5 s). */
	for (int i = 0; i < 5000 && !is_enabled(); i++)
		usleep(1000);
	if (!is_enabled()) {
		fprintf(stderr, "burst: burst_ev never enabled\n");
		return 1;
	}
	t0 = now_ns();
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, producer, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	if (argc == 4) {
		usleep(300000);
		if (is_enabled() && write_one(0) == 0)
			written++;
		else
			refused++;
	}
	fprintf(stderr, "burst: written %lu refused %lu seconds %.3f\n", written, refused,
		(double)(now_ns() - t0) / 1e9);
	return 0;
}
