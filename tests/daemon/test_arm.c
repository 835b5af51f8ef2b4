// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_arm: usereventsd_session's armed patterns (issue 14).  An event a
 * pattern names is enabled inside its DIAG_IOCSREG (the bit is set when the
 * ioctl returns), events there already are enabled by the arm, provider
 * specs select EventHeader names by level and keyword, bad text is EINVAL,
 * the limits are ENOSPC, patterns naming nothing change nothing, and the
 * release of the session (SIGKILL of its holder included) disarms and
 * disables.  The producers here are raw DIAG_IOCSREG and writev.
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

/* The limits docs/SECURITY.md states (daemon/fs/fs.h). */
#define SESSION_MAX_ARMS 64
#define SESSIONS_MAX_ARMS 1024

#define EH_FIELDS " u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"

__attribute__((constructor)) static void setup(void)
{
	daemon_setup(NULL);
}

/*
 * Enable words outlive the test that registers them: an enabler stays until
 * its process unregisters or exits (closing the file does not end it, as in
 * the kernel), and a session's release disables its events after close()
 * returned (FUSE sends the release asynchronously).  A word on the stack of
 * a test that returned would be rewritten inside a later test's frame (the
 * daemon rewrites the byte that holds the bit), so the words of this
 * process are static.
 */
static int session_open(void)
{
	return open(path("usereventsd_session"), O_RDWR | O_CLOEXEC);
}

