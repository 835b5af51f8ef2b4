// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_races: clients that race the daemon against itself.  Many threads
 * unregister, close and fork on the same events while a tracer flips them
 * (the race class of the kernel's use-after-free in user_event_enabler_dup);
 * a thread whose ioctls are hit by signals over and over (FUSE sends
 * INTERRUPT requests); a client whose memory stalls (a FUSE-backed page) while
 * everyone else registers and enables.  Run under ASan by make asan-check.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"
#include "common/stallfs.h"

__attribute__((constructor)) static void setup(void)
{
	/* Under ASan, a bounded quarantine: RSS growth then means a leak. */
	asan_quarantine_bound();
	daemon_setup("max_events=256");
}

/* Lines of user_events_status naming one of our events: none once all let go. */
static int status_lines(const char *prefix)
{
	char line[512];
	FILE *f = fopen(path("user_events_status"), "re");
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strncmp(line, prefix, strlen(prefix)) == 0;
	if (f)
		fclose(f);
	return n;
}

#define RACE_THREADS 8
#define RACE_EVENTS 4
#define RACE_MS 1500

static atomic_int race_stop;
static atomic_long race_unexpected, race_forks, race_regs;
static atomic_int race_errno;

static void race_fail(int err)
{
	atomic_fetch_add(&race_unexpected, 1);
	atomic_store(&race_errno, err);
}

static void *race_thread(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	uint32_t words[RACE_EVENTS];

	while (!atomic_load(&race_stop)) {
		int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
		int n = 0;

		if (fd < 0) {
			race_fail(errno);
			continue;
		}
		for (int i = 0; i < RACE_EVENTS; i++) {
			char name_args[64];
			int r;

			snprintf(name_args, sizeof(name_args), "race_e%d u32 v", i);
			words[i] = 0;
			r = reg_at(fd, name_args, &words[i], 0, NULL);
			if (r < 0) {
				race_fail(-r);
				break;
			}
			atomic_fetch_add(&race_regs, 1);
			n++;
		}
		if (rand_r(&seed) % 4 == 0) {
			/* The child inherits the enablers; it lets them go its own way. */
			pid_t pid = fork();

			if (pid == 0) {
				int bad = 0;

				for (int i = 0; i < n; i++) {
					int r = unreg_at(fd, &words[i], 0);

					/* Its copy may not be confirmed yet: ENOENT. */
					bad += r != 0 && r != -ENOENT;
				}
				_exit(bad ? 1 : 0);
			}
			if (pid > 0) {
				int st;

				atomic_fetch_add(&race_forks, 1);
				waitpid(pid, &st, 0);
				if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
					race_fail(ECHILD);
			}
		}
		for (int i = 0; i < n; i++) {
			int r = unreg_at(fd, &words[i], 0);

			if (r < 0)
				race_fail(-r);
		}
		close(fd);
	}
	return NULL;
}

static void *race_tracer(void *arg)
{
	unsigned int seed = 7;
	char rel[128];

	(void)arg;
	while (!atomic_load(&race_stop)) {
		snprintf(rel, sizeof(rel), "events/user_events/race_e%u/enable",
			 rand_r(&seed) % RACE_EVENTS);
		write_rel(rel, rand_r(&seed) % 2 ? "1" : "0");
	}
	return NULL;
}

TEST(unregister_fork_close_race)
{
	pthread_t t[RACE_THREADS], tr;

	for (int i = 0; i < RACE_THREADS; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, race_thread, (void *)(uintptr_t)(i + 1)), 0);
	ASSERT_EQ(pthread_create(&tr, NULL, race_tracer, NULL), 0);
	usleep(RACE_MS * 1000);
	atomic_store(&race_stop, 1);
	for (int i = 0; i < RACE_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_join(tr, NULL);
	printf("# %ld registrations, %ld forks, %ld unexpected (last: %s)\n",
	       atomic_load(&race_regs), atomic_load(&race_forks), atomic_load(&race_unexpected),
	       strerror(atomic_load(&race_errno)));
	EXPECT_EQ(atomic_load(&race_unexpected), 0);
	EXPECT_GE(atomic_load(&race_forks), 1);
	/* Disabled and unregistered everywhere: every event goes. */
	for (int i = 0; i < RACE_EVENTS; i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "events/user_events/race_e%d/enable", i);
		write_rel(rel, "0");
	}
	for (int i = 0; i < 100 && status_lines("race_e") > 0; i++)
		usleep(20000);
	EXPECT_EQ(status_lines("race_e"), 0);
	still_serving("after_race");
}

/*
 * Allowed RSS growth over the signal storm; ASan's quarantine and caches fill
 * as it runs (its leak check at the daemon's exit covers that build).
 */
#ifdef __SANITIZE_ADDRESS__
#define RSS_SLACK_KB 16384
#else
#define RSS_SLACK_KB 4096
#endif

static void on_alarm(int sig)
{
	(void)sig;
}

static atomic_int sig_stop;
static atomic_long sig_calls, sig_bad;
static atomic_int sig_errno;

