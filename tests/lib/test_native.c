// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The native path of libuserevents against a real usereventsd: records
 * equal to writev's, validation errno, a full ring drops and counts while
 * the daemon is stopped (the program never blocks), fork falls back to
 * writev, threads get their own rings, and a daemon that dies makes writes
 * fail with -EPIPE instead of hanging; the event's filter, its triggers
 * and soft mode hold for native records.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/userevents.h"
#include "common/daemon.h"

UE_EVENT(nt_ev, UE_U32(a), UE_U32(b), UE_U32(c), UE_U32(d), UE_STR(s))

static struct ue_tracepoint raw_tp = { .name_args = "nt_ev u32 a; u32 b; u32 c; u32 d; "
						    "__rel_loc char[] s" };

__attribute__((constructor)) static void setup(void)
{
	daemon_setup(NULL);
	setenv("USEREVENTS_TRACEFS", mnt, 1);
}

static struct ue_provider *open_p(unsigned int flags)
{
	struct ue_provider_opts o = { .sz = sizeof(o), .flags = flags };
	struct ue_provider *p = NULL;

	return ue_provider_open(&o, &p) < 0 ? NULL : p;
}

/* SIGSTOP takes effect thread by thread: wait until every thread is stopped. */
static int stop_daemon(void)
{
	char path[64], buf[512];

	if (kill(daemon_pid, SIGSTOP) < 0)
		return -errno;
	for (int i = 0; i < 500; i++) {
		int running = 0;
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)daemon_pid);
		d = opendir(path);
		if (!d)
			return -errno;
		while ((e = readdir(d))) {
			FILE *f;
			char *p;

			if (e->d_name[0] == '.')
				continue;
			snprintf(buf, sizeof(buf), "%s/%s/stat", path, e->d_name);
			f = fopen(buf, "re");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) && p[2] != 'T' &&
			    p[2] != 't')
				running++;
			fclose(f);
		}
		closedir(d);
		if (!running)
			return 0;
		usleep(2000);
	}
	return -ETIMEDOUT;
}

/* The trace line from "comm-pid" on, without CPU and timestamp. */
static int line_of(const char *needle, char *out, size_t len)
{
	char *t = read_rel_alloc("trace"), *l, *e, *b;

	if (!t)
		return -1;
	l = strstr(t, needle);
	if (!l) {
		free(t);
		return -1;
	}
	e = strchr(l, '\n');
	if (e)
		*e = '\0';
	while (l > t && l[-1] != '\n')
		l--;
	b = strchr(l, '[');
	snprintf(out, len, "%.*s|%s", b ? (int)(b - l) : 0, l, strstr(l, needle));
	free(t);
	return 0;
}

TEST(native_offered)
{
	struct ue_provider *p = open_p(0), *q = open_p(UE_PROVIDER_NO_NATIVE);

	ASSERT_TRUE(p && q);
	EXPECT_TRUE(ue_provider_native(p));
	EXPECT_FALSE(ue_provider_native(q));
	ue_provider_close(p);
	ue_provider_close(q);
}