/* One command; 0 or -errno. */
static int cmd(int fd, const char *line)
{
	return write(fd, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : -errno;
}

static int data_open(void)
{
	return open(path("user_events_data"), O_RDWR | O_CLOEXEC);
}

/* Registers NAME with the EventHeader fields: the bit as the ioctl left it, or -errno. */
static int reg_eh(int fd, const char *name, uint32_t *word, uint32_t *idx)
{
	char na[300];
	int r;

	snprintf(na, sizeof(na), "%s" EH_FIELDS, name);
	r = reg_at(fd, na, word, 0, idx);
	return r < 0 ? r : (int)(__atomic_load_n(word, __ATOMIC_SEQ_CST) & 1);
}

static int write_eh(int fd, uint32_t idx)
{
	uint8_t hdr[8] = { 3, 0, 0, 0, 0, 0, 0, 4 };
	struct iovec io[2] = { { &idx, sizeof(idx) }, { hdr, sizeof(hdr) } };

	return writev(fd, io, 2) == (ssize_t)(sizeof(idx) + sizeof(hdr)) ? 0 : -errno;
}

static int enabled(const char *name)
{
	char rel[300], buf[8];

	snprintf(rel, sizeof(rel), "events/user_events/%s/enable", name);
	if (read_rel(rel, buf, sizeof(buf)) < 0)
		return -1;
	return buf[0] == '1';
}

static int trace_of(const char *name)
{
	char needle[300];

	snprintf(needle, sizeof(needle), " %s: ", name);
	return trace_count(needle);
}

/*
 * The race the arming closes: processes that register and write at once,
 * fork children that write on what they inherited and register and write
 * on words of their own, over and over; every write is recorded.
 *
 * It runs first, while this test process has no enablers.  Siblings forked
 * from a parent holding enablers on stack words met a daemon bug under
 * load (the confirmation of a fork child rewrote every inherited bit into
 * the child's live stack); that is fixed and has its own test
 * (tests/daemon/test_forkrace.c).  The workers' own children inherit, one
 * at a time.
 */
#define RACE_PROCS 8
#define RACE_CHILDREN 3
#define RACE_WRITES 20

static void race_worker(int k)
{
	char name[64];
	uint32_t w = 0, idx, w2, idx2;
	int fd = data_open(), bad = 0;

	snprintf(name, sizeof(name), "raceP_L4K1G%d", k);
	if (fd < 0 || reg_eh(fd, name, &w, &idx) != 1)
		_exit(2);
	for (int i = 0; i < RACE_WRITES; i++)
		bad |= (w & 1) ? write_eh(fd, idx) : -1;
	for (int c = 0; c < RACE_CHILDREN; c++) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			char own[64];

			snprintf(own, sizeof(own), "raceP_L4K1G%dc%d", k, c);
			w2 = 0;
			for (int i = 0; i < RACE_WRITES; i++)
				bad |= (w & 1) ? write_eh(fd, idx) : -1;
			if (reg_eh(fd, own, &w2, &idx2) != 1)
				_exit(3);
			for (int i = 0; i < RACE_WRITES; i++)
				bad |= (w2 & 1) ? write_eh(fd, idx2) : -1;
			_exit(bad ? 4 : 0);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	_exit(bad ? 5 : 0);
}

static int count_in(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

TEST(arming_race_with_forks)
{
	int s = session_open(), fails = 0, total, n;
	pid_t pids[RACE_PROCS];
	char needle[64], *t;

	ASSERT_GE(s, 0);
	/* The first test: nobody holds an enabler yet (see above). */
	ASSERT_EQ(stat_of("enablers"), 0);
	ASSERT_EQ(cmd(s, "arm-provider raceP:4:1"), 0);
	for (int k = 0; k < RACE_PROCS; k++) {
		pids[k] = fork();
		ASSERT_GE(pids[k], 0);
		if (pids[k] == 0)
			race_worker(k);
	}
	for (int k = 0; k < RACE_PROCS; k++) {
		int st;

		if (waitpid(pids[k], &st, 0) != pids[k] || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("# worker %d: status %#x\n", k, st);
			fails++;
		}
	}
	EXPECT_EQ(fails, 0);
	/* Every write returned before its process was reaped: all are in the buffer now. */
	t = read_rel_alloc("trace");
	ASSERT_TRUE(t != NULL);
	for (int k = 0; k < RACE_PROCS; k++) {
		snprintf(needle, sizeof(needle), " raceP_L4K1G%d: ", k);
		/* Its own writes and its children's on the inherited registration. */
		EXPECT_EQ(count_in(t, needle), RACE_WRITES * (1 + RACE_CHILDREN));
		for (int c = 0; c < RACE_CHILDREN; c++) {
			snprintf(needle, sizeof(needle), " raceP_L4K1G%dc%d: ", k, c);
			n = count_in(t, needle);
			EXPECT_EQ(n, RACE_WRITES);
			if (n != RACE_WRITES)
				printf("# %s: %d records\n", needle, n);
		}
	}
	total = count_in(t, " raceP_L4K1G");
	EXPECT_EQ(total, RACE_PROCS * RACE_WRITES * (1 + 2 * RACE_CHILDREN));
	free(t);
	close(s);
	/* Its events go with the session: their ids are given again, so their records go too. */
	for (int i = 0; i < 100 && access(path("events/user_events/raceP_L4K1G0"), F_OK) == 0; i++)
		usleep(20000);
	EXPECT_GE(write_rel_flags("trace", "", O_TRUNC), 0);
}

TEST(armed_glob_enables_inside_registration)
{
	static uint32_t w, w2;
	int s = session_open(), fd = data_open();
	uint32_t idx;
	long long before = stat_of("armed_enables");

	ASSERT_GE(s, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(cmd(s, "arm user_events:armA_*"), 0);
	EXPECT_EQ(stat_of("armed_patterns"), 1);
	/* The bit is set when the ioctl returns: the first write is kept. */
	ASSERT_EQ(reg_eh(fd, "armA_L4K1", &w, &idx), 1);
	ASSERT_EQ(write_eh(fd, idx), 0);
	EXPECT_EQ(trace_of("armA_L4K1"), 1);
	EXPECT_EQ(stat_of("armed_enables"), before + 1);
	/* Not named: left alone, and the pattern harmless to it. */
	{
		uint32_t idx2;

		EXPECT_EQ(reg_eh(fd, "armB_L4K1", &w2, &idx2), 0);
		EXPECT_EQ(enabled("armB_L4K1"), 0);
	}
	EXPECT_EQ(enabled("armA_L4K1"), 1);
	close(s);
	/* The release disarms and disables, in this process too. */
	EXPECT_TRUE(bit_becomes(&w, 0));
	EXPECT_EQ(enabled("armA_L4K1"), 0);
	EXPECT_EQ(stat_of("armed_patterns"), 0);
	close(fd);
}

TEST(arm_enables_existing_events_and_read_lists_patterns)
{
	static uint32_t w;
	int fd = data_open(), s;
	uint32_t idx;
	char buf[512];

	ASSERT_GE(fd, 0);
	ASSERT_EQ(reg_eh(fd, "armC_L2K4", &w, &idx), 0);
	s = session_open();
	ASSERT_GE(s, 0);
	ASSERT_EQ(cmd(s, "arm-provider armC:3:0x4"), 0);
	EXPECT_TRUE(bit_becomes(&w, 1));
	EXPECT_EQ(enabled("armC_L2K4"), 1);
	ASSERT_EQ(cmd(s, "arm armZ*"), 0);
	/* The same line again is no second pattern. */
	ASSERT_EQ(cmd(s, "arm armZ*"), 0);
	ASSERT_GE(pread(s, buf, sizeof(buf) - 1, 0), 0);
	EXPECT_TRUE(strstr(buf, "arm-provider armC:3:0x4\narm armZ*\nenable user_events/armC_L2K4\n") ==
		    buf);
	EXPECT_EQ(cmd(s, "disarm armZ*"), 0);
	EXPECT_ERRNO(cmd(s, "disarm armZ*"), ENOENT);
	EXPECT_ERRNO(cmd(s, "disarm-provider armQ"), ENOENT);
	close(s);
	EXPECT_TRUE(bit_becomes(&w, 0));
	close(fd);
}

/*
 * An armed filter an event refuses as it registers: the event stays off, and
 * a read of the session tells which event refused it and why, as its filter
 * file showed it, the first refusal of the session only (counted), also once
 * the event is gone (issue 24: a short-lived program's reason was lost).
 */
TEST(refused_armed_filter_is_told)
{
	static uint32_t w, w2;
	int s = session_open(), fd = data_open();
	uint32_t idx;
	char buf[1024];
	ssize_t n;

	ASSERT_GE(s, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(cmd(s, "arm armR_* nosuch == 1"), 0);
	n = pread(s, buf, sizeof(buf) - 1, 0);
	ASSERT_GE(n, 0);
	buf[n] = '\0';
	EXPECT_TRUE(strstr(buf, "refused") == NULL);
	EXPECT_EQ(reg_eh(fd, "armR_L4K1", &w, &idx), 0);
	EXPECT_EQ(reg_eh(fd, "armR_L5K1", &w2, &idx), 0);
	EXPECT_EQ(enabled("armR_L4K1"), 0);
	close(fd);
	n = pread(s, buf, sizeof(buf) - 1, 0);
	ASSERT_GE(n, 0);
	buf[n] = '\0';
	EXPECT_TRUE(strstr(buf, "\nrefused user_events/armR_L4K1 22 2\n"
				"\tnosuch == 1\n\t       ^\n\tparse_error: Field not found\n") != NULL);
	close(s);
}

/* Provider specs: level at most LEVEL, a keyword sharing a bit with KEYWORDS (or 0). */
TEST(provider_level_and_keywords)
{
	static const struct {
		const char *name;
		int on;
	} cases[] = {
		{ "provP_L4K1", 1 },	   { "provP_L5K1", 0 },	    { "provP_L4K2", 0 },
		{ "provP_L4K0", 1 },	   { "provP_L1K3Gmygroup", 1 }, { "provP_L4K10001", 1 },
		{ "provP_L4K6", 0 },	   { "provPX_L4K1", 0 },    { "xprovP_L4K1", 0 },
		{ "provP_LK1", 0 },	   { "provP_L4K1g", 0 },    { "provP_L4", 0 },
		{ "provP_l4K1", 0 },	   { "provP_L4k1", 0 },     { "provP_L3KfG1", 1 },
	};
	static uint32_t w[sizeof(cases) / sizeof(cases[0])], w2, w3;
	int s = session_open(), fd = data_open();
	uint32_t idx;

	ASSERT_GE(s, 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(cmd(s, "arm-provider provP:4:0x1"), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = reg_eh(fd, cases[i].name, &w[i], &idx);

		if (r != cases[i].on)
			printf("# %s: %d\n", cases[i].name, r);
		EXPECT_EQ(r, cases[i].on);
		if (r == 1)
			EXPECT_EQ(write_eh(fd, idx), 0);
		EXPECT_EQ(trace_of(cases[i].name), cases[i].on);
	}
	/* Defaults: every level and keyword of the provider. */
	{
		int s2 = session_open();

		ASSERT_EQ(cmd(s2, "arm-provider provQ"), 0);
		/* Not an EventHeader name (the level has no K after it). */
		EXPECT_EQ(reg_eh(fd, "provQ_Lffffff", &w2, &idx), 0);
		EXPECT_EQ(reg_eh(fd, "provQ_LffK8000000000000000", &w3, &idx), 1);
		close(s2);
		EXPECT_TRUE(bit_becomes(&w3, 0));
	}
	close(s);
	/* The release disables every event the session enabled. */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_TRUE(bit_becomes(&w[i], 0));
	close(fd);
}

TEST(bad_patterns_einval)
{
	static const char *const bad[] = {
		"arm ", "arm a:b:c", "arm :x", "arm x:", "arm-provider :4", "arm-provider p:256",
		"arm-provider p:x", "arm-provider p:4:zz", "arm-provider p:4:1:2",
		"arm-provider p:4:0x", "arm-provider p:-1", "arm-provider p:4:10000000000000000",
		"arm-provider p x", "disarm a b", "arms x", "arm",
	};
	char line[400];
	int s = session_open();

	ASSERT_GE(s, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cmd(s, bad[i]) != -EINVAL)
			printf("# %s\n", bad[i]);
		EXPECT_ERRNO(cmd(s, bad[i]), EINVAL);
	}
	/* UE_ARM_MAX_TEXT (256) bytes of pattern or more. */
	memset(line, 'a', sizeof(line));
	memcpy(line, "arm ", 4);
	line[4 + 255] = '\0';
	EXPECT_EQ(cmd(s, line), 0);
	line[4 + 255] = 'a';
	line[4 + 256] = '\0';
	EXPECT_ERRNO(cmd(s, line), EINVAL);
	/* A filter too long for the filter file. */
	{
		char *f = malloc(4200);

		memset(f, 'x', 4199);
		memcpy(f, "arm y* ", 7);
		f[4199] = '\0';
		EXPECT_ERRNO(cmd(s, f), EINVAL);
		free(f);
	}
	EXPECT_EQ(stat_of("armed_patterns"), 1);
	close(s);
}

TEST(limits_enospc)
{
	int s[SESSIONS_MAX_ARMS / SESSION_MAX_ARMS + 1];
	char line[64];
	int n = (int)(sizeof(s) / sizeof(s[0]));

	for (int i = 0; i < n; i++) {
		s[i] = session_open();
		ASSERT_GE(s[i], 0);
	}
	for (int k = 0; k < SESSION_MAX_ARMS; k++) {
		snprintf(line, sizeof(line), "arm lim0_%d", k);
		ASSERT_EQ(cmd(s[0], line), 0);
	}
	EXPECT_ERRNO(cmd(s[0], "arm lim0_more"), ENOSPC);
	EXPECT_ERRNO(cmd(s[0], "arm-provider lim0more"), ENOSPC);
	for (int i = 1; i < n - 1; i++)
		for (int k = 0; k < SESSION_MAX_ARMS; k++) {
			snprintf(line, sizeof(line), "arm lim%d_%d", i, k);
			ASSERT_EQ(cmd(s[i], line), 0);
		}
	EXPECT_EQ(stat_of("armed_patterns"), SESSIONS_MAX_ARMS);
	/* All sessions together: a fresh session gets no more. */
	EXPECT_ERRNO(cmd(s[n - 1], "arm limlast"), ENOSPC);
	/* Disarming gives room back. */
	EXPECT_EQ(cmd(s[1], "disarm lim1_0"), 0);
	EXPECT_EQ(cmd(s[n - 1], "arm limlast"), 0);
	for (int i = 0; i < n; i++)
		close(s[i]);
	for (int i = 0; i < 50 && stat_of("armed_patterns") != 0; i++)
		usleep(20000);
	EXPECT_EQ(stat_of("armed_patterns"), 0);
}

TEST(sigkill_of_the_holder_disarms)
{
	static uint32_t w, w2;
	int p[2], fd = data_open();
	uint32_t idx;
	pid_t pid;
	char c;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int s = session_open();

		if (s < 0 || cmd(s, "arm-provider killP") < 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ASSERT_EQ(read(p[0], &c, 1), 1);
	close(p[0]);
	ASSERT_EQ(reg_eh(fd, "killP_L4K1", &w, &idx), 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_TRUE(bit_becomes(&w, 0));
	for (int i = 0; i < 50 && stat_of("armed_patterns") != 0; i++)
		usleep(20000);
	EXPECT_EQ(stat_of("armed_patterns"), 0);
	EXPECT_EQ(reg_eh(fd, "killP_L4K2", &w2, &idx), 0);
	close(fd);
}

UE_TEST_MAIN()
