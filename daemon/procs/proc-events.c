// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * proc-events: a NETLINK_CONNECTOR socket subscribed to CN_IDX_PROC, read
 * in batches (by a thread, and synchronously before each ioctl), turning
 * fork, exec and exit events into ue_enablers_fork/drop_process; the slow
 * proof of a fork child (ue_enablers_verify_forks) and its confirmation run
 * outside the socket's lock, on the thread or in the child's own request.
 * Without the connector the same thread and requests drive the children
 * poller (proc-poller.c).
 */
#include "lock.h"
#include "proc-events-int.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

static int subscribe(int sock, bool on)
{
	/* nlmsghdr, then cn_msg whose flexible data is the one u32 operation. */
	union {
		char bytes[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(uint32_t))];
		struct nlmsghdr align;
	} msg;
	struct nlmsghdr *nl = &msg.align;
	struct cn_msg *cn = NLMSG_DATA(nl);
	uint32_t op = on ? PROC_CN_MCAST_LISTEN : PROC_CN_MCAST_IGNORE;

	memset(&msg, 0, sizeof(msg));
	nl->nlmsg_len = NLMSG_LENGTH(sizeof(*cn) + sizeof(op));
	nl->nlmsg_type = NLMSG_DONE;
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	return send(sock, &msg, nl->nlmsg_len, 0) < 0 ? -errno : 0;
}

static int open_connector(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC};
	int size = RCVBUF_BYTES, sock, r;

	sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
	if (sock < 0)
		return -errno;
	if (setsockopt(sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(sock);
		return r;
	}
	r = subscribe(sock, true);
	if (r < 0) {
		close(sock);
		return r;
	}
	return sock;
}

static void batch_add(struct ue_proc_events *pe, const struct pevent *ev)
{
	if (pe->n == pe->cap) {
		size_t ncap = pe->cap ? pe->cap * 2 : 256;
		struct pevent *b = realloc(pe->batch, ncap * sizeof(*b));

		if (!b) {
			/* Treated like a lost event: nothing unproven is trusted. */
			pe->overrun = true;
			return;
		}
		pe->batch = b;
		pe->cap = ncap;
	}
	pe->batch[pe->n++] = *ev;
}

static void parse(struct ue_proc_events *pe, const char *buf, size_t len)
{
	const struct nlmsghdr *nl;

	for (nl = (const void *)buf; NLMSG_OK(nl, len); nl = NLMSG_NEXT(nl, len)) {
		const struct cn_msg *cn = NLMSG_DATA(nl);
		struct proc_event pev;
		struct pevent ev;

		if (nl->nlmsg_type == NLMSG_ERROR || nl->nlmsg_type == NLMSG_NOOP)
			continue;
		if (nl->nlmsg_len < NLMSG_LENGTH(sizeof(*cn)) || cn->id.idx != CN_IDX_PROC ||
		    cn->len < offsetof(struct proc_event, event_data) + sizeof(pev.event_data.fork) ||
		    NLMSG_LENGTH(sizeof(*cn) + cn->len) > nl->nlmsg_len)
			continue;
		memcpy(&pev, cn->data, cn->len < sizeof(pev) ? cn->len : sizeof(pev));
		memset(&ev, 0, sizeof(ev));
		ev.what = pev.what;
		ev.ts = pev.timestamp_ns;
		switch (pev.what) {
		case PROC_EVENT_FORK:
			ev.pid = pev.event_data.fork.child_pid;
			ev.tgid = pev.event_data.fork.child_tgid;
			ev.ppid = pev.event_data.fork.parent_pid;
			ev.ptgid = pev.event_data.fork.parent_tgid;
			break;
		case PROC_EVENT_EXEC:
			ev.pid = pev.event_data.exec.process_pid;
			ev.tgid = pev.event_data.exec.process_tgid;
			break;
		case PROC_EVENT_EXIT:
			ev.pid = pev.event_data.exit.process_pid;
			ev.tgid = pev.event_data.exit.process_tgid;
			break;
		default:
			continue;
		}
		__atomic_add_fetch(&pe->events, 1, __ATOMIC_RELAXED);
		batch_add(pe, &ev);
	}
}

