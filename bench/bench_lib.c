// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * bench_lib: libuserevents against usereventsd ($USEREVENTS_TRACEFS), one
 * event of four u32 and a short string: the disabled check, writev, the
 * native path and a bare write(2) to /dev/null; then two producer threads
 * into a 64 MiB-per-CPU discard buffer; then enable propagation to 1, 100
 * and 1,000 registered processes.  Prints "bench: NAME NS_PER_EVENT" lines.
 *   bench_lib [all | latency | throughput | propagation | native | pipe | cacheline]
 * ("native": the native case, write_devnull and pipe_roundtrip only;
 * "pipe": pipe_roundtrip only; "cacheline": a cache line's round trip
 * between CPU 0 and CPU 1, no daemon needed).  $BENCH_PIPE_CHILD_CPU=N: the round trip's
 * child runs on CPU N (bench/run places it as it places the daemon for a
 * FUSE write: the same CPU as the writer, or the other one).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "userevents/userevents.h"

UE_EVENT(bench_ev, UE_U32(a), UE_U32(b), UE_U32(c), UE_U32(d), UE_STR(s))

#define ROUNDS 101
#define PER_ROUND 8192		/* half a native ring: no round can fill it */

static const char *tracefs;

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

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct result {
	const char *name;
	double med, min, max;
	unsigned long errors;
};

static struct result results[16];
static int nresults;

static void report(const char *name, double *ns, int n, unsigned long errors)
{
	struct result *r = &results[nresults++];

	qsort(ns, (size_t)n, sizeof(*ns), cmp_d);
	r->name = name;
	r->med = ns[n / 2];
	r->min = ns[0];
	r->max = ns[n - 1];
	r->errors = errors;
	printf("%-22s median %8.2f ns  min %8.2f  max %8.2f  errors %lu\n", name, r->med, r->min,
	       r->max, errors);
}

static volatile uint32_t sink;

static void bench_disabled(void)
{
	double ns[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < PER_ROUND * 16; i++) {
			if (ue_bench_ev_enabled())
				sink++;
			__asm__ volatile("" ::: "memory");
		}
		ns[r] = (double)(now_ns() - t0) / (PER_ROUND * 16);
	}
	report("disabled", ns, ROUNDS, 0);
}

/*
 * A round whose events found the native ring full (the drain thread was
 * starved of CPU) is run again after a longer pause: the median is of
 * rounds where every event was recorded.  Other errors are counted.
 */
static void bench_writes(const char *name, int per_round, int pause_us)
{
	double ns[ROUNDS];
	unsigned long errors = 0, redone = 0;

	for (int r = 0; r < ROUNDS; r++) {
		unsigned long full = 0;
		uint64_t t0 = now_ns();

		for (int i = 0; i < per_round; i++) {
			if (ue_bench_ev_enabled()) {
				int e = ue_bench_ev_write((uint32_t)i, 2, 3, 4, "eth0");

				full += e == -ENOBUFS;
				errors += e && e != -ENOBUFS;
			}
		}
		ns[r] = (double)(now_ns() - t0) / per_round;
		if (pause_us)
			usleep(pause_us);	/* the drain empties the ring between rounds */
		if (full && redone < 10 * ROUNDS) {
			redone++;
			r--;
			usleep(20000);
		}
	}
	if (redone)
		printf("# %s: %lu rounds run again after the ring was full\n", name, redone);
	report(name, ns, ROUNDS, errors);
}

static void bench_devnull(void)
{
	double ns[ROUNDS];
	char buf[40] = { 0 };
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < 2048; i++)
			if (write(fd, buf, sizeof(buf)) != sizeof(buf))
				abort();
		ns[r] = (double)(now_ns() - t0) / 2048;
	}
	close(fd);
	report("write_devnull", ns, ROUNDS, 0);
}

/*
 * The floor of any cross-process round trip here, a FUSE request's
 * included: one byte to a child through a pipe and back (two wakeups, four
 * system calls, as a FUSE write and its reply).
 */
static void bench_pipe_roundtrip(void)
{
	double ns[ROUNDS];
	int to[2], from[2];
	char c = 0;
	pid_t pid;

	if (pipe(to) < 0 || pipe(from) < 0)
		abort();
	pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		const char *cpu = getenv("BENCH_PIPE_CHILD_CPU");

		if (cpu) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(atoi(cpu), &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0)
				_exit(1);
		}
		close(to[1]);	/* so that the parent's close ends the loop */
		close(from[0]);
		while (read(to[0], &c, 1) == 1)
			if (write(from[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < 256; i++)
			if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
				abort();
		ns[r] = (double)(now_ns() - t0) / 256;
	}
	close(to[1]);
	waitpid(pid, NULL, 0);
	close(to[0]);
	close(from[0]);
	close(from[1]);
	report("pipe_roundtrip", ns, ROUNDS, 0);
}

