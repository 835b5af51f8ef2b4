// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * keeper: the notification protocol, both ends (keeper.h).
 *
 * The keeper's loop (usereventsd --keep) watches two things: its socket,
 * where the main process (and any process of the keeper's user: a daemon
 * that took the mount by --upgrade) says READY=1, STOPPING=1, MAINPID=,
 * FDSTORE=1 and FDSTOREREMOVE=1 as systemd reads them; and a pidfd of the
 * main process.  When the main process ends after STOPPING=1 the keeper
 * ends with it.  When it ends otherwise (a crash, SIGKILL, an OOM kill), a
 * new daemon is started at once with the stored descriptors, as systemd's
 * Restart= does with its store; more than RESTART_BURST restarts within
 * RESTART_WINDOW_MS and the keeper lets go (its copy of the connection
 * goes, so the mount fails with ENOTCONN as it would without a keeper).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "fdpass.h"
#include "keeper.h"

#define STORE_MAX 16
#define RESTART_BURST 5
#define RESTART_WINDOW_MS 10000

/* ---- the daemon's side ---- */

static int sock_addr(const char *sock, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n;

	if (!sock || (sock[0] != '/' && sock[0] != '@'))
		return -EINVAL;
	n = strlen(sock);
	if (n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, sock, n);
	if (sock[0] == '@')
		sa->sun_path[0] = 0;
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (sock[0] == '/'));
	return 0;
}

