// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * soak: usereventsd under a steady mixed load for SOAK_SECONDS (default 5):
 * provider processes come and go, their threads open, register, write,
 * unregister and close; a tracer flips enable files; a reader drains
 * trace_pipe, pausing now and then so the ring overruns.  Checks that every
 * successful write is a record read or counted as overrun/dropped, and that the
 * daemon's RSS and descriptors stay flat after warm-up.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "common/daemon.h"

#define NEVENTS 8
#define PER_THREAD 3		/* events a thread registers at a time */
/* Allowed growth after warm-up: RSS in KiB and descriptors. */
#define RSS_SLACK_KB 8192
#define FD_SLACK 32

struct shared {
	atomic_long writes_ok;
	atomic_long writes_disabled;	/* EBADF: the event was not enabled */
	atomic_long unexpected;
	atomic_int unexpected_errno;
	atomic_int unexpected_where;	/* line of the last one */
	atomic_long regs;
	atomic_long opens;
	atomic_int stop;
};

static struct shared *sh;
static unsigned int seconds = 5, nproviders = 3, nthreads = 3;
static atomic_int tracer_stop, reader_stop;
static atomic_long records_read, records_unknown, pipe_busy;

static void unexpected_at(int err, int line)
{
	atomic_fetch_add(&sh->unexpected, 1);
	atomic_store(&sh->unexpected_errno, err);
	atomic_store(&sh->unexpected_where, line);
}
#define unexpected(err) unexpected_at(err, __LINE__)

static void *provider_thread(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg ^ (unsigned int)gettid();
	long end = now_ms() + 500 + rand_r(&seed) % 1500;
	/*
	 * Enablers belong to the process, not the file: words left registered
	 * stay in use until the process exits, so each cycle that leaves them
	 * takes new ones.
	 */
	uint32_t slots[64][PER_THREAD];
	unsigned int slot = 0;

	while (now_ms() < end && !atomic_load(&sh->stop) && slot < 64) {
		uint32_t *words = slots[slot];
		int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
		uint32_t idx[PER_THREAD];
		int n = 0;

		if (fd < 0) {
			unexpected(errno);
			usleep(10000);
			continue;
		}
		atomic_fetch_add(&sh->opens, 1);
		for (int i = 0; i < PER_THREAD; i++) {
			char name_args[64];
			int r;

			snprintf(name_args, sizeof(name_args), "soak_e%u u32 seq; u32 tid",
				 rand_r(&seed) % NEVENTS);
			words[i] = 0;
			r = reg_at(fd, name_args, &words[i], 0, &idx[i]);
			if (r < 0) {
				unexpected(-r);
				break;
			}
			atomic_fetch_add(&sh->regs, 1);
			n++;
		}
		for (int it = 0; it < 100 && !atomic_load(&sh->stop); it++) {
			for (int i = 0; i < n; i++) {
				uint32_t payload[2] = { (uint32_t)it, (uint32_t)gettid() };
				struct iovec io[2] = { { &idx[i], sizeof(idx[i]) },
						       { payload, sizeof(payload) } };
				/* Mostly as a real provider (only when enabled), sometimes blind. */
				bool on = __atomic_load_n(&words[i], __ATOMIC_RELAXED) & 1;

				if (!on && rand_r(&seed) % 8)
					continue;
				if (writev(fd, io, 2) == (ssize_t)(sizeof(idx[i]) + sizeof(payload)))
					atomic_fetch_add(&sh->writes_ok, 1);
				else if (errno == EBADF)
					atomic_fetch_add(&sh->writes_disabled, 1);
				else
					unexpected(errno);
			}
			usleep(1000);
		}
		/* Now and then the process's exit does the unregistering. */
		if (rand_r(&seed) % 4 == 0)
			slot++;
		else
			for (int i = 0; i < n; i++)
				if (unreg_at(fd, &words[i], 0) < 0)
					unexpected(errno);
		close(fd);
	}
	return NULL;
}

