/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test targets for the procmem and enabler tests: child processes that
 * register nothing themselves and obey commands sent over a pipe (mprotect,
 * munmap, mmap, read or write a word, start a thread, exec a canary), so a
 * test can shape the memory the daemon writes into and look at the result.
 */
#ifndef UE_TEST_TARGET_H
#define UE_TEST_TARGET_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/proc.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

enum target_op {
	T_MPROTECT = 1,
	T_MUNMAP,
	T_MMAP_ANON,	/* private anonymous, MAP_FIXED */
	T_MMAP_FILE,	/* shared mapping of path, MAP_FIXED */
	T_READ8,
	T_WRITE8,
	T_THREAD,	/* start a thread; val = its tid */
	T_EXEC,		/* exec this binary as a canary mapping the page at addr;
			 * val = 1: without address-space randomization */
	T_EXIT,
};

struct target_cmd {
	int op;
	int prot;
	uint64_t addr;
	uint64_t len;
	uint64_t val;
	char path[4096];
};

struct target_reply {
	int64_t r;
	uint64_t val;
};

struct target {
	pid_t pid;
	int ctl;	/* commands to the child */
	int ack;	/* replies from it */
};

/* After exec the canary finds its pipes here. */
#define TARGET_CANARY_CTL 200
#define TARGET_CANARY_ACK 201
#define TARGET_CANARY_ENV "UE_TEST_CANARY"

static inline int target_read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

static char target_thread_stack[65536] __attribute__((aligned(16)));

static int target_thread_fn(void *arg)
{
	(void)arg;
	for (;;)
		syscall(SYS_pause);
	return 0;
}

static inline void target_exec_canary(int ctl, int ack, uint64_t addr)
{
	extern char **environ;
	char var[64], *argv[] = { (char *)"canary", NULL };
	size_t n = 0, i;

	while (environ[n])
		n++;
	{
		char *envp[n + 2];

		size_t k = 0;

		/* Drop a previous canary's variable: equal environments, equal stacks. */
		for (i = 0; i < n; i++)
			if (strncmp(environ[i], TARGET_CANARY_ENV "=", sizeof(TARGET_CANARY_ENV)))
				envp[k++] = environ[i];
		snprintf(var, sizeof(var), TARGET_CANARY_ENV "=%llx", (unsigned long long)addr);
		envp[k] = var;
		envp[k + 1] = NULL;
		if (dup2(ctl, TARGET_CANARY_CTL) < 0 || dup2(ack, TARGET_CANARY_ACK) < 0)
			return;
		execve("/proc/self/exe", argv, envp);
	}
}