int ue_keeper_notify(const char *sock, const char *msg, const int *fds, unsigned int nfds)
{
	char cbuf[UE_FDPASS_SPACE(STORE_MAX)];
	struct iovec iov = { (void *)msg, strlen(msg) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct sockaddr_un sa;
	socklen_t len;
	int s, r;

	if (!sock)
		return 0;
	r = sock_addr(sock, &sa, &len);
	if (r < 0 || nfds > STORE_MAX)
		return r < 0 ? r : -EINVAL;
	mh.msg_name = &sa;
	mh.msg_namelen = len;
	ue_fdpass_attach(&mh, cbuf, fds, nfds);
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	r = sendmsg(s, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
	close(s);
	return r;
}

void ue_keeper_main_pid(const char *sock, pid_t pid)
{
	char msg[32];

	snprintf(msg, sizeof(msg), "MAINPID=%d", (int)pid);
	ue_keeper_notify(sock, msg, NULL, 0);
}

void ue_keeper_store(struct ue_daemon *d)
{
	int fuse = fuse_session_fd(d->se), state = ue_ckpt_fd(d);
	int r = 0;

	if (!d->notify_socket)
		return;
	if (state >= 0)
		r = ue_keeper_notify(d->notify_socket, "FDSTORE=1\nFDNAME=" UE_KEEP_STATE, &state, 1);
	if (!r)
		r = ue_keeper_notify(d->notify_socket, "FDSTORE=1\nFDNAME=" UE_KEEP_FUSE, &fuse, 1);
	if (r < 0)
		fprintf(stderr, UE_DAEMON_NAME ": no restart after a crash: %s: %s\n",
			d->notify_socket, strerror(-r));
}

void ue_keeper_ready(struct ue_daemon *d)
{
	ue_keeper_notify(d->notify_socket, "READY=1", NULL, 0);
}

void ue_keeper_let_go(const char *sock)
{
	ue_keeper_notify(sock, "FDSTOREREMOVE=1\nFDNAME=" UE_KEEP_FUSE, NULL, 0);
	ue_keeper_notify(sock, "FDSTOREREMOVE=1\nFDNAME=" UE_KEEP_STATE, NULL, 0);
}

void ue_keeper_stopping(struct ue_daemon *d)
{
	/* What was stored goes: nothing is left to restart. */
	ue_keeper_notify(d->notify_socket, "STOPPING=1", NULL, 0);
	ue_keeper_let_go(d->notify_socket);
}

bool ue_keeper_listen_fds(int *ret_fuse, int *ret_state)
{
	const char *pid = getenv("LISTEN_PID"), *nfds = getenv("LISTEN_FDS");
	const char *names = getenv("LISTEN_FDNAMES");
	long n = nfds ? strtol(nfds, NULL, 10) : 0;

	*ret_fuse = *ret_state = -1;
	if (!pid || strtol(pid, NULL, 10) != (long)getpid() || n <= 0 || n > STORE_MAX)
		n = 0;
	for (long i = 0; i < n; i++) {
		int fd = 3 + (int)i;
		size_t len = names ? strcspn(names, ":") : 0;

		fcntl(fd, F_SETFD, FD_CLOEXEC);
		if (len == strlen(UE_KEEP_FUSE) && strncmp(names, UE_KEEP_FUSE, len) == 0 &&
		    *ret_fuse < 0)
			*ret_fuse = fd;
		else if (len == strlen(UE_KEEP_STATE) && strncmp(names, UE_KEEP_STATE, len) == 0 &&
			 *ret_state < 0)
			*ret_state = fd;
		else
			close(fd);
		if (names)
			names = names[len] ? names + len + 1 : names + len;
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (*ret_fuse < 0 && *ret_state >= 0) {
		close(*ret_state);
		*ret_state = -1;
	}
	return *ret_fuse >= 0;
}

int ue_keeper_detach(int *ret_status_fd)
{
	int pipefd[2], nul;
	char st = 1;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid > 0) {
		close(pipefd[1]);
		if (read(pipefd[0], &st, 1) != 1)
			st = 1;
		_exit(st);
	}
	close(pipefd[0]);
	*ret_status_fd = pipefd[1];
	setsid();
	if (chdir("/") < 0)
		return -1;
	/* As fuse_daemonize() leaves a daemon: nothing of the terminal's. */
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		if (nul > 2)
			close(nul);
	}
	return 0;
}

/* ---- the keeper ---- */

struct stored {
	char name[64];
	int fd;
};

struct keeper {
	int sock;
	char sock_name[108];	/* as NOTIFY_SOCKET says it */
	char exe[PATH_MAX];
	char **argv;		/* the daemon's: -f added, --keep taken out */
	struct stored store[STORE_MAX];
	unsigned int nstored;
	pid_t main_pid;
	int main_fd;		/* a pidfd of main_pid */
	bool ready, stopping;
	int ready_fd;		/* the command's parent waits for READY=1 here, or -1 */
	uint64_t restarts_at[RESTART_BURST];
	unsigned int nrestarts;
};

static volatile sig_atomic_t got_term;

static void on_term(int sig)
{
	(void)sig;
	got_term = 1;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void store_remove(struct keeper *k, const char *name)
{
	for (unsigned int i = 0; i < k->nstored;) {
		if (strcmp(k->store[i].name, name) == 0) {
			close(k->store[i].fd);
			k->store[i] = k->store[--k->nstored];
		} else {
			i++;
		}
	}
}

static void store_clear(struct keeper *k)
{
	while (k->nstored)
		close(k->store[--k->nstored].fd);
}

static int watch_main(struct keeper *k, pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		return -errno;
	if (k->main_fd >= 0)
		close(k->main_fd);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	k->main_fd = fd;
	k->main_pid = pid;
	return 0;
}

static void tell_parent(struct keeper *k, char status)
{
	if (k->ready_fd >= 0) {
		(void)!write(k->ready_fd, &status, 1);
		close(k->ready_fd);
		k->ready_fd = -1;
	}
}

/* One notification: its lines as systemd reads them, its descriptors stored or closed. */
static void handle_message(struct keeper *k)
{
	char buf[4096], cbuf[UE_FDPASS_SPACE(STORE_MAX)];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	int fds[STORE_MAX];
	unsigned int nfds = 0;
	struct ucred cr = { .pid = 0, .uid = (uid_t)-1 };
	bool fdstore = false, fdremove = false, have_cred = false;
	char name[64] = "stored";
	ssize_t n = recvmsg(k->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

	if (n < 0)
		return;
	buf[n] = 0;
	have_cred = ue_fdpass_take(&mh, fds, &nfds, STORE_MAX, &cr);
	/* Root or the keeper's own user, as the daemon's control socket (docs/SECURITY.md). */
	if (!have_cred || (cr.uid != 0 && cr.uid != getuid()))
		goto out;
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (strcmp(line, "READY=1") == 0) {
			k->ready = true;
			tell_parent(k, 0);
		} else if (strcmp(line, "STOPPING=1") == 0 && cr.pid == k->main_pid) {
			k->stopping = true;
		} else if (strncmp(line, "MAINPID=", 8) == 0) {
			long pid = strtol(line + 8, NULL, 10);

			if (pid > 0 && pid != k->main_pid && watch_main(k, (pid_t)pid) == 0)
				k->stopping = false;
		} else if (strcmp(line, "FDSTORE=1") == 0) {
			fdstore = true;
		} else if (strcmp(line, "FDSTOREREMOVE=1") == 0) {
			fdremove = true;
		} else if (strncmp(line, "FDNAME=", 7) == 0) {
			snprintf(name, sizeof(name), "%s", line + 7);
		}
	}
	if (fdremove)
		store_remove(k, name);
	if (fdstore) {
		/* One descriptor per name here: a daemon stores each once. */
		store_remove(k, name);
		for (unsigned int i = 0; i < nfds && k->nstored < STORE_MAX; i++) {
			snprintf(k->store[k->nstored].name, sizeof(k->store[0].name), "%s", name);
			k->store[k->nstored++].fd = fds[i];
			fds[i] = -1;
		}
	}
out:
	for (unsigned int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The daemon, started first (@restart false) or again with what was stored. */
static int spawn(struct keeper *k, bool restart)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char names[STORE_MAX * 65] = "", num[16];
		unsigned int i;

		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		if (restart) {
			/* Moved out of the way of 3.. first, then put there in order. */
			int tmp[STORE_MAX];

			for (i = 0; i < k->nstored; i++)
				tmp[i] = fcntl(k->store[i].fd, F_DUPFD_CLOEXEC, 3 + STORE_MAX);
			for (i = 0; i < k->nstored; i++) {
				if (tmp[i] < 0 || dup2(tmp[i], 3 + (int)i) < 0)
					_exit(127);
				if (i)
					strcat(names, ":");
				strcat(names, k->store[i].name);
			}
			snprintf(num, sizeof(num), "%u", k->nstored);
			setenv("LISTEN_FDS", num, 1);
			setenv("LISTEN_FDNAMES", names, 1);
			snprintf(num, sizeof(num), "%d", (int)getpid());
			setenv("LISTEN_PID", num, 1);
		}
		setenv("NOTIFY_SOCKET", k->sock_name, 1);
		execv(k->exe, k->argv);
		fprintf(stderr, UE_DAEMON_NAME ": --keep: %s: %s\n", k->exe, strerror(errno));
		_exit(127);
	}
	k->stopping = false;
	return watch_main(k, pid);
}

static void reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0) {
	}
}

