// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents run: one program traced by a private usereventsd.  As root the
 * tool moves into a private mount namespace, mounts the daemon on a
 * temporary directory and binds it over /sys/kernel/tracing (raw-ABI
 * programs hard-code that path); as another user the daemon mounts through
 * fusermount3 and only USEREVENTS_TRACEFS points at it.  Events are enabled
 * as they get registered, streamed live, counted, and the mount, the
 * directory and the daemon are gone when run returns.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"

#define KERNEL_TRACEFS "/sys/kernel/tracing"
/* How long the daemon may take to mount. */
#define MOUNT_WAIT_MS 5000

struct run {
	char mnt[PATH_MAX];
	bool have_mnt;
	bool mounted;
	bool bound;		/* also on /sys/kernel/tracing */
	bool root;
	pid_t daemon;
	pid_t child;
	int child_status;
	bool child_done;
};

static volatile sig_atomic_t run_stop;
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static bool executable(const char *p)
{
	return access(p, X_OK) == 0;
}

/*
 * The daemon: $USEREVENTSD; beside the tool in the build tree
 * (build/tools/../daemon/usereventsd); installed next to it (bin/../sbin);
 * else the PATH.
 */
static int find_daemon(char *out, size_t len)
{
	const char *env = getenv("USEREVENTSD");
	char self[PATH_MAX], *slash;
	ssize_t n;
	static const char *const rel[] = { "/../daemon/usereventsd", "/usereventsd",
					   "/../sbin/usereventsd" };

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return executable(out) ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
				snprintf(out, len, "%s%s", self, rel[i]);
				if (executable(out))
					return 0;
			}
		}
	}
	snprintf(out, len, "usereventsd");
	return 0;
}

static bool mounted_yet(const char *mnt)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/user_events_data", mnt);
	return access(p, F_OK) == 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Start usereventsd -f on r->mnt and wait until the mount serves. */
static int start_daemon(struct run *r)
{
	char daemon[PATH_MAX];
	int waited = 0, st;

	find_daemon(daemon, sizeof(daemon));
	r->daemon = fork();
	if (r->daemon < 0)
		return -errno;
	if (r->daemon == 0) {
		signal(SIGINT, SIG_IGN);
		execlp(daemon, "usereventsd", "-f", r->mnt, (char *)NULL);
		fprintf(stderr, UET_PROG ": run: cannot execute %s: %s\n", daemon, strerror(errno));
		_exit(127);
	}
	while (!mounted_yet(r->mnt)) {
		if (waitpid(r->daemon, &st, WNOHANG) == r->daemon) {
			r->daemon = 0;
			return -ECHILD;
		}
		if (waited >= MOUNT_WAIT_MS)
			return -ETIMEDOUT;
		sleep_ms(10);
		waited += 10;
	}
	r->mounted = true;
	return 0;
}

static void stop_daemon(struct run *r)
{
	if (r->bound)
		umount2(KERNEL_TRACEFS, MNT_DETACH);
	r->bound = false;
	if (r->mounted) {
		if (r->root) {
			umount2(r->mnt, MNT_DETACH);
		} else {
			pid_t p = fork();

			if (p == 0) {
				execlp("fusermount3", "fusermount3", "-u", "-z", r->mnt, (char *)NULL);
				_exit(127);
			}
			if (p > 0)
				waitpid(p, NULL, 0);
		}
		r->mounted = false;
	}
	if (r->daemon > 0) {
		/* The unmount ends it; a daemon stuck for a second is told to go. */
		for (int i = 0; i < 100; i++) {
			if (waitpid(r->daemon, NULL, WNOHANG) == r->daemon) {
				r->daemon = 0;
				break;
			}
			sleep_ms(10);
		}
		if (r->daemon > 0) {
			kill(r->daemon, SIGTERM);
			waitpid(r->daemon, NULL, 0);
			r->daemon = 0;
		}
	}
	if (r->have_mnt)
		rmdir(r->mnt);
	r->have_mnt = false;
}

