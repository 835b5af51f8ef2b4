// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_lttng: the same event as bench_lib through LTTng-UST (recorded by
 * an lttng-tools session that bench/run sets up): per-event cost of an
 * enabled tracepoint, then two producer threads' aggregate rate; and
 * `bench_lttng burst THREADS EVENTS`, the producer of bench/record.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bench_lttng_tp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 101
#define PER_ROUND 8192
#define TP_EVENTS 250000
#define TP_RUNS 5

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static unsigned long burst_events;

static void *producer(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < TP_EVENTS; i++)
		lttng_ust_tracepoint(ue_bench, ev, i, 2, 3, 4, "eth0");
	return NULL;
}

/* As bench_burst: EVENTS events a thread, as fast as it goes (bench/record). */
static void *burst_producer(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < burst_events; i++)
		lttng_ust_tracepoint(ue_bench, ev, (uint32_t)i, 2, 3, 4, "eth0");
	return NULL;
}

static int burst(int threads, unsigned long events)
{
	pthread_t th[64];
	uint64_t t0;

	if (threads < 1 || threads > 64 || !events)
		return 2;
	burst_events = events;
	t0 = now_ns();
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, burst_producer, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	/* LTTng-UST does not tell the program what it discarded: lttng stop does. */
	fprintf(stderr, "burst: written %lu refused 0 seconds %.3f\n", (unsigned long)threads * events,
		(double)(now_ns() - t0) / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : "latency";
	double ns[ROUNDS];

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The session daemon enables the event asynchronously after registration. */
	for (int i = 0; i < 500 && !lttng_ust_tracepoint_enabled(ue_bench, ev); i++)
		usleep(10000);
	if (!lttng_ust_tracepoint_enabled(ue_bench, ev)) {
		fprintf(stderr, "bench_lttng: ue_bench:ev never got enabled\n");
		return 1;
	}
	if (!strcmp(only, "burst"))
		return argc == 4 ? burst(atoi(argv[2]), strtoul(argv[3], NULL, 10)) : 2;
	if (!strcmp(only, "latency")) {
		for (int r = 0; r < ROUNDS; r++) {
			uint64_t t0 = now_ns();

			for (uint32_t i = 0; i < PER_ROUND; i++)
				lttng_ust_tracepoint(ue_bench, ev, i, 2, 3, 4, "eth0");
			ns[r] = (double)(now_ns() - t0) / PER_ROUND;
			usleep(3000);	/* the consumer daemon empties sub-buffers, as for native */
		}
		qsort(ns, ROUNDS, sizeof(ns[0]), cmp_d);
		printf("%-22s median %8.2f ns  min %8.2f  max %8.2f\n", "lttng_ust", ns[ROUNDS / 2],
		       ns[0], ns[ROUNDS - 1]);
		printf("bench: lttng_ust %.2f\n", ns[ROUNDS / 2]);
	} else {
		double rate[TP_RUNS];

		/* As bench_lib: the median of TP_RUNS runs, the consumer idle before each. */
		for (int run = 0; run < TP_RUNS; run++) {
			pthread_t th[2];
			uint64_t t0, t1;

			usleep(100000);
			t0 = now_ns();
			for (int i = 0; i < 2; i++)
				pthread_create(&th[i], NULL, producer, NULL);
			for (int i = 0; i < 2; i++)
				pthread_join(th[i], NULL);
			t1 = now_ns();
			rate[run] = 2.0 * TP_EVENTS * 1e3 / (double)(t1 - t0);
			printf("# run %d: %.2f M events/s offered\n", run + 1, rate[run]);
		}
		qsort(rate, TP_RUNS, sizeof(rate[0]), cmp_d);
		printf("throughput (2 threads, lttng-ust): %.2f M events/s offered "
		       "(median of %d runs)\n", rate[TP_RUNS / 2], TP_RUNS);
		printf("bench: lttng_throughput_2threads_meps %.2f\n", rate[TP_RUNS / 2]);
	}
	return 0;
}
