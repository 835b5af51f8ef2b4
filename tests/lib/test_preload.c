// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuserevents-preload.so against a real usereventsd: this program re-runs
 * itself under LD_PRELOAD=$UE_PRELOAD and writes user_events_data through
 * the raw ABI.  A provider that dups, closes, forks, execs, spawns, runs
 * threads that end and writes from signal handlers has every event recorded;
 * a hostile thread's bad vectors get the kernel's errnos and leave another
 * thread's events whole; the program's own SIGSEGV handler still works.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

extern char **environ;

#define EV "pl_ev u32 n; u32 tag"

static uint32_t word;		/* the enable word of EV in this process */

static int open_data(void)
{
	return open(path("user_events_data"), O_RDWR | O_CLOEXEC);
}

/* One event through writev: [index][n][tag]; the byte count, or -errno. */
static ssize_t put(int fd, uint32_t idx, uint32_t n, uint32_t tag)
{
	uint32_t v[2] = { n, tag };
	struct iovec iov[2] = { { &idx, sizeof(idx) }, { v, sizeof(v) } };
	ssize_t r = writev(fd, iov, 2);

	return r < 0 ? -errno : r;
}

/* The exec'd child: the inherited file (its index unknown here), then its own. */
static void exec_child(int fd, uint32_t idx, int k)
{
	uint32_t own = 0, oidx;
	int bad = 0, ofd;

	for (int i = 0; i < k; i++)
		bad += put(fd, idx, (uint32_t)i, 5) != 12;
	ofd = open_data();
	if (ofd < 0 || reg_at(ofd, EV, &own, 0, &oidx) < 0 || !bit_becomes(&own, 1))
		_exit(3);
	for (int i = 0; i < k; i++)
		bad += put(ofd, oidx, (uint32_t)i, 6) != 12;
	_exit(bad ? 4 : 0);
}

__attribute__((constructor)) static void setup(int argc, char **argv)
{
	const char *pre = getenv("UE_PRELOAD");

	if (argc == 6 && strcmp(argv[1], "--exec-child") == 0) {
		snprintf(mnt, sizeof(mnt), "%s", argv[5]);
		exec_child(atoi(argv[2]), (uint32_t)atoi(argv[3]), atoi(argv[4]));
	}
	/* Once more under the interposer, before the daemon starts. */
	if (pre && *pre && !getenv("UE_PRELOADED")) {
		setenv("LD_PRELOAD", pre, 1);
		setenv("UE_PRELOADED", "1", 1);
		execv("/proc/self/exe", argv);
		printf("Bail out! cannot exec myself: %s\n", strerror(errno));
		exit(1);
	}
	daemon_setup(NULL);
}

static int fd_main;
static uint32_t idx_main;
static volatile sig_atomic_t sig_ok, sig_bad;

static void on_alarm(int sig)
{
	int e = errno;

	(void)sig;
	if (put(fd_main, idx_main, 0, 2) == 12)
		sig_ok = sig_ok + 1;
	else
		sig_bad = sig_bad + 1;
	errno = e;
}

static void *thread_writer(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < 40; i++)
		bad += put(fd_main, idx_main, (uint32_t)i, 3) != 12;
	return (void *)bad;
}

/* The interposer must serve (else this test would prove nothing about it). */
static long long interposed(void)
{
	return stat_of("native_records_interposed");
}

