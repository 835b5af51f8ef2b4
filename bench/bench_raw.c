// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_raw: a provider written like microsoft/LinuxTracepoints'
 * libtracepoint, on the raw ABI only: DIAG_IOCSREG with an enable word, then
 * writev of [write_index][four u32, a __rel_loc][a 5-byte string] while the
 * word says enabled.  Run as is it writes through FUSE; under
 * LD_PRELOAD=libuserevents-preload.so through the interposer.
 *   bench_raw latency NAME ROUNDS PER_ROUND
 *   bench_raw throughput NAME THREADS EVENTS_PER_ROUND_AND_THREAD ROUNDS
 * Prints "bench: NAME VALUE" lines ($USEREVENTS_TRACEFS: the mount).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"

static const char *tracefs;
static int data_fd;
static uint32_t write_index;
static volatile uint32_t enabled;	/* bit 0: the daemon's */

struct payload {
	uint32_t a, b, c, d;
	uint32_t s_loc;			/* __rel_loc: 5 bytes right after this field */
} __attribute__((packed));

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int tfs_write(const char *rel, const char *s)
{
	char path[4096];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", tracefs, rel);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, s, strlen(s)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* As libtracepoint's tracepoint_write(): nothing when disabled, else one writev. */
static int event_write(uint32_t a)
{
	struct payload p = { a, 2, 3, 4, 5u << 16 };
	struct iovec iov[3] = {
		{ &write_index, sizeof(write_index) },
		{ &p, sizeof(p) },
		{ (void *)"eth0", 5 },
	};

	if (!(enabled & 1))
		return 0;
	return writev(data_fd, iov, 3) < 0 ? -errno : 0;
}

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static unsigned long long stat_sum(const char *key)
{
	unsigned long long sum = 0;
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);

	for (long c = 0; c < ncpus; c++) {
		char path[4096], line[256];
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%ld/stats", tracefs, c);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, key, strlen(key)) == 0)
				sum += strtoull(line + strlen(key), NULL, 10);
		fclose(f);
	}
	return sum;
}

static void latency(const char *name, int rounds, int per_round)
{
	double *ns = calloc((size_t)rounds, sizeof(*ns));
	unsigned long errors = 0;

	for (int r = 0; r < rounds; r++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < per_round; i++)
			errors += event_write((uint32_t)i) != 0;
		ns[r] = (double)(now_ns() - t0) / per_round;
		usleep(3000);	/* as bench_lib's native case: the drain empties the ring between rounds */
	}
	qsort(ns, (size_t)rounds, sizeof(*ns), cmp_d);
	printf("%-22s median %8.2f ns  min %8.2f  max %8.2f  errors %lu\n", name, ns[rounds / 2],
	       ns[0], ns[rounds - 1], errors);
	printf("bench: %s %.2f\n", name, ns[rounds / 2]);
	free(ns);
}

/*
 * Rounds: every thread writes PER_ROUND events between two barriers (a
 * round fits in a thread's 1 MiB ring), then a 3 ms pause lets the drain
 * empty the rings, as the latency rounds do; the rate of a round is its
 * events over the time between the barriers.  At the end, every event must
 * be in the trace buffer or counted as dropped.
 */
static long per_round;
static int nrounds;
static pthread_barrier_t bar;
static uint64_t t_start[64][256], t_end[64][256];	/* [thread][round], each its own clock reads */

static void *producer(void *arg)
{
	unsigned long errors = 0;
	long me = (long)arg;

	for (int r = 0; r < nrounds; r++) {
		pthread_barrier_wait(&bar);
		t_start[me][r] = now_ns();
		for (long i = 0; i < per_round; i++)
			errors += event_write((uint32_t)i) != 0;
		t_end[me][r] = now_ns();
		pthread_barrier_wait(&bar);
	}
	return (void *)errors;
}

static void throughput(const char *name, int threads, long events, int rounds)
{
	unsigned long long want = (unsigned long long)threads * (unsigned long long)events *
				  (unsigned long long)rounds, entries, dropped, lost;
	double *rate = calloc((size_t)rounds, sizeof(*rate));
	pthread_t th[64];
	unsigned long errors = 0;
	void *res;

	per_round = events;
	nrounds = rounds;
	tfs_write("options/overwrite", "0");
	tfs_write("buffer_size_kb", "65536");
	tfs_write("trace", "");
	pthread_barrier_init(&bar, NULL, (unsigned int)threads + 1);
	for (long i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, producer, (void *)i);
	for (int r = 0; r < rounds; r++) {
		uint64_t t0 = UINT64_MAX, t1 = 0;

		pthread_barrier_wait(&bar);
		pthread_barrier_wait(&bar);
		/* From the first thread's start to the last one's end. */
		for (int i = 0; i < threads; i++) {
			t0 = t_start[i][r] < t0 ? t_start[i][r] : t0;
			t1 = t_end[i][r] > t1 ? t_end[i][r] : t1;
		}
		rate[r] = (double)threads * (double)events * 1e3 / (double)(t1 - t0);
		usleep(3000);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], &res);
		errors += (unsigned long)res;
	}
	/* Reading the stats takes what the rings still hold (the daemon syncs first). */
	entries = stat_sum("entries: ");
	dropped = stat_sum("dropped events: ");
	lost = want - entries - dropped;
	qsort(rate, (size_t)rounds, sizeof(*rate), cmp_d);
	printf("%s: %.3f M events/s (%d thread%s, median of %d rounds of %ld events a thread; "
	       "min %.3f max %.3f), %llu of %llu recorded, %llu counted dropped, %llu lost, "
	       "%lu errors\n", name, rate[rounds / 2], threads, threads > 1 ? "s" : "", rounds,
	       events, rate[0], rate[rounds - 1], entries, want, dropped, lost, errors);
	printf("bench: %s_meps %.4f\n", name, rate[rounds / 2]);
	printf("bench: %s_max_meps %.4f\n", name, rate[rounds - 1]);
	printf("bench: %s_lost %llu\n", name, lost);
	tfs_write("trace", "");
	tfs_write("buffer_size_kb", "1410");
	tfs_write("options/overwrite", "1");
	free(rate);
}

int main(int argc, char **argv)
{
	char path[4096];
	struct user_reg reg;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tracefs = getenv("USEREVENTS_TRACEFS");
	if (!tracefs || argc < 5) {
		fprintf(stderr, "usage: USEREVENTS_TRACEFS=DIR bench_raw latency|throughput NAME ...\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/user_events_data", tracefs);
	data_fd = open(path, O_RDWR | O_CLOEXEC);
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_size = sizeof(enabled);
	reg.enable_addr = (uintptr_t)&enabled;
	reg.name_args = (uintptr_t)"bench_raw u32 a; u32 b; u32 c; u32 d; __rel_loc char[] s";
	if (data_fd < 0 || ioctl(data_fd, DIAG_IOCSREG, &reg) < 0) {
		perror("bench_raw: user_events_data");
		return 1;
	}
	write_index = reg.write_index;
	tfs_write("events/user_events/bench_raw/enable", "1");
	for (int i = 0; i < 500 && !(enabled & 1); i++)
		usleep(1000);
	if (!strcmp(argv[1], "latency"))
		latency(argv[2], atoi(argv[3]), atoi(argv[4]));
	else if (argc >= 6 && !strcmp(argv[1], "throughput") && atoi(argv[3]) <= 64 &&
		 atoi(argv[5]) <= 256)
		throughput(argv[2], atoi(argv[3]), atol(argv[4]), atoi(argv[5]));
	else
		return 2;
	tfs_write("events/user_events/bench_raw/enable", "0");
	return 0;
}
