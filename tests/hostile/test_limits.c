// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_limits: everything a client can make usereventsd allocate has a limit,
 * answered with an errno instead of growth.  The daemon runs with small
 * limits (max_events, max_files, max_text_mb) so each is reached quickly.
 */
#include "mount.h"

#define MAX_EVENTS 8
#define MAX_FILES 16

__attribute__((constructor)) static void setup(void)
{
	char opts[128];

	snprintf(opts, sizeof(opts), "max_events=%d,max_files=%d,max_text_mb=1", MAX_EVENTS,
		 MAX_FILES);
	hostile_setup(opts);
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
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	char name[64];
	int i;

	ASSERT_GE(fd, 0);
	for (i = 0; i < MAX_EVENTS; i++) {
		snprintf(name, sizeof(name), "lim_ev%d u32 a", i);
		ASSERT_EQ(reg_at(fd, name, &words[i], 0, NULL), 0);
	}
	EXPECT_ERRNO(reg_at(fd, "lim_ev_over u32 a", &words[i], 0, NULL), EMFILE);
	for (i = 0; i < MAX_EVENTS; i++)
		EXPECT_EQ(unreg_at(fd, &words[i], 0), 0);
	close(fd);
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

UE_TEST_MAIN()