TEST(provider_lifecycle)
{
	long long before = interposed();
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	int expected = 0, dfd, dfd2, dfd3, st, bad = 0;
	char sfd[16], sidx[16];
	pid_t pid;

	ASSERT_GE(before, 0);
	/* Room for every record: what the buffer overwrites would not be seen. */
	ASSERT_GE(write_rel("buffer_size_kb", "8192"), 1);
	ASSERT_GE(write_rel_flags("trace", "", O_TRUNC), 0);
	fd_main = open(path("user_events_data"), O_RDWR);	/* no O_CLOEXEC: the exec child's */
	ASSERT_GE(fd_main, 0);
	ASSERT_EQ(reg_at(fd_main, EV, &word, 0, &idx_main), 0);
	ASSERT_EQ(write_rel("events/user_events/pl_ev/enable", "1"), 1);
	ASSERT_TRUE(bit_becomes(&word, 1));

	for (int i = 0; i < 1000; i++)
		bad += put(fd_main, idx_main, (uint32_t)i, 1) != 12;
	expected += 1000;

	/* Duplicates name the same file; closing one leaves the others. */
	dfd = dup(fd_main);
	dfd2 = dup2(fd_main, 200);
	dfd3 = fcntl(fd_main, F_DUPFD_CLOEXEC, 300);
	ASSERT_GE(dfd, 0);
	ASSERT_EQ(dfd2, 200);
	ASSERT_GE(dfd3, 300);
	EXPECT_EQ(put(dfd, idx_main, 1, 1), 12);
	EXPECT_EQ(put(dfd2, idx_main, 2, 1), 12);
	EXPECT_EQ(put(dfd3, idx_main, 3, 1), 12);
	expected += 3;
	ASSERT_EQ(close(dfd), 0);
	EXPECT_EQ(put(dfd, idx_main, 1, 1), -EBADF);
	EXPECT_EQ(put(dfd2, idx_main, 2, 1), 12);
	expected++;
	/* The number reused by another file: not user_events_data any more. */
	ASSERT_EQ(dup2(STDERR_FILENO, 200), 200);
	EXPECT_EQ(put(dfd3, idx_main, 3, 1), 12);
	expected++;
	close(dfd3);
	close(200);

	/* Signal handlers write too, interrupting writes of the same thread. */
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 10000; i++)
		bad += put(fd_main, idx_main, (uint32_t)i, 1) != 12;
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_DFL);
	expected += 10000;
	EXPECT_EQ(sig_bad, 0);
	EXPECT_GE(sig_ok, 1);
	expected += sig_ok;

	/* A fork child writes through its own session; the parent keeps its own. */
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int b = 0;

		for (int i = 0; i < 1000; i++)
			b += put(fd_main, idx_main, (uint32_t)i, 4) != 12;
		_exit(b ? 1 : 0);
	}
	for (int i = 0; i < 1000; i++)
		bad += put(fd_main, idx_main, (uint32_t)i, 1) != 12;
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	expected += 2000;

	/* exec: the interposer comes along in the environment. */
	snprintf(sfd, sizeof(sfd), "%d", fd_main);
	snprintf(sidx, sizeof(sidx), "%u", idx_main);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		char *args[] = { "self", "--exec-child", sfd, sidx, "300", mnt, NULL };

		execv("/proc/self/exe", args);
		_exit(2);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	expected += 600;

	/* vfork()-style spawns leave the parent's table alone. */
	{
		char *args[] = { "true", NULL };
		posix_spawn_file_actions_t fa;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, fd_main);
		ASSERT_EQ(posix_spawnp(&pid, "true", &fa, NULL, args, environ), 0);
		posix_spawn_file_actions_destroy(&fa);
		ASSERT_EQ(waitpid(pid, &st, 0), pid);
		EXPECT_EQ(put(fd_main, idx_main, 9, 1), 12);
		expected++;
	}

	/* Threads that start and end, more of them than the daemon's rings per session. */
	for (int round = 0; round < 80; round++) {
		pthread_t t[4];
		void *res;

		for (int i = 0; i < 4; i++)
			ASSERT_EQ(pthread_create(&t[i], NULL, thread_writer, NULL), 0);
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], &res);
			bad += (int)(long)res;
		}
		expected += 4 * 40;
	}

	EXPECT_EQ(bad, 0);
	EXPECT_EQ(trace_wait("pl_ev:", expected), expected);
	EXPECT_EQ(stat_of("native_dropped_ring_full"), 0);
	EXPECT_EQ(stat_of("native_invalid"), 0);
	/* Most of it came through the rings, not FUSE. */
	EXPECT_GE(interposed() - before, expected / 2);
	printf("# %d events, %lld through the interposer\n", expected, interposed() - before);
	ASSERT_EQ(unreg_at(fd_main, &word, 0), 0);
	close(fd_main);
	ASSERT_EQ(write_rel("events/user_events/pl_ev/enable", "0"), 1);
}

/* ---- hostile vectors ---- */

