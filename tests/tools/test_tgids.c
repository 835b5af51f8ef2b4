// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of tools/tgids.c, which process a thread is: the "PID TGID" lines
 * of the kernel's saved_tgids (a recording's), and live /proc/TID/status
 * first, then the tracefs's saved_tgids for a thread /proc no longer has;
 * an unknown thread is 0 (the Chrome sink then uses the thread id).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness.h"
#include "tgids.h"

TEST(saved_tgids_text)
{
	static const char text[] = "1 1\n7 7\n5 1\nbad\n9 x\n10\n11 12 13\n-3 4\n";
	struct uet_tgids *t = uet_tgids_new(NULL);
	size_t len = 0;
	char *out;

	ASSERT_TRUE(t);
	ASSERT_EQ(uet_tgids_parse(t, text, sizeof(text) - 1), 0);
	EXPECT_EQ(uet_tgids_get(t, 5), 1);
	EXPECT_EQ(uet_tgids_get(t, 7), 7);
	/* Lines that are not "PID TGID": nothing. */
	EXPECT_EQ(uet_tgids_get(t, 9), 0);
	EXPECT_EQ(uet_tgids_get(t, 10), 0);
	EXPECT_EQ(uet_tgids_get(t, 11), 0);
	/* Not in it, and no /proc for a recording: not known. */
	EXPECT_EQ(uet_tgids_get(t, (int32_t)getpid()), 0);
	EXPECT_EQ(uet_tgids_known(t), 3);
	out = uet_tgids_text(t, &len);
	ASSERT_TRUE(out);
	EXPECT_STREQ(out, "1 1\n5 1\n7 7\n");
	EXPECT_EQ(len, strlen(out));
	free(out);
	uet_tgids_free(t);
}

static int32_t thread_id;
static int thread_done;

/* Says its id, then lives until told. */
static void *thread_tid(void *arg)
{
	(void)arg;
	__atomic_store_n(&thread_id, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&thread_done, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

TEST(live_proc_then_saved_tgids)
{
	char dir[] = "/tmp/ue-tgids.XXXXXX", path[64], cmd[96];
	struct uet_tgids *t;
	int32_t tid;
	pthread_t th;
	FILE *f;

	ASSERT_TRUE(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/saved_tgids", dir);
	f = fopen(path, "w");
	ASSERT_TRUE(f);
	/* 2^22 + 1 is above any pid_max: only the tracefs knows it. */
	fprintf(f, "4194305 4194300\n");
	fclose(f);
	t = uet_tgids_new(dir);
	ASSERT_TRUE(t);
	EXPECT_EQ(uet_tgids_get(t, (int32_t)getpid()), (int32_t)getpid());
	/* A thread of ours: our process, from /proc/TID/status (read while it runs). */
	ASSERT_EQ(pthread_create(&th, NULL, thread_tid, NULL), 0);
	while (!(tid = __atomic_load_n(&thread_id, __ATOMIC_ACQUIRE)))
		usleep(1000);
	EXPECT_NE(tid, (int32_t)getpid());
	EXPECT_EQ(uet_tgids_get(t, tid), (int32_t)getpid());
	__atomic_store_n(&thread_done, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	/* Cached: the same once it is gone. */
	EXPECT_EQ(uet_tgids_get(t, tid), (int32_t)getpid());
	EXPECT_EQ(uet_tgids_get(t, 4194305), 4194300);
	EXPECT_EQ(uet_tgids_get(t, 4194306), 0);
	uet_tgids_free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(system(cmd), 0);
}

UE_TEST_MAIN()
