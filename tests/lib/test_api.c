// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuserevents against a real usereventsd: the name_args the macros
 * generate, backend discovery, register/unregister/delete and their errno,
 * typed writes whose records equal hand-built raw-ABI writes, fork and threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "userevents/userevents.h"
#include "common/daemon.h"

UE_EVENT(lt_net_rx, UE_U32(len), UE_STR(dev))
UE_EVENT(lt_ints, UE_U8(a), UE_S8(b), UE_U16(c), UE_S16(d), UE_U32(e), UE_S32(f), UE_U64(g),
	 UE_S64(h))
UE_EVENT(lt_mix, UE_CHARS(tag, 8), UE_BYTES(blob), UE_STR(s), UE_U16(n))
UE_EVENT(lt_raw, UE_U32(a), UE_STR(s))
UE_EVENT(lt_fork, UE_U32(v))

__attribute__((constructor)) static void setup(void)
{
	daemon_setup(NULL);
	setenv("USEREVENTS_TRACEFS", mnt, 1);
}

static struct ue_provider *open_provider(void)
{
	struct ue_provider *p = NULL;
	int r = ue_provider_open(NULL, &p);

	if (r < 0) {
		printf("# ue_provider_open: %d\n", r);
		return NULL;
	}
	return p;
}

static int enable(const char *name, const char *v)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "events/user_events/%s/enable", name);
	return (int)write_rel_flags(rel, v, O_TRUNC);
}