/*
 * Read what is queued; return how many events came.  With @until_ns, stop
 * at the first event sent after it: a request needs every event sent before
 * it started (the kernel queues them synchronously), and a storm of newer
 * ones must not keep it reading.  (An event far in the future means another
 * clock: then everything is read.)
 */
static size_t drain(struct ue_proc_events *pe, uint64_t until_ns)
{
	char buf[RECV_BYTES];

	pe->n = 0;
	for (;;) {
		ssize_t len = recv(pe->sock, buf, sizeof(buf), MSG_DONTWAIT);

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno == ENOBUFS) {
			pe->overrun = true;
			__atomic_add_fetch(&pe->overruns, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (len <= 0)
			break;
		parse(pe, buf, (size_t)len);
		if (until_ns && pe->n && pe->batch[pe->n - 1].ts > until_ns &&
		    pe->batch[pe->n - 1].ts - until_ns < 10000000000ull)
			break;
	}
	return pe->n;
}

static void process(struct ue_proc_events *pe)
{
	for (size_t i = 0; i < pe->n; i++) {
		const struct pevent *ev = &pe->batch[i];

		__atomic_add_fetch(&pe->progress, 1, __ATOMIC_RELAXED);
		switch (ev->what) {
		case PROC_EVENT_FORK:
			/* A thread shares its process's handle. */
			if (ev->pid != ev->tgid)
				break;
			if (ue_enablers_fork(pe->set, ev->ppid, ev->ptgid, ev->pid) > 0) {
				__atomic_add_fetch(&pe->forks, 1, __ATOMIC_RELAXED);
				pe->new_forks++;
			}
			break;
		case PROC_EVENT_EXEC:
			ue_enablers_drop_process(pe->set, ev->tgid);
			break;
		case PROC_EVENT_EXIT:
			/* Other threads may go on; the periodic sweep sees the last one. */
			if (ev->pid == ev->tgid)
				ue_enablers_drop_process(pe->set, ev->tgid);
			break;
		}
	}
}

/*
 * Read and apply every event queued so far; called with pe->lock held.
 * Quick: a fork only copies the parent's enablers (the slow proof of the
 * child is ue_enablers_verify_forks(), called without pe->lock).
 * Return: when the read started (ue_enablers_clock_ns()).
 */
static uint64_t read_locked(struct ue_proc_events *pe, bool request)
{
	uint64_t start = ue_enablers_clock_ns();

	ue_mutex_assert_held(&pe->lock);

	if (drain(pe, request ? start : 0))
		process(pe);
	if (pe->overrun) {
		/* An exec may be among the lost events: trust no unconfirmed child. */
		pe->overrun = false;
		ue_enablers_refuse_unconfirmed(pe->set);
		ue_enablers_sweep(pe->set);
	}
	/* The kernel queues a report as it happens: all sent before the read began are in. */
	ue_enablers_read_until(pe->set, start);
	return start;
}

/* Wake the thread to verify the fork records the last read made. */
static void kick_locked(struct ue_proc_events *pe)
{
	uint64_t one = 1;

	ue_mutex_assert_held(&pe->lock);

	if (!pe->new_forks || pe->kick_fd < 0)
		return;
	pe->new_forks = 0;
	if (write(pe->kick_fd, &one, sizeof(one)) != sizeof(one)) {
		/* The counter is full: the thread has been woken already. */
	}
}

/*
 * Take pe->lock for a request.  The holder never waits for a client, so a
 * long wait is a holder that is slow, not stuck: on a loaded machine the
 * listener applying a long backlog of events may get little CPU.  Answering
 * without the sync would be wrong (a fork child's inherited enablers not
 * there yet), so the request waits as long as the holder makes progress,
 * and gives up after UE_PROC_EVENTS_SYNC_WAIT_MS without any, or after
 * UE_PROC_EVENTS_SYNC_MAX_MS in all.
 */
static bool lock_bounded(struct ue_proc_events *pe)
{
	uint64_t seen = __atomic_load_n(&pe->progress, __ATOMIC_RELAXED);
	unsigned int waited = 0;

	for (;;) {
		struct timespec until;
		uint64_t now;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += UE_PROC_EVENTS_SYNC_WAIT_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (ue_mutex_timedlock(&pe->lock, &until) == 0)
			return true;
		waited += UE_PROC_EVENTS_SYNC_WAIT_MS;
		now = __atomic_load_n(&pe->progress, __ATOMIC_RELAXED);
		if (now == seen || waited >= UE_PROC_EVENTS_SYNC_MAX_MS)
			break;
		seen = now;
	}
	__atomic_add_fetch(&pe->sync_timeouts, 1, __ATOMIC_RELAXED);
	return false;
}

/*
 * A request's read of the socket, its wait bounded; false when it timed out.
 * pe->lock is held only to read the socket and apply what it says, never
 * across the slow proof of a fork child, which may wait in kcmp() or an
 * open of /proc/<pid>/mem for a child in the middle of an exec (and that
 * exec may wait for this daemon to answer the FLUSH of a close-on-exec
 * descriptor).
 */
static bool request_read(struct ue_proc_events *pe, uint64_t *ret_start)
{
	if (!lock_bounded(pe))
		return false;
	*ret_start = read_locked(pe, true);
	kick_locked(pe);
	ue_mutex_unlock(&pe->lock);
	return true;
}

void ue_proc_events_sync(struct ue_proc_events *pe, struct ue_proc *caller)
{
	uint64_t start;

	if (pe && pe->polling && caller) {
		pid_t ancestor = ue_poller_known_ancestor(pe, caller);

		if (!lock_bounded(pe))
			return;
		ue_poller_caller_locked(pe, ue_proc_tgid(caller), ancestor);
		kick_locked(pe);
		ue_mutex_unlock(&pe->lock);
		/*
		 * No exec report to wait for: the caller is blocked in this
		 * request, so a handle proven now is its memory (an exec before
		 * a handle the thread opened shows in the proof's stack start).
		 */
		if (ue_enablers_prove_caller(pe->set, caller, ue_enablers_clock_ns()) > 0)
			ue_enablers_confirm(pe->set, caller, ue_enablers_clock_ns());
		return;
	}
	if (!pe || pe->sock < 0)
		return;
	if (!request_read(pe, &start) || !caller)
		return;
	/*
	 * The caller's own fork comes first: its inherited enablers must be
	 * there before it unregisters one or registers the same word.  The
	 * caller is blocked in this request, so its handle, once opened and
	 * followed by another read of the socket (an exec before the open
	 * shows there), is its memory: confirmed now, not after the grace.
	 * The listener may have proved the fork and opened that handle since
	 * our read: then too, read again (else the child would wait for the
	 * grace, and a tracer enabling an event it registered would find its
	 * bit unset on return).
	 */
	if (ue_enablers_prove_caller(pe->set, caller, start) > 0 && request_read(pe, &start))
		ue_enablers_confirm(pe->set, caller, start);
}

void ue_proc_events_closing(struct ue_proc_events *pe, pid_t tid)
{
	/*
	 * A process's descriptors are closed (FLUSH) before its children are
	 * given to another parent, so a known process that exits, or execs,
	 * has its children read here first.  Only its main thread's (tid =
	 * tgid): nothing else of it is read, it may be in the middle of an
	 * exec that waits for this FLUSH.
	 */
	if (!pe || !pe->polling || tid <= 0 || !ue_enablers_knows(pe->set, tid))
		return;
	if (!lock_bounded(pe))
		return;
	ue_poller_scan_from(pe, tid);
	kick_locked(pe);
	ue_mutex_unlock(&pe->lock);
}

/* The thread: read, verify every fork record, confirm children past their grace. */
static void listener_pass(struct ue_proc_events *pe)
{
	uint64_t start;

	/*
	 * A handle of a process that exec'd is not scanned as the new
	 * program.  Not under pe->lock: the sweep reads every process's
	 * memory, slow on a loaded machine, and a request waiting for the
	 * lock would see no progress (lock_bounded()) and go without its sync.
	 */
	if (pe->polling)
		ue_enablers_sweep(pe->set);
	ue_mutex_lock(&pe->lock);
	if (pe->polling) {
		start = ue_enablers_clock_ns();
		ue_poller_pass_locked(pe);
		/* The pass reported every process found dead before it began. */
		ue_enablers_read_until(pe->set, start);
	} else {
		start = read_locked(pe, false);
	}
	pe->new_forks = 0;
	ue_mutex_unlock(&pe->lock);
	ue_enablers_verify_forks(pe->set);
	ue_enablers_confirm(pe->set, NULL, start - (uint64_t)UE_PROC_EVENTS_GRACE_MS * 1000000u);
	__atomic_add_fetch(&pe->passes, 1, __ATOMIC_RELAXED);
}

static void *listen_thread(void *arg)
{
	struct ue_proc_events *pe = arg;

	/* Named: it wakes for every fork, exec and exit of the machine, not on a timer. */
	pthread_setname_np(pthread_self(), "ue-proc");

	for (;;) {
		struct pollfd fds[3] = {
			{.fd = pe->sock, .events = POLLIN}, /* -1 when polling: ignored */
			{.fd = pe->stop_fd, .events = POLLIN},
			{.fd = pe->kick_fd, .events = POLLIN},
		};
		struct ue_enablers_stats st;
		uint64_t kicks;
		int timeout;

		/* Unconfirmed children are confirmed once their grace has passed. */
		ue_enablers_stats(pe->set, &st);
		timeout = st.unconfirmed ? UE_PROC_EVENTS_GRACE_MS : -1;
		/*
		 * A dead handle waits for its report in the reader's time
		 * (ue_enablers_read_until()): on a quiet machine, where no
		 * event wakes the reader, a read of nothing moves that time on.
		 */
		if (timeout < 0 && st.parked)
			timeout = PARKED_READ_MS;
		/*
		 * Polling: all the time (a process that registers now may fork
		 * at once; a pass with nothing known reads nothing).
		 */
		if (pe->polling && !st.unconfirmed)
			timeout = POLL_MS;
		if (poll(fds, 3, timeout) < 0 && errno != EINTR)
			break;
		if (fds[1].revents)
			break;
		if (fds[2].revents && read(pe->kick_fd, &kicks, sizeof(kicks)) < 0) {
			/* EAGAIN: another read took it; the pass below runs anyway. */
		}
		listener_pass(pe);
	}
	return NULL;
}

static int start_thread(struct ue_proc_events *pe)
{
	sigset_t all, old;
	int r;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&pe->thread, NULL, listen_thread, pe);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0)
		return r == -ENOMEM ? r : -EAGAIN;
	pe->running = true;
	return 0;
}

