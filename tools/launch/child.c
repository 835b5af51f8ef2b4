// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The command run and record -- CMD trace.
 *
 * With a private usereventsd (private.c) the command is the daemon's
 * descendant, not ours: before the daemon's process execs usereventsd it
 * forks a *launcher*, which waits for our word to fork the command, passes
 * on the signals we forward and sends back the command's wait status.  The
 * launcher is a child subreaper, so whatever the command forks stays below
 * it, orphans included.  So the daemon is an ancestor of every process it
 * may have to write into, which is what Yama's ptrace_scope 1 asks of an
 * unprivileged daemon before it opens /proc/<pid>/mem (docs/compat.md,
 * "Unprivileged (rootless)").  Without a private daemon (record -- CMD on a
 * tracefs given) the command is our own child.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "util.h"

/* How long uet_child_end() waits for the launcher to go once told to. */
#define LAUNCHER_END_MS 2000

/* One message each way on the launcher's socket (SOCK_SEQPACKET). */
enum launch_op {
	LAUNCH_GO = 1,		/* us: fork the command now */
	LAUNCH_KILL,		/* us: send it signal val */
	LAUNCH_STARTED,		/* launcher: its pid in val, or -errno */
	LAUNCH_STATUS,		/* launcher: its wait status in val */
};

struct launch_msg {
	int32_t op;
	int32_t val;
};
/*
 * libuserevents-preload.so: $USEREVENTS_PRELOAD, else beside our own
 * library directory (the build tree's lib/, or PREFIX/LIBDIR from
 * PREFIX/bin), else where meson installs it.
 */
static bool preload_path(char *buf, size_t len)
{
	const char *env = getenv("USEREVENTS_PRELOAD");
	char exe[PATH_MAX - 64];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return access(buf, R_OK) == 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(buf, len, "%s/../lib/libuserevents-preload.so", exe) <
				    (int)len && access(buf, R_OK) == 0)
				return true;
			if (snprintf(buf, len, "%s/../%s/libuserevents-preload.so", exe,
				     UET_LIBDIR) < (int)len && access(buf, R_OK) == 0)
				return true;
		}
	}
	snprintf(buf, len, "%s/libuserevents-preload.so", UET_PREFIX_LIBDIR);
	return access(buf, R_OK) == 0;
}

/* In the child: ours first in LD_PRELOAD, whatever was there after it. */
static void preload_inject(const char *who)
{
	const char *old = getenv("LD_PRELOAD");
	char lib[PATH_MAX], *v;

	if (!preload_path(lib, sizeof(lib))) {
		fprintf(stderr, UET_PROG ": %s: %s not found: the command's writes go through FUSE\n",
			who, "libuserevents-preload.so");
		return;
	}
	if (!old || !*old) {
		setenv("LD_PRELOAD", lib, 1);
	} else {
		v = malloc(strlen(lib) + strlen(old) + 2);
		if (!v)
			return;
		sprintf(v, "%s:%s", lib, old);
		setenv("LD_PRELOAD", v, 1);
		free(v);
	}
	/*
	 * A program built with AddressSanitizer refuses to start when its
	 * runtime is not the first library; it works with ours first.
	 */
	old = getenv("ASAN_OPTIONS");
	v = malloc((old ? strlen(old) : 0) + sizeof(":verify_asan_link_order=0"));
	if (!v)
		return;
	sprintf(v, "%s%sverify_asan_link_order=0", old ? old : "", old && *old ? ":" : "");
	setenv("ASAN_OPTIONS", v, 1);
	free(v);
}

/*
 * In the command's process, forked with every signal blocked (a SIGTERM
 * passed on at once must not meet the tool's handler, or the launcher's
 * SIG_IGN, and be lost): the default action for the signals the tools
 * catch, then @mask, its environment, the program.
 */
static void __attribute__((noreturn)) exec_cmd(const struct uet_child *c, const char *tracefs,
					       const sigset_t *mask)
{
	int e;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	setenv("USEREVENTS_TRACEFS", tracefs, 1);
	uet_project_tracefs(c->who, c->argv, c->no_preload, tracefs);
	if (!c->no_preload)
		preload_inject(c->who);
	execvp(c->argv[0], c->argv);
	e = errno;
	fprintf(stderr, UET_PROG ": %s: %s: %s\n", c->who, c->argv[0], strerror(e));
	_exit(e == ENOENT ? UET_EXIT_NOT_FOUND : UET_EXIT_CANNOT_EXEC);
}

