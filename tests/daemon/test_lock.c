// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daemon/lock: the lock order's checks (UE_LOCKDEP).  Locks taken in rank
 * order, rings nested in CPU order and a condition wait pass; a lock taken
 * out of order, a rank taken twice, an unlock by a thread that does not
 * hold the lock and a *_locked assertion without the lock abort, each in a
 * child process.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "lock.h"

#ifndef UE_LOCKDEP
#define NEED_LOCKDEP() SKIP("built without UE_LOCKDEP (a release build)")
#else
#define NEED_LOCKDEP() ((void)0)
#endif

/* Whether @fn, run in a child, ends it with SIGABRT. */
static bool aborts(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		/* The report goes to stderr; keep the TAP output clean. */
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static struct ue_mutex outer, inner, ring0, ring1, other_fh;
static struct ue_rwlock filter;

static void init_locks(void)
{
	ue_mutex_init(&outer, UE_LOCK_FH);
	ue_mutex_init(&inner, UE_LOCK_ENABLERS);
	ue_mutex_init(&ring0, UE_LOCK_BUF_RING);
	ue_mutex_init(&ring1, UE_LOCK_BUF_RING);
	ue_mutex_init(&other_fh, UE_LOCK_FH);
	ue_rwlock_init(&filter, UE_LOCK_FILTER);
}

TEST(in_order_passes)
{
	init_locks();
	ue_mutex_lock(&outer);
	ue_mutex_lock(&inner);
	ue_mutex_assert_held(&outer);
	ue_mutex_assert_held(&inner);
	ue_rwlock_rdlock(&filter);
	ue_mutex_lock(&ring0);
	ue_mutex_lock(&ring1);
	ue_mutex_unlock(&ring1);
	ue_mutex_unlock(&ring0);
	ue_rwlock_unlock(&filter);
	ue_mutex_unlock(&inner);
	ue_mutex_unlock(&outer);
	/* Nothing held: any lock may come first again. */
	ue_mutex_lock(&inner);
	ue_mutex_unlock(&inner);
	EXPECT_EQ(ue_lockdep.held, 0);
}

TEST(cond_wait_keeps_ownership)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec t;

	init_locks();
	clock_gettime(CLOCK_REALTIME, &t);
	ue_mutex_lock(&inner);
	EXPECT_EQ(ue_cond_timedwait(&c, &inner, &t), ETIMEDOUT);
	ue_mutex_assert_held(&inner);
	ue_mutex_unlock(&inner);
}

static void out_of_order(void)
{
	ue_mutex_lock(&inner);
	ue_mutex_lock(&outer);
}

static void same_rank_twice(void)
{
	ue_mutex_lock(&outer);
	ue_mutex_lock(&other_fh);
}

static void assert_unheld(void)
{
	ue_mutex_assert_held(&inner);
}

static void *take_inner(void *arg)
{
	(void)arg;
	ue_mutex_lock(&inner);
	return NULL;
}

static void unlock_foreign(void)
{
	pthread_t t;

	pthread_create(&t, NULL, take_inner, NULL);
	pthread_join(t, NULL);
	ue_mutex_unlock(&inner);
}

static void rwlock_out_of_order(void)
{
	ue_rwlock_wrlock(&filter);
	ue_mutex_lock(&inner);
}

TEST(broken_rules_abort)
{
	NEED_LOCKDEP();
	init_locks();
	EXPECT_TRUE(aborts(out_of_order));
	EXPECT_TRUE(aborts(same_rank_twice));
	EXPECT_TRUE(aborts(assert_unheld));
	EXPECT_TRUE(aborts(unlock_foreign));
	EXPECT_TRUE(aborts(rwlock_out_of_order));
}

TEST(every_rank_named)
{
	for (unsigned int r = 0; r < UE_LOCK_RANKS; r++)
		EXPECT_TRUE(strcmp(ue_lock_rank_name(r), "?") != 0);
}
UE_TEST_MAIN()
