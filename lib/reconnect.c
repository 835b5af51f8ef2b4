// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reconnect: providers outlive their daemon.  One thread per process (made
 * with the first provider of a daemon, again in a fork child), blocked in
 * poll() on the providers' native sockets: a socket's hang-up, then
 * ENOTCONN from the provider's own user_events_data, means the daemon died
 * (a daemon that only closed the session still answers: the session is
 * made again).  The provider's enable words are cleared then (no write is
 * paid for that nobody reads), writes are refused and counted, and the
 * thread watches the same path (its mount table's changes, and every 50 to
 * 250 ms) for a daemon serving again; then the provider's descriptor number
 * gets the new file (dup3), every event is registered again with the same
 * name_args and enable word (the new daemon sets it when a tracer enables
 * the event), a new session is made and told what was lost.  The write
 * path is untouched: the enable check stays one load.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "userevents/abi.h"
#include "native-proto.h"

#define FUSE_SUPER_MAGIC 0x65735546
#define WATCH_MAX 256			/* providers looked at in one pass */
#define TICK_NS 1000000000ull		/* a provider without a session: looked at this often */
#define BACKOFF_MIN_MS 50
#define BACKOFF_MAX_MS 250

static pid_t watcher_pid;		/* the process whose watcher runs (a fork child has none) */
static int wake_fd = -1;		/* an eventfd: a write saw ENOTCONN, a provider closes */
static pthread_cond_t forget_cond = PTHREAD_COND_INITIALIZER;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void wake(void)
{
	uint64_t one = 1;
	int saved = errno;

	if (wake_fd >= 0 && write(wake_fd, &one, sizeof(one)) < 0) {
		/* Full (2^64 - 2 wake-ups pending): it wakes anyway. */
	}
	errno = saved;
}

void ue__watch_kick(struct ue_provider *p)
{
	if (!__atomic_exchange_n(&p->suspect, true, __ATOMIC_RELAXED))
		wake();
}

void ue__watch_forget_locked(struct ue_provider *p)
{
	while (p->watched)
		pthread_cond_wait(&forget_cond, &ue__providers_lock);
	wake();
}

