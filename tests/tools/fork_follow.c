// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fork_follow: a fork child's inherited enable bit must follow its event
 * at once, as under the kernel (its fork copies the parent's enablers
 * before fork() returns).  It registers user_events:fork_follow (disabled)
 * and, ROUNDS times, forks a child that makes no request of its own, then
 * enables the event through its `enable` file and asks the child, right
 * after the write returned (and the parent's own bit followed), whether
 * its copy of the bit is set; then disables it and asks again.  An
 * unprivileged daemon (no proc connector) learns of a fork that fast only
 * when the child tells it (UE_IOC_FORKED,
 * made by libuserevents-preload.so's pthread_atfork() handler); else the
 * children poller finds it up to 50 ms later.  Last, it writes
 * user_events:fork_follow_done once (the tracer's event).  Exit 0 when
 * every answer was right.  Built with FF_LIB (fork_follow_lib) it
 * registers through libuserevents instead, whose own pthread_atfork()
 * handler tells the daemon.
 *
 *   fork_follow ROUNDS      (the tracefs is $USEREVENTS_TRACEFS)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userevents/abi.h"
#include "enable-file.h"
#ifdef FF_LIB
#include "userevents/userevents.h"
#endif

#define EVENT "fork_follow"

#ifdef FF_LIB
static struct ue_tracepoint tp = { .name_args = EVENT " u32 n" };
static struct ue_tracepoint done_tp = { .name_args = EVENT "_done u32 wrong" };
#define word tp.enabled
#define done_word done_tp.enabled
#else
static volatile uint32_t word, done_word;
#endif

static int set_enable(const char *tracefs, char v)
{
	return enable_file_write("fork_follow", tracefs, EVENT, v);
}

#ifndef FF_LIB
static int reg(int fd, const char *name_args, volatile uint32_t *w, uint32_t *idx)
{
	struct user_reg r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.name_args = (uintptr_t)name_args;
	r.enable_addr = (uintptr_t)w;
	r.enable_size = sizeof(*w);
	if (ioctl(fd, DIAG_IOCSREG, &r) < 0) {
		fprintf(stderr, "fork_follow: DIAG_IOCSREG %s: %s\n", name_args, strerror(errno));
		return -1;
	}
	*idx = r.write_index;
	return 0;
}
#endif

/* The child: answers 'y' or 'n' to each expected bit ('0', '1'), until 'q'. */
static void __attribute__((noreturn)) child(int in, int out)
{
	char want, ans;

	while (read(in, &want, 1) == 1 && want != 'q') {
		ans = (char)('0' + (__atomic_load_n(&word, __ATOMIC_RELAXED) & 1)) == want ? 'y' : 'n';
		if (write(out, &ans, 1) != 1)
			break;
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *tracefs = getenv("USEREVENTS_TRACEFS");
	int rounds, fd, wrong = 0, asked = 0, late = 0;
	uint32_t idx, done_idx;
	char path[4096];

	if (argc != 2 || !tracefs) {
		fprintf(stderr, "usage: USEREVENTS_TRACEFS=DIR fork_follow ROUNDS\n");
		return 2;
	}
	rounds = atoi(argv[1]);
#ifdef FF_LIB
	struct ue_provider *prov;

	(void)fd, (void)idx, (void)done_idx, (void)path;
	if (ue_provider_open(NULL, &prov) < 0 || ue_provider_backend(prov) != UE_BACKEND_DAEMON ||
	    ue_tracepoint_register(prov, &tp, NULL) < 0 ||
	    ue_tracepoint_register(prov, &done_tp, NULL) < 0 || set_enable(tracefs, '0') < 0) {
		fprintf(stderr, "fork_follow: libuserevents: no provider of usereventsd\n");
		return 1;
	}
#else
	snprintf(path, sizeof(path), "%s/user_events_data", tracefs);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fork_follow: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (reg(fd, EVENT " u32 n", &word, &idx) < 0 ||
	    reg(fd, EVENT "_done u32 wrong", &done_word, &done_idx) < 0 || set_enable(tracefs, '0') < 0)
		return 1;
#endif
	for (int r = 0; r < rounds; r++) {
		int to[2], from[2], st;
		pid_t pid;

		if (pipe(to) < 0 || pipe(from) < 0)
			return 1;
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			close(to[1]);
			close(from[0]);
			child(to[0], from[1]);
		}
		close(to[0]);
		close(from[1]);
		for (const char *w = "1010"; *w; w++) {
			char ans = 'n';

			if (set_enable(tracefs, *w) < 0)
				return 1;
			/*
			 * The enable write waits at most 100 ms for the writes
			 * into the processes (docs/compat.md): on a loaded
			 * machine the parent's own bit may come later.  The
			 * child must follow as the parent does.
			 */
			for (int i = 0; i < 2000 && (char)('0' + (word & 1)) != *w; i++) {
				if (i == 0)
					late++;
				usleep(1000);
			}
			if (write(to[1], w, 1) != 1 || read(from[0], &ans, 1) != 1)
				return 1;
			asked++;
			if (ans != 'y') {
				wrong++;
				/* Late, or not at all? */
				usleep(100000);
				if (write(to[1], w, 1) != 1 || read(from[0], &ans, 1) != 1)
					return 1;
				fprintf(stderr, "fork_follow: round %d: the child's bit is not %c after "
						"the enable write (%s 100 ms later)\n", r, *w,
					ans == 'y' ? "it is" : "nor");
			}
		}
		if (write(to[1], "q", 1) != 1 || waitpid(pid, &st, 0) != pid)
			return 1;
		close(to[1]);
		close(from[0]);
	}
	if (done_word & 1) {
#ifdef FF_LIB
		struct iovec io = { &wrong, sizeof(wrong) };
		int e = ue_tracepoint_writev(&done_tp, &io, 1);
#else
		struct iovec io[2] = { { &done_idx, sizeof(done_idx) }, { &wrong, sizeof(wrong) } };
		int e = writev(fd, io, 2) < 0 ? -errno : 0;
#endif

		if (e < 0)
			fprintf(stderr, "fork_follow: write: %s\n", strerror(-e));
	}
	if (late)
		fprintf(stderr, "fork_follow: the parent's own bit came after the enable write "
				"returned %d times\n", late);
	printf("fork_follow: %d rounds, %d of %d answers wrong\n", rounds, wrong, asked);
	return wrong ? 1 : 0;
}
