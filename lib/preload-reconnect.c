// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * preload-reconnect: interposed programs outlive their daemon.  A thread of
 * the interposer (made when a process first registers with a daemon, again
 * in a fork child) sleeps in poll() on the session's socket.  Its hang-up,
 * then ENOTCONN from one of our user_events_data descriptors, means the
 * daemon died (one that only closed the session still answers: a new
 * session is made).  Then every enable bit the process registered is
 * cleared, writes are refused (EBADF, as for an event that is off) and
 * counted, and the thread watches the path each file was opened at (the
 * mount table's changes, and every 50 to 250 ms).  When a daemon serves
 * there again, every registration is made again on a fresh open of it, in
 * write-index order (so the indexes the program holds name the same
 * events), with the same name_args, enable address, bit and size; the fresh
 * file then takes the program's own descriptor numbers (dup3()), and a new
 * session is told what was lost.  The write path is untouched: the enable
 * check stays one load, writes stay free of system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "native-proto.h"
#include "preload.h"

#define PL_TICK_MS 1000		/* no session to hang up: a descriptor is asked this often */
#define PL_BACKOFF_MIN_MS 50
#define PL_BACKOFF_MAX_MS 250

static pid_t watcher_pid;	/* the process whose watcher runs */
static bool kicked;
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * No descriptor is kept to wake the watcher (a program that closes every
 * descriptor it did not open would close it, or have its number read): a
 * write that saw ENOTCONN found a dead daemon, whose session socket has
 * hung up and woken the watcher already; without a session the watcher
 * looks within PL_TICK_MS.
 */
void pl_watch_kick(void)
{
	__atomic_store_n(&kicked, true, __ATOMIC_RELAXED);
}

static bool hung_up(int sock)
{
	char c;
	ssize_t k = recv(sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The daemon died: bits cleared, session closed, writes refused from now on. */
static void gone(void)
{
	while (!pl_lock())
		;
	if (!pl_gone()) {
		pl_files_gone_locked();
		pl_gone_locked();
	}
	pl_unlock();
}

/* The session was lost but the daemon still serves @fd: a new session with it. */
static void session_renew(int fd)
{
	char name[UE_NATIVE_SOCK_NAME_MAX + 1];
	int len = (int)fgetxattr(fd, UE_NATIVE_XATTR, name, UE_NATIVE_SOCK_NAME_MAX);

	if (len <= 0 || !pl_lock())
		return;
	pl_session_again_locked(fd, name, len);
	pl_unlock();
}

static void *watch(void *arg)
{
	int backoff = PL_BACKOFF_MIN_MS;
	uint64_t checked = 0;

	(void)arg;
	for (;;) {
		struct pollfd pf[1];
		int n = 0, timeout = -1, sock = -1, fd, mi = -1;
		bool waiting = pl_gone(), lost_session = false;
		char name[UE_NATIVE_SOCK_NAME_MAX + 1];

		if (waiting) {
			/*
			 * A mount or an unmount wakes us at once (POLLPRI: the
			 * mount table changed since this open).  Opened for this
			 * wait only: the program may close what it did not open.
			 */
			mi = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/mountinfo",
					  O_RDONLY | O_CLOEXEC, 0);
			if (mi >= 0)
				pf[n++] = (struct pollfd){ .fd = mi, .events = POLLPRI };
			timeout = backoff;
		} else {
			backoff = PL_BACKOFF_MIN_MS;
			sock = pl_session_sock();
			if (sock >= 0)
				pf[n++] = (struct pollfd){ .fd = sock, .events = POLLRDHUP };
			else
				timeout = PL_TICK_MS;
		}
		if (poll(pf, (nfds_t)n, timeout) < 0 && errno != EINTR) {
			struct timespec ts = { 0, 50000000 };

			nanosleep(&ts, NULL);
		}
		if (mi >= 0)
			syscall(SYS_close, mi);
		if (waiting) {
			if (!pl_files_reconnect())
				backoff = backoff * 2 > PL_BACKOFF_MAX_MS ? PL_BACKOFF_MAX_MS
									   : backoff * 2;
			continue;
		}
		if (sock >= 0 && sock == pl_session_sock())
			lost_session = hung_up(sock);
		if (!lost_session && !__atomic_exchange_n(&kicked, false, __ATOMIC_RELAXED) &&
		    (sock >= 0 || mono_ms() - checked < PL_TICK_MS))
			continue;
		checked = mono_ms();
		fd = pl_probe_fd();
		if (fd < 0) {
			/* Nothing to ask (the program closed its files): not a busy loop. */
			struct timespec ts = { PL_TICK_MS / 1000, 0 };

			nanosleep(&ts, NULL);
			continue;
		}
		/* The same daemon still serving (it closed the session only): no reconnection. */
		if (fgetxattr(fd, UE_NATIVE_XATTR, name, UE_NATIVE_SOCK_NAME_MAX) > 0 ||
		    errno != ENOTCONN) {
			if (lost_session)
				session_renew(fd);
			/* Still the same hung-up socket (no new session): not a busy loop. */
			if (lost_session && pl_session_sock() == sock) {
				struct timespec ts = { 0, 100000000 };

				nanosleep(&ts, NULL);
			}
			continue;
		}
		gone();
		pl_files_reconnect();
	}
	return NULL;
}

void pl_watch_start(void)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	pid_t pid = getpid();

	pthread_mutex_lock(&start_lock);
	if (watcher_pid == pid || pthread_attr_init(&attr) != 0)
		goto out;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	/* The program's signals are for its own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, &attr, watch, NULL) == 0)
		watcher_pid = pid;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
out:
	pthread_mutex_unlock(&start_lock);
}

void pl_watch_after_fork(void)
{
	bool had = watcher_pid != 0;

	/* The lock may have been held by a thread of the parent. */
	pthread_mutex_init(&start_lock, NULL);
	watcher_pid = 0;
	if (had)
		pl_watch_start();
}
