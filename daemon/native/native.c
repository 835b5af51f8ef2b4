// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * native: sessions of libuserevents' native path and the drain of their
 * rings.  A session proves its process holds user_events_data of our mount
 * open for writing (read from /proc, never through our own mount), names
 * live events whose fields match, and gets one memfd ring per thread of its
 * own process.  Everything in a ring is untrusted: records are bounded,
 * validated as writes are, and stamped with the ring's thread as their pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "commit.h"
#include "counts.h"
#include "lock.h"
#include "native.h"
#include "native-int.h"
#include "native-proto.h"
#include "registry.h"
#include "tasks.h"

static void drain_wake(struct ue_native_server *nat);

/* MOUNTPOINT/user_events_data as /proc shows a descriptor of it. */
int ue_native_find_data_path(const char *mountpoint, char *ret_data_path)
{
	char real[PATH_MAX];

	/* Not stat(): the FUSE loop does not run yet, our own mount would not answer. */
	if (!realpath(mountpoint, real))
		return -errno;
	if (strlen(real) + sizeof("/user_events_data") > PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(ret_data_path, real);
	strcat(ret_data_path, "/user_events_data");
	return 0;
}

static uint64_t now_ns(void)
{
	return ue_buffer_clock_ns();
}

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
	size_t bytes;
	int r;

	if (s->chan)
		return -EALREADY;
	r = peer_file(s, (int)m->write_index, "per_cpu/cpu0/trace_pipe_raw", &flags);
	if (r < 0)
		return r;
	if ((flags & O_ACCMODE) == O_WRONLY)
		return -EBADF;
	/* The memory is counted before it is made (and populated): the limit holds at every moment. */
	bytes = ue_chan_bytes_for(ue_buffer_ncpus(nat->buf), &o);
	ue_mutex_lock(&nat->lock);
	if (nat->chan_bytes + bytes > CHAN_BYTES_ALL) {
		ue_mutex_unlock(&nat->lock);
		return -ENOSPC;
	}
	nat->chan_bytes += bytes;
	ue_mutex_unlock(&nat->lock);
	r = ue_chan_new(ue_buffer_ncpus(nat->buf), &o, &ch, &fds[0], &fds[1]);
	if (r == 0) {
		r = ue_buffer_attach(nat->buf, ch);
		if (r < 0) {
			ue_chan_free(ch);
			close(fds[0]);
			close(fds[1]);
		}
	}
	ue_mutex_lock(&nat->lock);
	if (r == 0) {
		nat->nchans++;
		s->chan = ch;
	} else {
		nat->chan_bytes -= bytes;
	}
	ue_mutex_unlock(&nat->lock);
	return r;
}

