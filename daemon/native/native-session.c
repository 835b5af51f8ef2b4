// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * native-session: one client of the native path, from its connection to its
 * hang-up.  A session proves its process holds user_events_data of our
 * mount open for writing (read from /proc, never through our own mount),
 * names live events whose fields match, gets one memfd ring per thread of
 * its own process, and may ask for a consumer channel (channel.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "channel.h"
#include "counts.h"
#include "lock.h"
#include "native-int.h"
#include "native-proto.h"
#include "registry.h"

/* The reply, with @nfds descriptors (0 to 2) of @fds. */
static int send_reply(int sock, struct ue_native_msg *m, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec io = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1 };

	m->magic = UE_NATIVE_MAGIC;
	m->major = UE_NATIVE_MAJOR;
	m->minor = UE_NATIVE_MINOR;
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -EPIPE;
}

/* Field 3 ("major:minor") of the mountinfo line of @pid whose field @key_field is @key. */
static bool mountinfo_dev(pid_t pid, int key_field, const char *key, char *dev, size_t len)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok, *d = NULL, *k = NULL;
		int i = 1;

		for (tok = strtok_r(line, " ", &save); tok && (!d || !k);
		     tok = strtok_r(NULL, " ", &save), i++) {
			if (i == 3)
				d = tok;
			if (i == key_field)
				k = tok;
		}
		found = d && k && strcmp(k, key) == 0 && strlen(d) < len;
		if (found)
			strcpy(dev, d);
	}
	fclose(f);
	return found;
}

/* Our mount point: data_path without its "/user_events_data". */
static size_t mount_len(const struct ue_native_server *nat)
{
	return strlen(nat->data_path) - strlen("/user_events_data");
}

/*
 * Another path to our file @rel (relative to the mount): a bind mount of
 * ours (record -- CMD binds the mount over /sys/kernel/tracing).  Ours when
 * the link ends with "/@rel" and its mount (fdinfo's mnt_id) shows our device.
 */
static bool bound_file(struct ue_native_server *nat, pid_t pid, const char *link, const char *rel,
		       const char *fdinfo)
{
	const char *m = strstr(fdinfo, "mnt_id:");
	size_t ll = strlen(link), rl = strlen(rel);
	char id[24], dev[32], mnt[PATH_MAX];

	if (ll <= rl || link[ll - rl - 1] != '/' || strcmp(link + ll - rl, rel) != 0 || !m)
		return false;
	if (!nat->mnt_dev[0]) {
		snprintf(mnt, sizeof(mnt), "%.*s", (int)mount_len(nat), nat->data_path);
		if (!mountinfo_dev(0, 5, mnt, nat->mnt_dev, sizeof(nat->mnt_dev)))
			return false;
	}
	snprintf(id, sizeof(id), "%lu", strtoul(m + 7, NULL, 10));
	return mountinfo_dev(pid, 1, id, dev, sizeof(dev)) && strcmp(dev, nat->mnt_dev) == 0;
}

/*
 * Descriptor @fdnum of the peer must be our file @rel (relative to the
 * mount); *@ret_flags: its open flags.  Checked in /proc: a system call on
 * a file of our own mount would wait for our own FUSE loop, and a daemon
 * killed while holding such a file never finishes exiting.
 */
static int peer_file(struct nsession *s, int fdnum, const char *rel, unsigned long *ret_flags)
{
	struct ue_native_server *nat = s->nat;
	char path[96], link[PATH_MAX], buf[512];
	size_t ml = mount_len(nat);
	ssize_t n;
	char *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)s->pid, fdnum);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -EBADF;
	link[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)s->pid, fdnum);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EBADF;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EBADF;
	buf[n] = '\0';
	if (!(strncmp(link, nat->data_path, ml) == 0 && link[ml] == '/' &&
	      strcmp(link + ml + 1, rel) == 0) &&
	    !bound_file(nat, s->pid, link, rel, buf))
		return -EBADF;
	f = strstr(buf, "flags:");
	if (!f)
		return -EBADF;
	*ret_flags = strtoul(f + 6, NULL, 8);
	return 0;
}

