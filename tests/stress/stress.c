// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stress (issue 5): STRESS_PROCS processes register events on 4- and 8-byte
 * enable words, fork (children inherit, unregister some, register more), exec
 * a canary onto the same addresses and exit, while a tracer toggles the events
 * STRESS_TOGGLES times over STRESS_SECONDS.  At the end every live process's
 * words must equal the enabled state, and once all exited the daemon's
 * enablers, descriptors and RSS must be back at their post-warm-up baseline.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

/* Every process's enable words live on one page at this address. */
#define WORDS_ADDR ((uintptr_t)0x5a5c00000000ull)
#define NEV 4		/* events stress_e0..3 */
#define NSLOT 16	/* word slots; 0..7 registered at start, 8..15 later */
#define NBASE 8
#define CANARY_MS 300
#define MAX_DEPTH 2	/* a root's child's child at most */
#define RSS_SLACK_KB 8192

enum { PH_RUN, PH_STOP, PH_REPORT, PH_EXIT };
enum { REC_FREE, REC_LIVE, REC_QUIET, REC_REPORTED };

/* One live worker process: what it has registered and, at the end, its words. */
struct rec {
	atomic_int state;
	pid_t pid;
	uint32_t mask;			/* slots registered */
	uint64_t words[NSLOT];
};

struct shared {
	atomic_int phase;
	atomic_int enabled[NEV];	/* the tracer's view of each event */
	atomic_int tracer_done;
	atomic_long toggles, procs, forks, execs, canaries, exits;
	atomic_long regs, unregs;
	atomic_long unexpected, bad_exits, stray;
	atomic_int unexpected_errno, unexpected_line, bad_status;
	unsigned int nrec;
	struct rec rec[];
};

static struct shared *sh;
static char canary_exe[4096];
static unsigned int seconds, nprocs, ntoggles;
/* STRESS_UPGRADE_MS: usereventsd --upgrade that often during the run (0: never). */
static unsigned int upgrade_ms, upgrades;

static void unexpected_at(int err, int line)
{
	/* The first few each said where, with the process: a daemon's log names pids. */
	if (atomic_fetch_add(&sh->unexpected, 1) < 10)
		dprintf(1, "# unexpected in pid %d (parent %d) at line %d: %s\n", (int)getpid(),
		       (int)getppid(), line, strerror(err));
	atomic_store(&sh->unexpected_errno, err);
	atomic_store(&sh->unexpected_line, line);
}
#define unexpected(err) unexpected_at(err, __LINE__)

static volatile uint8_t *slot_addr(int s)
{
	return (volatile uint8_t *)(WORDS_ADDR + (uintptr_t)s * 8);
}

static int slot_size(int s)
{
	return s & 1 ? 8 : 4;
}

static int slot_bit(int s)
{
	return s & 1 ? 32 + s : s;
}

static int slot_event(int s)
{
	return (s / 2) % NEV;
}

static uint64_t slot_word(int s)
{
	if (slot_size(s) == 8)
		return *(volatile uint64_t *)slot_addr(s);
	return *(volatile uint32_t *)slot_addr(s);
}

static void slot_clear(int s)
{
	if (slot_size(s) == 8)
		*(volatile uint64_t *)slot_addr(s) = 0;
	else
		*(volatile uint32_t *)slot_addr(s) = 0;
}

static int reg_slot(int fd, int s)
{
	char name_args[64];
	struct user_reg r;

	snprintf(name_args, sizeof(name_args), "stress_e%d u32 a; u64 b", slot_event(s));
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.name_args = (uintptr_t)name_args;
	r.enable_addr = (uintptr_t)slot_addr(s);
	r.enable_size = (uint8_t)slot_size(s);
	r.enable_bit = (uint8_t)slot_bit(s);
	slot_clear(s);
	if (ioctl(fd, DIAG_IOCSREG, &r) < 0)
		return -errno;
	atomic_fetch_add(&sh->regs, 1);
	return 0;
}

