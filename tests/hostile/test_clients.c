// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_clients: clients that pass bad memory or stop cooperating.  Each case
 * expects the kernel's errno (strndup_user() and friends in Linux 6.12's
 * trace_events_user.c) or, where the kernel's answer depends on its fault
 * handling, only an answer in bounded time; every case ends with another
 * client registering and writing normally.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

__attribute__((constructor)) static void setup(void)
{
	daemon_setup("max_events=256");
}

static uint32_t word;

static int open_data(void)
{
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);

	if (fd < 0)
		UE_FAIL_(1, "open user_events_data: %s", strerror(errno));
	return fd;
}

/* Two pages, the second unmapped: a string can run into the hole. */
static char *page_before_hole(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		UE_FAIL_(1, "mmap: %s", strerror(errno));
	munmap(p + pg, (size_t)pg);
	return p;
}

TEST(name_args_bad_memory)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = page_before_hole();
	char *big;
	int fd = open_data();

	/* Unmapped pointer: strndup_user() faults. */
	EXPECT_ERRNO(reg_at(fd, p + pg, &word, 0, NULL), EFAULT);
	EXPECT_ERRNO(reg_at(fd, (void *)8, &word, 0, NULL), EFAULT);
	/* No NUL before the hole. */
	memset(p, 'a', (size_t)pg);
	EXPECT_ERRNO(reg_at(fd, p + pg - 16, &word, 0, NULL), EFAULT);
	/* No NUL within MAX_EVENT_DESC, all of it readable: EINVAL. */
	big = malloc((size_t)pg * 2);
	ASSERT_TRUE(big != NULL);
	memset(big, 'a', (size_t)pg * 2 - 1);
	big[pg * 2 - 1] = '\0';
	EXPECT_ERRNO(reg_at(fd, big, &word, 0, NULL), EINVAL);
	free(big);
	/* The struct itself unmapped. */
	EXPECT_EQ(ioctl(fd, DIAG_IOCSREG, p + pg), -1);
	EXPECT_EQ(errno, EFAULT);
	munmap(p, (size_t)pg);
	close(fd);
	still_serving("hostile_names");
}

/* A pointer another thread keeps flipping between good and unmapped. */
static volatile int flipping;
static char *flip_page;

static void *flipper(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);

	(void)arg;
	while (flipping) {
		munmap(flip_page, (size_t)pg);
		mmap(flip_page, (size_t)pg, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		strcpy(flip_page, "hostile_flip u32 a");
	}
	return NULL;
}

TEST(changing_pointers)
{
	long pg = sysconf(_SC_PAGESIZE);
	pthread_t t;
	int fd = open_data(), ok = 0, fault = 0;

	flip_page = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	ASSERT_TRUE(flip_page != MAP_FAILED);
	strcpy(flip_page, "hostile_flip u32 a");
	flipping = 1;
	ASSERT_EQ(pthread_create(&t, NULL, flipper, NULL), 0);
	for (int i = 0; i < 200; i++) {
		int r = reg_at(fd, flip_page, &word, i % 32, NULL);

		/* Either it read the name, or it faulted, or a half-written name. */
		if (r == 0)
			ok++;
		else if (r == -EFAULT || r == -EINVAL || r == -EADDRINUSE)
			fault++;
		else
			UE_FAIL_(0, "unexpected %d", r);
	}
	flipping = 0;
	pthread_join(t, NULL);
	EXPECT_EQ(ok + fault, 200);
	close(fd);
	munmap(flip_page, (size_t)pg);
	still_serving("hostile_flip_after");
}

/*
 * Enable words nobody can write: Linux 6.12 (reference kernel, a probe of
 * the same two registrations) answers ENOMEM for both, and so must we, in
 * bounded time.
 */
TEST(enable_word_readonly_or_unmapped)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *ro = mmap(NULL, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *hole = page_before_hole();
	struct timespec a, b;
	int fd = open_data(), r;

	ASSERT_TRUE(ro != MAP_FAILED);
	clock_gettime(CLOCK_MONOTONIC, &a);
	r = reg_at(fd, "hostile_ro u32 a", ro, 0, NULL);
	EXPECT_ERRNO(r, ENOMEM);
	EXPECT_ERRNO(reg_at(fd, "hostile_hole u32 a", hole + pg, 0, NULL), ENOMEM);
	clock_gettime(CLOCK_MONOTONIC, &b);
	EXPECT_LT(b.tv_sec - a.tv_sec, 3);
	close(fd);
	munmap(ro, (size_t)pg);
	munmap(hole, (size_t)pg);
	still_serving("hostile_ro_after");
}

/* A trace_pipe reader that stops reading blocks no writer. */
TEST(trace_pipe_not_read)
{
	static uint32_t w;
	uint32_t idx = 0, v = 1;
	struct iovec io[2] = { { &idx, sizeof(idx) }, { &v, sizeof(v) } };
	int pipe_fd = open(path("trace_pipe"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int fd = open_data();
	struct timespec a, b;

	ASSERT_GE(pipe_fd, 0);
	ASSERT_EQ(reg_at(fd, "hostile_pipe u32 v", &w, 0, &idx), 0);
	ASSERT_EQ(write_rel("events/user_events/hostile_pipe/enable", "1"), 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 20000; i++)
		ASSERT_EQ(writev(fd, io, 2), 8);
	clock_gettime(CLOCK_MONOTONIC, &b);
	EXPECT_LT(b.tv_sec - a.tv_sec, 10);
	ASSERT_EQ(write_rel("events/user_events/hostile_pipe/enable", "0"), 1);
	EXPECT_EQ(unreg_at(fd, &w, 0), 0);
	close(fd);
	/* Another trace_pipe open is EBUSY while this one lives, as on the kernel's single reader. */
	still_serving("hostile_pipe_after");
	close(pipe_fd);
}

UE_TEST_MAIN()