/* The command loop of a target; never returns. */
__attribute__((noreturn)) static inline void target_serve(int ctl, int ack)
{
	static struct target_cmd c;
	struct target_reply rep;

	for (;;) {
		void *m;
		int fd;

		if (target_read_full(ctl, &c, sizeof(c)))
			_exit(0);
		memset(&rep, 0, sizeof(rep));
		switch (c.op) {
		case T_MPROTECT:
			rep.r = mprotect((void *)(uintptr_t)c.addr, c.len, c.prot) ? -errno : 0;
			break;
		case T_MUNMAP:
			rep.r = munmap((void *)(uintptr_t)c.addr, c.len) ? -errno : 0;
			break;
		case T_MMAP_ANON:
			m = mmap((void *)(uintptr_t)c.addr, c.len, c.prot,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			rep.r = m == MAP_FAILED ? -errno : 0;
			break;
		case T_MMAP_FILE:
			fd = open(c.path, O_RDWR | O_CLOEXEC);
			if (fd < 0) {
				rep.r = -errno;
				break;
			}
			m = mmap((void *)(uintptr_t)c.addr, c.len, c.prot, MAP_SHARED | MAP_FIXED, fd, 0);
			rep.r = m == MAP_FAILED ? -errno : 0;
			close(fd);
			break;
		case T_READ8:
			rep.val = *(volatile uint64_t *)(uintptr_t)c.addr;
			break;
		case T_WRITE8:
			*(volatile uint64_t *)(uintptr_t)c.addr = c.val;
			break;
		case T_THREAD:
			rep.r = clone(target_thread_fn, target_thread_stack + sizeof(target_thread_stack),
				      CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
				      CLONE_SYSVSEM, NULL);
			if (rep.r < 0)
				rep.r = -errno;
			else
				rep.val = (uint64_t)rep.r, rep.r = 0;
			break;
		case T_EXEC:
			if (c.val)
				personality(ADDR_NO_RANDOMIZE);
			target_exec_canary(ctl, ack, c.addr);
			rep.r = -errno;
			break;
		case T_EXIT:
			_exit((int)c.val);
		default:
			rep.r = -EINVAL;
		}
		if (write(ack, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
			_exit(1);
	}
}

/*
 * In the exec'd canary: map a fresh page where the old program had its
 * enable word, say whether that worked, then obey commands again.
 */
__attribute__((constructor)) static void target_canary_main(void)
{
	const char *a = getenv(TARGET_CANARY_ENV);
	struct target_reply rep = { 0, 0 };
	uint64_t addr;
	void *m;

	if (!a)
		return;
	addr = strtoull(a, NULL, 16);
	m = mmap((void *)(uintptr_t)addr, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m != (void *)(uintptr_t)addr) {
		rep.r = -EEXIST;
		if (m != MAP_FAILED)
			munmap(m, (size_t)sysconf(_SC_PAGESIZE));
	}
	if (write(TARGET_CANARY_ACK, &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		_exit(1);
	target_serve(TARGET_CANARY_CTL, TARGET_CANARY_ACK);
}

static inline int target_start(struct target *t)
{
	int c[2], a[2];
	pid_t pid;

	t->pid = 0;
	t->ctl = t->ack = -1;
	/* A target that died must fail a test, not kill it. */
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(c, O_CLOEXEC))
		return -errno;
	if (pipe2(a, O_CLOEXEC)) {
		close(c[0]);
		close(c[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Other targets hold our pipe ends too: die with the test, not on EOF. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(c[1]);
		close(a[0]);
		target_serve(c[0], a[1]);
	}
	close(c[0]);
	close(a[1]);
	t->pid = pid;
	t->ctl = c[1];
	t->ack = a[0];
	return 0;
}

/* Send one command; returns its result (0 or -errno), -EPIPE if the target died. */
static inline int target_do(struct target *t, const struct target_cmd *c, uint64_t *ret_val)
{
	struct target_reply rep;

	if (write(t->ctl, c, sizeof(*c)) != (ssize_t)sizeof(*c))
		return -EPIPE;
	if (target_read_full(t->ack, &rep, sizeof(rep)))
		return -EPIPE;
	if (ret_val)
		*ret_val = rep.val;
	return (int)rep.r;
}

static inline int target_op(struct target *t, int op, uint64_t addr, uint64_t len, int prot)
{
	struct target_cmd c;

	memset(&c, 0, sizeof(c));
	c.op = op;
	c.addr = addr;
	c.len = len;
	c.prot = prot;
	return target_do(t, &c, NULL);
}

static inline int target_read8(struct target *t, uint64_t addr, uint64_t *ret_val)
{
	struct target_cmd c;

	memset(&c, 0, sizeof(c));
	c.op = T_READ8;
	c.addr = addr;
	return target_do(t, &c, ret_val);
}

static inline int target_mmap_file(struct target *t, uint64_t addr, uint64_t len, const char *path)
{
	struct target_cmd c;

	memset(&c, 0, sizeof(c));
	c.op = T_MMAP_FILE;
	c.addr = addr;
	c.len = len;
	c.prot = PROT_READ | PROT_WRITE;
	snprintf(c.path, sizeof(c.path), "%s", path);
	return target_do(t, &c, NULL);
}

/* Start a thread in the target; returns its tid or -errno. */
static inline pid_t target_thread(struct target *t)
{
	struct target_cmd c;
	uint64_t tid = 0;
	int r;

	memset(&c, 0, sizeof(c));
	c.op = T_THREAD;
	r = target_do(t, &c, &tid);
	return r < 0 ? r : (pid_t)tid;
}

/*
 * Exec the canary, which maps a fresh page at @page; returns 0 once the new
 * program runs, -EEXIST when it could not map that address, -errno else.
 * @no_aslr: exec without address-space randomization (inherited by later
 * execs), so two execs of the canary get the same stack start.
 */
static inline int target_exec_opt(struct target *t, uint64_t page, bool no_aslr)
{
	struct target_cmd c;
	struct target_reply rep;

	memset(&c, 0, sizeof(c));
	c.op = T_EXEC;
	c.addr = page;
	c.val = no_aslr;
	if (write(t->ctl, &c, sizeof(c)) != (ssize_t)sizeof(c))
		return -EPIPE;
	/* Either the canary's greeting or the failed exec's reply. */
	if (target_read_full(t->ack, &rep, sizeof(rep)))
		return -EPIPE;
	return (int)rep.r;
}

static inline int target_exec(struct target *t, uint64_t page)
{
	return target_exec_opt(t, page, false);
}

/* Let the target exit and reap it (or only let it exit: a zombie stays). */
static inline void target_exit(struct target *t, int reap)
{
	struct target_cmd c;

	if (t->pid <= 0)
		return;
	memset(&c, 0, sizeof(c));
	c.op = T_EXIT;
	if (write(t->ctl, &c, sizeof(c)) != (ssize_t)sizeof(c))
		kill(t->pid, SIGKILL);
	if (reap) {
		waitpid(t->pid, NULL, 0);
		t->pid = 0;
	} else {
		siginfo_t si;

		/* Wait until it is a zombie, without reaping it. */
		waitid(P_PID, (id_t)t->pid, &si, WEXITED | WNOWAIT);
	}
	close(t->ctl);
	close(t->ack);
	t->ctl = t->ack = -1;
}

static inline void target_reap(struct target *t)
{
	if (t->pid > 0)
		waitpid(t->pid, NULL, 0);
	t->pid = 0;
}

/*
 * A new target on @pid, a dead target's (through ns_last_pid, five tries).
 * Return: 0 when it got @pid, -ESRCH when it did not (no target is left
 * then), or target_start()'s errno.
 */
static inline int target_start_on_pid(struct target *t, pid_t pid)
{
	for (int tries = 0; tries < 5 && next_pid_is(pid); tries++) {
		int r = target_start(t);

		if (r < 0)
			return r;
		if (t->pid == pid)
			return 0;
		target_exit(t, 1);
	}
	return -ESRCH;
}

/* Memory shared by the test and every target forked after the first call. */
static inline uint8_t *target_shm(size_t size)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : (uint8_t *)m;
}

#endif /* UE_TEST_TARGET_H */
