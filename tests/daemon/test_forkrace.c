// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_forkrace: what a fork child inherits is not written into it unless
 * its events' state changed since the fork, as in the kernel.  A parent
 * that holds enablers on words it has reused (stack words of a returned
 * frame, left registered as programs do) forks; the child reuses those
 * words too.  Before, every confirmation of a child wrote every inherited
 * bit: it cleared bits in the child's live stack, which crashed workers
 * (SIGSEGV) or renamed the events they registered (records "under another
 * worker's event"), most often under CPU load, when confirmations come
 * late.  One deterministic test, one with siblings under load (hogs here).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

#define WORKERS 8
#define WRITES 20
#define ROUNDS 6
#define HOGS 3

__attribute__((constructor)) static void setup(void)
{
	daemon_setup(NULL);
}

static int data_open(void)
{
	return open(path("user_events_data"), O_RDWR | O_CLOEXEC);
}

static int write_u32(int fd, uint32_t idx, uint32_t v)
{
	struct iovec io[2] = { { &idx, sizeof(idx) }, { &v, sizeof(v) } };

	return writev(fd, io, 2) == (ssize_t)(sizeof(idx) + sizeof(v)) ? 0 : -errno;
}

static int count_in(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

#define WORDS 16

/*
 * The parent (mode 0) registers enablers on words of this frame and leaves
 * them: they stay the process's, as in the kernel, and fork children
 * inherit them.  A child (mode 1) calls it at the same depth, so the same
 * words are its own stack again: it reuses them (all bits set), registers
 * and writes an event of its own (the daemon proves and confirms it) and
 * finds its frame as it left it: the events' state did not change since
 * the fork, so the kernel writes nothing there.  Return: 0, or what broke.
 */
static __attribute__((noinline)) int frame(int fd, int mode, const char *own, int *ret_bad)
{
	volatile uint32_t w[WORDS];
	char na[64];
	uint32_t idx, ow = 0;

	if (mode == 0) {
		for (int i = 0; i < WORDS; i++) {
			w[i] = 0;
			/* Left by the test before, at the same address perhaps. */
			unreg_at(fd, (void *)&w[i], 0);
			snprintf(na, sizeof(na), "frHeld%d u32 x", i);
			if (reg_at(fd, na, (void *)&w[i], 0, &idx) < 0)
				return 1;
		}
		/* Enabled and disabled while the words are this frame's. */
		for (int i = 0; i < WORDS; i++) {
			snprintf(na, sizeof(na), "events/user_events/frHeld%d/enable", i);
			if (write_rel(na, "1") < 0 || !bit_becomes((uint32_t *)&w[i], 1) ||
			    write_rel(na, "0") < 0 || !bit_becomes((uint32_t *)&w[i], 0))
				return 2;
		}
		/* /proc counts the children's start times in ticks: some after these. */
		usleep(50000);
		return 0;
	}
	/* At once, before the daemon can have confirmed the fork. */
	for (int i = 0; i < WORDS; i++)
		w[i] = ~0u;
	fd = data_open();
	snprintf(na, sizeof(na), "%s u32 x", own);
	if (fd < 0 || reg_at(fd, na, &ow, 0, &idx) < 0)
		return 2;
	if (!(__atomic_load_n(&ow, __ATOMIC_SEQ_CST) & 1))
		return 3;
	for (int i = 0; i < WRITES; i++)
		*ret_bad |= write_u32(fd, idx, (uint32_t)i);
	/* The daemon's writers are asynchronous: give a wrong write time to land. */
	usleep(200000);
	for (int i = 0; i < WORDS; i++)
		if (w[i] != ~0u)
			return 10 + i;
	return 0;
}

/*
 * The parent (mode 0) and the children (mode 1) call frame() from here,
 * and here from the same test function: its words are at the same address.
 */
static __attribute__((noinline)) int level(int fd, int mode, const char *own)
{
	int bad = 0, r = frame(fd, mode, own, &bad);

	if (mode == 0)
		return r;
	_exit(r ? r : bad ? 4 : 0);
}

static pid_t hog(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		alarm(120);
		for (volatile unsigned long i = 0;; i++)
			;
	}
	return pid;
}

static void arm(int s, const char *line)
{
	ASSERT_EQ(write(s, line, strlen(line)), (ssize_t)strlen(line));
}

/* Toggles frHeld@i: 0 or -1. */
static int toggle(int i, const char *first, const char *then)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "events/user_events/frHeld%d/enable", i);
	return write_rel(rel, first) < 0 || write_rel(rel, then) < 0 ? -1 : 0;
}

/*
 * One child, no load, deterministic: the parent registers enablers on
 * words, enables and disables their events, then uses the words for
 * itself (all bits set) and forks while they stay as they are, so the
 * child is proven.  Nothing changes the events' state after the fork: the
 * kernel writes nothing into the child, so its words stay as the fork left
 * them (every confirmation wrote every enabler's state before).  A change
 * after that is still written into the child, as the kernel does.
 */