void uet_child_init(struct uet_child *c, const char *who, char **argv, bool no_preload)
{
	*c = (struct uet_child){ .who = who, .argv = argv, .no_preload = no_preload,
				 .ctl = -1, .lfd = -1 };
}

static int send_msg(int fd, enum launch_op op, int val)
{
	struct launch_msg m = { op, val };

	while (send(fd, &m, sizeof(m), MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* 1: a message, 0: the other end is gone, -EAGAIN: none yet (@block false). */
static int recv_msg(int fd, struct launch_msg *m, bool block)
{
	ssize_t n;

	for (;;) {
		n = recv(fd, m, sizeof(*m), block ? 0 : MSG_DONTWAIT);
		if (n == (ssize_t)sizeof(*m))
			return 1;
		if (n >= 0)
			return 0;	/* EOF, or not ours: as if it had gone */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -EAGAIN;
		if (errno != EINTR)
			return 0;
	}
}

/*
 * The launcher: forks the command on LAUNCH_GO, reaps it and every orphan
 * that comes to it, ends when our end of the socket closes.  The signals
 * that would end it are the command's to act on (a ^C reaches the whole
 * foreground group): ignored here, put back as they were for the command.
 */
static void __attribute__((noreturn)) launcher(const struct uet_child *c, int sock,
					       const char *tracefs)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct sigaction ign = { .sa_handler = SIG_IGN }, saved[5];
	sigset_t chld, mask;
	pid_t cmd = 0;
	int sfd;

	/* Without it (Linux < 3.4) orphans leave us, as they would leave the tool. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	prctl(PR_SET_NAME, "ue-launcher");
	for (size_t i = 0; i < 5; i++)
		sigaction(quiet[i], &ign, &saved[i]);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &mask);
	sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	for (;;) {
		struct pollfd pfd[2] = { { .fd = sock, .events = POLLIN },
					 { .fd = sfd, .events = POLLIN } };
		struct signalfd_siginfo si;
		struct launch_msg m;
		int st, r, e;
		pid_t w;

		/* Without a signalfd, reap every 50 ms. */
		poll(pfd, sfd >= 0 ? 2 : 1, sfd >= 0 ? -1 : 50);
		while (sfd >= 0 && read(sfd, &si, sizeof(si)) == sizeof(si))
			;
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == cmd) {
				send_msg(sock, LAUNCH_STATUS, st);
				cmd = -1; /* reaped: its pid may be another's now */
			}
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = recv_msg(sock, &m, false);
		if (r == 0)
			_exit(0);
		if (r < 0)
			continue;
		if (m.op == LAUNCH_GO && cmd == 0) {
			sigset_t all, ours;

			sigfillset(&all);
			sigprocmask(SIG_SETMASK, &all, &ours);
			cmd = fork();
			if (cmd == 0) {
				for (size_t i = 0; i < 5; i++)
					sigaction(quiet[i], &saved[i], NULL);
				exec_cmd(c, tracefs, &mask);
			}
			e = cmd > 0 ? cmd : -errno;
			sigprocmask(SIG_SETMASK, &ours, NULL);
			send_msg(sock, LAUNCH_STARTED, e);
		} else if (m.op == LAUNCH_KILL && cmd > 0) {
			/* Not reaped yet (its status not sent): the pid is still the command's. */
			kill(cmd, m.val);
		}
	}
}

int uet_launcher_open(struct uet_child *c)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	c->ctl = sv[0];
	c->lfd = sv[1];
	return 0;
}

void uet_launcher_fork(const struct uet_child *c, const char *tracefs)
{
	pid_t l = fork();

	if (l == 0) {
		close(c->ctl);
		launcher(c, c->lfd, tracefs);
	}
	/* A failed fork: our end closes with the exec, so the tool learns it at LAUNCH_GO. */
}

void uet_launcher_forked(struct uet_child *c)
{
	if (c->lfd >= 0)
		close(c->lfd);
	c->lfd = -1;
}

int uet_child_start(struct uet_child *c, const char *tracefs)
{
	sigset_t all, mask;
	struct launch_msg m;
	int e;

	if (c->ctl >= 0) {
		e = send_msg(c->ctl, LAUNCH_GO, 0);
		if (e == 0)
			e = recv_msg(c->ctl, &m, true) == 1 && m.op == LAUNCH_STARTED ? m.val
											: -ECHILD;
		if (e <= 0) {
			uet_err("%s: cannot start the command: %s", c->who,
				e == -ECHILD ? "its launcher (usereventsd's child) is gone"
					     : strerror(-e));
			return e < 0 ? e : -ECHILD;
		}
		c->pid = e;
		return 0;
	}
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &mask);
	c->pid = fork();
	if (c->pid == 0)
		exec_cmd(c, tracefs, &mask);
	e = -errno;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	if (c->pid < 0) {
		uet_err("%s: fork: %s", c->who, strerror(-e));
		c->pid = 0;
		return e;
	}
	return 0;
}