TEST(records_equal_writev)
{
	struct ue_provider *p = open_p(0), *q = open_p(UE_PROVIDER_NO_NATIVE);
	uint32_t fx[5] = { 5, 6, 7, 8, 0 }, loc = (3u << 16) | 0;
	struct iovec io[2] = { { fx, 20 }, { "wv", 3 } };
	char a[512], b[512];

	ASSERT_TRUE(p && q);
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(ue_tracepoint_register(q, &raw_tp, NULL), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	memcpy(&fx[4], &loc, 4);
	ASSERT_EQ(ue_nt_ev_write(5, 6, 7, 8, "nv"), 0);
	ASSERT_EQ(ue_tracepoint_writev(&raw_tp, io, 2), 0);
	ASSERT_EQ(trace_wait("s=nv\n", 1), 1);
	ASSERT_EQ(line_of("nt_ev: a=0x5 (5) b=0x6 (6) c=0x7 (7) d=0x8 (8) s=nv", a, sizeof(a)), 0);
	ASSERT_EQ(line_of("nt_ev: a=0x5 (5) b=0x6 (6) c=0x7 (7) d=0x8 (8) s=wv", b, sizeof(b)), 0);
	/* Same comm-tid, same event text; only the string differs. */
	a[strlen(a) - 2] = 'w';
	EXPECT_STREQ(a, b);
	/* Validation gives writev's errno, at once. */
	loc = (9u << 16) | 0;
	memcpy(&fx[4], &loc, 4);
	EXPECT_ERRNO(ue_tracepoint_writev(&ue_nt_ev_tp, io, 2), EFAULT);
	EXPECT_ERRNO(ue_tracepoint_writev(&raw_tp, io, 2), EFAULT);
	/* A string whose last byte is not NUL. */
	loc = (2u << 16) | 0;
	memcpy(&fx[4], &loc, 4);
	EXPECT_ERRNO(ue_tracepoint_writev(&ue_nt_ev_tp, io, 2), EFAULT);
	EXPECT_ERRNO(ue_tracepoint_writev(&raw_tp, io, 2), EFAULT);
	/* Bytes after the last location are allowed. */
	loc = (3u << 16) | 0;
	memcpy(&fx[4], &loc, 4);
	io[1].iov_len = 3;
	struct iovec io3[3] = { io[0], io[1], { "zz", 2 } };
	EXPECT_ERRNO(ue_tracepoint_writev(&ue_nt_ev_tp, io3, 3), 0);
	EXPECT_ERRNO(ue_tracepoint_writev(&raw_tp, io3, 3), 0);
	io[0].iov_len = 16;
	EXPECT_ERRNO(ue_tracepoint_writev(&ue_nt_ev_tp, io, 1), EINVAL);
	EXPECT_ERRNO(ue_tracepoint_writev(&raw_tp, io, 1), EINVAL);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "0", O_TRUNC), 1);
	io[0].iov_len = 20;
	EXPECT_ERRNO(ue_nt_ev_write(1, 2, 3, 4, "x"), EBADF);
	EXPECT_ERRNO(ue_tracepoint_writev(&raw_tp, io, 2), EBADF);
	ue_provider_close(p);
	ue_provider_close(q);
}

/* A counter of usereventsd_stats, or -1 when it is missing. */
static long long stat_value(const char *key)
{
	char *t = read_rel_alloc("usereventsd_stats"), *l;
	long long v = -1;
	size_t n = strlen(key);

	for (l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (strncmp(l, key, n) == 0 && l[n] == ':')
			v = strtoll(l + n + 1, NULL, 10);
	free(t);
	return v;
}

/* Until the drain has taken every record of the rings (stored, or dropped). */
static int drained(void)
{
	for (int i = 0; i < 400; i++) {
		if (stat_value("native_pending_bytes") == 0)
			return 0;
		usleep(5000);
	}
	return -1;
}

/*
 * Triggers and soft mode act on native records as on writev's (one commit
 * path): traceoff keeps its own record and none after it; an event in soft
 * mode takes writes and stores nothing.
 */
TEST(triggers_apply_to_native_records)
{
	static const char off[] = "traceoff if a == 7";
	struct ue_provider *p = open_p(0);
	char *t;

	ASSERT_TRUE(p);
	ASSERT_TRUE(ue_provider_native(p));
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/trigger", off, O_TRUNC),
		  (int)strlen(off));
	for (uint32_t a = 1; a <= 10; a++)
		ASSERT_EQ(ue_nt_ev_write(a, 0, 0, 0, "tr"), 0);
	ASSERT_EQ(drained(), 0);
	EXPECT_EQ(trace_count("nt_ev: "), 7);
	EXPECT_EQ(trace_count("nt_ev: a=0x7 (7) "), 1);
	t = read_rel_alloc("tracing_on");
	ASSERT_TRUE(t != NULL);
	EXPECT_STREQ(t, "0\n");
	free(t);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/trigger", "!traceoff", O_TRUNC), 9);
	ASSERT_EQ(write_rel_flags("tracing_on", "1", O_TRUNC), 1);

	/* Disabled with a trigger on it: soft mode, the writes succeed, nothing is stored. */
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "0", O_TRUNC), 1);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/trigger", "traceon", O_TRUNC), 7);
	t = read_rel_alloc("events/user_events/nt_ev/enable");
	ASSERT_TRUE(t != NULL);
	EXPECT_STREQ(t, "0*\n");
	free(t);
	ASSERT_EQ(ue_nt_ev_write(20, 0, 0, 0, "sm"), 0);
	ASSERT_EQ(drained(), 0);
	EXPECT_EQ(trace_count("nt_ev: a=0x14 (20) "), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/trigger", "!traceon", O_TRUNC), 8);
	EXPECT_ERRNO(ue_nt_ev_write(21, 0, 0, 0, "sm"), EBADF);
	ue_provider_close(p);
}