static void provider(void)
{
	pthread_t t[16];

	for (unsigned int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, provider_thread, (void *)(uintptr_t)i);
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

static void *tracer(void *arg)
{
	unsigned int seed = 1;
	char rel[128];

	(void)arg;
	while (!atomic_load(&tracer_stop)) {
		snprintf(rel, sizeof(rel), "events/user_events/soak_e%u/enable",
			 rand_r(&seed) % NEVENTS);
		/* ENOENT while nobody has the event registered. */
		write_rel(rel, rand_r(&seed) % 3 ? "1" : "0");
		if (rand_r(&seed) % 200 == 0)
			write_rel("events/user_events/enable", "0");
		usleep(2000);
	}
	return NULL;
}

/*
 * Records in what trace_pipe returned: every line but the ring's "CPU:N [LOST
 * M EVENTS]" ones (a record of an event deleted since is "Unknown type N");
 * lines may span reads.
 */
static long count_records(const char *b, ssize_t n)
{
	static char line[4096];
	static size_t len;
	long c = 0;

	for (ssize_t i = 0; i < n; i++) {
		if (b[i] != '\n') {
			if (len < sizeof(line) - 1)
				line[len++] = b[i];
			continue;
		}
		line[len] = '\0';
		if (strncmp(line, "CPU:", 4) != 0 || !strstr(line, " [LOST "))
			c++;
		if (strncmp(line, "Unknown type ", 13) == 0)
			atomic_fetch_add(&records_unknown, 1);
		len = 0;
	}
	return c;
}

/* Drains trace_pipe; pauses now and then; reopens it between whole lines. */
static void *reader(void *arg)
{
	static char buf[65536];
	unsigned int seed = 2;
	long pause_at = now_ms() + 1000;
	int idle = 0, fd = -1;
	bool reopen = false;

	(void)arg;
	for (;;) {
		struct pollfd p;
		ssize_t r;

		/* The release of the previous open may still be on its way. */
		for (int i = 0; fd < 0 && i < 100; i++) {
			fd = open(path("trace_pipe"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd < 0 && errno == EBUSY) {
				atomic_fetch_add(&pipe_busy, 1);
				usleep(10000);
			}
			else
				break;
		}
		if (fd < 0) {
			unexpected(errno);
			return NULL;
		}
		if (now_ms() > pause_at && !atomic_load(&reader_stop)) {
			usleep(300000);
			pause_at = now_ms() + 1000 + rand_r(&seed) % 2000;
		}
		p.fd = fd;
		p.events = POLLIN;
		poll(&p, 1, 100);
		r = read(fd, buf, sizeof(buf));
		if (r > 0) {
			atomic_fetch_add(&records_read, count_records(buf, r));
			idle = 0;
			reopen = reopen || rand_r(&seed) % 50 == 0;
			continue;
		}
		if (r < 0 && errno != EAGAIN)
			unexpected(errno);
		/* Only once a read found nothing: no cut line is pending. */
		if (reopen) {
			close(fd);
			fd = -1;
			reopen = false;
		}
		/* Stopped and nothing for a while: everything written was read. */
		if (atomic_load(&reader_stop) && ++idle >= 5)
			break;
	}
	close(fd);
	return NULL;
}

/* Sum of one field over per_cpu/cpuN/stats. */
static long long stats_sum(const char *key)
{
	long long sum = 0;

	for (int cpu = 0;; cpu++) {
		char rel[64], line[256];
		FILE *f;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
		f = fopen(path(rel), "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, key, strlen(key)) == 0)
				sum += atoll(line + strlen(key));
		fclose(f);
	}
	return sum;
}

__attribute__((constructor)) static void setup(void)
{
	seconds = env_uint("SOAK_SECONDS", 5, 86400);
	nproviders = env_uint("SOAK_PROVIDERS", 3, 64);
	nthreads = env_uint("SOAK_THREADS", 3, 16);
	/*
	 * ASan's quarantine holds up to 256 MiB of freed memory: bound it so
	 * that RSS growth means a leak, not the quarantine filling.
	 */
	asan_quarantine_bound();
	/* A small ring, so that the reader's pauses overrun it. */
	daemon_setup("buffer_size_kb=64,max_events=256");
}

/*
 * Keeps nproviders provider processes alive until sh->stop, then reaps
 * them.  It runs in a process of its own, forked before the test starts
 * any thread: a child forked from a multi-threaded process may inherit a
 * lock another thread held (ASan's allocator, seen here) and hang.
 */
static void spawner(long end_ms, pid_t *provs, atomic_long *respawns)
{
	while (now_ms() < end_ms && !atomic_load(&sh->stop)) {
		for (unsigned int i = 0; i < nproviders; i++) {
			if (provs[i] > 0 && waitpid(provs[i], NULL, WNOHANG) != provs[i])
				continue;
			provs[i] = fork();
			if (provs[i] == 0)
				provider();
			atomic_fetch_add(respawns, 1);
		}
		usleep(20000);
	}
	atomic_store(&sh->stop, 1);
	/* A failed fork left -1: waitpid(-1) would reap nothing of ours. */
	for (unsigned int i = 0; i < nproviders; i++)
		if (provs[i] > 0)
			waitpid(provs[i], NULL, 0);
	_exit(0);
}

TEST(soak)
{
	long start = now_ms(), end = start + seconds * 1000L, warm_end = start + seconds * 1000L / 3;
	long rss_warm = 0, rss_late = 0, fd_warm = 0, fd_late = 0, fd_base, fd_final, rss;
	long long overrun, dropped, entries, read_ev;
	pthread_t tr, rd;
	pid_t *provs, spawn;
	atomic_long *respawns;
	int st;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	respawns = mmap(NULL, sizeof(*respawns), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	ASSERT_TRUE(respawns != MAP_FAILED);
	provs = calloc(nproviders, sizeof(*provs));
	ASSERT_TRUE(provs != NULL);
	fd_base = proc_fd_count(daemon_pid);
	printf("# %u s, %u providers x %u threads; daemon at start: %ld KiB RSS, %ld fds\n",
	       seconds, nproviders, nthreads, proc_status_kb(daemon_pid, "VmRSS:"), fd_base);
	spawn = fork();
	ASSERT_GE(spawn, 0);
	if (spawn == 0)
		spawner(end, provs, respawns);
	pthread_create(&rd, NULL, reader, NULL);
	pthread_create(&tr, NULL, tracer, NULL);
	for (long next = now_ms(); now_ms() < end;) {
		if (now_ms() >= next) {
			long f = proc_fd_count(daemon_pid);

			rss = proc_status_kb(daemon_pid, "VmRSS:");
			ASSERT_GE(rss, 0);
			if (now_ms() < warm_end) {
				rss_warm = rss > rss_warm ? rss : rss_warm;
				fd_warm = f > fd_warm ? f : fd_warm;
			} else {
				rss_late = rss > rss_late ? rss : rss_late;
				fd_late = f > fd_late ? f : fd_late;
			}
			next += 250;
		}
		usleep(20000);
	}
	atomic_store(&sh->stop, 1);
	ASSERT_EQ(waitpid(spawn, &st, 0), spawn);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	atomic_store(&tracer_stop, 1);
	pthread_join(tr, NULL);
	/*
	 * Disable what is left.  With every provider gone and nothing enabled,
	 * no event may be left: the kernel then has no events/user_events/.
	 */
	{
		ssize_t w = write_rel("events/user_events/enable", "0");

		EXPECT_TRUE(w == 1 || w == -ENOENT);
	}
	atomic_store(&reader_stop, 1);
	pthread_join(rd, NULL);

	overrun = stats_sum("overrun:");
	dropped = stats_sum("dropped events:");
	entries = stats_sum("entries:");
	read_ev = stats_sum("read events:");
	printf("# %ld provider processes, %ld opens, %ld registrations, %ld writes ok, "
	       "%ld refused (disabled)\n", atomic_load(respawns), atomic_load(&sh->opens),
	       atomic_load(&sh->regs), atomic_load(&sh->writes_ok),
	       atomic_load(&sh->writes_disabled));
	printf("# records read %ld (%ld of deleted events), overrun %lld, dropped %lld, left %lld "
	       "(stats: read %lld)\n", atomic_load(&records_read), atomic_load(&records_unknown),
	       overrun, dropped, entries, read_ev);
	/* The kernel releases trace_pipe within close(); FUSE releases it after. */
	printf("# trace_pipe reopened after its close was still busy %ld times\n",
	       atomic_load(&pipe_busy));
	EXPECT_EQ(atomic_load(&sh->unexpected), 0);
	if (atomic_load(&sh->unexpected))
		printf("# last unexpected errno: %s at line %d\n",
		       strerror(atomic_load(&sh->unexpected_errno)),
		       atomic_load(&sh->unexpected_where));
	EXPECT_GE(atomic_load(&sh->writes_ok), 1);
	EXPECT_EQ(atomic_load(&records_read), read_ev);
	/* Nothing lost that was not counted. */
	EXPECT_EQ(atomic_load(&sh->writes_ok), atomic_load(&records_read) + overrun + dropped + entries);

	/* Quiet again: the handles on exited processes go with the next sweep. */
	usleep(1500000);
	fd_final = proc_fd_count(daemon_pid);
	rss = proc_status_kb(daemon_pid, "VmRSS:");
	printf("# RSS KiB: warm-up max %ld, later max %ld, end %ld; fds: start %ld, warm-up max "
	       "%ld, later max %ld, end %ld\n", rss_warm, rss_late, rss, fd_base, fd_warm, fd_late,
	       fd_final);
	EXPECT_LT(rss_late, rss_warm + RSS_SLACK_KB + rss_warm / 10);
	EXPECT_LT(fd_late, fd_warm + FD_SLACK);
	EXPECT_LT(fd_final, fd_base + 4);
	free(provs);
	still_serving("soak_after");
}

UE_TEST_MAIN()