static int unreg_slot(int fd, int s)
{
	int r = unreg_at(fd, (void *)slot_addr(s), slot_bit(s));

	if (!r)
		atomic_fetch_add(&sh->unregs, 1);
	return r;
}

static struct rec *claim_rec(void)
{
	for (unsigned int i = 0; i < sh->nrec; i++) {
		int want = REC_FREE;

		if (atomic_compare_exchange_strong(&sh->rec[i].state, &want, REC_LIVE))
			return &sh->rec[i];
	}
	return NULL;
}

/*
 * Execs the canary onto WORDS_ADDR; never returns.  @fd (O_CLOEXEC) is
 * left for exec to close: that close is a FUSE flush sent while the exec
 * holds the lock kcmp and /proc/<pid>/mem wait for, which once deadlocked
 * the daemon (ue_proc_events_sync()).
 */
static void exec_canary(int fd)
{
	char addr[32], ms[16];

	snprintf(addr, sizeof(addr), "0x%lx", (unsigned long)WORDS_ADDR);
	snprintf(ms, sizeof(ms), "%d", CANARY_MS);
	(void)fd;
	atomic_fetch_add(&sh->execs, 1);
	execl(canary_exe, "stress_canary", addr, ms, (char *)NULL);
	unexpected(errno);
	_exit(1);
}

static void note_status(int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
		atomic_fetch_add(&sh->stray, 1);
	atomic_fetch_add(&sh->bad_exits, 1);
	atomic_store(&sh->bad_status, st);
}

/* The test's processes form one process group (the daemon is not in it). */
static pid_t group, test_pid;

/* Reaps the caller's children (the test: the whole group) that ended. */
static void reap_nohang(void)
{
	int st;

	while (waitpid(getpid() == test_pid ? 0 - group : -1, &st, WNOHANG) > 0)
		note_status(st);
}

/* A registered slot at random, or -1 when none is. */
static int pick(uint32_t mask, bool registered, unsigned int *seed)
{
	int n = 0, s, k;

	for (s = 0; s < NSLOT; s++)
		n += !!(mask & (1u << s)) == registered;
	if (!n)
		return -1;
	k = (int)(rand_r(seed) % (unsigned int)n);
	for (s = 0; s < NSLOT; s++)
		if (!!(mask & (1u << s)) == registered && k-- == 0)
			return s;
	return -1;
}

static void worker(struct rec *r, int fd, int depth, unsigned int seed);

static void quit(struct rec *r, int fd, bool unregister)
{
	if (unregister)
		for (int s = 0; s < NSLOT; s++)
			if ((r->mask & (1u << s)) && unreg_slot(fd, s))
				unexpected(errno);
	atomic_fetch_add(&sh->exits, 1);
	atomic_store(&r->state, REC_FREE);
	_exit(0);
}

/* After the run: quiet, then report the words, then exit. */
static void finish(struct rec *r, int fd, unsigned int seed)
{
	while (atomic_load(&sh->phase) == PH_RUN)
		usleep(5000);
	atomic_store(&r->state, REC_QUIET);
	while (atomic_load(&sh->phase) < PH_REPORT)
		usleep(5000);
	for (int i = 0; i < NSLOT; i++)
		r->words[i] = slot_word(i);
	atomic_store(&r->state, REC_REPORTED);
	while (atomic_load(&sh->phase) < PH_EXIT)
		usleep(5000);
	quit(r, fd, rand_r(&seed) % 2);
}