/* A cleared trace and event @name (@fields) on a new descriptor, enabled: the descriptor, or -1. */
static int fresh_enabled(const char *name, const char *fields, uint32_t *en_word, uint32_t *idx)
{
	char args[128], en[128];
	int fd;

	snprintf(args, sizeof(args), "%s %s", name, fields);
	snprintf(en, sizeof(en), "events/user_events/%s/enable", name);
	if (write_rel_flags("trace", "", O_TRUNC) < 0)
		return -1;
	fd = open_data();
	if (fd >= 0 && (reg_at(fd, args, en_word, 0, idx) < 0 || write_rel(en, "1") != 1 ||
			!bit_becomes(en_word, 1))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int hfd;
static uint32_t hidx;
static volatile int hostile_stop;
static struct iovec shared_iov[3];

static void *good_writer(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < 20000; i++)
		bad += put(hfd, hidx, (uint32_t)i, 7) != 12;
	return (void *)bad;
}

/* Changes the lengths of a vector another thread is writing. */
static void *flipper(void *arg)
{
	(void)arg;
	while (!hostile_stop) {
		shared_iov[1].iov_len = 4;
		shared_iov[1].iov_len = 4000;
		shared_iov[2].iov_len = 1u << 30;
		shared_iov[2].iov_len = 4;
	}
	return NULL;
}

/* Through a pointer: the compiler must not judge the bad arguments, the kernel does. */
static ssize_t (*volatile writev_p)(int, const struct iovec *, int) = writev;

static ssize_t wv(const struct iovec *iov, int n)
{
	ssize_t r = writev_p(hfd, iov, n);

	return r < 0 ? -errno : r;
}

TEST(hostile_vectors)
{
	void *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t v[2] = { 1, 2 }, hword = 0;
	static char big[8192];
	struct iovec iov[3];
	pthread_t good, flip;
	void *res;
	ssize_t r;

	ASSERT_TRUE(unmapped != MAP_FAILED);
	hfd = fresh_enabled("pl_hev", "u32 n; u32 tag", &hword, &hidx);
	ASSERT_GE(hfd, 0);
	ASSERT_EQ(pthread_create(&good, NULL, good_writer, NULL), 0);

	iov[0] = (struct iovec){ &hidx, 4 };
	iov[1] = (struct iovec){ unmapped, 8 };
	EXPECT_EQ(wv(iov, 2), -EFAULT);			/* unmapped payload */
	iov[1] = (struct iovec){ NULL, 8 };
	EXPECT_EQ(wv(iov, 2), -EFAULT);			/* NULL payload */
	iov[1] = (struct iovec){ (void *)0xffff888000000000ull, 8 };
	EXPECT_EQ(wv(iov, 2), -EFAULT);			/* a kernel address */
	iov[1] = (struct iovec){ v, (size_t)-1 };
	EXPECT_EQ(wv(iov, 2), -EINVAL);			/* a negative length */
	iov[0] = (struct iovec){ unmapped, 4 };
	iov[1] = (struct iovec){ v, 8 };
	EXPECT_EQ(wv(iov, 2), -EFAULT);			/* unmapped index */
	EXPECT_EQ(wv(unmapped, 2), -EFAULT);		/* unmapped vector */
	EXPECT_EQ(wv(NULL, 1), -EFAULT);
	EXPECT_EQ(wv(iov, -1), -EINVAL);
	EXPECT_EQ(wv(iov, 1025), -EINVAL);
	EXPECT_EQ(wv(iov, 0), 0);
	iov[0] = (struct iovec){ &hidx, 0 };
	EXPECT_EQ(wv(iov, 1), 0);			/* nothing to write */
	iov[0] = (struct iovec){ &hidx, 2 };
	EXPECT_EQ(wv(iov, 1), -EFAULT);			/* half an index */
	iov[0] = (struct iovec){ &hidx, 4 };
	iov[1] = (struct iovec){ v, 4 };
	EXPECT_EQ(wv(iov, 2), -EINVAL);			/* short payload */
	r = write(hfd, v, 0);
	EXPECT_EQ(r < 0 ? -errno : r, -EFAULT);		/* zero-length write(2) */
	memcpy(big, &hidx, 4);
	memcpy(big + 4, v, 8);
	r = pwrite(hfd, big, 12, 0);
	EXPECT_EQ(r < 0 ? -errno : r, 12);
	r = pwrite(hfd, big, 12, 1);
	EXPECT_EQ(r < 0 ? -errno : r, -EFAULT);
	r = pwrite(hfd, big, 12, -1);
	EXPECT_EQ(r < 0 ? -errno : r, -EINVAL);
	iov[0] = (struct iovec){ big, 12 };
	r = pwritev(hfd, iov, 1, 4);
	EXPECT_EQ(r < 0 ? -errno : r, 12);

	/* A vector whose lengths change under the write: only this thread's ring sees it. */
	shared_iov[0] = (struct iovec){ &hidx, 4 };
	shared_iov[1] = (struct iovec){ big + 4, 4 };
	shared_iov[2] = (struct iovec){ big + 8, 4 };
	ASSERT_EQ(pthread_create(&flip, NULL, flipper, NULL), 0);
	for (int i = 0; i < 20000; i++) {
		r = wv(shared_iov, 3);
		if (r != 12 && r != 4008 && r != -EFAULT && r != -EINVAL && r > 0 &&
		    r != (ssize_t)(1u << 30))
			EXPECT_EQ(r, 12);
	}
	hostile_stop = 1;
	pthread_join(flip, NULL);
	pthread_join(good, &res);
	EXPECT_EQ((long)res, 0);
	EXPECT_EQ(trace_wait("tag=0x7 ", 20000), 20000);
	EXPECT_EQ(stat_of("native_invalid"), 0);
	ASSERT_EQ(unreg_at(hfd, &hword, 0), 0);
	close(hfd);
}

/*
 * An enable word the program unmapped after registering it: the writer's
 * look at it faults, and the system call answers (the daemon still has
 * the event enabled: the record is written), not EFAULT, not a crash.
 */
TEST(unmapped_enable_word)
{
	uint32_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t idx, v[2] = { 5, 9 };
	struct iovec iov[2];
	int fd;

	ASSERT_TRUE(page != MAP_FAILED);
	fd = fresh_enabled("pl_unen", "u32 n; u32 tag", page, &idx);
	ASSERT_GE(fd, 0);
	iov[0] = (struct iovec){ &idx, 4 };
	iov[1] = (struct iovec){ v, 8 };
	EXPECT_EQ(writev(fd, iov, 2), 12);
	ASSERT_EQ(munmap(page, 4096), 0);
	EXPECT_EQ(writev(fd, iov, 2), 12);
	EXPECT_EQ(trace_wait("tag=0x9 ", 2), 2);
	close(fd);
	EXPECT_EQ(write_rel("events/user_events/pl_unen/enable", "0"), 1);
}

/*
 * The shapes of a vector the writer takes apart: the index split, the
 * index and payload in one piece, empty pieces, more pieces than the
 * writer reads at once (PL_SNAP_IOV, 8): each record whole, in the ring.
 */
TEST(vector_shapes)
{
	unsigned char b[12], one[12];
	uint32_t sword = 0, sidx, v[2] = { 7, 8 };
	long long before = interposed();
	struct iovec iov[16];
	int fd, shapes = 0;

	fd = fresh_enabled("pl_sev", "u32 n; u32 tag", &sword, &sidx);
	ASSERT_GE(fd, 0);
	memcpy(b, &sidx, 4);
	memcpy(b + 4, v, 8);
	for (int k = 0; k < 10; k++) {
		/* [1 byte of the index][3 more and the payload] */
		iov[0] = (struct iovec){ b, 1 };
		iov[1] = (struct iovec){ b + 1, 11 };
		EXPECT_EQ(writev(fd, iov, 2), 12);
		/* all in one piece, as write(2) */
		iov[0] = (struct iovec){ b, 12 };
		EXPECT_EQ(writev(fd, iov, 1), 12);
		/* empty pieces before, between and after */
		iov[0] = (struct iovec){ NULL, 0 };
		iov[1] = (struct iovec){ b, 4 };
		iov[2] = (struct iovec){ b, 0 };
		iov[3] = (struct iovec){ b + 4, 8 };
		iov[4] = (struct iovec){ NULL, 0 };
		EXPECT_EQ(writev(fd, iov, 5), 12);
		/* one byte a piece: 12 pieces */
		for (int i = 0; i < 12; i++) {
			one[i] = b[i];
			iov[i] = (struct iovec){ &one[i], 1 };
		}
		EXPECT_EQ(writev(fd, iov, 12), 12);
		/* index, then 8 pieces of 1 byte and empty ones: 16 pieces */
		iov[0] = (struct iovec){ b, 4 };
		for (int i = 0; i < 8; i++) {
			iov[1 + 2 * i] = (struct iovec){ b + 4 + i, 1 };
			if (i < 7)
				iov[2 + 2 * i] = (struct iovec){ NULL, 0 };
		}
		EXPECT_EQ(writev(fd, iov, 16), 12);
		shapes = 5;
	}
	EXPECT_EQ(trace_wait("pl_sev: n=0x7 (7) tag=0x8 (8)\n", 10 * shapes), 10 * shapes);
	EXPECT_EQ(trace_count("pl_sev:"), 10 * shapes);
	EXPECT_GE(interposed() - before, 10 * shapes);
	EXPECT_EQ(stat_of("native_invalid"), 0);
	ASSERT_EQ(unreg_at(fd, &sword, 0), 0);
	close(fd);
	ASSERT_EQ(write_rel("events/user_events/pl_sev/enable", "0"), 1);
}

/* The program's SIGSEGV handler: ours catches the copy's faults only. */
static volatile int *volatile bad_ptr = (volatile int *)8;

static void on_segv(int sig)
{
	(void)sig;
	_exit(42);
}

TEST(program_segv_handler)
{
	pid_t pid = fork();
	int st;

	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_segv };
		uint32_t w = 0, idx, v[2] = { 0, 0 };
		struct iovec iov[2];
		int fd = open_data();

		if (fd < 0 || reg_at(fd, "pl_sev u32 n; u32 tag", &w, 0, &idx) < 0 ||
		    write_rel("events/user_events/pl_sev/enable", "1") != 1 || !bit_becomes(&w, 1))
			_exit(2);
		sigaction(SIGSEGV, &sa, NULL);
		iov[0] = (struct iovec){ &idx, 4 };
		iov[1] = (struct iovec){ NULL, 8 };
		if (writev(fd, iov, 2) != -1 || errno != EFAULT)
			_exit(3);
		iov[1] = (struct iovec){ v, 8 };
		if (writev(fd, iov, 2) != 12)
			_exit(4);
		*bad_ptr = 1;
		_exit(5);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 42);
}

UE_TEST_MAIN()