/* After a death without STOPPING=1: start again, unless that happens too often. */
static int restart(struct keeper *k)
{
	uint64_t now = mono_ms();
	unsigned int recent = 0;

	for (unsigned int i = 0; i < k->nrestarts && i < RESTART_BURST; i++)
		recent += now - k->restarts_at[i] < RESTART_WINDOW_MS;
	if (recent >= RESTART_BURST) {
		fprintf(stderr, UE_DAEMON_NAME ": --keep: %d restarts within %d ms: letting go\n",
			RESTART_BURST, RESTART_WINDOW_MS);
		return -EAGAIN;
	}
	k->restarts_at[k->nrestarts++ % RESTART_BURST] = now;
	fprintf(stderr, UE_DAEMON_NAME ": --keep: pid %d ended without stopping: starting again\n",
		(int)k->main_pid);
	return spawn(k, true);
}

static int keeper_loop(struct keeper *k)
{
	for (;;) {
		struct pollfd pfd[2] = { { .fd = k->sock, .events = POLLIN },
					 { .fd = k->main_fd, .events = POLLIN } };
		pid_t polled = k->main_pid;

		if (got_term && k->main_pid > 0) {
			kill(k->main_pid, SIGTERM);
			got_term = 0;
		}
		if (poll(pfd, 2, 1000) < 0 && errno != EINTR)
			return EXIT_FAILURE;
		reap();
		/* What the main process said before it went counts: read it first. */
		if (pfd[0].revents & POLLIN)
			do
				handle_message(k);
			while (poll(&pfd[0], 1, 0) > 0 && (pfd[0].revents & POLLIN));
		if (!(pfd[1].revents & POLLIN))
			continue;
		/*
		 * An upgrade's predecessor says MAINPID= of its successor and
		 * exits: both can come in one wake-up.  The death polled was the
		 * old main's; the new one is watched from the next poll on.
		 */
		if (k->main_pid != polled)
			continue;
		if (k->stopping)
			return EXIT_SUCCESS;
		if (!k->ready || !k->nstored) {
			/* It never served, or kept nothing: as a daemon without a keeper. */
			fprintf(stderr, UE_DAEMON_NAME ": --keep: pid %d ended before %s\n",
				(int)k->main_pid, k->ready ? "storing its mount" : "serving");
			return EXIT_FAILURE;
		}
		if (restart(k) < 0)
			return EXIT_FAILURE;
	}
}