int ue_proc_events_start(struct ue_enablers *set, struct ue_proc_events **ret)
{
	return ue_proc_events_start_taken(set, -1, NULL, ret);
}

int ue_proc_events_start_taken(struct ue_enablers *set, int sock, struct ue_proc_seen *seen,
			       struct ue_proc_events **ret)
{
	struct ue_proc_events *pe;
	int r;

	pe = calloc(1, sizeof(*pe));
	if (!pe) {
		if (sock >= 0)
			close(sock);
		ue_proc_seen_free(seen);
		return -ENOMEM;
	}
	pe->set = set;
	pe->stop_fd = -1;
	pe->kick_fd = -1;
	ue_mutex_init(&pe->lock, UE_LOCK_PROC_EVENTS);
	/* A predecessor's socket holds what it did not read: read on from there. */
	pe->sock = sock >= 0 ? sock : open_connector();
	if (pe->sock >= 0 || !ue_poller_children_listed()) {
		/* No poller here: its predecessor's table is of no use. */
		ue_proc_seen_free(seen);
		seen = NULL;
	}
	if (pe->sock < 0 && !ue_poller_children_listed()) {
		fprintf(stderr,
			"usereventsd: proc connector unavailable (%s) and no "
			"/proc/PID/task/TID/children (CONFIG_PROC_CHILDREN): fork children do "
			"not inherit enablers; exits and execs are found by the periodic sweep\n",
			strerror(-pe->sock));
		pe->sock = -1;
		*ret = pe;
		return 0;
	}
	if (pe->sock < 0) {
		/* Unprivileged (no CAP_NET_ADMIN): forks are found by reading children. */
		r = pe->sock;
		pe->sock = -1;
		pe->polling = true;
		/*
		 * A parent found dead (exec, exit) before its fork was seen is
		 * kept for it, as with the connector, for at most 2 s (no report).
		 */
		ue_enablers_track_reports(set);
		ue_enablers_keep_exec_forks(set);
		pe->aslr_off = ue_poller_aslr_off();
		pe->pidfs = ue_poller_pidfs();
		ue_poller_seen_adopt(pe, seen);
		seen = NULL;
		if (pe->aslr_off)
			fprintf(stderr, "usereventsd: proc connector unavailable (%s) and "
					"kernel.randomize_va_space is 0: fork children do not "
					"inherit enablers (without exec reports, only a new stack "
					"start shows an exec)\n",
				strerror(-r));
	} else {
		ue_enablers_track_reports(set);
	}
	pe->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pe->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pe->stop_fd < 0 || pe->kick_fd < 0) {
		r = -errno;
		goto fail;
	}
	r = start_thread(pe);
	if (r < 0)
		goto fail;
	*ret = pe;
	return 0;