/* CHANNEL_FLUSH: what the producers' rings hold, then every page holding records, to the reader. */
static int flush_channel(struct nsession *s)
{
	if (!s->chan)
		return -EBADF;
	ue_native_sync(s->nat);
	ue_buffer_chan_tick(s->nat->buf, now_ns(), s->chan);
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
	r->hdr->heartbeat_ns = now_ns();
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
	drain_wake(nat);
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

static void *listener_main(void *arg)
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

/* Hands the staged records to their CPU ring, with one lock round trip. */
static void stage_flush(struct ue_native_server *nat, struct drain_stage *st,
			const struct nsession *s)
{
	int r;

	if (!st->n)
		return;
	r = ue_buffer_write_many(nat->buf, st->cpu, st->w, st->n);
	if (r > 0) {
		nat->records += (uint64_t)r;
		if (s->preload)
			nat->records_preload += (uint64_t)r;
	}
	/* A full ring in discard mode: which of them is not said. */
	if (r >= 0 && (unsigned int)r < st->n)
		st->lost += st->n - (unsigned int)r;
	st->n = 0;
	st->used = 0;
}

/*
 * Writes @r's producer refused (a full ring) since we looked: lost on the
 * way, marked in the channels' pages, counted as @s's (their event unknown).
 */
static void ring_note_dropped(struct ue_native_server *nat, const struct nsession *s,
			      struct nring *r)
{
	uint64_t dropped = __atomic_load_n(&r->hdr->dropped, __ATOMIC_RELAXED);

	if (dropped == r->dropped_seen)
		return;
	if (dropped > r->dropped_seen) {
		ue_buffer_chan_lost(nat->buf, r->cpu, dropped - r->dropped_seen);
		ue_counts_add(nat->counts, s->pid, 0, r->comm, r->tid == s->pid, 0, 0,
			      dropped - r->dropped_seen);
	}
	r->dropped_seen = dropped;
}

/* Events counted in one drain of a ring before they are handed to ue_counts_add(). */
#define DRAIN_COUNTED 16

/* What a drain of @r counted: records of each event, and the losses. */
static void counts_flush(struct ue_native_server *nat, struct nsession *s, const struct nring *r,
			 struct drain_stage *st, uint32_t *ids, unsigned int *nids)
{
	bool main = r->tid == s->pid;

	for (unsigned int i = 0; i < *nids; i++) {
		struct nevent *ev = &s->ev[ids[i]];

		ue_counts_add(nat->counts, s->pid, ev->type, r->comm, main, ev->run_records,
			      ev->run_bytes, 0);
		ev->run_records = 0;
		ev->run_bytes = 0;
	}
	*nids = 0;
	if (st->lost) {
		ue_counts_add(nat->counts, s->pid, 0, r->comm, main, 0, 0, st->lost);
		st->lost = 0;
	}
}

/* Move up to DRAIN_BATCH records of @r into the trace buffer; returns how many. */
static unsigned int drain_ring(struct nsession *s, struct nring *r, struct drain_stage *st)
{
	struct ue_native_server *nat = s->nat;
	struct ue_native_ring *h = r->hdr;
	uint64_t tail = h->tail, head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE), now;
	unsigned int ncpus = ue_buffer_ncpus(nat->buf), n = 0, nids = 0;
	uint32_t ids[DRAIN_COUNTED];

	/*
	 * The producer reads the heartbeat's line and the tail's at every
	 * write: each store here costs it a cache miss, so neither is
	 * written when it would not change (or, the heartbeat, not by much).
	 */
	now = now_ns();
	if (now - h->heartbeat_ns >= HEARTBEAT_EVERY_NS)
		h->heartbeat_ns = now;
	if (h->full_wait_ns != nat->full_wait_ns)
		h->full_wait_ns = nat->full_wait_ns;
	ring_note_dropped(nat, s, r);
	if (tail == head)
		return 0;
	/* A blocking reader's channel is full: the records wait in the ring, the producer for room. */
	if (ue_buffer_chan_room(nat->buf, now)) {
		nat->blocked = true;
		return 0;
	}
	if (head - tail > r->size) {
		/* A client that wrote its head wrong has lost its ring. */
		__atomic_store_n(&h->state, UE_RING_DEAD, __ATOMIC_RELEASE);
		nat->invalid++;
		h->tail = head;
		return 0;
	}
	while (tail != head && n < DRAIN_BATCH) {
		uint32_t pos = (uint32_t)(tail & (r->size - 1)), cpu;
		struct ue_native_rec hdr;
		struct ue_entry_hdr eh;
		struct ue_buffer_wrec *w;
		struct ue_filter_ctx fctx;
		struct ue_commit commit;
		struct nevent *ev;
		unsigned int verdict;
		unsigned char *rec;
		size_t len;

		/*
		 * len and id first: padding at the end of the area may be
		 * shorter than a record header, and the area ends there.
		 */
		memcpy(&hdr, r->data + pos, 8);
		if (hdr.len < 8 || hdr.len % 8 || hdr.len > r->size - pos || hdr.len > head - tail) {
			__atomic_store_n(&h->state, UE_RING_DEAD, __ATOMIC_RELEASE);
			nat->invalid++;
			tail = head;
			break;
		}
		tail += hdr.len;
		if (hdr.id == 0)
			continue;
		n++;
		if (hdr.len < sizeof(hdr)) {
			nat->invalid++;
			continue;
		}
		memcpy((unsigned char *)&hdr + 8, r->data + pos + 8, sizeof(hdr) - 8);
		if (hdr.id > s->nev || !s->ev[hdr.id].ev ||
		    hdr.payload_len > hdr.len - sizeof(hdr) ||
		    hdr.payload_len + UE_ENTRY_HDR_SIZE > UE_BUFFER_MAX_RECORD) {
			nat->invalid++;
			continue;
		}
		ev = &s->ev[hdr.id];
		if (ue_revent_dead(ev->ev) || !ue_commit_begin(&commit, ev->ev, nat->buf))
			continue;
		cpu = hdr.cpu < ncpus ? hdr.cpu : hdr.cpu % ncpus;
		len = UE_ENTRY_HDR_SIZE + hdr.payload_len;
		if (st->n && st->cpu != cpu)
			stage_flush(nat, st, s);
		/* The one read of the payload: checked and stored from this copy only. */
		rec = st->bytes + st->used;
		eh.type = ev->type;
		eh.flags = 0;
		eh.preempt_count = 0;
		eh.pid = r->tid;
		memcpy(rec, &eh, sizeof(eh));
		memcpy(rec + sizeof(eh), r->data + pos + sizeof(hdr), hdr.payload_len);
		if (ue_check_record(ue_revent_check(ev->ev), rec, len) < 0) {
			nat->invalid++;
			continue;
		}
		fctx.cpu = cpu;
		fctx.comm = r->comm;
		verdict = ue_commit_decide(&commit, rec, len, &fctx);
		if (!(verdict & UE_COMMIT_STORE)) {
			if (verdict & UE_COMMIT_THEN_TRIGGER)
				ue_commit_trigger(&commit);
			continue;
		}
		if (!ev->run_records++) {
			if (nids == DRAIN_COUNTED)
				counts_flush(nat, s, r, st, ids, &nids);
			ids[nids++] = hdr.id;
			ev->run_records = 1;
		}
		ev->run_bytes += len;
		w = &st->w[st->n++];
		w->meta.ts_ns = hdr.ts_ns ? hdr.ts_ns : 1;
		w->meta.cpu = 0;
		w->meta.tgid = s->pid;
		w->meta.tid = r->tid;
		memcpy(w->meta.comm, r->comm, sizeof(w->meta.comm));
		w->data = rec;
		w->len = len;
		st->cpu = cpu;
		r->cpu = cpu;
		st->used += (len + 7) & ~(size_t)7;
		if (verdict & UE_COMMIT_THEN_TRIGGER) {
			/* traceoff acts once its record is in the buffer, before the next one. */
			stage_flush(nat, st, s);
			ue_commit_trigger(&commit);
		}
		if (st->n == DRAIN_FLUSH || st->used + UE_BUFFER_MAX_RECORD > sizeof(st->bytes)) {
			stage_flush(nat, st, s);
			/* Copied out: the producer may reuse the space already. */
			__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
			if (ue_buffer_chan_room(nat->buf, now_ns())) {
				nat->blocked = true;
				break;
			}
		}
	}
	stage_flush(nat, st, s);
	counts_flush(nat, s, r, st, ids, &nids);
	if (h->tail != tail)
		__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
	if (n) {
		struct ue_rec_meta who = { .tgid = s->pid, .tid = r->tid };

		memcpy(who.comm, r->comm, sizeof(who.comm));
		ue_cmdlines_remember(nat->cmdlines, &who);
	}
	return n;
}