static int keeper_socket(struct keeper *k)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned long long rnd = 0;
	socklen_t len;
	int one = 1;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	snprintf(k->sock_name, sizeof(k->sock_name), "@usereventsd-keeper/%d/%016llx",
		 (int)getpid(), rnd);
	k->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (k->sock < 0)
		return -errno;
	memcpy(sa.sun_path + 1, k->sock_name + 1, strlen(k->sock_name) - 1);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(k->sock_name));
	if (setsockopt(k->sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) < 0 ||
	    bind(k->sock, (struct sockaddr *)&sa, len) < 0)
		return -errno;
	return 0;
}

int ue_keeper_run(int argc, char **argv)
{
	struct keeper k = { .sock = -1, .main_fd = -1, .ready_fd = -1 };
	bool foreground = false;
	struct sigaction sa = { .sa_handler = on_term };
	ssize_t n;
	int r, j = 0;

	n = readlink("/proc/self/exe", k.exe, sizeof(k.exe) - 1);
	if (n <= 0)
		return EXIT_FAILURE;
	k.exe[n] = 0;
	/* The binary installed now (a package upgrade replaced ours): its path. */
	if (n > 10 && strcmp(k.exe + n - 10, " (deleted)") == 0)
		k.exe[n - 10] = 0;
	k.argv = calloc((size_t)argc + 2, sizeof(*k.argv));
	if (!k.argv)
		return EXIT_FAILURE;
	k.argv[j++] = argv[0];
	k.argv[j++] = (char *)"-f";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--keep") == 0)
			continue;
		if (strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "-d") == 0)
			foreground = true;
		k.argv[j++] = argv[i];
	}
	r = keeper_socket(&k);
	if (r < 0) {
		fprintf(stderr, UE_DAEMON_NAME ": --keep: its socket: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	/* The command's status is whether the daemon came to serve (READY=1). */
	if (!foreground && ue_keeper_detach(&k.ready_fd) < 0)
		return EXIT_FAILURE;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "usereventsd-kp");
	r = spawn(&k, false);
	if (r < 0) {
		fprintf(stderr, UE_DAEMON_NAME ": --keep: %s\n", strerror(-r));
		tell_parent(&k, 1);
		return EXIT_FAILURE;
	}
	r = keeper_loop(&k);
	tell_parent(&k, r == EXIT_SUCCESS ? 0 : 1);
	store_clear(&k);
	free(k.argv);
	return r;
}