/* Whether the peer of @sock hung up (EOF or an error; not "no data yet"). */
static bool hung_up(int sock)
{
	char c;
	ssize_t k = recv(sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);

	return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/*
 * The daemon is gone (@p's lock held): the enable words cleared, as no one
 * can read a write now; the session retired, what its rings held counted.
 */
static void mark_gone(struct ue_provider *p)
{
	struct ue_native *n = __atomic_load_n(&p->native, __ATOMIC_ACQUIRE);

	__atomic_store_n(&p->gone, true, __ATOMIC_RELEASE);
	for (struct ue_tracepoint *tp = p->events; tp; tp = tp->next) {
		__atomic_store_n(&tp->enabled, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&tp->native_id, 0, __ATOMIC_RELAXED);
	}
	if (n) {
		__atomic_store_n(&p->native, NULL, __ATOMIC_RELEASE);
		__atomic_add_fetch(&p->lost, ue__native_retire(p, n), __ATOMIC_RELAXED);
	}
}

/*
 * A new session with the daemon serving @p->fd (@p's lock held), its slots
 * set before it is published (a writer reads the session, then the slot),
 * then told what was lost since the last one.
 */
static void session_again(struct ue_provider *p)
{
	struct ue_native *n;
	uint64_t lost;
	int err = 0;

	if (p->flags & UE_PROVIDER_NO_NATIVE)
		return;
	n = ue__native_connect(p, &err);
	if (!n)
		return;
	for (struct ue_tracepoint *tp = p->events; tp; tp = tp->next)
		if (!(tp->reserved & (UE_TP_PENDING | USER_EVENT_REG_MULTI_FORMAT)))
			ue__native_add(n, tp);
	__atomic_store_n(&p->native, n, __ATOMIC_RELEASE);
	lost = __atomic_load_n(&p->lost, __ATOMIC_RELAXED);
	if (lost > p->lost_told && ue__native_tell_lost(n, lost - p->lost_told) == 0)
		p->lost_told = lost;
}

/* The session alone was lost, the daemon still serves: a new one (lock held). */
static void session_renew(struct ue_provider *p)
{
	struct ue_native *n = __atomic_load_n(&p->native, __ATOMIC_ACQUIRE);

	if (n) {
		__atomic_store_n(&p->native, NULL, __ATOMIC_RELEASE);
		for (struct ue_tracepoint *tp = p->events; tp; tp = tp->next)
			__atomic_store_n(&tp->native_id, 0, __ATOMIC_RELAXED);
		__atomic_add_fetch(&p->lost, ue__native_retire(p, n), __ATOMIC_RELAXED);
	}
	session_again(p);
}

/* Every event again, oldest first (the list is newest first): the order they were registered in. */
static void register_again(struct ue_provider *p)
{
	struct ue_tracepoint *done = NULL;

	while (done != p->events) {
		struct ue_tracepoint *tp = p->events;

		while (tp->next != done)
			tp = tp->next;
		if (ue__tp_register(p, tp) == 0)
			__atomic_and_fetch(&tp->reserved, ~UE_TP_PENDING, __ATOMIC_RELAXED);
		else
			__atomic_or_fetch(&tp->reserved, UE_TP_PENDING, __ATOMIC_RELAXED);
		done = tp;
	}
}

/*
 * A daemon serving again where @p found its last one?  Its file then takes
 * the provider's descriptor number (writers never see a closed one), every
 * event is registered again, a session is made.  Return: whether it did.
 */
static bool try_reconnect(struct ue_provider *p)
{
	char path[PATH_MAX + 32], name[UE_NATIVE_SOCK_NAME_MAX + 1];
	struct statfs sfs;
	int fd, r;

	snprintf(path, sizeof(path), "%s/user_events_data", p->tracefs);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	/* A usereventsd that answers: not a dead mount, not another file system. */
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != FUSE_SUPER_MAGIC ||
	    fgetxattr(fd, UE_NATIVE_XATTR, name, UE_NATIVE_SOCK_NAME_MAX) <= 0) {
		close(fd);
		return false;
	}
	pthread_mutex_lock(&p->lock);
	r = dup3(fd, p->fd, O_CLOEXEC);
	close(fd);
	if (r < 0) {
		pthread_mutex_unlock(&p->lock);
		return false;
	}
	__atomic_store_n(&p->gone, false, __ATOMIC_RELEASE);
	register_again(p);
	session_again(p);
	pthread_mutex_unlock(&p->lock);
	return true;
}

/*
 * One look at @p.  Return: whether it waits for a daemon (the watcher then
 * wakes up soon to look again).
 */
static bool look(struct ue_provider *p, uint64_t now)
{
	char name[UE_NATIVE_SOCK_NAME_MAX + 1];
	struct ue_native *n;
	bool lost_session = false;
	int sock;

	if (__atomic_load_n(&p->gone, __ATOMIC_ACQUIRE))
		return !try_reconnect(p);
	n = __atomic_load_n(&p->native, __ATOMIC_ACQUIRE);
	if (n) {
		sock = ue__native_sock(n);
		lost_session = sock < 0 || hung_up(sock);
	}
	if (!lost_session && !__atomic_exchange_n(&p->suspect, false, __ATOMIC_RELAXED)) {
		/* No session to hang up: its file is asked now and then. */
		if (n || now - p->checked_ns < TICK_NS)
			return false;
	}
	p->checked_ns = now;
	/* The same daemon still serving (it closed the session only): no reconnection. */
	if (fgetxattr(p->fd, UE_NATIVE_XATTR, name, UE_NATIVE_SOCK_NAME_MAX) > 0 ||
	    errno != ENOTCONN) {
		/*
		 * A session lost (a fork parent's too: the child makes one of
		 * its own; a daemon that replaced ours, usereventsd --upgrade,
		 * has another socket), or none yet: one with the daemon now.
		 */
		if (lost_session || (!n && !(p->flags & UE_PROVIDER_NO_NATIVE))) {
			pthread_mutex_lock(&p->lock);
			if (__atomic_load_n(&p->native, __ATOMIC_ACQUIRE) == n)
				session_renew(p);
			pthread_mutex_unlock(&p->lock);
		}
		return false;
	}
	pthread_mutex_lock(&p->lock);
	if (!p->gone)
		mark_gone(p);
	pthread_mutex_unlock(&p->lock);
	return !try_reconnect(p);
}