/*
 * What the machine is today: a cache line handed from CPU 0 to CPU 1 and
 * back.  Every recorded event crosses the CPUs this way (the producer's
 * ring line read by the drain, the page by the reader), and where the
 * hypervisor placed the two vCPUs (one core's threads, one CCX, two)
 * moves it several times over from one machine or hour to the next.
 */
static _Atomic long pingpong __attribute__((aligned(64)));

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

#define PINGS 200000
static void *pong(void *arg)
{
	(void)arg;
	pin_self(1);
	for (long i = 1; i < 2 * PINGS * 11; i += 2) {
		while (atomic_load(&pingpong) != i)
			;
		atomic_store(&pingpong, i + 1);
	}
	return NULL;
}

static void bench_cacheline(void)
{
	double ns[11];
	pthread_t t;
	long v = 0;

	pin_self(0);
	if (pthread_create(&t, NULL, pong, NULL) != 0)
		abort();
	for (int r = 0; r < 11; r++) {
		uint64_t t0 = now_ns();

		for (int i = 0; i < PINGS; i++, v += 2) {
			while (atomic_load(&pingpong) != v)
				;
			atomic_store(&pingpong, v + 1);
		}
		ns[r] = (double)(now_ns() - t0) / PINGS;
	}
	pthread_join(t, NULL);
	report("cacheline_roundtrip", ns, 11, 0);
}

/* Two producers: every event is retried until the ring takes it, so none is lost. */
#define TP_EVENTS 250000

static void *producer(void *arg)
{
	unsigned long *retries = arg;

	for (uint32_t i = 0; i < TP_EVENTS; i++) {
		int r;

		while ((r = ue_bench_ev_write(i, 2, 3, 4, "eth0")) == -ENOBUFS) {
			(*retries)++;
			sched_yield();
		}
		if (r)
			abort();
	}
	return NULL;
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

/*
 * One 2-producer run is ~0.1 s: on a loaded machine a single run says little,
 * so TP_RUNS of them are made (the trace emptied in between) and the median
 * is reported.
 */
#define TP_RUNS 5

/*
 * @filter: NULL, or a filter set on the event for the runs ("a & 1" passes
 * every other record: the producers write a = 0, 1, 2...), so the drain's
 * cost of matching shows against the unfiltered rate.  The rate counts
 * every record written, passed or not.
 */
static void bench_throughput(const char *filter, const char *key)
{
	unsigned long long total = 2ull * TP_EVENTS, lost = 0;
	unsigned long long want = filter ? total / 2 : total;
	double rec[TP_RUNS], off[TP_RUNS];

	tfs_write("options/overwrite", "0");
	tfs_write("buffer_size_kb", "65536");
	if (filter && tfs_write("events/user_events/bench_ev/filter", filter) < 0) {
		printf("# throughput: cannot set the filter '%s'\n", filter);
		return;
	}
	for (int run = 0; run < TP_RUNS; run++) {
		unsigned long retries[2] = { 0, 0 };
		unsigned long long entries, dropped;
		pthread_t th[2];
		uint64_t t0, t_off, t1;

		tfs_write("trace", "");
		usleep(100000);		/* as after any pause: the drain thread is idle */
		t0 = now_ns();
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, producer, &retries[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		/* What LTTng-UST's number is: the producers' rate. */
		t_off = now_ns();
		/* Done when every record that passes is in the trace buffer. */
		for (int i = 0;
		     i < 3000 && stat_sum("entries: ") + stat_sum("dropped events: ") < want; i++)
			usleep(1000);
		t1 = now_ns();
		entries = stat_sum("entries: ");
		dropped = stat_sum("dropped events: ");
		rec[run] = (double)total * 1e3 / (double)(t1 - t0);
		off[run] = (double)total * 1e3 / (double)(t_off - t0);
		lost += want - entries;
		printf("# run %d: %.2f M events/s recorded, %.2f offered, %llu of %llu recorded, "
		       "%llu dropped, %lu+%lu ring-full retries\n",
		       run + 1, rec[run], off[run], entries, want, dropped, retries[0],
		       retries[1]);
	}
	qsort(rec, TP_RUNS, sizeof(rec[0]), cmp_d);
	qsort(off, TP_RUNS, sizeof(off[0]), cmp_d);
	printf("throughput (2 threads, native, 64 MiB/CPU discard%s%s%s): %.2f M events/s "
	       "(median of %d runs; %.2f offered), %llu of %llu lost\n",
	       filter ? ", filter '" : "", filter ? filter : "", filter ? "'" : "",
	       rec[TP_RUNS / 2], TP_RUNS, off[TP_RUNS / 2], lost, want * TP_RUNS);
	printf("bench: %s_meps %.2f\n", key, rec[TP_RUNS / 2]);
	printf("bench: %s_offered_meps %.2f\n", key, off[TP_RUNS / 2]);
	printf("bench: %s_lost %llu\n", key, lost);
	if (filter)
		tfs_write("events/user_events/bench_ev/filter", "0");
	tfs_write("trace", "");
	tfs_write("buffer_size_kb", "1410");
	tfs_write("options/overwrite", "1");
}

/* N processes register; the time "1" > enable takes; then each checks its bit. */
static void bench_propagation(int nproc)
{
	struct shared {
		int ready;
		int set;
	} *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2];
	pid_t *pids = calloc((size_t)nproc, sizeof(*pids));
	uint64_t t0, t1;

	if (sh == MAP_FAILED || !pids || pipe(go) < 0)
		abort();
	memset(sh, 0, sizeof(*sh));
	tfs_write("events/user_events/bench_prop/enable", "0");
	for (int i = 0; i < nproc; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			static struct ue_tracepoint tp = { .name_args = "bench_prop u32 a" };
			struct ue_provider_opts o = { .sz = sizeof(o), .flags = UE_PROVIDER_NO_NATIVE };
			struct ue_provider *p;
			char c;

			close(go[1]);
			if (ue_provider_open(&o, &p) < 0 || ue_tracepoint_register(p, &tp, NULL) < 0)
				_exit(1);
			__atomic_add_fetch(&sh->ready, 1, __ATOMIC_SEQ_CST);
			if (read(go[0], &c, 1) < 0)
				_exit(1);
			if (ue_tracepoint_enabled(&tp))
				__atomic_add_fetch(&sh->set, 1, __ATOMIC_SEQ_CST);
			_exit(0);
		}
	}
	close(go[0]);
	while (__atomic_load_n(&sh->ready, __ATOMIC_SEQ_CST) < nproc)
		usleep(1000);
	t0 = now_ns();
	tfs_write("events/user_events/bench_prop/enable", "1");
	t1 = now_ns();
	close(go[1]);
	for (int i = 0; i < nproc; i++)
		waitpid(pids[i], NULL, 0);
	printf("enable propagation to %4d processes: %8.3f ms  (%d of %d bits set on return)\n",
	       nproc, (double)(t1 - t0) / 1e6, sh->set, nproc);
	printf("bench: enable_propagation_%d_ms %.3f\n", nproc, (double)(t1 - t0) / 1e6);
	tfs_write("events/user_events/bench_prop/enable", "0");
	munmap(sh, 4096);
	free(pids);
}