/* The drain applies the event's filter, as the writev path does. */
TEST(filter_applies_to_native_records)
{
	static const char filter[] = "a & 1 && s ~ \"o*\"";
	struct ue_provider *p = open_p(0);
	char line[512];

	ASSERT_TRUE(p);
	ASSERT_TRUE(ue_provider_native(p));
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/filter", filter, O_TRUNC),
		  (int)strlen(filter));
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	/* Odd a with s "on": a = 3, 9, 15 pass; then a = 99 (odd, "on") ends the run. */
	for (uint32_t a = 0; a < 20; a++)
		ASSERT_EQ(ue_nt_ev_write(a, 0, 0, 0, a % 3 ? "no" : "on"), 0);
	ASSERT_EQ(ue_nt_ev_write(99, 0, 0, 0, "on"), 0);
	ASSERT_EQ(trace_wait("nt_ev: a=0x63 (99)", 1), 1);
	EXPECT_EQ(trace_count("nt_ev: "), 4);
	EXPECT_EQ(trace_count("nt_ev: a=0x3 (3) "), 1);
	EXPECT_EQ(trace_count("nt_ev: a=0x9 (9) "), 1);
	EXPECT_EQ(trace_count("nt_ev: a=0xf (15) "), 1);
	/* Cleared, everything passes again. */
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/filter", "0", O_TRUNC), 1);
	ASSERT_EQ(ue_nt_ev_write(2, 0, 0, 0, "no"), 0);
	ASSERT_EQ(trace_wait("nt_ev: a=0x2 (2) ", 1), 1);
	EXPECT_EQ(line_of("nt_ev: a=0x2 (2) ", line, sizeof(line)), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "0", O_TRUNC), 1);
	ue_provider_close(p);
}


/*
 * A full ring waits for the drain while its heartbeat is fresh: once the
 * daemon has been stopped long enough (UE_RING_WAIT_STALE_NS), writes are
 * refused at once.
 */