static void *watch(void *arg)
{
	struct pollfd pf[WATCH_MAX + 2];
	struct ue_provider *list[WATCH_MAX];
	int backoff = BACKOFF_MIN_MS, wfd = (int)(intptr_t)arg;

	for (;;) {
		unsigned int n = 0, np = 0;
		bool waiting = false, ticking = false;
		int timeout = -1, mi = -1;
		uint64_t junk, now;

		/* Our eventfd, unless the program closed it (then looks are timed). */
		pf[n++] = (struct pollfd){ .fd = wfd, .events = POLLIN };
		pthread_mutex_lock(&ue__providers_lock);
		for (struct ue_provider *p = ue__providers; p; p = p->next_open) {
			struct ue_native *nat;
			int sock;

			if (p->backend != UE_BACKEND_DAEMON)
				continue;
			if (__atomic_load_n(&p->gone, __ATOMIC_ACQUIRE)) {
				waiting = true;
				continue;
			}
			nat = __atomic_load_n(&p->native, __ATOMIC_ACQUIRE);
			sock = nat ? ue__native_sock(nat) : -1;
			if (sock >= 0 && n < WATCH_MAX + 1)
				pf[n++] = (struct pollfd){ .fd = sock, .events = POLLRDHUP };
			else
				ticking = true;
		}
		pthread_mutex_unlock(&ue__providers_lock);
		if (waiting) {
			/*
			 * A mount or an unmount wakes us at once (POLLPRI: the
			 * mount table changed since this open), opened for this
			 * wait only.
			 */
			mi = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
			if (mi >= 0)
				pf[n++] = (struct pollfd){ .fd = mi, .events = POLLPRI };
			timeout = backoff;
		} else {
			backoff = BACKOFF_MIN_MS;
			if (ticking || wfd < 0)
				timeout = (int)(TICK_NS / 1000000);
		}
		if (poll(pf, n, timeout) < 0 && errno != EINTR) {
			struct timespec ts = { 0, 50000000 };

			nanosleep(&ts, NULL);
		}
		if (mi >= 0)
			close(mi);
		if (pf[0].revents & POLLNVAL)
			wfd = -1;
		else if ((pf[0].revents & POLLIN) && read(wfd, &junk, sizeof(junk)) < 0) {
			/* Taken by another reader: nothing pending. */
		}
		/* A socket the program closed under us (POLLNVAL) is looked at below: not a busy loop. */
		for (unsigned int i = 1; i < n; i++)
			if (pf[i].revents & POLLNVAL) {
				struct timespec ts = { 0, 100000000 };

				nanosleep(&ts, NULL);
				break;
			}
		/* Every provider of a daemon, held so that a close waits for us. */
		pthread_mutex_lock(&ue__providers_lock);
		for (struct ue_provider *p = ue__providers; p && np < WATCH_MAX; p = p->next_open) {
			if (p->backend == UE_BACKEND_DAEMON) {
				p->watched++;
				list[np++] = p;
			}
		}
		pthread_mutex_unlock(&ue__providers_lock);
		now = mono_ns();
		waiting = false;
		for (unsigned int i = 0; i < np; i++)
			waiting |= look(list[i], now);
		pthread_mutex_lock(&ue__providers_lock);
		for (unsigned int i = 0; i < np; i++)
			list[i]->watched--;
		pthread_cond_broadcast(&forget_cond);
		pthread_mutex_unlock(&ue__providers_lock);
		if (waiting)
			backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
	}
	return NULL;
}

void ue__watch_start_locked(void)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t t;
	pid_t pid = getpid();

	if (watcher_pid == pid)
		return;
	if (wake_fd < 0)
		wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (wake_fd < 0 || pthread_attr_init(&attr) != 0)
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	/* The program's signals are for its own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, &attr, watch, (void *)(intptr_t)wake_fd) == 0)
		watcher_pid = pid;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

void ue__watch_after_fork_child(void)
{
	bool any = false;

	/* The parent's eventfd is the parent's watcher's: ours is our own. */
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	for (struct ue_provider *p = ue__providers; p; p = p->next_open) {
		p->watched = 0;
		any |= p->backend == UE_BACKEND_DAEMON;
	}
	if (any)
		ue__watch_start_locked();
}