/* HELLO names a descriptor of the peer: user_events_data of our mount, open for writing. */
static int hello(struct nsession *s, int fdnum)
{
	unsigned long flags = 0;
	int r = peer_file(s, fdnum, "user_events_data", &flags);

	if (r < 0)
		return r;
	if ((flags & O_ACCMODE) == O_RDONLY)
		return -EBADF;
	s->hello = true;
	return 0;
}

/*
 * LOST: a client that reconnected after its daemon died says how many
 * records it could not write meanwhile; they are its losses (event unknown).
 */
static int note_lost(struct nsession *s, const struct ue_native_msg *m)
{
	struct ue_native_server *nat = s->nat;

	if (!s->hello)
		return -EPERM;
	if (!m->ring_bytes)
		return 0;
	ue_mutex_lock(&nat->lock);
	nat->lost_reconnect += m->ring_bytes;
	ue_mutex_unlock(&nat->lock);
	ue_counts_add(nat->counts, s->pid, 0, NULL, 0, 0, 0, m->ring_bytes);
	return 0;
}

/*
 * CHANNEL names a descriptor of the peer: our per_cpu/cpu0/trace_pipe_raw,
 * open for reading (whoever may read the trace may have a channel of it).
 * The channel is attached to the trace buffer at once; its memfd and
 * eventfd go back to the reader.
 */