static void *sig_thread(void *arg)
{
	static uint32_t words[16];
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);

	(void)arg;
	if (fd < 0) {
		atomic_fetch_add(&sig_bad, 1);
		return NULL;
	}
	for (unsigned int i = 0; !atomic_load(&sig_stop); i++) {
		char name_args[64];
		int r;

		/* New events too, so the daemon does its longest work under fire. */
		snprintf(name_args, sizeof(name_args), "sig_e%u u32 v; char s[8]", i % 16);
		r = reg_at(fd, name_args, &words[i % 16], 0, NULL);
		if (r == 0)
			r = unreg_at(fd, &words[i % 16], 0);
		atomic_fetch_add(&sig_calls, 1);
		if (r != 0) {
			atomic_fetch_add(&sig_bad, 1);
			atomic_store(&sig_errno, -r);
		}
	}
	close(fd);
	return NULL;
}

TEST(signals_interrupt_ioctls)
{
	struct sigaction sa;
	pthread_t t;
	long rss0, rss1, signals = 0, end;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: an EINTR would show */
	ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	/* Warm up once, so the comparison below sees steady state. */
	ASSERT_EQ(pthread_create(&t, NULL, sig_thread, NULL), 0);
	usleep(200000);
	rss0 = proc_status_kb(daemon_pid, "VmRSS:");
	end = now_ms() + 1500;
	while (now_ms() < end) {
		pthread_kill(t, SIGALRM);
		signals++;
		usleep(50);
	}
	atomic_store(&sig_stop, 1);
	pthread_join(t, NULL);
	rss1 = proc_status_kb(daemon_pid, "VmRSS:");
	printf("# %ld signals over %ld register+unregister pairs, %ld failed (last: %s); "
	       "daemon RSS %ld -> %ld KiB\n", signals, atomic_load(&sig_calls),
	       atomic_load(&sig_bad), strerror(atomic_load(&sig_errno)), rss0, rss1);
	/* The daemon answers each ioctl; an interrupt never loses or doubles one. */
	EXPECT_EQ(atomic_load(&sig_bad), 0);
	EXPECT_GE(atomic_load(&sig_calls), 10);
	EXPECT_LT(rss1, rss0 + RSS_SLACK_KB);
	for (int i = 0; i < 100 && status_lines("sig_e") > 0; i++)
		usleep(20000);
	EXPECT_EQ(status_lines("sig_e"), 0);
	still_serving("after_signals");
}

/*
 * The stalling client: registers on an ordinary page, maps the FUSE file over
 * it, then registers again with name_args inside the stalled page (its own
 * ioctl waits on its own memory).  Reports through @ready.
 */
static void stalled_client(int ready)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *page = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	int ffd = open(stallfs_file(), O_RDWR | O_CLOEXEC);

	if (page == MAP_FAILED || fd < 0 || ffd < 0)
		_exit(2);
	memset(page, 0, (size_t)pg);
	if (reg_at(fd, "stall_word u32 v", page + 64, 0, NULL) < 0)
		_exit(3);
	if (mmap(page, (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, ffd, 0) ==
	    MAP_FAILED)
		_exit(4);
	if (write(ready, "r", 1) != 1)
		_exit(5);
	/* name_args from the stalled page: waits here until the page is released. */
	_exit(reg_at(fd, page, page + 128, 0, NULL) == 0 ? 0 : 6);
}

TEST(stalled_memory_delays_nobody)
{
	int p[2], status;
	char c;
	pid_t pid;
	long t0, enable_ms, serve_ms;
	int r = stallfs_start("stall_named u32 v");

	if (r < 0) {
		printf("# cannot mount a stalling FUSE file system (%d): not exercised\n", r);
		return;
	}
	ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
	stallfs_stall();
	pid = fork();
	if (pid == 0)
		stalled_client(p[1]);
	ASSERT_EQ(read(p[0], &c, 1), 1);
	/* Let its second registration reach the stall. */
	for (int i = 0; i < 200 && stallfs_reads() == 0; i++)
		usleep(10000);
	EXPECT_GE(stallfs_reads(), 1);
	/* Enabling its first event writes into the stalled page: must not wait for it. */
	t0 = now_ms();
	EXPECT_EQ(write_rel("events/user_events/stall_word/enable", "1"), 1);
	enable_ms = now_ms() - t0;
	t0 = now_ms();
	still_serving("beside_stall");
	serve_ms = now_ms() - t0;
	EXPECT_EQ(write_rel("events/user_events/stall_word/enable", "0"), 1);
	printf("# enable beside a stalled client %ld ms, another client's cycle %ld ms\n",
	       enable_ms, serve_ms);
	EXPECT_LT(enable_ms, 2000);
	EXPECT_LT(serve_ms, 2000);
	/* Still stalled: the client's own ioctl has not returned. */
	EXPECT_EQ(waitpid(pid, &status, WNOHANG), 0);
	stallfs_release();
	status = wait_for(pid, 5000);
	EXPECT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(p[0]);
	close(p[1]);
	stallfs_stop();
	still_serving("after_stall");
}

UE_TEST_MAIN()