static __attribute__((noinline)) int fork_with_words(int fd)
{
	volatile uint32_t w[WORDS];
	char na[64];
	uint32_t idx, ow = 0;
	int sync[2], go[2], st = -1, bad = 0;
	pid_t pid;
	char c;

	for (int i = 0; i < WORDS; i++) {
		w[i] = 0;
		snprintf(na, sizeof(na), "frHeld%d u32 x", i);
		if (reg_at(fd, na, (void *)&w[i], 0, &idx) < 0)
			return -1;
		if (toggle(i, "1", "0") < 0 || !bit_becomes((uint32_t *)&w[i], 0))
			return -2;
	}
	for (int i = 0; i < WORDS; i++)
		w[i] = ~0u;
	/* The child's start time in /proc counts clock ticks: the toggles are ticks before it. */
	usleep(50000);
	if (pipe(sync) < 0 || pipe(go) < 0)
		return -3;
	pid = fork();
	if (pid == 0) {
		fd = data_open();
		if (fd < 0 || reg_at(fd, "frOwn0 u32 x", &ow, 0, &idx) < 0)
			_exit(2);
		for (int i = 0; i < WRITES; i++)
			bad |= write_u32(fd, idx, (uint32_t)i);
		/* The daemon's writers are asynchronous: give a wrong write time to land. */
		usleep(300000);
		for (int i = 0; i < WORDS; i++)
			if (w[i] != ~0u)
				_exit(10 + i);
		/* Inherited all the same: the parent disables frHeld0 again. */
		if (write(sync[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(!bit_becomes((uint32_t *)&w[0], 0) ? 5 : bad ? 4 : 0);
	}
	/* Only the child writes sync and reads go: its exit ends the parent's read. */
	close(sync[1]);
	close(go[0]);
	if (pid > 0 && read(sync[0], &c, 1) == 1) {
		if (toggle(0, "1", "0") < 0)
			bad = 1;
		if (write(go[1], "x", 1) != 1)
			bad = 1;
	}
	if (pid > 0 && waitpid(pid, &st, 0) != pid)
		st = -1;
	for (int i = 0; i < WORDS; i++)
		unreg_at(fd, (void *)&w[i], 0);
	close(sync[0]);
	close(go[1]);
	return bad ? -4 : st;
}

TEST(unchanged_state_not_written_into_a_fork_child)
{
	int fd = data_open(), s = open(path("usereventsd_session"), O_RDWR | O_CLOEXEC), st;

	ASSERT_GE(fd, 0);
	ASSERT_GE(s, 0);
	arm(s, "arm frOwn*");
	st = fork_with_words(fd);
	if (st > 0 && WIFEXITED(st) && WEXITSTATUS(st) >= 10)
		printf("# the child's word %d was written\n", WEXITSTATUS(st) - 10);
	EXPECT_EQ(st, 0);
	EXPECT_EQ(trace_count(" frOwn0: "), WRITES);
	close(s);
	close(fd);
	/* frOwn0 goes with the session and its id is given again: its records go too. */
	for (int i = 0; i < 100 && access(path("events/user_events/frOwn0"), F_OK) == 0; i++)
		usleep(20000);
	EXPECT_GE(write_rel_flags("trace", "", O_TRUNC), 0);
}

/*
 * The bug as seen: siblings forked at once from that parent, under CPU
 * load (the confirmations come late, after the children reused their
 * stacks): clearing bits there renamed events (records under another
 * worker's event) or crashed a worker.
 */
TEST(siblings_of_a_parent_with_enablers)
{
	int fd = data_open(), s = open(path("usereventsd_session"), O_RDWR | O_CLOEXEC);
	int fails = 0, wrong = 0;
	pid_t hogs[HOGS], pids[WORKERS];
	char own[WORKERS][32], needle[300], *t;

	ASSERT_GE(fd, 0);
	ASSERT_GE(s, 0);
	arm(s, "arm frSib*");
	ASSERT_EQ(level(fd, 0, NULL), 0);
	for (int h = 0; h < HOGS; h++)
		hogs[h] = hog();
	for (int round = 0; round < ROUNDS; round++) {
		for (int k = 0; k < WORKERS; k++)
			snprintf(own[k], sizeof(own[k]), "frSib%dw%d", round, k);
		for (int k = 0; k < WORKERS; k++) {
			pids[k] = fork();
			ASSERT_GE(pids[k], 0);
			if (pids[k] == 0)
				level(-1, 1, own[k]);
		}
		for (int k = 0; k < WORKERS; k++) {
			int st;

			if (waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) ||
			    WEXITSTATUS(st)) {
				printf("# round %d worker %d: status %#x\n", round, k, st);
				fails++;
			}
		}
		/* Every write returned before its process was reaped: all are in the buffer. */
		t = read_rel_alloc("trace");
		ASSERT_TRUE(t != NULL);
		for (int k = 0; k < WORKERS; k++) {
			snprintf(needle, sizeof(needle), " %s: ", own[k]);
			if (count_in(t, needle) != WRITES) {
				printf("# %s has %d records, not %d\n", own[k], count_in(t, needle),
				       WRITES);
				wrong++;
			}
		}
		free(t);
	}
	for (int h = 0; h < HOGS; h++) {
		kill(hogs[h], SIGKILL);
		waitpid(hogs[h], NULL, 0);
	}
	EXPECT_EQ(fails, 0);
	EXPECT_EQ(wrong, 0);
	close(s);
	close(fd);
}

UE_TEST_MAIN()