static int open_channel(struct nsession *s, struct ue_native_msg *m, int *fds)
{
	struct ue_native_server *nat = s->nat;
	struct ue_chan_opts o = { .kib_per_cpu = m->chan.kib_per_cpu, .flags = m->chan.flags,
				  .block_ms = m->chan.block_ms, .flush_ms = m->chan.flush_ms };
	unsigned long flags = 0;
	struct ue_chan *ch;
	int r;

	if (s->chan)
		return -EALREADY;
	r = peer_file(s, (int)m->write_index, "per_cpu/cpu0/trace_pipe_raw", &flags);
	if (r < 0)
		return r;
	if ((flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	r = ue_buffer_chan_open(nat->buf, &o, &ch, &fds[0], &fds[1]);
	if (r < 0)
		return r;
	ue_mutex_lock(&nat->lock);
	s->chan = ch;
	ue_mutex_unlock(&nat->lock);
	return 0;
}

/* CHANNEL_FLUSH: what the producers' rings hold, then every page holding records, to the reader. */
static int flush_channel(struct nsession *s)
{
	if (!s->chan)
		return -EBADF;
	ue_native_sync(s->nat);
	ue_buffer_chan_tick(s->nat->buf, ue_buffer_clock_ns(), s->chan);
	return 0;
}

/* The ring of thread @tid ends: the drain frees it once it has taken its records. */
static int end_ring(struct nsession *s, struct ue_native_msg *m)
{
	int r = -ESRCH;

	ue_mutex_lock(&s->nat->lock);
	for (struct nring *g = s->rings; g; g = g->next) {
		if (g->tid == m->tid && !g->ended) {
			g->ended = true;
			r = 0;
			break;
		}
	}
	ue_mutex_unlock(&s->nat->lock);
	return r;
}

static int add_event(struct nsession *s, struct ue_native_msg *m)
{
	struct ue_native_server *nat = s->nat;
	struct ue_revent *ev;
	const char *args;
	char name[UE_NATIVE_NAME_MAX];
	size_t nlen;
	uint32_t slot;

	if (!s->hello)
		return -EBADF;
	if (!memchr(m->name_args, '\0', sizeof(m->name_args)))
		return -EINVAL;
	if (s->nev >= MAX_EVENTS)
		return -EMFILE;
	if (ue_name_args_split(m->name_args, &nlen, &args) < 0 || nlen >= sizeof(name))
		return -EINVAL;
	memcpy(name, m->name_args, nlen);
	name[nlen] = '\0';
	/*
	 * Any writer of user_events_data may register and write any event; the
	 * library registered this one through its file first.  The fields must
	 * be the event's, so that both sides validate the same layout.
	 */
	ev = ue_registry_find_tp(nat->reg, false, name);
	if (!ev)
		return -ENOENT;
	if (ue_revent_dead(ev) || !ue_event_match_args(ue_revent_desc(ev), args)) {
		ue_revent_release(ev);
		return -EADDRINUSE;
	}
	/* The same event again (another file, another registration): its slot. */
	for (slot = 1; slot <= s->nev; slot++) {
		if (s->ev[slot].ev == ev) {
			ue_revent_release(ev);
			m->id = slot;
			return 0;
		}
	}
	slot = s->nev + 1;
	ue_mutex_lock(&nat->lock);
	s->ev[slot].ev = ev;
	s->ev[slot].type = (uint16_t)ue_revent_id(ev);
	s->nev = slot;
	ue_mutex_unlock(&nat->lock);
	m->id = slot;
	return 0;
}

static void read_comm(pid_t tid, char comm[16])
{
	char path[64];
	ssize_t n;
	int fd;

	memset(comm, 0, 16);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, 15);
	close(fd);
	if (n > 0 && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
}

static bool thread_of(pid_t tid, pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return tid > 0 && stat(path, &st) == 0;
}

static int new_ring(struct nsession *s, struct ue_native_msg *m, int *ret_fd)
{
	struct ue_native_server *nat = s->nat;
	size_t map_len = UE_NATIVE_RING_HDR + RING_BYTES;
	struct nring *r;
	uint32_t offer;
	int fd;

	if (!s->hello)
		return -EBADF;
	if (s->nrings >= MAX_RINGS ||
	    __atomic_load_n(&nat->nrings, __ATOMIC_RELAXED) >= MAX_RINGS_ALL)
		return -EMFILE;
	if (!thread_of(m->tid, s->pid))
		return -ESRCH;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	fd = memfd_create("usereventsd-ring", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)map_len) < 0)
		goto fail;
	r->hdr = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->hdr == MAP_FAILED)
		goto fail;
	r->map_len = map_len;
	/* Kept: a daemon taking over (upgrade) maps the same ring. */
	r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (r->fd < 0) {
		munmap(r->hdr, map_len);
		goto fail;
	}
	r->data = (unsigned char *)r->hdr + UE_NATIVE_RING_HDR;
	r->size = RING_BYTES;
	r->tid = m->tid;
	read_comm(r->tid, r->comm);
	r->hdr->magic = UE_NATIVE_MAGIC;
	r->hdr->major = UE_NATIVE_MAJOR;
	r->hdr->minor = UE_NATIVE_MINOR;
	r->hdr->size = RING_BYTES;
	r->hdr->tid = r->tid;
	offer = __atomic_load_n(&nat->tsc_offer, __ATOMIC_RELAXED);
	if ((m->id & UE_NATIVE_RING_CAN_TSC) && offer) {
		/* Stamped with the counter: the drain turns it into the clock (core/tscclock.h). */
		uint64_t t0 = ue_tsc_read();

		r->hdr->heartbeat_ns = ue_buffer_clock_ns();
		r->hdr->heartbeat_tsc = t0;
		r->hdr->tsc_per_ms = offer;
		r->hdr->clock = UE_RING_CLOCK_TSC;
		r->tsc = true;
	} else {
		r->hdr->heartbeat_ns = ue_buffer_clock_ns();
	}
	/* From its first write: the drain may sleep 20 ms before it sees the ring. */
	r->hdr->full_wait_ns = FULL_WAIT_NS;
	r->hdr->state = UE_RING_LIVE;
	ue_mutex_lock(&nat->lock);
	r->next = s->rings;
	s->rings = r;
	s->nrings++;
	nat->nrings++;
	ue_mutex_unlock(&nat->lock);
	m->ring_bytes = RING_BYTES;
	*ret_fd = fd;
	/* Idle, the drain may sleep 100 ms: this ring's producer fills it in one. */
	ue_native_drain_wake(nat);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(r);
	return -ENOMEM;
}