/* Whether the launcher said how the command ended (or ended itself). */
static bool launcher_done(struct uet_child *c, bool block)
{
	struct launch_msg m;
	int r;

	while ((r = recv_msg(c->ctl, &m, block)) == 1) {
		if (m.op == LAUNCH_STATUS) {
			c->status = m.val;
			c->done = true;
			return true;
		}
	}
	if (r == 0) {
		c->lost = true;
		c->done = true;
	}
	return c->done;
}

static void child_kill(struct uet_child *c, int sig)
{
	if (c->ctl >= 0)
		send_msg(c->ctl, LAUNCH_KILL, sig);
	else
		kill(c->pid, sig);
}

/* Whether the command has exited, reaped if so; no waiting. */
static bool child_reaped(struct uet_child *c)
{
	if (c->ctl >= 0)
		return launcher_done(c, false);
	if (waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->done = true;
	return c->done;
}

bool uet_child_poll(struct uet_child *c)
{
	int sig = uet_signal;

	if (!c->pid || c->done)
		return c->done;
	/*
	 * A ^C reaches the whole foreground group, the command included: the
	 * tool waits for it.  A SIGTERM or SIGHUP sent to the tool alone is
	 * passed on; the tool's output gone (SIGPIPE) ends the command with
	 * SIGTERM: nobody reads what it is traced for.
	 */
	if (sig == SIGTERM || sig == SIGHUP || sig == SIGPIPE) {
		child_kill(c, sig == SIGPIPE ? SIGTERM : sig);
		uet_signal = 0;
	}
	return child_reaped(c);
}

/* Our end closed, then the launcher's exit awaited (it holds its end to the last). */
static void launcher_end(struct uet_child *c)
{
	struct pollfd pfd = { .fd = c->ctl, .events = POLLIN };
	char b[sizeof(struct launch_msg)];

	shutdown(c->ctl, SHUT_WR);
	for (int waited = 0; waited < LAUNCHER_END_MS; waited += 10) {
		if (poll(&pfd, 1, 10) > 0 && recv(c->ctl, b, sizeof(b), MSG_DONTWAIT) == 0)
			break;
	}
	close(c->ctl);
	c->ctl = -1;
}

void uet_child_end(struct uet_child *c)
{
	/* One that has exited already is reaped, not "ended". */
	if (c->pid && !c->done && !child_reaped(c)) {
		child_kill(c, SIGTERM);
		c->ended = true;
		if (c->ctl >= 0)
			launcher_done(c, true);
		else
			while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
				;
		c->done = true;
	}
	if (c->ctl >= 0)
		launcher_end(c);
	if (c->lfd >= 0)
		close(c->lfd);
	c->lfd = -1;
}

bool uet_child_stop(struct uet_child *c, int grace_ms)
{
	int sig;

	if (!c->pid || c->done || child_reaped(c))
		return false;
	child_kill(c, SIGINT);
	c->ended = true;
	for (int waited = 0; waited < grace_ms && !child_reaped(c); waited += 10)
		uet_sleep_ms(10);
	if (!c->done) {
		uet_err("%s: the command is still there %d s after SIGINT: SIGTERM", c->who,
			grace_ms / 1000);
		uet_child_end(c);
	}
	if (c->lost || !WIFSIGNALED(c->status))
		return false;
	sig = WTERMSIG(c->status);
	if (sig != SIGINT && sig != SIGTERM)
		return false;
	fprintf(stderr, UET_PROG ": %s: command stopped by %s\n", c->who, strsignal(sig));
	return true;
}

int uet_child_exit_code(const struct uet_child *c, const char *who)
{
	if (c->lost) {
		uet_err("%s: the command's launcher ended before the command did", who);
		return UET_EXIT_RUN_FAIL;
	}
	if (WIFEXITED(c->status)) {
		fprintf(stderr, UET_PROG ": %s: command exited with status %d\n", who,
			WEXITSTATUS(c->status));
		return WEXITSTATUS(c->status);
	}
	if (WIFSIGNALED(c->status)) {
		fprintf(stderr, UET_PROG ": %s: command killed by signal %d (%s)\n", who,
			WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
		return 128 + WTERMSIG(c->status);
	}
	return UET_EXIT_RUN_FAIL;
}