TEST(name_args_generated)
{
	const struct {
		const char *got, *want;
	} cases[] = {
		{ ue_lt_net_rx_tp.name_args, "lt_net_rx u32 len; __rel_loc char[] dev" },
		{ ue_lt_ints_tp.name_args,
		  "lt_ints u8 a; s8 b; u16 c; s16 d; u32 e; s32 f; u64 g; s64 h" },
		{ ue_lt_mix_tp.name_args,
		  "lt_mix char[8] tag; __rel_loc u8[] blob; __rel_loc char[] s; u16 n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_STREQ(cases[i].got, cases[i].want);
}

TEST(backend_discovery)
{
	struct ue_provider_opts o = { .sz = sizeof(o), .flags = UE_PROVIDER_NO_KERNEL };
	struct ue_provider *p = NULL;

	/* $USEREVENTS_TRACEFS */
	ASSERT_EQ(ue_provider_open(NULL, &p), 0);
	EXPECT_STREQ(ue_provider_tracefs(p), mnt);
	EXPECT_EQ(ue_provider_backend(p), UE_BACKEND_DAEMON);
	ue_provider_close(p);

	/* The mount table (no variable, kernel paths skipped). */
	unsetenv("USEREVENTS_TRACEFS");
	p = NULL;
	ASSERT_EQ(ue_provider_open(&o, &p), 0);
	EXPECT_STREQ(ue_provider_tracefs(p), mnt);
	EXPECT_EQ(ue_provider_backend(p), UE_BACKEND_DAEMON);
	ue_provider_close(p);
	setenv("USEREVENTS_TRACEFS", mnt, 1);

	/* An explicit directory without user_events_data. */
	o.tracefs = "/tmp";
	p = NULL;
	EXPECT_ERRNO(ue_provider_open(&o, &p), ENOENT);
	EXPECT_TRUE(p == NULL);
}

TEST(opts_checked)
{
	struct {
		struct ue_provider_opts o;
		uint64_t extra;
	} big = { { .sz = sizeof(big) }, 1 };
	struct ue_provider_opts bad_flags = { .sz = sizeof(bad_flags), .flags = 1u << 30 };
	struct ue_provider_opts small = { .sz = 1 };
	struct ue_provider *p = NULL;

	EXPECT_ERRNO(ue_provider_open(&big.o, &p), E2BIG);
	EXPECT_ERRNO(ue_provider_open(&bad_flags, &p), EINVAL);
	EXPECT_ERRNO(ue_provider_open(&small, &p), EINVAL);
	EXPECT_ERRNO(ue_provider_open(NULL, NULL), EINVAL);
	EXPECT_TRUE(p == NULL);
	big.extra = 0;
	ASSERT_EQ(ue_provider_open(&big.o, &p), 0);
	ue_provider_close(p);
}

TEST(register_errors)
{
	struct ue_provider *p = open_provider();
	struct ue_tracepoint bad = { .name_args = "lt_bad u32" };
	struct ue_tracepoint other = { .name_args = "lt_net_rx u64 len" };
	struct ue_tracepoint flagged = { .name_args = "lt_flagged:x u32 a" };

	ASSERT_TRUE(p);
	ASSERT_EQ(ue_lt_net_rx_register(p), 0);
	EXPECT_ERRNO(ue_lt_net_rx_register(p), EBUSY);
	EXPECT_ERRNO(ue_tracepoint_register(p, &bad, NULL), EINVAL);
	EXPECT_ERRNO(ue_tracepoint_register(p, &other, NULL), EADDRINUSE);
	EXPECT_ERRNO(ue_tracepoint_register(p, &flagged, NULL), EINVAL);
	EXPECT_ERRNO(ue_provider_delete(p, "lt_net_rx"), EBUSY);
	EXPECT_ERRNO(ue_provider_delete(p, "lt_nonesuch"), ENOENT);
	ASSERT_EQ(ue_lt_net_rx_unregister(), 0);
	EXPECT_ERRNO(ue_lt_net_rx_unregister(), ENOENT);
	EXPECT_ERRNO(ue_lt_net_rx_write(1, "x"), ENOENT);
	ue_provider_close(p);
}

TEST(enable_write_unregister)
{
	struct ue_provider *p = open_provider();

	ASSERT_TRUE(p);
	ASSERT_EQ(ue_lt_net_rx_register(p), 0);
	EXPECT_FALSE(ue_lt_net_rx_enabled());
	EXPECT_ERRNO(ue_lt_net_rx_write(1, "eth0"), EBADF);
	ASSERT_EQ(enable("lt_net_rx", "1"), 1);
	ASSERT_TRUE(ue_lt_net_rx_enabled());
	EXPECT_TRUE(ue_tracepoint_enabled(&ue_lt_net_rx_tp));
	ASSERT_EQ(ue_lt_net_rx_write(1500, "eth0"), 0);
	ASSERT_EQ(ue_lt_net_rx_write(60, NULL), 0);
	EXPECT_EQ(trace_wait("lt_net_rx: len=0x5dc (1500) dev=eth0\n", 1), 1);
	EXPECT_EQ(trace_wait("lt_net_rx: len=0x3c (60) dev=(null)\n", 1), 1);
	ASSERT_EQ(enable("lt_net_rx", "0"), 1);
	EXPECT_FALSE(ue_lt_net_rx_enabled());
	ASSERT_EQ(enable("lt_net_rx", "1"), 1);
	ASSERT_EQ(ue_lt_net_rx_unregister(), 0);
	/* The bit is no longer updated, and the library cleared it. */
	EXPECT_FALSE(ue_lt_net_rx_enabled());
	ASSERT_EQ(ue_lt_net_rx_register(p), 0);
	EXPECT_TRUE(ue_lt_net_rx_enabled());
	ASSERT_EQ(enable("lt_net_rx", "0"), 1);
	ue_provider_close(p);
	EXPECT_EQ(ue_provider_delete(NULL, "lt_net_rx"), -EINVAL);
	write_rel_flags("trace", "", O_TRUNC);
}

/* The records of typed writes are those of hand-built raw writes. */
TEST(typed_equals_raw)
{
	struct ue_provider *p = open_provider();
	static uint32_t raw_word;
	static const char raw_args[] = "lt_raw u32 a; __rel_loc char[] s";
	unsigned char payload[4 + 4 + 6];
	uint32_t loc = (6u << 16) | 0, a = 0xdeadbeef;
	struct user_reg reg = { .size = sizeof(reg) };
	char *t, *l1, *l2;
	int fd;

	ASSERT_TRUE(p);
	ASSERT_EQ(ue_lt_raw_register(p), 0);
	fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	reg.name_args = (uintptr_t)raw_args;
	reg.enable_addr = (uintptr_t)&raw_word;
	reg.enable_size = 4;
	ASSERT_EQ(ioctl(fd, DIAG_IOCSREG, &reg), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(enable("lt_raw", "1"), 1);
	ASSERT_EQ(ue_lt_raw_write(a, "hello"), 0);
	memcpy(payload, &a, 4);
	memcpy(payload + 4, &loc, 4);
	memcpy(payload + 8, "hello", 6);
	struct iovec io[2] = { { &reg.write_index, 4 }, { payload, sizeof(payload) } };
	ASSERT_EQ(writev(fd, io, 2), 4 + (ssize_t)sizeof(payload));
	ASSERT_EQ(trace_wait("lt_raw: ", 2), 2);
	t = read_rel_alloc("trace");
	ASSERT_TRUE(t);
	l1 = strstr(t, "lt_raw: ");
	ASSERT_TRUE(l1);
	l2 = strstr(l1 + 1, "lt_raw: ");
	ASSERT_TRUE(l2);
	*strchr(l1, '\n') = '\0';
	*strchr(l2, '\n') = '\0';
	EXPECT_STREQ(l1, l2);
	EXPECT_STREQ(l1, "lt_raw: a=0xdeadbeef (-559038737) s=hello");
	free(t);
	ASSERT_EQ(enable("lt_raw", "0"), 1);
	close(fd);
	ue_provider_close(p);
}

TEST(all_field_kinds)
{
	struct ue_provider *p = open_provider();
	static const unsigned char blob[3] = { 0x0a, 0x0b, 0x0c };

	ASSERT_TRUE(p);
	ASSERT_EQ(ue_lt_ints_register(p), 0);
	ASSERT_EQ(ue_lt_mix_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(enable("lt_ints", "1"), 1);
	ASSERT_EQ(enable("lt_mix", "1"), 1);
	ASSERT_EQ(ue_lt_ints_write(65, 66, 65535, -2, 4000000000u, -3, UINT64_MAX, INT64_MIN),
		  0);
	ASSERT_EQ(ue_lt_mix_write("abc", blob, 3, "str", 7), 0);
	ASSERT_EQ(ue_lt_mix_write("abcdefghij", blob, 0, "", 8), 0);
	EXPECT_EQ(trace_wait("lt_ints: a='A'(65) b='B'(66) c=0xffff (65535) d=0xfffe (65534) "
			      "e=0xee6b2800 (-294967296) f=0xfffffffd (-3) g=0xffffffffffffffff (-1) "
			      "h=0x8000000000000000 (-9223372036854775808)\n", 1),
		  1);
	EXPECT_EQ(trace_wait("lt_mix: tag=abc blob=0a,0b,0c s=str n=0x7 (7)\n", 1), 1);
	EXPECT_EQ(trace_wait("lt_mix: tag=abcdefgh blob= s= n=0x8 (8)\n", 1), 1);
	ASSERT_EQ(enable("lt_ints", "0"), 1);
	ASSERT_EQ(enable("lt_mix", "0"), 1);
	ue_provider_close(p);
}

TEST(fork_child_keeps_working)
{
	struct ue_provider *p = open_provider();
	int to_child[2], to_parent[2], status;
	char c = 0;
	pid_t pid;

	ASSERT_TRUE(p);
	ASSERT_EQ(pipe(to_child), 0);
	ASSERT_EQ(pipe(to_parent), 0);
	ASSERT_EQ(ue_lt_fork_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(enable("lt_fork", "1"), 1);
	pid = fork();
	if (pid == 0) {
		int bad = 0, i;

		/* The inherited descriptor and write_index work in the child. */
		bad |= !ue_lt_fork_enabled() << 0;
		bad |= (ue_lt_fork_write(77) != 0) << 1;
		bad |= (ue_tracepoint_writev(&ue_lt_fork_tp, NULL, 0) != -EINVAL) << 2;
		if (write(to_parent[1], "w", 1) != 1 || read(to_child[0], &c, 1) != 1 || c != 'd')
			_exit(64);
		/*
		 * The parent disabled the event after the fork: the daemon's fork
		 * tracking clears the child's copy of the enable word too, as the
		 * kernel does (docs/compat.md: within ~20 ms of the fork's report).
		 */
		for (i = 0; i < 500 && ue_lt_fork_enabled(); i++)
			usleep(10000);
		bad |= ue_lt_fork_enabled() << 3;
		ue_provider_close(p);
		_exit(bad);
	}
	ASSERT_GE(pid, 0);
	ASSERT_EQ(read(to_parent[0], &c, 1), 1);
	EXPECT_EQ(c, 'w');
	EXPECT_TRUE(ue_lt_fork_enabled());
	ASSERT_EQ(ue_lt_fork_write(79), 0);
	EXPECT_EQ(trace_wait("lt_fork: v=0x4d (77)\n", 1), 1);
	EXPECT_EQ(trace_wait("lt_fork: v=0x4f (79)\n", 1), 1);
	ASSERT_EQ(enable("lt_fork", "0"), 1);
	EXPECT_FALSE(ue_lt_fork_enabled());
	ASSERT_EQ(write(to_child[1], "d", 1), 1);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	if (status)
		printf("# child failed steps (bits): 0x%x\n", WEXITSTATUS(status));
	for (int i = 0; i < 2; i++) {
		close(to_child[i]);
		close(to_parent[i]);
	}
	ue_provider_close(p);
}

#define NTHREADS 4
#define PER_THREAD 200

struct thr {
	struct ue_provider *p;
	struct ue_tracepoint tp;
	char name_args[64];
	int err;
};

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	uint32_t v;
	struct iovec io = { &v, sizeof(v) };

	t->err = ue_tracepoint_register(t->p, &t->tp, NULL);
	for (v = 0; !t->err && v < PER_THREAD; v++)
		t->err = ue_tracepoint_writev(&ue_lt_fork_tp, &io, 1);
	if (!t->err)
		t->err = ue_tracepoint_unregister(&t->tp);
	return NULL;
}

TEST(threads)
{
	struct ue_provider *p = open_provider();
	struct thr t[NTHREADS];
	pthread_t th[NTHREADS];

	ASSERT_TRUE(p);
	ASSERT_EQ(ue_lt_fork_register(p), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(enable("lt_fork", "1"), 1);
	for (int i = 0; i < NTHREADS; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		t[i].p = p;
		snprintf(t[i].name_args, sizeof(t[i].name_args), "lt_thr%d u32 v", i);
		t[i].tp.name_args = t[i].name_args;
		ASSERT_EQ(pthread_create(&th[i], NULL, thread_main, &t[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(t[i].err, 0);
	}
	EXPECT_EQ(trace_wait("lt_fork: v=", NTHREADS * PER_THREAD), NTHREADS * PER_THREAD);
	ASSERT_EQ(enable("lt_fork", "0"), 1);
	ue_provider_close(p);
}

UE_TEST_MAIN()