static void session_free(struct nsession *s)
{
	struct ue_native_server *nat = s->nat;
	pthread_join(s->thread, NULL);
	if (s->chan) {
		ue_buffer_detach(nat->buf, s->chan);
		ue_mutex_lock(&nat->lock);
		nat->chan_bytes -= ue_chan_bytes(s->chan);
		nat->nchans--;
		ue_mutex_unlock(&nat->lock);
		ue_chan_free(s->chan);
	}
	while (s->rings) {
		struct nring *r = s->rings;

		s->rings = r->next;
		__atomic_store_n(&r->hdr->state, UE_RING_DEAD, __ATOMIC_RELEASE);
		ring_note_dropped(nat, s, r);
		ue_mutex_lock(&nat->lock);
		nat->dropped_gone += r->hdr->dropped;
		nat->nrings--;
		ue_mutex_unlock(&nat->lock);
		munmap(r->hdr, r->map_len);
		close(r->fd);
		free(r);
	}
	for (uint32_t i = 1; i <= s->nev; i++)
		ue_revent_release(s->ev[i].ev);
	close(s->sock);
	free(s);
}

/* Sleep @us, or less when a ring is made (its producer is about to fill it). */
static void drain_sleep(struct ue_native_server *nat, unsigned int us)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += (long)us * 1000;
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	ue_mutex_lock(&nat->wake_lock);
	while (!nat->woken &&
	       ue_cond_timedwait(&nat->wake, &nat->wake_lock, &until) == 0)
		;
	nat->woken = false;
	ue_mutex_unlock(&nat->wake_lock);
}