struct tick_arg {
	struct run *r;
	struct uet_autoenable *ae;
};

static void run_tick(void *arg)
{
	struct tick_arg *t = arg;
	struct run *r = t->r;

	uet_autoenable_tick(t->ae);
	if (!r->child_done && waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
		r->child_done = true;
		/* Enable what registered just before the end, then drain. */
		uet_autoenable_tick(t->ae);
		run_stop = 1;
	}
	if (got_signal == SIGTERM || got_signal == SIGHUP) {
		if (!r->child_done)
			kill(r->child, (int)got_signal);
		got_signal = 0;
	}
}

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct uet_count *)a)->name, ((const struct uet_count *)b)->name);
}

static void summary(struct uet_stream *s, const struct uet_buf_stats *st, bool have_st, int status)
{
	unsigned long long events = 0, bytes = 0;

	if (s->ncounts)
		qsort(s->counts, s->ncounts, sizeof(*s->counts), cmp_count);
	fprintf(stderr, "\n%-32s %12s %12s\n", "EVENT", "EVENTS", "BYTES");
	for (size_t i = 0; i < s->ncounts; i++) {
		fprintf(stderr, "%-32s %12llu %12llu\n", s->counts[i].name, s->counts[i].events,
			s->counts[i].bytes);
		events += s->counts[i].events;
		bytes += s->counts[i].bytes;
	}
	fprintf(stderr, "%-32s %12llu %12llu\n", "total", events, bytes);
	if (have_st)
		fprintf(stderr, "dropped: %llu (overrun %llu, discarded %llu, lost lines %llu)\n",
			st->overrun + st->dropped, st->overrun, st->dropped, s->lost);
	if (WIFEXITED(status))
		fprintf(stderr, UET_PROG ": run: command exited with status %d\n",
			WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, UET_PROG ": run: command killed by signal %d (%s)\n",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
}

/* Private mount namespace, mounts not propagated back to the host. */
static int private_namespace(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -errno;
	return 0;
}

/*
 * The private daemon: a private mount namespace (root) or /dev/fuse access,
 * a temporary mount point, usereventsd on it, and as root the bind over
 * /sys/kernel/tracing.  Says why on failure; stop_daemon() undoes any part.
 */
static int private_setup(struct run *r)
{
	int e;

	if (r->root) {
		e = private_namespace();
		if (e < 0) {
			uet_err("run: private mount namespace: %s", strerror(-e));
			return e;
		}
	} else if (access("/dev/fuse", R_OK | W_OK) < 0) {
		e = -errno;
		uet_err("run: /dev/fuse: %s (run as root, or give this user access to /dev/fuse)",
			strerror(-e));
		return e;
	}
	snprintf(r->mnt, sizeof(r->mnt), "%s/userevents-run.XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(r->mnt)) {
		e = -errno;
		uet_err("run: mkdtemp %s: %s", r->mnt, strerror(-e));
		return e;
	}
	r->have_mnt = true;
	e = start_daemon(r);
	if (e < 0) {
		uet_err("run: usereventsd did not mount %s: %s", r->mnt,
			e == -ECHILD ? "it exited" : strerror(-e));
		return e;
	}
	if (r->root) {
		if (mount(r->mnt, KERNEL_TRACEFS, NULL, MS_BIND, NULL) < 0) {
			e = -errno;
			uet_err("run: bind %s on " KERNEL_TRACEFS ": %s", r->mnt, strerror(-e));
			return e;
		}
		r->bound = true;
	}
	return 0;
}

struct uet_private {
	struct run r;
};

int uet_private_start(struct uet_private **ret, char *tracefs, size_t len)
{
	struct uet_private *p = calloc(1, sizeof(*p));
	int e;

	if (!p)
		return -ENOMEM;
	p->r.root = geteuid() == 0;
	e = private_setup(&p->r);
	if (e < 0) {
		stop_daemon(&p->r);
		free(p);
		return e;
	}
	snprintf(tracefs, len, "%s", p->r.mnt);
	*ret = p;
	return 0;
}

void uet_private_stop(struct uet_private *p)
{
	stop_daemon(&p->r);
	free(p);
}

int uet_cmd_run(const char *tracefs_opt, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static char *all_user_events[] = { "user_events*:*" };
	struct run r = { .root = geteuid() == 0 };
	struct uet_autoenable ae = { 0 };
	struct uet_stream s = { .out = stdout, .stop = &run_stop };
	struct tick_arg ta = { &r, &ae };
	struct uet_buf_stats st;
	struct sigaction sa;
	bool have_st = false, quiet = false;
	const char *output = NULL;
	char **globs;
	size_t n = 0;
	int c, e, exit_code;

	if (tracefs_opt) {
		uet_err("run: --tracefs does not apply: run starts its own usereventsd");
		return UET_EXIT_USAGE;
	}
	globs = calloc((size_t)argc + 1, sizeof(*globs));
	if (!globs)
		return UET_EXIT_RUN_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			globs[n++] = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			puts("usage: " UET_PROG " run [-e GLOB]... [-o FILE] [-q] -- CMD [ARGS]");
			free(globs);
			return UET_EXIT_OK;
		default:
			free(globs);
			return UET_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		uet_err("run: no command (usage: " UET_PROG " run [-e GLOB]... -- CMD [ARGS])");
		free(globs);
		return UET_EXIT_USAGE;
	}
	if (!n) {
		free(globs);
		globs = all_user_events;
		n = 1;
	}
	if (output) {
		s.copy = fopen(output, "we");
		if (!s.copy) {
			uet_err("run: %s: %s", output, strerror(errno));
			exit_code = UET_EXIT_RUN_FAIL;
			goto out_globs;
		}
	}
	if (quiet)
		s.out = NULL;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (private_setup(&r) < 0) {
		exit_code = UET_EXIT_RUN_FAIL;
		goto out;
	}
	ae.tracefs = r.mnt;
	ae.globs = globs;
	ae.nglobs = n;
	s.tracefs = r.mnt;
	s.globs = globs;
	s.nglobs = n;
	s.tick = run_tick;
	s.tick_arg = &ta;

	r.child = fork();
	if (r.child < 0) {
		uet_err("run: fork: %s", strerror(errno));
		exit_code = UET_EXIT_RUN_FAIL;
		goto out;
	}
	if (r.child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		setenv("USEREVENTS_TRACEFS", r.mnt, 1);
		execvp(argv[optind], argv + optind);
		e = errno;
		fprintf(stderr, UET_PROG ": run: %s: %s\n", argv[optind], strerror(e));
		_exit(e == ENOENT ? UET_EXIT_NOT_FOUND : UET_EXIT_CANNOT_EXEC);
	}
	e = uet_stream_loop(&s);
	if (e < 0)
		uet_err("run: %s/trace_pipe: %s", r.mnt, strerror(-e));
	if (!r.child_done) {
		/* The stream broke: the command is still ours to wait for. */
		waitpid(r.child, &r.child_status, 0);
		r.child_done = true;
	}
	have_st = uet_buf_stats_read(r.mnt, &st) == 0;
	uet_autoenable_undo(&ae);
	summary(&s, &st, have_st, r.child_status);
	if (WIFEXITED(r.child_status))
		exit_code = WEXITSTATUS(r.child_status);
	else if (WIFSIGNALED(r.child_status))
		exit_code = 128 + WTERMSIG(r.child_status);
	else
		exit_code = UET_EXIT_RUN_FAIL;
	if (e < 0 && exit_code == 0)
		exit_code = UET_EXIT_RUN_FAIL;
out:
	stop_daemon(&r);
	free(ae.done);
out_globs:
	if (s.copy && fclose(s.copy) != 0) {
		uet_err("run: %s: %s", output, strerror(errno));
		if (exit_code == 0)
			exit_code = UET_EXIT_RUN_FAIL;
	}
	uet_stream_free(&s);
	if (globs != all_user_events)
		free(globs);
	return exit_code;
}
