// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of tools/tracedat-write.c against its reader: the live file of
 * userevents record reads back, at every commit, exactly the pages
 * committed (pages written after the last commit are not seen, as after a
 * SIGKILL), while the CPUs' regions grow and move; the compact copy holds
 * the same; the metadata sections rewritten at a commit are the ones read;
 * the threads' processes (saved_tgids) read back from after the task names.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tracedat.h"

#define PAGE 4096
#define NCPUS 3

static char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";
static char he[] = "# compressed entry header\n";
static char clk[] = "local [global] counter\n";

static char fmt_a[] = "name: a\nID: 1000\nformat:\n";
static char fmt_b[] = "name: b\nID: 1001\nformat:\n";

/* Page @n of @cpu: its bytes say which it is. */
static void page_of(uint8_t *p, unsigned int cpu, unsigned int n)
{
	memset(p, (int)(cpu * 31 + n) & 0xff, PAGE);
	memcpy(p, &n, sizeof(n));
	memcpy(p + 4, &cpu, sizeof(cpu));
}

/* The file at @fd read as report reads it: each CPU has @want[cpu] pages, the right ones. */
static void check_file(int fd, const unsigned int *want, size_t nformats)
{
	struct uet_dat d;
	struct stat st;
	uint8_t *buf, page[PAGE];
	char err[256] = "";

	ASSERT_EQ(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	ASSERT_TRUE(buf);
	ASSERT_EQ(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	if (uet_dat_read_mem(buf, (size_t)st.st_size, &d, err, sizeof(err)) < 0) {
		free(buf);
		UE_FAIL_(1, "not readable: %s", err);
	}
	free(buf);
	EXPECT_EQ(d.ncpus, NCPUS);
	EXPECT_EQ(d.page_size, PAGE);
	/* ftrace's print format, then the user event formats. */
	EXPECT_EQ(d.nformats, 1 + nformats);
	EXPECT_TRUE(d.cmdlines != NULL);
	for (unsigned int c = 0; c < d.ncpus && c < NCPUS; c++) {
		EXPECT_EQ(d.cpus[c].cpu, c);
		ASSERT_EQ(d.cpus[c].size, (uint64_t)want[c] * PAGE);
		for (unsigned int n = 0; n < want[c]; n++) {
			page_of(page, c, n);
			EXPECT_EQ(memcmp(d.cpus[c].data + (size_t)n * PAGE, page, PAGE), 0);
		}
	}
	uet_dat_free(&d);
}

static int tmp_file(char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/ue-tracedat.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

TEST(live_file_valid_at_every_commit)
{
	struct uet_dat_text ftrace = { "ftrace", (char *)"name: print\nID: 5\nformat:\n", 26 };
	struct uet_dat_text formats[2] = { { "user_events", fmt_a, sizeof(fmt_a) - 1 },
					   { "user_events", fmt_b, sizeof(fmt_b) - 1 } };
	struct uet_dat_meta m = {
		.header_page = { NULL, hp, sizeof(hp) - 1 },
		.header_event = { NULL, he, sizeof(he) - 1 },
		.cmdlines = { NULL, (char *)"1 init\n", 7 },
		.trace_clock = { NULL, clk, sizeof(clk) - 1 },
		.ftrace = &ftrace, .nftrace = 1,
		.formats = formats, .nformats = 0, .ncpus = NCPUS,
	};
	unsigned int written[NCPUS] = { 0 }, committed[NCPUS] = { 0 };
	struct uet_dat_writer *w;
	uint8_t page[PAGE];
	char path[256];
	int fd = tmp_file(path, sizeof(path)), cfd;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(uet_dat_writer_open(&w, fd, &m, PAGE), 0);
	/* Small regions, so that CPU 0's moves several times (record starts at 256 MiB). */
	uet_dat_writer_region_start(w, 4 * PAGE);
	check_file(fd, committed, 0);
	/* CPU 0 busy (its region moves several times), 1 a little, 2 never. */
	for (unsigned int step = 0; step < 200; step++) {
		unsigned int cpu = step % 5 ? 0 : 1;

		page_of(page, cpu, written[cpu]);
		ASSERT_EQ(uet_dat_writer_page(w, cpu, page, PAGE), 0);
		written[cpu]++;
		if (step % 23 == 22) {
			unsigned int changed = 0;

			/* Not yet committed: the file still reads as of the last commit. */
			check_file(fd, committed, m.nformats);
			if (m.nformats < 2) {
				m.nformats++;
				changed |= UET_DAT_FORMATS;
			}
			if (step == 45) {
				m.cmdlines = (struct uet_dat_text){ NULL, (char *)"1 init\n42 prog\n", 15 };
				changed |= UET_DAT_CMDLINES;
			}
			ASSERT_EQ(uet_dat_writer_commit(w, &m, changed), 0);
			memcpy(committed, written, sizeof(committed));
			check_file(fd, committed, m.nformats);
		}
	}
	ASSERT_EQ(uet_dat_writer_commit(w, &m, 0), 0);
	check_file(fd, written, 2);
	EXPECT_EQ(uet_dat_writer_pages(w), 200);

	/* The compact copy: the same content, no slack. */
	cfd = tmp_file(path, sizeof(path));
	ASSERT_GE(cfd, 0);
	ASSERT_EQ(uet_dat_writer_compact(w, &m, cfd), 0);
	check_file(cfd, written, 2);
	{
		struct stat st;

		ASSERT_EQ(fstat(cfd, &st), 0);
		EXPECT_LT(st.st_size, (off_t)(200 + 2) * PAGE);
	}
	close(cfd);
	uet_dat_writer_free(w);
	close(fd);
}

/* The file of @m (no pages), compact, read back into @d. */
static void round_trip(const struct uet_dat_meta *m, struct uet_dat *d)
{
	struct uet_dat_writer *w;
	char path[256], err[256] = "";
	int fd = tmp_file(path, sizeof(path)), cfd = tmp_file(path, sizeof(path));
	struct stat st;
	uint8_t *buf;

	ASSERT_GE(fd, 0);
	ASSERT_GE(cfd, 0);
	ASSERT_EQ(uet_dat_writer_open(&w, fd, m, PAGE), 0);
	ASSERT_EQ(uet_dat_writer_compact(w, m, cfd), 0);
	uet_dat_writer_free(w);
	ASSERT_EQ(fstat(cfd, &st), 0);
	buf = malloc((size_t)st.st_size);
	ASSERT_TRUE(buf);
	ASSERT_EQ(pread(cfd, buf, (size_t)st.st_size, 0), st.st_size);
	EXPECT_EQ(uet_dat_read_mem(buf, (size_t)st.st_size, d, err, sizeof(err)), 0);
	free(buf);
	close(fd);
	close(cfd);
}

TEST(saved_tgids_after_the_task_names)
{
	static char tg[] = "42 42\n43 42\n";
	struct uet_dat_meta m = {
		.header_page = { NULL, hp, sizeof(hp) - 1 },
		.header_event = { NULL, he, sizeof(he) - 1 },
		.cmdlines = { NULL, (char *)"42 prog\n43 worker\n", 18 },
		.tgids = { NULL, tg, sizeof(tg) - 1 },
		.trace_clock = { NULL, clk, sizeof(clk) - 1 },
		.ncpus = 1,
	};
	struct uet_dat d;

	round_trip(&m, &d);
	ASSERT_TRUE(d.cmdlines && d.tgids);
	EXPECT_STREQ(d.cmdlines, "42 prog\n43 worker\n");
	EXPECT_STREQ(d.tgids, tg);
	uet_dat_free(&d);
	/* None written (trace-cmd's files): none read. */
	m.tgids = (struct uet_dat_text){ 0 };
	round_trip(&m, &d);
	EXPECT_STREQ(d.cmdlines, "42 prog\n43 worker\n");
	EXPECT_TRUE(d.tgids == NULL);
	uet_dat_free(&d);
}

UE_TEST_MAIN()