fail:
	ue_proc_events_stop(pe);
	return r;
}

static void stop_thread(struct ue_proc_events *pe)
{
	uint64_t one = 1;

	if (!pe->running)
		return;
	if (write(pe->stop_fd, &one, sizeof(one)) != sizeof(one))
		abort(); /* an eventfd write of 1 cannot fail */
	pthread_join(pe->thread, NULL);
	pe->running = false;
	/* Read back: a thread started again waits anew. */
	if (read(pe->stop_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: nothing to read back */
	}
}

int ue_proc_events_pause(struct ue_proc_events *pe)
{
	if (!pe)
		return -1;
	stop_thread(pe);
	/*
	 * Requests read the socket too, under pe->lock: once it is taken,
	 * none is in the middle of a read (the FUSE loop has stopped anyway).
	 */
	ue_mutex_lock(&pe->lock);
	ue_mutex_unlock(&pe->lock);
	return pe->sock;
}

int ue_proc_events_resume(struct ue_proc_events *pe)
{
	if (!pe || pe->running || pe->stop_fd < 0)
		return 0;
	return start_thread(pe);
}

void ue_proc_events_stop(struct ue_proc_events *pe)
{
	if (!pe)
		return;
	stop_thread(pe);
	if (pe->sock >= 0) {
		subscribe(pe->sock, false);
		close(pe->sock);
	}
	if (pe->stop_fd >= 0)
		close(pe->stop_fd);
	if (pe->kick_fd >= 0)
		close(pe->kick_fd);
	ue_mutex_destroy(&pe->lock);
	free(pe->batch);
	free(pe->seen);
	free(pe->queue);
	free(pe);
}

void ue_proc_events_stats(struct ue_proc_events *pe, struct ue_proc_events_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!pe)
		return;
	/* No lock: a reader of the stats file must not wait behind a blocked sync. */
	ret->connected = pe->sock >= 0;
	ret->polling = pe->polling;
	ret->events = __atomic_load_n(&pe->events, __ATOMIC_RELAXED);
	ret->forks = __atomic_load_n(&pe->forks, __ATOMIC_RELAXED);
	ret->overruns = __atomic_load_n(&pe->overruns, __ATOMIC_RELAXED);
	ret->sync_timeouts = __atomic_load_n(&pe->sync_timeouts, __ATOMIC_RELAXED);
	ret->passes = __atomic_load_n(&pe->passes, __ATOMIC_RELAXED);
}