/*
 * One thread per session.  Between requests it also watches the server's
 * pause_fd: readable, it returns (ue_native_pause(), for a successor),
 * leaving the session as it is.
 */
void *ue_native_session_main(void *arg)
{
	struct nsession *s = arg;
	struct ue_native_server *nat = s->nat;
	struct ue_native_msg m;
	char cbuf[CMSG_SPACE(sizeof(int))];

	for (;;) {
		struct iovec io = { &m, sizeof(m) };
		struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct pollfd pfd[2] = { { .fd = s->sock, .events = POLLIN },
					 { .fd = nat->pause_fd, .events = POLLIN } };
		int fd = -1, out_fd[2] = { -1, -1 }, nout = 0, r;
		ssize_t n;

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & POLLIN)
			return NULL;
		if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = recvmsg(s->sock, &mh, MSG_CMSG_CLOEXEC);

		if (n <= 0)
			break;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				int got;

				memcpy(&got, CMSG_DATA(c), sizeof(int));
				if (fd < 0)
					fd = got;
				else
					close(got);
			}
		}
		if (n != (ssize_t)sizeof(m) || m.magic != UE_NATIVE_MAGIC ||
		    m.major != UE_NATIVE_MAJOR) {
			if (fd >= 0)
				close(fd);
			break;
		}
		switch (m.cmd) {
		case UE_NATIVE_HELLO:
			r = s->hello ? -EALREADY : hello(s, (int)m.write_index);
			if (r == 0)
				s->preload = m.id == UE_NATIVE_CLIENT_PRELOAD;
			break;
		case UE_NATIVE_END_RING:
			r = end_ring(s, &m);
			break;
		case UE_NATIVE_ADD_EVENT:
			r = add_event(s, &m);
			break;
		case UE_NATIVE_NEW_RING:
			r = new_ring(s, &m, &out_fd[0]);
			nout = r == 0;
			break;
		case UE_NATIVE_CHANNEL:
			r = open_channel(s, &m, out_fd);
			nout = r == 0 ? 2 : 0;
			break;
		case UE_NATIVE_CHANNEL_FLUSH:
			r = flush_channel(s);
			break;
		case UE_NATIVE_LOST:
			r = note_lost(s, &m);
			break;
		default:
			r = -EOPNOTSUPP;
			break;
		}
		if (fd >= 0)
			close(fd);
		m.status = r;
		r = send_reply(s->sock, &m, out_fd, nout);
		for (int k = 0; k < nout; k++)
			close(out_fd[k]);
		if (r < 0)
			break;
	}
	ue_mutex_lock(&nat->lock);
	s->closing = true;
	ue_mutex_unlock(&nat->lock);
	return NULL;
}

/* One connection: a session and its thread, within MAX_SESSIONS. */
static void accept_one(struct ue_native_server *nat)
{
	struct nsession *s;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	int c;

	c = accept4(nat->lsock, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 ||
	    nat->nsessions >= MAX_SESSIONS) {
		close(c);
		return;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(c);
		return;
	}
	s->nat = nat;
	s->sock = c;
	s->pid = cred.pid;
	ue_mutex_lock(&nat->lock);
	if (pthread_create(&s->thread, NULL, ue_native_session_main, s) != 0) {
		ue_mutex_unlock(&nat->lock);
		close(c);
		free(s);
		return;
	}
	s->next = nat->sessions;
	nat->sessions = s;
	nat->nsessions++;
	nat->sessions_total++;
	ue_mutex_unlock(&nat->lock);
}

void *ue_native_listener_main(void *arg)
{
	struct ue_native_server *nat = arg;

	while (!nat->stop) {
		/* pause_fd: a pause or the stop wakes it at once. */
		struct pollfd pfd[2] = { { .fd = nat->lsock, .events = POLLIN },
					 { .fd = nat->pause_fd, .events = POLLIN } };

		if (poll(pfd, 2, 200) > 0 && (pfd[0].revents & POLLIN) && !nat->stop)
			accept_one(nat);
	}
	return NULL;
}