TEST(full_ring_drops_never_blocks)
{
	struct ue_provider *p = open_p(0);
	int ok = 0, full = 0, other = 0;
	long long dropped;
	char needle[64];

	/* Never SIGSTOP the daemon without the native path: writev would wait. */
	ASSERT_TRUE(p && ue_provider_native(p));
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(write_rel_flags("buffer_size_kb", "16384", O_TRUNC), 5);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	ASSERT_EQ(ue_nt_ev_write(0, 0, 0, 0, "warm"), 0);	/* the thread's ring */
	ASSERT_EQ(trace_wait("s=warm", 1), 1);
	dropped = stat_value("native_dropped_ring_full");
	ASSERT_GE(dropped, 0);
	ASSERT_EQ(stop_daemon(), 0);
	/* The daemon's 1 MiB ring holds 16384 records of 64 bytes (32 + 20 + 5, aligned). */
	for (uint32_t i = 0; i < 20000; i++) {
		int r = ue_nt_ev_write(i, 1, 2, 3, "full");

		ok += r == 0;
		full += r == -ENOBUFS;
		other += r != 0 && r != -ENOBUFS;
	}
	ASSERT_EQ(kill(daemon_pid, SIGCONT), 0);
	EXPECT_EQ(other, 0);
	EXPECT_EQ(ok, 16384);
	EXPECT_EQ(full, 20000 - 16384);
	snprintf(needle, sizeof(needle), "s=full\n");
	EXPECT_EQ(trace_wait(needle, ok), ok);
	/* Every refused write is counted where a tracer looks. */
	EXPECT_EQ(stat_value("native_dropped_ring_full") - dropped, full);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "0", O_TRUNC), 1);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ue_provider_close(p);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * Every native record is stamped with CLOCK_MONOTONIC as the trace clock
 * says (mono), whether the producer read the clock or the CPU's counter
 * (native_rings_tsc, where the kernel keeps time with it; lib-native-mono
 * runs this file again with USEREVENTSD_TSC=0): record i's time lies
 * between the clock read before write i and the one before write i + 1,
 * to the microsecond the trace shows (rounded, as the kernel's ns2usecs()).
 */
#define STAMPS 3000
TEST(stamps_are_the_monotonic_clock)
{
	static uint64_t before[STAMPS + 1];
	struct ue_provider *p = open_p(0);
	const char *env = getenv("USEREVENTSD_TSC");
	char *t, *l, cs[16] = "";
	int seen = 0, bad = 0;
	double off = 0, gap = 0;
	long long tsc_rings;
	FILE *f;

	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	for (int i = 0; i < STAMPS; i++) {
		before[i] = mono_ns();
		ASSERT_EQ(ue_nt_ev_write((uint32_t)i, 0, 0, 0, "ts"), 0);
	}
	before[STAMPS] = mono_ns();
	ASSERT_EQ(trace_wait("s=ts\n", STAMPS), STAMPS);
	/* The counter is what the daemon offers where the kernel's clocksource is it. */
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (f) {
		if (!fgets(cs, sizeof(cs), f))
			cs[0] = 0;
		fclose(f);
	}
	tsc_rings = stat_value("native_rings_tsc");
#if defined(__x86_64__)
	if (!strcmp(cs, "tsc\n") && !(env && !strcmp(env, "0")))
		EXPECT_TRUE(tsc_rings >= 1);
	else
		EXPECT_EQ(tsc_rings, 0);
#else
	EXPECT_EQ(tsc_rings, 0);
#endif
	printf("# clocksource %.*s, native_rings_tsc %lld\n", (int)strcspn(cs, "\n"), cs, tsc_rings);
	t = read_rel_alloc("trace");
	ASSERT_TRUE(t != NULL);
	for (l = t; (l = strstr(l, ": nt_ev: a=")); l++) {
		const char *ts = l;
		unsigned long long sec, usec, us;
		unsigned int i;
		const char *a = strchr(l, '(');

		while (ts > t && ts[-1] != ' ')
			ts--;
		if (sscanf(ts, "%llu.%6llu:", &sec, &usec) != 2 || !a || sscanf(a, "(%u)", &i) != 1 ||
		    i >= STAMPS) {
			bad++;
			continue;
		}
		us = sec * 1000000ull + usec;
		/*
		 * The trace shows microseconds, rounded: the record's within
		 * [before, next before], give or take the microsecond a time
		 * tens of nanoseconds off (an anchor's error) may round to.
		 */
		if (us + 1 < (before[i] + 500) / 1000 || us > (before[i + 1] + 500) / 1000 + 1) {
			if (bad++ < 5)
				printf("# record %u at %llu us, written between %llu and %llu ns\n", i, us,
				     (unsigned long long)before[i], (unsigned long long)before[i + 1]);
		}
		off += (double)us * 1000 - (double)before[i];
		gap += (double)(before[i + 1] - before[i]);
		seen++;
	}
	free(t);
	EXPECT_EQ(seen, STAMPS);
	EXPECT_EQ(bad, 0);
	/*
	 * Nanoseconds, on average: rounding to microseconds is off by -500 to
	 * 500 ns, which over 3,000 records averages out to within ~5 ns (one
	 * standard deviation).  Each stamp lies in its interval, so their mean
	 * offset lies in the intervals' mean: a stamp read off the wrong line
	 * by tens of nanoseconds (the stamp comes ~30 ns before the next read
	 * here) shows past those 20 ns.
	 */
	if (seen) {
		off /= seen;
		gap /= seen;
		printf("# a record's time after the clock read before its write: %.0f ns on average; "
		       "from one such read to the next: %.0f ns\n", off, gap);
		EXPECT_TRUE(off > -20 && off < gap + 20);
	}
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "0", O_TRUNC), 1);
	ue_provider_close(p);
}

