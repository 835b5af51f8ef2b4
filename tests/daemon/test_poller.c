// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of the children poller (daemon/procs/proc-events.c without the proc
 * connector, as in a network namespace of its own) with real child
 * processes: what a fork child inherits when its pid was another child's a
 * moment before.  Needs root: it opens other processes' /proc/<pid>/mem,
 * writes ns_last_pid and makes a network namespace.
 */
#include <sched.h>

#include "enabler.h"
#include "proc-events.h"
#include "procmem.h"
#include "harness.h"
#include "target.h"

struct fake_event {
	int refs;
	bool enabled;
};

static void ev_get(void *event)
{
	__atomic_add_fetch(&((struct fake_event *)event)->refs, 1, __ATOMIC_SEQ_CST);
}

static void ev_put(void *event)
{
	__atomic_sub_fetch(&((struct fake_event *)event)->refs, 1, __ATOMIC_SEQ_CST);
}

static bool ev_is_enabled(void *event)
{
	return __atomic_load_n(&((struct fake_event *)event)->enabled, __ATOMIC_SEQ_CST);
}

static const struct ue_enabler_ops fork_ops = {
	.get = ev_get, .put = ev_put, .is_enabled = ev_is_enabled, .dup = ev_get,
};

/* The test's enable word: its fork children (the targets) inherit it. */
static uint32_t word __attribute__((aligned(8)));

enum op { OP_ADD, OP_EXISTS, OP_REMOVE };

/*
 * One request of @tid as usereventsd serves an ioctl: the caller proven,
 * its forks found first (ue_proc_events_sync()), one enabler call.
 */
static int request(struct ue_enablers *set, struct ue_proc_events *pe, pid_t tid, enum op op,
		   struct fake_event *ev)
{
	struct ue_proc *caller;
	int r;

	r = ue_proc_open(set, tid, &caller);
	if (r < 0)
		return r;
	ue_proc_events_sync(pe, caller);
	if (op == OP_ADD)
		r = ue_enabler_add(set, caller, (uintptr_t)&word, 0, 4, ev, true);
	else if (op == OP_EXISTS)
		r = ue_enabler_exists(set, caller, (uintptr_t)&word, 0);
	else
		r = ue_enabler_remove(set, caller, (uintptr_t)&word, 0);
	ue_proc_close(caller);
	return r;
}

/*
 * A child of a process with enablers, reaped, and its pid given to the
 * next child of the same process before a pass of the poller forgot it:
 * the second child inherits as the first did (it used to inherit nothing,
 * its fork taken for the first child's, already noted; the stress test's
 * rare ENOENT at unregistration and stale words, on a machine whose pids
 * go round quickly).
 */
TEST(child_on_a_reused_pid_inherits)
{
	struct fake_event ev = { 0, true };
	struct ue_proc_events_stats ps;
	struct ue_proc_events *pe;
	struct ue_enablers *set;
	struct target a, b = { 0, -1, -1 };
	pid_t old;
	int r;

	if (geteuid() != 0)
		SKIP("needs root");
	if (unshare(CLONE_NEWNET) < 0)
		SKIP("no network namespace of its own: the proc connector would answer");
	ASSERT_EQ(ue_enablers_new(&fork_ops, &set), 0);
	ASSERT_EQ(ue_proc_events_start(set, &pe), 0);
	ue_proc_events_stats(pe, &ps);
	if (!ps.polling) {
		ue_proc_events_stop(pe);
		ue_enablers_free(set);
		SKIP("no children poller here (CONFIG_PROC_CHILDREN, or randomize_va_space 0)");
	}
	word = 0;
	ASSERT_EQ(request(set, pe, getpid(), OP_ADD, &ev), 0);
	EXPECT_EQ(word, 1u);

	/* The first child inherits (its first request finds its fork). */
	ASSERT_EQ(target_start(&a), 0);
	EXPECT_EQ(request(set, pe, a.pid, OP_EXISTS, &ev), 1);
	/* The next child starts in a later clock tick: another identity. */
	usleep(30000);
	old = a.pid;
	target_exit(&a, 1);
	/* Other forks on the machine may take the pid first: tried again. */
	r = -ESRCH;
	for (int tries = 0; tries < 10 && r == -ESRCH; tries++)
		r = target_start_on_pid(&b, old);
	if (r == -ESRCH) {
		NOT_EXERCISED("could not get the pid again (ns_last_pid): reuse not exercised");
	} else {
		ASSERT_EQ(r, 0);
		/* Its own fork, not the first child's: it inherited the word. */
		EXPECT_EQ(request(set, pe, b.pid, OP_EXISTS, &ev), 1);
		EXPECT_EQ(request(set, pe, b.pid, OP_REMOVE, &ev), 0);
		target_exit(&b, 1);
	}
	EXPECT_EQ(request(set, pe, getpid(), OP_REMOVE, &ev), 0);
	ue_proc_events_stop(pe);
	ue_enablers_free(set);
	EXPECT_EQ(ev.refs, 0);
}

UE_TEST_MAIN()