static void drain_wake(struct ue_native_server *nat)
{
	ue_mutex_lock(&nat->wake_lock);
	nat->woken = true;
	pthread_cond_signal(&nat->wake);
	ue_mutex_unlock(&nat->wake_lock);
}

static void *drain_main(void *arg)
{
	struct ue_native_server *nat = arg;
	unsigned int sleep_us = IDLE_SLEEP_MIN_US;

	/* Named, so that top -H and /proc/PID/task/TID/schedstat show what the drain costs. */
	pthread_setname_np(pthread_self(), "ue-drain");
	while (!nat->stop) {
		struct nsession *gone = NULL;
		unsigned int moved = 0;
		uint64_t block = ue_buffer_chan_block_ns(nat->buf);
		bool blocked;

		ue_mutex_lock(&nat->lock);
		nat->blocked = false;
		nat->full_wait_ns = block > FULL_WAIT_NS ? block : FULL_WAIT_NS;
		for (struct nsession **ps = &nat->sessions; *ps;) {
			struct nsession *s = *ps;
			unsigned int m = 0;

			for (struct nring **pr = &s->rings; *pr;) {
				struct nring *r = *pr;
				bool ended = r->ended;

				m += drain_ring(s, r, nat->stage);
				/* Its thread is gone and wrote nothing since we read its end. */
				if (ended && r->hdr->tail == __atomic_load_n(&r->hdr->head,
									     __ATOMIC_ACQUIRE)) {
					*pr = r->next;
					ring_note_dropped(nat, s, r);
					nat->dropped_gone += r->hdr->dropped;
					s->nrings--;
					nat->nrings--;
					munmap(r->hdr, r->map_len);
					close(r->fd);
					free(r);
					continue;
				}
				pr = &r->next;
			}
			moved += m;
			/* Gone once its rings are empty (not merely held back for a blocking reader). */
			if (s->closing && m == 0 && !(nat->blocked && s->rings)) {
				*ps = s->next;
				nat->nsessions--;
				s->next = gone;
				gone = s;
				continue;
			}
			ps = &s->next;
		}
		blocked = nat->blocked;
		ue_mutex_unlock(&nat->lock);
		/* Pages of the channels that hold records flush_ms old go to their readers. */
		ue_buffer_chan_tick(nat->buf, now_ns(), NULL);
		/* Joining a session thread: not under the lock it may wait for. */
		while (gone) {
			struct nsession *s = gone;

			gone = s->next;
			session_free(s);
		}
		/*
		 * Much to do: at once.  A few records: let them gather first.
		 * A drain that follows a producer record by record reads the
		 * lines it is writing (and its head) as it writes them, and
		 * costs it a cache miss a record; 100 us of a fast producer
		 * fit in a ring many times over.
		 */
		if (moved >= DRAIN_FLUSH) {
			sleep_us = IDLE_SLEEP_MIN_US;
			continue;
		}
		/* Held back for a blocking reader: look again soon, its room comes back at once. */
		if (moved || blocked)
			sleep_us = IDLE_SLEEP_MIN_US;
		drain_sleep(nat, sleep_us);
		/*
		 * Idle: up to 20 ms while there are rings (a producer whose ring
		 * fills waits FULL_WAIT_NS for us), 100 ms without (the channels'
		 * pages of FUSE writes are then handed over that much later).
		 */
		if (!moved && sleep_us < (__atomic_load_n(&nat->nrings, __ATOMIC_RELAXED)
						  ? IDLE_SLEEP_MAX_US : IDLE_SLEEP_NO_RINGS_US))
			sleep_us *= 2;
	}
	return NULL;
}