/* A record's CPU is the one its writer ran on (rseq's cpu_id, or sched_getcpu()). */
TEST(record_cpu_is_the_writers)
{
	struct ue_provider *p = open_p(0);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu = ncpu > 1 ? (int)ncpu - 1 : 0, n = 0, other = 0;
	cpu_set_t set, old;
	char want[16], *t, *l;

	ASSERT_TRUE(p != NULL);
	ASSERT_EQ(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	for (int i = 0; i < 50; i++)
		ASSERT_EQ(ue_nt_ev_write((uint32_t)i, 0, 0, 0, "cpu"), 0);
	ASSERT_EQ(sched_setaffinity(0, sizeof(old), &old), 0);
	ASSERT_EQ(trace_wait("s=cpu\n", 50), 50);
	snprintf(want, sizeof(want), "[%03d]", cpu);
	t = read_rel_alloc("trace");
	ASSERT_TRUE(t != NULL);
	for (l = t; (l = strstr(l, "s=cpu\n")); l++) {
		const char *b = l;

		while (b > t && b[-1] != '\n')
			b--;
		if (strstr(b, want) && strstr(b, want) < l)
			n++;
		else
			other++;
	}
	free(t);
	EXPECT_EQ(n, 50);
	EXPECT_EQ(other, 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "0", O_TRUNC), 1);
	ue_provider_close(p);
}

static void *thread_writes(void *arg)
{
	intptr_t bad = 0;

	(void)arg;
	for (uint32_t i = 0; i < 1000; i++)
		bad += ue_nt_ev_write(i, 0, 0, 0, "thr") != 0;
	return (void *)bad;
}

TEST(threads_and_fork)
{
	struct ue_provider *p = open_p(0);
	pthread_t th[3];
	void *bad;
	int status;
	pid_t pid;

	ASSERT_TRUE(p);
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	ASSERT_EQ(ue_nt_ev_write(1, 1, 1, 1, "parent"), 0);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(pthread_create(&th[i], NULL, thread_writes, NULL), 0);
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], &bad);
		EXPECT_EQ((intptr_t)bad, 0);
	}
	EXPECT_EQ(trace_wait("s=thr\n", 3000), 3000);
	pid = fork();
	if (pid == 0)
		_exit(ue_nt_ev_write(2, 2, 2, 2, "child") != 0);
	ASSERT_GE(pid, 0);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	EXPECT_EQ(trace_wait("s=child\n", 1), 1);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "0", O_TRUNC), 1);
	ue_provider_close(p);
}

/* Last: the daemon is killed. */
TEST(daemon_death_fails_writes)
{
	struct ue_provider *p = open_p(0);
	int r = 0;

	ASSERT_TRUE(p && ue_provider_native(p));
	ASSERT_EQ(ue_nt_ev_register(p), 0);
	ASSERT_EQ(write_rel_flags("events/user_events/nt_ev/enable", "1", O_TRUNC), 1);
	ASSERT_EQ(ue_nt_ev_write(1, 2, 3, 4, "alive"), 0);
	daemon_killed = true;
	ASSERT_EQ(kill(daemon_pid, SIGKILL), 0);
	/* Within a second (the heartbeat), writes fail; they never block. */
	for (int i = 0; i < 200 && r == 0; i++) {
		r = ue_nt_ev_write(1, 2, 3, 4, "dead");
		usleep(10000);
	}
	EXPECT_ERRNO(r, EPIPE);
	EXPECT_ERRNO(ue_nt_ev_write(1, 2, 3, 4, "dead"), EPIPE);
	ue_provider_close(p);
}

UE_TEST_MAIN()
