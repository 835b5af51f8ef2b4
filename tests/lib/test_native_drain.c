// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The drain of the native path under load: several producer threads fill
 * their rings (each wraps around, records of many lengths) while usereventsd
 * drains them; every record reaches the trace exactly once, intact, with its
 * thread's pid, in its thread's order on each CPU, and every write the
 * library refused as ring-full is counted in native_dropped_ring_full.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/userevents.h"
#include "common/daemon.h"

UE_EVENT(nd_ev, UE_U32(t), UE_U32(seq), UE_STR(s))

#define THREADS 4
#define PER 12000		/* ~1.3 MiB of records a thread: more than its 1 MiB ring */
#define STR_MAX 120

__attribute__((constructor)) static void setup(void)
{
	daemon_setup(NULL);
	setenv("USEREVENTS_TRACEFS", mnt, 1);
}

/* The string record @seq of any thread carries: its length varies, so does the padding. */
static void str_of(uint32_t seq, char *out)
{
	size_t len = (seq * 7u) % STR_MAX;

	for (size_t i = 0; i < len; i++)
		out[i] = (char)('a' + (seq + i) % 26);
	out[len] = '\0';
}

struct producer {
	uint32_t id;
	pid_t tid;
	unsigned long full;	/* writes refused as the ring was full, then retried */
	unsigned long errors;
};

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	char s[STR_MAX + 1];

	p->tid = gettid();
	for (uint32_t seq = 0; seq < PER; seq++) {
		int r;

		str_of(seq, s);
		while ((r = ue_nd_ev_write(p->id, seq, s)) == -ENOBUFS) {
			p->full++;
			sched_yield();
		}
		if (r)
			p->errors++;
	}
	return NULL;
}

static unsigned long long entries_sum(void)
{
	unsigned long long sum = 0;
	char rel[64], buf[1024];

	for (int c = 0; c < 1024; c++) {
		char *e;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", c);
		if (read_rel(rel, buf, sizeof(buf)) < 0)
			break;
		e = strstr(buf, "entries: ");
		if (e)
			sum += strtoull(e + 9, NULL, 10);
	}
	return sum;
}

TEST(every_record_once_in_order)
{
	static uint8_t seen[THREADS][PER];
	struct producer prod[THREADS];
	pthread_t th[THREADS];
	struct ue_provider *p = NULL;
	struct ue_provider_opts o = { .sz = sizeof(o) };
	long long dropped0, invalid0, records0;
	long last[THREADS][64];
	unsigned long full = 0, lines = 0;
	char *trace, *line, *save = NULL;

	ASSERT_EQ(ue_provider_open(&o, &p), 0);
	ASSERT_TRUE(ue_provider_native(p));
	ASSERT_EQ(ue_nd_ev_register(p), 0);
	/* Discard mode and room for all: a record the trace lacks was lost, not overwritten. */
	ASSERT_EQ(write_rel_flags("options/overwrite", "0", O_TRUNC), 1);
	ASSERT_EQ(write_rel_flags("buffer_size_kb", "16384", O_TRUNC), 5);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nd_ev/enable", "1", O_TRUNC), 1);
	dropped0 = stat_of("native_dropped_ring_full");
	invalid0 = stat_of("native_invalid");
	records0 = stat_of("native_records");
	ASSERT_TRUE(dropped0 >= 0 && invalid0 >= 0 && records0 >= 0);

	for (uint32_t i = 0; i < THREADS; i++) {
		prod[i] = (struct producer){ .id = i };
		ASSERT_EQ(pthread_create(&th[i], NULL, producer_main, &prod[i]), 0);
	}
	for (uint32_t i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(prod[i].errors, 0);
		full += prod[i].full;
	}
	for (int i = 0; i < 500 && entries_sum() < (unsigned long long)THREADS * PER; i++)
		usleep(10000);
	printf("# %lu ring-full retries\n", full);
	ASSERT_EQ(entries_sum(), (unsigned long long)THREADS * PER);
	EXPECT_EQ(stat_of("native_records") - records0, (long long)THREADS * PER);
	EXPECT_EQ(stat_of("native_invalid") - invalid0, 0);
	EXPECT_EQ(stat_of("native_dropped_ring_full") - dropped0, (long long)full);

	trace = read_rel_alloc("trace");
	ASSERT_TRUE(trace != NULL);
	memset(last, 0xff, sizeof(last));
	for (line = strtok_r(trace, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ev = strstr(line, "nd_ev: "), *br, *s, want[STR_MAX + 1], pid[32];
		unsigned int t, seq, cpu;

		if (line[0] == '#' || !ev)
			continue;
		br = strchr(line, '[');
		ASSERT_TRUE(br && br < ev);
		ASSERT_EQ(sscanf(br, "[%u]", &cpu), 1);
		ASSERT_EQ(sscanf(ev, "nd_ev: t=0x%*x (%u) seq=0x%*x (%u)", &t, &seq), 2);
		ASSERT_TRUE(t < THREADS && seq < PER && cpu < 64);
		ASSERT_EQ(seen[t][seq], 0);	/* not twice */
		seen[t][seq] = 1;
		/* within one CPU's ring, a thread's records keep their order */
		ASSERT_TRUE((long)seq > last[t][cpu]);
		last[t][cpu] = seq;
		s = strstr(ev, " s=");
		ASSERT_TRUE(s != NULL);
		str_of(seq, want);
		EXPECT_STREQ(s + 3, want);
		/* the pid column is the writing thread's id */
		snprintf(pid, sizeof(pid), "-%d ", (int)prod[t].tid);
		ASSERT_TRUE(strstr(line, pid) && strstr(line, pid) < br);
		lines++;
	}
	free(trace);
	ASSERT_EQ(lines, (unsigned long)THREADS * PER);
	ue_nd_ev_unregister();
	ue_provider_close(p);
	ASSERT_EQ(write_rel_flags("events/user_events/nd_ev/enable", "0", O_TRUNC), 1);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("buffer_size_kb", "1410", O_TRUNC), 4);
	ASSERT_EQ(write_rel_flags("options/overwrite", "1", O_TRUNC), 1);
}

UE_TEST_MAIN()