int main(int argc, char **argv)
{
	struct ue_provider_opts wo = { .sz = sizeof(wo), .flags = UE_PROVIDER_NO_NATIVE };
	struct ue_provider *pw, *pn;
	const char *only = argc > 1 ? argv[1] : "all";

	if (!strcmp(only, "cacheline")) {
		if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
			return 0;
		bench_cacheline();
		printf("bench: cacheline_roundtrip %.1f\n", results[0].med);
		return 0;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	tracefs = getenv("USEREVENTS_TRACEFS");
	if (!tracefs) {
		fprintf(stderr, "bench_lib: set USEREVENTS_TRACEFS to a usereventsd mount\n");
		return 2;
	}
	if (ue_provider_open(&wo, &pw) < 0 || ue_provider_open(NULL, &pn) < 0 ||
	    !ue_provider_native(pn)) {
		fprintf(stderr, "bench_lib: no usereventsd with the native path at %s\n", tracefs);
		return 1;
	}
	if (!strcmp(only, "pipe")) {
		bench_pipe_roundtrip();
		printf("bench: pipe_roundtrip %.2f\n", results[0].med);
		return 0;
	}
	/* "native": that case, write_devnull and pipe_roundtrip (bench/run alternates them with bench_raw). */
	if (!strcmp(only, "all") || !strcmp(only, "latency") || !strcmp(only, "native")) {
		if (strcmp(only, "native")) {
			if (ue_bench_ev_register(pw) < 0)
				return 1;
			bench_disabled();
			tfs_write("events/user_events/bench_ev/enable", "1");
			bench_writes("writev_usereventsd", 256, 0);
			tfs_write("trace", "");
			ue_bench_ev_unregister();
		}
		if (ue_bench_ev_register(pn) < 0)
			return 1;
		tfs_write("events/user_events/bench_ev/enable", "1");
		bench_writes("native", PER_ROUND, 3000);
		bench_devnull();
		bench_pipe_roundtrip();
		tfs_write("trace", "");
		for (int i = 0; i < nresults; i++)
			printf("bench: %s %.2f\n", results[i].name, results[i].med);
	}
	if (!strcmp(only, "all") || !strcmp(only, "throughput")) {
		if (!ue_bench_ev_enabled()) {
			ue_bench_ev_register(pn);
			tfs_write("events/user_events/bench_ev/enable", "1");
		}
		bench_throughput(NULL, "throughput_2threads");
		bench_throughput("a & 1", "throughput_2threads_filtered");
	}
	if (!strcmp(only, "all") || !strcmp(only, "propagation")) {
		bench_propagation(1);
		bench_propagation(100);
		bench_propagation(1000);
	}
	ue_provider_close(pn);
	ue_provider_close(pw);
	return 0;
}