void ue_native_sync(struct ue_native_server *nat)
{
	if (!nat ||
	    !__atomic_load_n(&nat->nsessions, __ATOMIC_RELAXED))
		return;
	ue_mutex_lock(&nat->lock);
	for (struct nsession *s = nat->sessions; s; s = s->next) {
		for (struct nring *r = s->rings; r; r = r->next) {
			uint64_t head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);

			ring_note_dropped(nat, s, r);
			/* What was written before the request came; a busy writer does not hold us. */
			for (int k = 0; k < 64 && (int64_t)(head - r->hdr->tail) > 0; k++)
				if (!drain_ring(s, r, nat->stage))
					break;
		}
	}
	ue_mutex_unlock(&nat->lock);
}

/*
 * A name of our own: the previous daemon of this mount may live on (stopped,
 * dumping core, exiting) and hold any name derived from the mount, and
 * nobody can take an abstract name from a live socket.  An unguessable name
 * cannot be taken first either.  Clients learn it from the mount itself
 * (UE_NATIVE_XATTR on user_events_data).
 */
static int bind_unique(struct ue_native_server *nat)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned long long rnd;
		int len;

		if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			rnd = now_ns() ^ ((unsigned long long)tries << 48);
		memset(nat->addr.sun_path, 0, sizeof(nat->addr.sun_path));
		len = snprintf(nat->addr.sun_path + 1, sizeof(nat->addr.sun_path) - 1,
			       UE_NATIVE_SOCK_FMT, (int)getpid(), rnd);
		nat->addr_len =
			(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
		if (bind(nat->lsock, (struct sockaddr *)&nat->addr, nat->addr_len) == 0)
			return listen(nat->lsock, 64) < 0 ? -errno : 0;
		if (errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

/* The listener's socket closed and @nat freed: a start that failed, or the stop. */
void ue_native_free(struct ue_native_server *nat)
{
	if (nat->lsock >= 0)
		close(nat->lsock);
	if (nat->pause_fd >= 0)
		close(nat->pause_fd);
	free(nat->stage);
	pthread_cond_destroy(&nat->wake);
	ue_mutex_destroy(&nat->wake_lock);
	ue_mutex_destroy(&nat->lock);
	free(nat);
}

struct ue_native_server *ue_native_alloc(const struct ue_native_deps *deps)
{
	struct ue_native_server *nat = calloc(1, sizeof(*nat));
	pthread_condattr_t ca;

	if (!nat)
		return NULL;
	nat->lsock = -1;
	nat->pause_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ue_mutex_init(&nat->lock, UE_LOCK_NATIVE);
	ue_mutex_init(&nat->wake_lock, UE_LOCK_NATIVE_WAKE);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&nat->wake, &ca);
	pthread_condattr_destroy(&ca);
	nat->reg = deps->reg;
	nat->buf = deps->buf;
	nat->cmdlines = deps->cmdlines;
	nat->counts = deps->counts;
	nat->addr.sun_family = AF_UNIX;
	nat->stage = calloc(1, sizeof(*nat->stage));
	if (!nat->stage || nat->pause_fd < 0) {
		ue_native_free(nat);
		return NULL;
	}
	return nat;
}

/* The listener and the drain. */
int ue_native_threads_start(struct ue_native_server *nat)
{
	nat->stop = false;
	if (pthread_create(&nat->listener, NULL, listener_main, nat) != 0)
		return -EAGAIN;
	if (pthread_create(&nat->drain, NULL, drain_main, nat) != 0) {
		nat->stop = true;
		pthread_join(nat->listener, NULL);
		return -EAGAIN;
	}
	return 0;
}

int ue_native_start(const struct ue_native_deps *deps, const char *mountpoint,
		    struct ue_native_server **ret)
{
	struct ue_native_server *nat = ue_native_alloc(deps);
	int r;

	if (!nat)
		return -ENOMEM;
	r = ue_native_find_data_path(mountpoint, nat->data_path);
	if (r < 0)
		goto fail;
	nat->lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (nat->lsock < 0) {
		r = -errno;
		goto fail;
	}
	r = bind_unique(nat);
	if (r < 0)
		goto fail;
	r = ue_native_threads_start(nat);
	if (r < 0)
		goto fail;
	*ret = nat;
	return 0;
fail:
	ue_native_free(nat);
	return r;
}

void ue_native_pause(struct ue_native_server *nat)
{
	if (!nat || nat->paused)
		return;
	nat->stop = true;
	drain_wake(nat);
	/* The listener, and each session thread between two requests, return. */
	(void)!write(nat->pause_fd, &(uint64_t){ 1 }, sizeof(uint64_t));
	pthread_join(nat->listener, NULL);
	pthread_join(nat->drain, NULL);
	for (struct nsession *s = nat->sessions; s; s = s->next) {
		pthread_join(s->thread, NULL);
		s->done = true;
	}
	/* What the rings hold now, into the buffer (and the channels)... */
	ue_native_sync(nat);
	/* ...and every page of the readers' channels holding records goes to them. */
	for (struct nsession *s = nat->sessions; s; s = s->next)
		if (s->chan)
			ue_buffer_chan_tick(nat->buf, now_ns(), s->chan);
	nat->paused = true;
}

int ue_native_resume(struct ue_native_server *nat)
{
	int r = 0;

	if (!nat || !nat->paused)
		return 0;
	(void)!read(nat->pause_fd, &(uint64_t){ 0 }, sizeof(uint64_t));
	for (struct nsession *s = nat->sessions; s && !r; s = s->next) {
		if (pthread_create(&s->thread, NULL, ue_native_session_main, s) != 0)
			r = -EAGAIN;
		else
			s->done = false;
	}
	if (!r)
		r = ue_native_threads_start(nat);
	nat->paused = r < 0;
	return r;
}

void ue_native_stop(struct ue_native_server *nat)
{
	if (!nat)
		return;
	nat->stop = true;
	drain_wake(nat);
	pthread_join(nat->listener, NULL);
	pthread_join(nat->drain, NULL);
	ue_mutex_lock(&nat->lock);
	for (struct nsession *s = nat->sessions; s; s = s->next)
		shutdown(s->sock, SHUT_RDWR);
	ue_mutex_unlock(&nat->lock);
	while (nat->sessions) {
		struct nsession *s = nat->sessions;

		nat->sessions = s->next;
		session_free(s);
	}
	ue_native_free(nat);
}

const char *ue_native_name(const struct ue_native_server *nat)
{
	return nat ? nat->addr.sun_path + 1 : NULL;
}

int ue_native_stats_text(struct ue_native_server *nat, char *buf, size_t len)
{
	uint64_t rings = 0, dropped = 0, pending = 0, total = 0, records = 0, invalid = 0;
	uint64_t interposed = 0, chan_bytes = 0, lost_reconnect = 0;
	unsigned int sessions = 0, chans = 0;

	if (nat) {
		ue_mutex_lock(&nat->lock);
		dropped = nat->dropped_gone;
		sessions = nat->nsessions;
		total = nat->sessions_total;
		records = nat->records;
		invalid = nat->invalid;
		interposed = nat->records_preload;
		chans = nat->nchans;
		chan_bytes = nat->chan_bytes;
		lost_reconnect = nat->lost_reconnect;
		for (struct nsession *s = nat->sessions; s; s = s->next) {
			for (struct nring *g = s->rings; g; g = g->next) {
				rings++;
				dropped += __atomic_load_n(&g->hdr->dropped, __ATOMIC_RELAXED);
				pending += __atomic_load_n(&g->hdr->head, __ATOMIC_RELAXED) -
					   g->hdr->tail;
			}
		}
		ue_mutex_unlock(&nat->lock);
	}
	return snprintf(buf, len,
			"native_sessions: %u\nnative_sessions_total: %llu\nnative_rings: %llu\n"
			"native_records: %llu\nnative_dropped_ring_full: %llu\n"
			"native_invalid: %llu\nnative_pending_bytes: %llu\n"
			"native_records_interposed: %llu\n"
			"native_lost_reconnect: %llu\n"
			"consumer_channels: %u\nconsumer_channel_bytes: %llu\n",
			sessions, (unsigned long long)total, (unsigned long long)rings,
			(unsigned long long)records, (unsigned long long)dropped,
			(unsigned long long)invalid, (unsigned long long)pending,
			(unsigned long long)interposed, (unsigned long long)lost_reconnect, chans,
			(unsigned long long)chan_bytes);
}
