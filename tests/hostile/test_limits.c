// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_limits: everything a client can make usereventsd allocate has a limit,
 * answered with an errno instead of growth.  The daemon runs with small
 * limits (max_events, max_files, max_text_mb, max_enablers,
 * max_enabler_processes, max_file_events) so each is reached quickly.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

#define MAX_EVENTS 8
#define MAX_FILES 16
#define MAX_ENABLERS 16
#define MAX_ENABLER_PROCESSES 4
#define MAX_FILE_EVENTS 4

__attribute__((constructor)) static void setup(void)
{
	char opts[256];

	snprintf(opts, sizeof(opts),
		 "max_events=%d,max_files=%d,max_text_mb=1,max_enablers=%d,"
		 "max_enabler_processes=%d,max_file_events=%d",
		 MAX_EVENTS, MAX_FILES, MAX_ENABLERS, MAX_ENABLER_PROCESSES, MAX_FILE_EVENTS);
	daemon_setup(opts);
}

/* Opens @rel until the daemon refuses; returns how many opened and the errno. */
static int open_until_refused(const char *rel, int *fds, int max, int *err)
{
	int n;

	*err = 0;
	for (n = 0; n < max; n++) {
		fds[n] = open(path(rel), O_RDONLY | O_CLOEXEC);
		if (fds[n] < 0) {
			*err = errno;
			break;
		}
	}
	return n;
}

