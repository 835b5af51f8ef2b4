// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib_rate: a libuserevents producer (the native path when usereventsd
 * serves) writing "NAME u32 n" RATE times a second for SECONDS, n counting
 * the writes made while the event is enabled from 0, so that a reader sees
 * every one or a gap (the event is lib_tick).  Prints "wrote N (M refused)" and whether the native
 * path carried them.
 *
 *   lib_rate RATE SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "userevents/userevents.h"

UE_EVENT(lib_tick, UE_U32(n))

int main(int argc, char **argv)
{
	unsigned long rate, secs;
	unsigned long long wrote = 0, refused = 0, skipped = 0;
	struct ue_provider *p;
	struct timespec start;
	uint32_t n = 0;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: lib_rate RATE SECONDS\n");
		return 2;
	}
	rate = strtoul(argv[1], NULL, 10);
	secs = strtoul(argv[2], NULL, 10);
	r = ue_provider_open(NULL, &p);
	if (r < 0 || (r = ue_lib_tick_register(p)) < 0) {
		fprintf(stderr, "lib_rate: %s\n", strerror(-r));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned long ms = 1; ms <= secs * 1000; ms++) {
		unsigned long long due = (unsigned long long)rate * ms / 1000;
		struct timespec t = start;

		while (wrote + refused + skipped < due) {
			if (!ue_lib_tick_enabled()) {
				skipped++;
				continue;
			}
			if (ue_lib_tick_write(n) < 0) {
				refused++;
			} else {
				wrote++;
				n++;
			}
		}
		t.tv_sec += (time_t)(ms / 1000);
		t.tv_nsec += (long)(ms % 1000) * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
	}
	printf("wrote %llu (%llu refused)%s\n", wrote, refused,
	       ue_provider_native(p) ? " native" : "");
	ue_provider_close(p);
	return 0;
}