/* A fork child that stays a worker: inherits, drops some, registers more. */
static void fork_worker(struct rec *r, int fd, int depth, unsigned int *seed)
{
	struct rec *c = claim_rec();
	pid_t pid;

	if (!c)
		return;
	c->mask = r->mask;
	pid = fork();
	if (pid < 0) {
		atomic_store(&c->state, REC_FREE);
		unexpected(errno);
		return;
	}
	if (pid > 0) {
		atomic_fetch_add(&sh->forks, 1);
		return;
	}
	c->pid = getpid();
	for (int s = 0; s < NSLOT; s++) {
		if ((c->mask & (1u << s)) && rand_r(seed) % 3 == 0) {
			if (unreg_slot(fd, s))
				unexpected(errno);
			else
				c->mask &= ~(1u << s);
		} else if (!(c->mask & (1u << s)) && rand_r(seed) % 3 == 0) {
			int e = reg_slot(fd, s);

			if (e)
				unexpected(-e);
			else
				c->mask |= 1u << s;
		}
	}
	worker(c, fd, depth + 1, *seed ^ (unsigned int)getpid());
}

/* A fork child that execs the canary at once, or after registering one more slot. */
static void fork_canary(struct rec *r, int fd, unsigned int *seed)
{
	bool reg_first = rand_r(seed) % 2;
	/* What the child inherits; r (shared memory) goes on changing with the parent. */
	uint32_t mask = r->mask;
	pid_t pid = fork();

	if (pid < 0) {
		unexpected(errno);
		return;
	}
	if (pid > 0) {
		atomic_fetch_add(&sh->canaries, 1);
		return;
	}
	if (reg_first) {
		int s = pick(mask, false, seed), e;

		if (s >= 0 && (e = reg_slot(fd, s)))
			unexpected(-e);
	}
	exec_canary(fd);
}


/*
 * Until the phase leaves PH_RUN: every 5-40 ms one action at random; then
 * quiet, then report its words, then exit.  Children left behind are reaped
 * by the test (a subreaper).
 */
static void worker(struct rec *r, int fd, int depth, unsigned int seed)
{
	long end = now_ms() + 500 + rand_r(&seed) % 4500;

	atomic_fetch_add(&sh->procs, 1);
	while (atomic_load(&sh->phase) == PH_RUN) {
		unsigned int a = rand_r(&seed) % 100;
		int s, e;

		usleep(5000 + rand_r(&seed) % 35000);
		reap_nohang();
		if (atomic_load(&sh->phase) != PH_RUN)
			break;
		if (now_ms() > end)
			quit(r, fd, rand_r(&seed) % 2);
		if (a < 8 && depth < MAX_DEPTH) {
			fork_worker(r, fd, depth, &seed);
		} else if (a < 14) {
			fork_canary(r, fd, &seed);
		} else if (a < 16) {
			/* This process itself becomes the canary. */
			atomic_store(&r->state, REC_FREE);
			exec_canary(fd);
		} else if (a < 40) {
			s = pick(r->mask, true, &seed);
			if (s >= 0 && unreg_slot(fd, s))
				unexpected(errno);
			else if (s >= 0)
				r->mask &= ~(1u << s);
		} else if (a < 64) {
			s = pick(r->mask, false, &seed);
			if (s >= 0 && (e = reg_slot(fd, s)))
				unexpected(-e);
			else if (s >= 0)
				r->mask |= 1u << s;
		}
	}
	finish(r, fd, seed);
}