TEST(open_files_emfile)
{
	int fds[MAX_FILES + 4], n, err, fd = -1;

	n = open_until_refused("README", fds, MAX_FILES + 4, &err);
	EXPECT_EQ(n, MAX_FILES);
	EXPECT_EQ(err, EMFILE);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	/* The releases arrive after close() returns. */
	for (int i = 0; i < 200 && fd < 0; i++) {
		fd = open(path("README"), O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			usleep(10000);
	}
	ASSERT_GE(fd, 0);
	close(fd);
	usleep(100000);
	still_serving("limits_files");
}

TEST(events_emfile)
{
	static uint32_t words[MAX_EVENTS + 1];
	/* Two files: one may hold only MAX_FILE_EVENTS events. */
	int fd[2] = { open(path("user_events_data"), O_RDWR | O_CLOEXEC),
		      open(path("user_events_data"), O_RDWR | O_CLOEXEC) };
	char name[64];
	int i;

	ASSERT_GE(fd[0], 0);
	ASSERT_GE(fd[1], 0);
	for (i = 0; i < MAX_EVENTS; i++) {
		snprintf(name, sizeof(name), "lim_ev%d u32 a", i);
		ASSERT_EQ(reg_at(fd[i % 2], name, &words[i], 0, NULL), 0);
	}
	/* The event is refused before the full file's table is looked at, as in the kernel. */
	EXPECT_ERRNO(reg_at(fd[0], "lim_ev_over u32 a", &words[i], 0, NULL), EMFILE);
	for (i = 0; i < MAX_EVENTS; i++)
		EXPECT_EQ(unreg_at(fd[i % 2], &words[i], 0), 0);
	close(fd[0]);
	close(fd[1]);
	/* Without PERSIST the events go with their last reference. */
	for (i = 0; i < 300; i++) {
		struct stat st;

		if (stat(path("events/user_events/lim_ev0"), &st) < 0)
			break;
		usleep(10000);
	}
	still_serving("limits_events");
}

/*
 * Fills the trace with about @bytes of text; the event stays registered
 * (through *@fd and @word) so that the trace can name it.
 */
static void fill_trace(size_t bytes, int *fd, uint32_t *word)
{
	char payload[4 + 200];
	uint32_t idx = 0;

	*fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	ASSERT_GE(*fd, 0);
	ASSERT_EQ(reg_at(*fd, "lim_fill char[200] s", word, 0, &idx), 0);
	ASSERT_EQ(write_rel("events/user_events/lim_fill/enable", "1"), 1);
	memcpy(payload, &idx, 4);
	memset(payload + 4, 'x', 199);
	payload[4 + 199] = '\0';
	for (size_t done = 0; done < bytes; done += 240)
		ASSERT_EQ(write(*fd, payload, sizeof(payload)), (ssize_t)sizeof(payload));
	ASSERT_EQ(write_rel("events/user_events/lim_fill/enable", "0"), 1);
}

TEST(text_snapshots_total_enomem)
{
	static uint32_t word;
	char buf[4096];
	int a, b, fd;

	ASSERT_EQ(write_rel("buffer_size_kb", "2048"), 4);
	fill_trace(600 << 10, &fd, &word);
	a = open(path("trace"), O_RDONLY | O_CLOEXEC);
	b = open(path("trace"), O_RDONLY | O_CLOEXEC);
	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	/* One snapshot of more than half of max_text_mb fits; a second does not. */
	ASSERT_EQ(read(a, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	{
		ssize_t n, total = sizeof(buf);

		while ((n = read(a, buf, sizeof(buf))) > 0)
			total += n;
		ASSERT_GE(total, 600 << 10);
	}
	EXPECT_EQ(read(b, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, ENOMEM);
	close(a);
	usleep(100000);
	EXPECT_EQ(read(b, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(b);
	a = open(path("trace"), O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_GE(a, 0);
	close(a);
	EXPECT_EQ(unreg_at(fd, &word, 0), 0);
	close(fd);
	still_serving("limits_text");
}

/* One byte through a pipe: the two sides of a test take turns. */
static void say_to(int fd, char c)
{
	ASSERT_EQ(write(fd, &c, 1), 1);
}

static char heard(int fd)
{
	char c = 0;

	return read(fd, &c, 1) == 1 ? c : 0;
}

/* A child that must not outlive a failed test: it would keep the mount busy. */
static pid_t fork_child(void)
{
	pid_t pid = fork();

	if (pid == 0)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	return pid;
}

/*
 * One process registers max_enablers bits, the next one is refused with
 * ENOMEM (the kernel's answer when it cannot allocate an enabler) and gets
 * no enabler; other clients are served meanwhile; unregistering one bit
 * makes room for exactly one.
 */
TEST(enablers_per_process_enomem)
{
	int to_child[2], to_parent[2], status;
	pid_t pid;

	ASSERT_EQ(pipe(to_child), 0);
	ASSERT_EQ(pipe(to_parent), 0);
	pid = fork_child();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		static uint32_t w[MAX_ENABLERS + 1];
		int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC), bad = 0, i;

		for (i = 0; i < MAX_ENABLERS; i++)
			bad |= (reg_at(fd, "lim_en u32 a", &w[i], 0, NULL) != 0) << 0;
		bad |= (reg_at(fd, "lim_en u32 a", &w[i], 0, NULL) != -ENOMEM) << 1;
		/* Also for another event: the limit is on the process. */
		bad |= (reg_at(fd, "lim_en2 u32 a", &w[i], 1, NULL) != -ENOMEM) << 2;
		say_to(to_parent[1], 'r');
		if (heard(to_child[0]) != 'g')
			_exit(64);
		/* Enabled: every registered bit is set, the refused one is not. */
		for (i = 0; i < MAX_ENABLERS; i++)
			bad |= !bit_becomes(&w[i], 1) << 3;
		bad |= (w[MAX_ENABLERS] != 0) << 4;
		bad |= (unreg_at(fd, &w[0], 0) != 0) << 5;
		bad |= (w[0] != 0) << 5;
		bad |= (reg_at(fd, "lim_en u32 a", &w[MAX_ENABLERS], 0, NULL) != 0) << 6;
		bad |= (w[MAX_ENABLERS] != 1) << 6;
		bad |= (reg_at(fd, "lim_en u32 a", &w[0], 0, NULL) != -ENOMEM) << 7;
		for (i = 1; i <= MAX_ENABLERS; i++)
			bad |= (unreg_at(fd, &w[i], 0) != 0) << 8;
		close(fd);
		_exit(bad);
	}
	close(to_child[0]);
	close(to_parent[1]);
	ASSERT_EQ(heard(to_parent[0]), 'r');
	/* Another process registers, is enabled and writes while that one is full. */
	still_serving("limits_enablers");
	ASSERT_EQ(write_rel("events/user_events/lim_en/enable", "1"), 1);
	say_to(to_child[1], 'g');
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(to_child[1]);
	close(to_parent[0]);
}

/*
 * max_enabler_processes processes hold enablers: a new process is refused
 * with ENOMEM, those already in keep registering, and one that lets go of
 * its last enabler makes room.
 */
TEST(enabler_processes_enomem)
{
	static uint32_t w;
	int to_child[MAX_ENABLER_PROCESSES][2], to_parent[2], fd, status;
	pid_t pids[MAX_ENABLER_PROCESSES];

	ASSERT_EQ(pipe(to_parent), 0);
	for (int n = 0; n < MAX_ENABLER_PROCESSES; n++) {
		ASSERT_EQ(pipe(to_child[n]), 0);
		pids[n] = fork_child();
		ASSERT_GE(pids[n], 0);
		if (pids[n] == 0) {
			static uint32_t cw[2];
			int cfd = open(path("user_events_data"), O_RDWR | O_CLOEXEC), bad = 0;
			unsigned int held = 0;
			char c;

			bad |= (reg_at(cfd, "lim_pr u32 a", &cw[held++], 0, NULL) != 0) << 0;
			say_to(to_parent[1], 'r');
			/* 'm': register one more (a process already in may); 'u' or 'x': let go. */
			while ((c = heard(to_child[n][0])) == 'm')
				bad |= (reg_at(cfd, "lim_pr u32 a", &cw[held++], 0, NULL) != 0) << 1;
			while (held)
				bad |= (unreg_at(cfd, &cw[--held], 0) != 0) << 2;
			say_to(to_parent[1], 'd');
			close(cfd);
			if (c == 'u' && heard(to_child[n][0]) != 'x')
				bad |= 1 << 3;
			_exit(bad);
		}
		ASSERT_EQ(heard(to_parent[0]), 'r');
	}
	fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	EXPECT_ERRNO(reg_at(fd, "lim_pr u32 a", &w, 0, NULL), ENOMEM);
	say_to(to_child[0][1], 'm');
	/* The first child lets go of its enablers: its process no longer counts. */
	say_to(to_child[0][1], 'u');
	ASSERT_EQ(heard(to_parent[0]), 'd');
	EXPECT_EQ(reg_at(fd, "lim_pr u32 a", &w, 0, NULL), 0);
	EXPECT_EQ(unreg_at(fd, &w, 0), 0);
	close(fd);
	for (int n = 0; n < MAX_ENABLER_PROCESSES; n++) {
		say_to(to_child[n][1], 'x');
		if (n > 0)
			ASSERT_EQ(heard(to_parent[0]), 'd');
		ASSERT_EQ(waitpid(pids[n], &status, 0), pids[n]);
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(WEXITSTATUS(status), 0);
		close(to_child[n][0]);
		close(to_child[n][1]);
	}
	close(to_parent[0]);
	close(to_parent[1]);
	still_serving("limits_processes");
}

/*
 * An open user_events_data holds at most max_file_events events (its
 * write_index table): a new event past that is refused with ENOMEM and
 * gets no enabler; events already in the table register again; as in the
 * kernel, unregistering keeps the table's slot until the file is closed.
 * The limit is per file: another file of the same process registers.
 */
TEST(file_events_enomem)
{
	static uint32_t w[MAX_FILE_EVENTS + 2];
	char name[64];
	uint32_t idx = 99;
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC), fd2;

	ASSERT_GE(fd, 0);
	for (int i = 0; i < MAX_FILE_EVENTS; i++) {
		snprintf(name, sizeof(name), "lim_f%d u32 a", i);
		ASSERT_EQ(reg_at(fd, name, &w[i], 0, &idx), 0);
		EXPECT_EQ(idx, (uint32_t)i);
	}
	snprintf(name, sizeof(name), "lim_f%d u32 a", MAX_FILE_EVENTS);
	EXPECT_ERRNO(reg_at(fd, name, &w[MAX_FILE_EVENTS], 0, NULL), ENOMEM);
	EXPECT_EQ(reg_at(fd, "lim_f0 u32 a", &w[MAX_FILE_EVENTS + 1], 0, &idx), 0);
	EXPECT_EQ(idx, 0);
	EXPECT_EQ(unreg_at(fd, &w[0], 0), 0);
	EXPECT_ERRNO(reg_at(fd, name, &w[MAX_FILE_EVENTS], 0, NULL), ENOMEM);
	/* Not EADDRINUSE: the refused registrations left no enabler behind. */
	fd2 = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd2, 0);
	EXPECT_EQ(reg_at(fd2, name, &w[MAX_FILE_EVENTS], 0, &idx), 0);
	EXPECT_EQ(idx, 0);
	/* Closing the full file frees its table; its enablers stay with the process. */
	close(fd);
	for (int i = 1; i < MAX_FILE_EVENTS + 2; i++)
		EXPECT_EQ(unreg_at(fd2, &w[i], 0), 0);
	close(fd2);
	still_serving("limits_file_events");
}

UE_TEST_MAIN()
