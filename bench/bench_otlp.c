// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_otlp: the producer of the export benchmark (bench/otlp): waits
 * (5 s at most) until a tracer enables otlp_bench, then writes N records
 * through libuserevents' native ring as fast as the ring takes them (a
 * full ring is waited out, never dropped), prints what it wrote, and stays
 * (its event with it: the last reference gone, an event is deleted) until
 * a signal.
 *   USEREVENTS_TRACEFS=MNT bench_otlp N
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "userevents/userevents.h"

UE_EVENT(otlp_bench, UE_U32(seq), UE_U64(value), UE_S32(status), UE_STR(path))

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000, full = 0;
	struct ue_provider *p;

	if (ue_provider_open(NULL, &p) < 0 || ue_otlp_bench_register(p) < 0) {
		fprintf(stderr, "bench_otlp: cannot register (USEREVENTS_TRACEFS?)\n");
		return 1;
	}
	for (int i = 0; i < 500 && !ue_otlp_bench_enabled(); i++)
		usleep(10000);
	if (!ue_otlp_bench_enabled()) {
		fprintf(stderr, "bench_otlp: otlp_bench never enabled\n");
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		int e;

		while ((e = ue_otlp_bench_write((uint32_t)i, i * 3, -404, "/index.html")) == -ENOBUFS) {
			full++;
			usleep(100);
		}
		if (e) {
			fprintf(stderr, "bench_otlp: write: %d\n", e);
			return 1;
		}
	}
	printf("# bench_otlp: wrote %lu records (%lu waits for a full ring)\n", n, full);
	fflush(stdout);
	pause();
	return 0;
}