static void *map_words(void)
{
	void *p = mmap((void *)WORDS_ADDR, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	return p == MAP_FAILED || (uintptr_t)p != WORDS_ADDR ? NULL : p;
}

/* A root worker: maps the words, registers some base slots, works. */
static void root(struct rec *r, unsigned int seed)
{
	int fd;

	r->pid = getpid();
	r->mask = 0;
	fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	if (!map_words() || fd < 0) {
		unexpected(errno);
		atomic_store(&r->state, REC_FREE);
		_exit(1);
	}
	for (int s = 0; s < NBASE; s++) {
		int e;

		if (rand_r(&seed) % 4 == 0)
			continue;
		e = reg_slot(fd, s);
		if (e)
			unexpected(-e);
		else
			r->mask |= 1u << s;
	}
	worker(r, fd, 0, seed);
}

/*
 * The tracer: holds every event (slots 0..7 registered for the whole round,
 * so the enable files exist), toggles STRESS_TOGGLES times spread over the
 * round (the rest at once if the round ends first), ending on e0, e2 on and
 * e1, e3 off; then reports like a worker.
 */
static void tracer(struct rec *r, unsigned int toggles, long end)
{
	unsigned int seed = 7;
	long start = now_ms();
	int fd;

	r->pid = getpid();
	r->mask = 0;
	fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	if (!map_words() || fd < 0) {
		unexpected(errno);
		_exit(1);
	}
	for (int s = 0; s < NBASE; s++) {
		int e = reg_slot(fd, s);

		if (e)
			unexpected(-e);
		else
			r->mask |= 1u << s;
	}
	for (unsigned int i = 0; i < toggles; i++) {
		long due = start + (end - start) * (long)i / (long)toggles;
		bool last = i + NEV >= toggles;
		int k = last ? (int)(i + NEV - toggles) : (int)(rand_r(&seed) % NEV);
		int on = last ? k % 2 == 0 : !atomic_load(&sh->enabled[k]);
		char rel[64];
		ssize_t w;

		while (now_ms() < due && atomic_load(&sh->phase) == PH_RUN)
			usleep(1000);
		snprintf(rel, sizeof(rel), "events/user_events/stress_e%d/enable", k);
		w = write_rel(rel, on ? "1" : "0");
		if (w != 1)
			unexpected(w < 0 ? (int)-w : EIO);
		else
			atomic_store(&sh->enabled[k], on);
		atomic_fetch_add(&sh->toggles, 1);
	}
	atomic_store(&sh->tracer_done, 1);
	/* Holds the events to the end, so their state is never lost. */
	finish(r, fd, seed);
}

static int count_state(int state)
{
	int n = 0;

	for (unsigned int i = 0; i < sh->nrec; i++)
		n += atomic_load(&sh->rec[i].state) == state;
	return n;
}

/* Reaps (noting failures) until @done() or @ms pass; whether done. */
static bool reap_until(bool (*done)(void), long ms)
{
	long end = now_ms() + ms;

	for (;;) {
		reap_nohang();
		if (done())
			return true;
		if (now_ms() > end)
			return false;
		usleep(10000);
	}
}

static bool none_live(void)
{
	return count_state(REC_LIVE) == 0 && atomic_load(&sh->tracer_done);
}

static bool settled(void)
{
	return stat_of("pending_writes") == 0 && stat_of("stalled_processes") == 0 &&
	       stat_of("unconfirmed_children") == 0;
}

/*
 * Polling: a fork child that made no request since its fork is unknown to
 * the daemon until a pass of the children poller finds it (POLL_MS, 50 ms,
 * apart), and a toggle before that does not reach it; the pass proves it
 * and writes what changed since its fork.  The words are reported within
 * 10-20 ms of the last toggle, so settled() alone can pass before a child
 * forked just before that toggle is known (unconfirmed_children counts only
 * known ones).  Two passes after the workers went quiet: the second began
 * after the last fork.
 */
static long long passes_due;
static bool polled_since_quiet(void)
{
	return stat_of("proc_passes") >= passes_due;
}

static bool all_reported(void)
{
	return count_state(REC_QUIET) == 0;
}

static bool no_children(void)
{
	int st;
	pid_t p;

	while ((p = waitpid(0 - group, &st, WNOHANG)) > 0)
		note_status(st);
	return p < 0 && errno == ECHILD;
}

static bool daemon_idle(void)
{
	return stat_of("processes") == 0 && stat_of("enablers") == 0;
}

static long fd_baseline;
static bool fds_back(void)
{
	return proc_fd_count(daemon_pid) == fd_baseline;
}

struct round_result {
	long procs, toggles, forks, execs, canaries, exits, regs, unregs, words_checked;
	long ms;
};

/*
 * One round: roots are respawned until @secs pass, then the checks.  Returns
 * with everything exited and the daemon holding no process.
 */
/*
 * A new daemon takes the mount over (usereventsd --upgrade, issue 30) while
 * the processes go on; done once the old one has exited.
 */
static void upgrade_daemon(void)
{
	pid_t old = daemon_pid, nw;
	long until = now_ms() + 30000;
	int st;

	nw = fork();
	if (nw == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(getenv("USEREVENTSD"), "usereventsd", "--upgrade", "-f", mnt, (char *)NULL);
		_exit(127);
	}
	ASSERT_GE(nw, 1);
	for (;;) {
		pid_t r = waitpid(old, &st, WNOHANG);

		if (r == old)
			break;
		if (now_ms() > until) {
			printf("# the old daemon %d did not hand over in 30 s\n", (int)old);
			proc_dump_threads(old);
			proc_dump_threads(nw);
			/*
			 * Both go: nothing holds the FUSE connection then, and
			 * every process waiting on it gets an error instead of
			 * waiting for ever (and the next test with it).
			 */
			kill(old, SIGKILL);
			kill(nw, SIGKILL);
			kill(0 - group, SIGKILL);
			ASSERT_TRUE(false);
		}
		usleep(2000);
	}
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	daemon_pid = nw;
	upgrades++;
}

static void run_round(unsigned int secs, unsigned int procs, unsigned int toggles,
		      struct round_result *res)
{
	long next_upgrade = upgrade_ms ? now_ms() + upgrade_ms : 0;
	long start = now_ms(), end = start + secs * 1000L;
	struct rec **roots = calloc(procs, sizeof(*roots));
	pid_t *root_pid = calloc(procs, sizeof(*root_pid));
	unsigned int seed = 1;
	long mismatches = 0, checked = 0;
	pid_t tr;

	ASSERT_TRUE(roots && root_pid);
	memset(sh->rec, 0, sizeof(sh->rec[0]) * sh->nrec);
	memset(sh, 0, offsetof(struct shared, nrec));
	tr = fork();
	if (tr == 0) {
		setpgid(0, 0);
		tracer(claim_rec(), toggles, end);
	}
	ASSERT_GE(tr, 1);
	setpgid(tr, tr);
	group = tr;
	/* The tracer registers the events before the first root does. */
	for (int i = 0; i < 500 && !stat_of("enablers"); i++)
		usleep(10000);
	while (now_ms() < end) {
		for (unsigned int i = 0; i < procs; i++) {
			if (root_pid[i] > 0 && roots[i] && kill(root_pid[i], 0) == 0 &&
			    roots[i]->pid == root_pid[i] && atomic_load(&roots[i]->state) == REC_LIVE)
				continue;
			roots[i] = claim_rec();
			if (!roots[i])
				break;
			root_pid[i] = fork();
			if (root_pid[i] == 0) {
				setpgid(0, group);
				root(roots[i], seed ^ (unsigned int)getpid());
			}
			ASSERT_GE(root_pid[i], 1);
			setpgid(root_pid[i], group);
			roots[i]->pid = root_pid[i];
			seed = seed * 1103515245u + 12345u;
		}
		reap_nohang();
		if (next_upgrade && now_ms() >= next_upgrade) {
			upgrade_daemon();
			next_upgrade = now_ms() + upgrade_ms;
		}
		usleep(20000);
	}
	atomic_store(&sh->phase, PH_STOP);
	/* Generous: a loaded 2-core machine, perhaps under ASan. */
	EXPECT_TRUE(reap_until(none_live, 60000));
	if (stats_has("proc_connector", "polling")) {
		passes_due = stat_of("proc_passes") + 2;
		EXPECT_TRUE(reap_until(polled_since_quiet, 20000));
	}
	EXPECT_TRUE(reap_until(settled, 20000));
	printf("# settled: pending_writes %lld, stalled %lld, unconfirmed %lld, failed_writes %lld, "
	       "refused_forks %lld, gone_forks %lld, inherited_forks %lld, proc_sync_timeouts %lld, "
	       "proc_events_lost %lld\n",
	       stat_of("pending_writes"), stat_of("stalled_processes"),
	       stat_of("unconfirmed_children"), stat_of("failed_writes"), stat_of("refused_forks"),
	       stat_of("gone_forks"), stat_of("inherited_forks"), stat_of("proc_sync_timeouts"),
	       stat_of("proc_events_lost"));
	atomic_store(&sh->phase, PH_REPORT);
	EXPECT_TRUE(reap_until(all_reported, 30000));
	for (unsigned int i = 0; i < sh->nrec; i++) {
		struct rec *r = &sh->rec[i];

		if (atomic_load(&r->state) != REC_REPORTED)
			continue;
		for (int s = 0; s < NSLOT; s++) {
			bool on = (r->mask & (1u << s)) && atomic_load(&sh->enabled[slot_event(s)]);
			uint64_t want = on ? 1ull << slot_bit(s) : 0;

			checked++;
			if (r->words[s] == want)
				continue;
			if (mismatches++ < 40)
				printf("# pid %d slot %d (stress_e%d, %s): word 0x%llx, want 0x%llx\n",
				       (int)r->pid, s, slot_event(s),
				       r->mask & (1u << s) ? "registered" : "unregistered",
				       (unsigned long long)r->words[s], (unsigned long long)want);
		}
	}
	atomic_store(&sh->phase, PH_EXIT);
	EXPECT_TRUE(reap_until(no_children, 60000));
	if (!no_children())
	{
		kill(0 - group, SIGKILL);	/* never leave processes behind */
		reap_until(no_children, 10000);
	}
	res->ms = now_ms() - start;
	res->procs = atomic_load(&sh->procs);
	res->toggles = atomic_load(&sh->toggles);
	res->forks = atomic_load(&sh->forks);
	res->execs = atomic_load(&sh->execs);
	res->canaries = atomic_load(&sh->canaries);
	res->exits = atomic_load(&sh->exits);
	res->regs = atomic_load(&sh->regs);
	res->unregs = atomic_load(&sh->unregs);
	res->words_checked = checked;
	printf("# round: %ld s, %ld worker processes (%ld forked children), %ld execs "
	       "(%ld canary children), %ld exits, %ld registrations, %ld unregistrations, "
	       "%ld toggles; %ld words checked\n", res->ms / 1000, res->procs, res->forks,
	       res->execs, res->canaries, res->exits, res->regs, res->unregs, res->toggles,
	       checked);
	EXPECT_EQ(mismatches, 0);
	EXPECT_GE(checked, NSLOT);
	EXPECT_EQ(res->toggles, toggles);
	EXPECT_EQ(atomic_load(&sh->stray), 0);
	EXPECT_EQ(atomic_load(&sh->bad_exits), 0);
	if (atomic_load(&sh->bad_exits))
		printf("# last bad exit status 0x%x\n", atomic_load(&sh->bad_status));
	EXPECT_EQ(atomic_load(&sh->unexpected), 0);
	if (atomic_load(&sh->unexpected))
		printf("# last unexpected errno: %s at line %d\n",
		       strerror(atomic_load(&sh->unexpected_errno)),
		       atomic_load(&sh->unexpected_line));
	/* Every process exited: the daemon holds nothing of them. */
	EXPECT_TRUE(reap_until(daemon_idle, 10000));
	EXPECT_EQ(stat_of("processes"), 0);
	EXPECT_EQ(stat_of("enablers"), 0);
	free(roots);
	free(root_pid);
}

__attribute__((constructor)) static void setup(void)
{
	char *slash;
	ssize_t n;

	seconds = env_uint("STRESS_SECONDS", 5, 86400);
	nprocs = env_uint("STRESS_PROCS", 20, 1000);
	ntoggles = env_uint("STRESS_TOGGLES", 100, 10000000);
	upgrade_ms = env_uint("STRESS_UPGRADE_MS", 0, 3600000);
	/* Bound ASan's quarantine so that RSS growth means a leak (as in soak). */
	asan_quarantine_bound();
	/*
	 * The daemon's RSS is measured: glibc's MALLOC_PERTURB_ (meson test
	 * sets one) fills every malloc'ed block, making whole buffers resident
	 * that the daemon only partly uses (tens of MiB more, run to run).
	 */
	unsetenv("MALLOC_PERTURB_");
	test_pid = getpid();
	/* Orphans (children of workers that exited) come to us to be reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	daemon_setup("max_events=256");
	n = readlink("/proc/self/exe", canary_exe, sizeof(canary_exe) - 32);
	if (n <= 0) {
		printf("Bail out! /proc/self/exe unreadable\n");
		exit(1);
	}
	canary_exe[n] = '\0';
	slash = strrchr(canary_exe, '/');
	strcpy(slash + 1, "stress_canary");
	if (access(canary_exe, X_OK) < 0) {
		printf("Bail out! no %s\n", canary_exe);
		exit(1);
	}
}

TEST(stress)
{
	struct round_result warm, run;
	long rss_base, rss_end, fd_end;
	unsigned int nrec = nprocs * 4 + 8;

	/* STRESS_WANT_POLLING: the daemon must find forks without the connector. */
	if (getenv("STRESS_WANT_POLLING"))
		ASSERT_TRUE(stats_has("proc_connector", "polling"));
	else if (!stats_has("proc_connector", "connected") &&
		 !stats_has("proc_connector", "polling"))
		SKIP("fork children inherit nothing here (see ARCHITECTURE.md)");
	sh = mmap(NULL, sizeof(*sh) + nrec * sizeof(struct rec), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(sh != MAP_FAILED);
	sh->nrec = nrec;
	printf("# %u s, %u processes, %u toggles; daemon at start: %ld KiB RSS, %ld fds\n",
	       seconds, nprocs, ntoggles, proc_status_kb(daemon_pid, "VmRSS:"),
	       proc_fd_count(daemon_pid));

	/* Warm-up: the same processes for a tenth of the time; then the baseline. */
	run_round(seconds / 10 > 2 ? seconds / 10 : 2, nprocs, ntoggles / 10 > NEV ?
		  ntoggles / 10 : NEV, &warm);
	rss_base = proc_status_kb(daemon_pid, "VmRSS:");
	fd_baseline = proc_fd_count(daemon_pid);
	printf("# baseline after warm-up: %ld KiB RSS, %ld fds\n", rss_base, fd_baseline);
	ASSERT_GE(rss_base, 1);

	run_round(seconds, nprocs, ntoggles, &run);
	/* Descriptors of exited processes are closed by the 0.5 s sweep at the latest. */
	reap_until(fds_back, 10000);
	fd_end = proc_fd_count(daemon_pid);
	rss_end = proc_status_kb(daemon_pid, "VmRSS:");
	printf("# after the run: %ld KiB RSS (baseline %ld), %ld fds (baseline %ld), %u upgrades\n",
	       rss_end, rss_base, fd_end, fd_baseline, upgrades);
	/* After an upgrade another process serves: its own baseline would be needed. */
	if (!upgrades) {
		EXPECT_EQ(fd_end, fd_baseline);
		EXPECT_LT(rss_end, rss_base + RSS_SLACK_KB);
	} else {
		EXPECT_GE(upgrades, 1);
	}
	munmap(sh, sizeof(*sh) + nrec * sizeof(struct rec));
}

/* The daemon, ASan-built too, must end cleanly once unmounted. */
TEST(daemon_exits_cleanly)
{
	int st;

	still_serving("stress_after");
	st = daemon_unmount(30000);
	ASSERT_NE(st, -1);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(WEXITSTATUS(st), 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		printf("# usereventsd ended with status 0x%x\n", st);
}

UE_TEST_MAIN()
