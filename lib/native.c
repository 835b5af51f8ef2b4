// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * native: the zero-syscall path to usereventsd.  A session (one socket per
 * provider) proves the provider holds user_events_data, registers its events
 * with the daemon and obtains one shared-memory ring per writing thread;
 * writes then copy [record header][trace_entry][payload] into that ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "lib.h"
#include "native-msg.h"
#include "native-proto.h"

#define MAX_EVENTS 4096
#define TLS_SLOTS 4
/* A heartbeat older than this makes a write ask the socket whether the daemon lives. */
#define STALE_NS 500000000ull

struct ring {
	struct ring *next;
	struct ue_native_ring *hdr;
	unsigned char *data;
	uint32_t mask;
	pid_t tid;
	size_t map_len;
	bool tsc;		/* stamped with the counter (UE_RING_CLOCK_TSC) */
	uint64_t stale;		/* STALE_NS in the stamps' unit */
};

struct ue_native {
	int sock;
	bool dead;		/* the daemon went away: writes fail with -EPIPE */
	bool forked;		/* in a fork child: the session is the parent's */
	bool retired;		/* replaced (reconnect.c): kept until the provider closes, as a
				 * writer may hold it */
	struct ue_native *retired_next;	/* the provider's retired sessions */
	uint32_t nevents;
	struct ue_check *events[MAX_EVENTS + 1];	/* by id, for validation */
	pthread_mutex_t lock;	/* the socket and the ring list */
	struct ring *rings;
};

struct tls_slot {
	struct ue_native *n;
	struct ring *ring;
};

static __thread struct tls_slot tls[TLS_SLOTS] __attribute__((tls_model("initial-exec")));
static __thread unsigned int tls_next __attribute__((tls_model("initial-exec")));

/* A request and its reply; the socket is serialized by n->lock. */
static int xchg(struct ue_native *n, struct ue_native_msg *m, int *ret_fd)
{
	int r = ue_native_xchg(n->sock, m, ret_fd);

	return r < 0 ? r : m->status;
}

struct ue_native *ue__native_connect(struct ue_provider *p, int *ret_err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ue_native_msg m;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	struct ue_native *n;
	struct stat st;
	int len, r;

	if (stat(p->tracefs, &st) < 0) {
		*ret_err = -errno;
		return NULL;
	}
	/* The name comes from the daemon serving our own descriptor. */
	len = (int)fgetxattr(p->fd, UE_NATIVE_XATTR, sa.sun_path + 1, UE_NATIVE_SOCK_NAME_MAX);
	if (len <= 0) {
		*ret_err = len < 0 ? -errno : -ENOENT;
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	n->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (n->sock < 0) {
		*ret_err = -errno;
		free(n);
		return NULL;
	}
	if (connect(n->sock, (struct sockaddr *)&sa, offsetof(struct sockaddr_un, sun_path) + 1 +
							  (socklen_t)len) < 0) {
		r = -errno;
		goto fail;
	}
	/* An abstract name anybody could bind: only trust the mount's owner or root. */
	if (getsockopt(n->sock, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 ||
	    (cred.uid != 0 && cred.uid != st.st_uid)) {
		r = -EPERM;
		goto fail;
	}
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_HELLO;
	/* The daemon checks in /proc that this descriptor is its user_events_data. */
	m.write_index = (uint32_t)p->fd;
	r = xchg(n, &m, NULL);
	if (r < 0)
		goto fail;
	pthread_mutex_init(&n->lock, NULL);
	return n;
fail:
	close(n->sock);
	free(n);
	*ret_err = r;
	return NULL;
}

int ue__native_open(struct ue_provider *p)
{
	int r = 0;
	struct ue_native *n = ue__native_connect(p, &r);

	if (!n)
		return r;
	__atomic_store_n(&p->native, n, __ATOMIC_RELEASE);
	return 0;
}

static void tls_forget(struct ue_native *n)
{
	for (int i = 0; i < TLS_SLOTS; i++)
		if (tls[i].n == n)
			tls[i].n = NULL;
}

static void native_free(struct ue_native *n)
{
	tls_forget(n);
	while (n->rings) {
		struct ring *r = n->rings;

		n->rings = r->next;
		munmap(r->hdr, r->map_len);
		free(r);
	}
	for (uint32_t i = 1; i <= n->nevents; i++)
		ue_check_free(n->events[i]);
	if (n->sock >= 0)
		close(n->sock);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

void ue__native_close(struct ue_provider *p)
{
	struct ue_native *n = p->native;

	/* No writer now (the caller's promise): the retired sessions go too. */
	while (p->retired) {
		struct ue_native *r = p->retired;

		p->retired = r->retired_next;
		native_free(r);
	}
	if (!n)
		return;
	p->native = NULL;
	native_free(n);
}

/* The event's checks, its location fields found once for the write path. */
static struct ue_check *check_new(const char *name_args)
{
	struct ue_check *c;
	struct ue_event *desc;

	if (ue_event_parse(name_args, &desc) < 0)
		return NULL;
	if (ue_check_new(desc, &c) < 0)
		c = NULL;
	ue_event_free(desc);
	return c;
}

/* Called with the provider's lock held. */
int ue__native_add(struct ue_native *n, struct ue_tracepoint *tp)
{
	struct ue_native_msg m;
	struct ue_check *ev;
	int r;

	if (n->forked || n->dead || strlen(tp->name_args) >= UE_NATIVE_NAME_MAX)
		return -EOPNOTSUPP;
	ev = check_new(tp->name_args);
	if (!ev)
		return -EOPNOTSUPP;
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_ADD_EVENT;
	m.write_index = tp->write_index;
	strcpy(m.name_args, tp->name_args);
	pthread_mutex_lock(&n->lock);
	r = xchg(n, &m, NULL);
	if (r == 0 && (m.id == 0 || m.id > MAX_EVENTS))
		r = -EPROTO;
	if (r == 0) {
		ue_check_free(n->events[m.id]);
		n->events[m.id] = ev;
		if (m.id > n->nevents)
			n->nevents = m.id;
		__atomic_store_n(&tp->native_id, m.id, __ATOMIC_RELAXED);
	} else {
		ue_check_free(ev);
		if (r == -EPIPE)
			n->dead = true;
	}
	pthread_mutex_unlock(&n->lock);
	return r;
}

void ue__native_remove(struct ue_tracepoint *tp)
{
	/* The daemon keeps the slot as the kernel keeps the file's write_index. */
	__atomic_store_n(&tp->native_id, 0, __ATOMIC_RELAXED);
}

int ue__native_sock(struct ue_native *n)
{
	return __atomic_load_n(&n->dead, __ATOMIC_RELAXED) ? -1 : n->sock;
}

/* Records a ring holds that the daemon has not taken: lost with it. */
static uint64_t ring_unread(const struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&r->hdr->tail, __ATOMIC_ACQUIRE), k = 0;

	if (head - tail > (uint64_t)r->mask + 1)
		return 0;
	while (tail < head) {
		const struct ue_native_rec *rec =
			(const struct ue_native_rec *)(r->data + (tail & r->mask));

		if (rec->len < sizeof(*rec) || rec->len % 8 || rec->len > head - tail)
			break;
		k += rec->id != 0;
		tail += rec->len;
	}
	return k;
}

uint64_t ue__native_retire(struct ue_provider *p, struct ue_native *n)
{
	uint64_t lost = 0;

	pthread_mutex_lock(&n->lock);
	__atomic_store_n(&n->dead, true, __ATOMIC_RELAXED);
	__atomic_store_n(&n->retired, true, __ATOMIC_RELEASE);
	for (struct ring *r = n->rings; r; r = r->next) {
		/* A fork child's rings are its parent's, still served. */
		if (!n->forked)
			lost += ring_unread(r);
		/*
		 * The shared memory goes; the addresses stay valid (a writer
		 * that loaded this session just before may still store into
		 * them): fresh private pages, none touched.
		 */
		mmap(r->hdr, r->map_len, PROT_READ | PROT_WRITE,
		     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	}
	close(n->sock);
	n->sock = -1;
	pthread_mutex_unlock(&n->lock);
	n->retired_next = p->retired;
	p->retired = n;
	return lost;
}

int ue__native_tell_lost(struct ue_native *n, uint64_t lost)
{
	struct ue_native_msg m;
	int r;

	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_LOST;
	m.ring_bytes = lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost;
	pthread_mutex_lock(&n->lock);
	r = n->dead ? -EPIPE : xchg(n, &m, NULL);
	pthread_mutex_unlock(&n->lock);
	return r;
}

static struct ring *new_ring(struct ue_native *n)
{
	struct ue_native_msg m;
	struct ring *r;
	int fd = -1, err;

	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_NEW_RING;
	m.tid = gettid();
	m.id = UE_TSC_AVAILABLE ? UE_NATIVE_RING_CAN_TSC : 0;
	pthread_mutex_lock(&n->lock);
	err = n->dead ? -EPIPE : xchg(n, &m, &fd);
	if (err == -EPIPE)
		n->dead = true;
	if (err < 0 || fd < 0 || m.ring_bytes < 4096 || (m.ring_bytes & (m.ring_bytes - 1)))
		goto fail;
	r = calloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->map_len = UE_NATIVE_RING_HDR + (size_t)m.ring_bytes;
	r->hdr = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (r->hdr == MAP_FAILED) {
		free(r);
		pthread_mutex_unlock(&n->lock);
		return NULL;
	}
	r->data = (unsigned char *)r->hdr + UE_NATIVE_RING_HDR;
	r->mask = m.ring_bytes - 1;
	r->tid = m.tid;
	r->tsc = ue_ring_counter(r->hdr, STALE_NS, &r->stale);
	r->next = n->rings;
	n->rings = r;
	pthread_mutex_unlock(&n->lock);
	return r;
fail:
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&n->lock);
	return NULL;
}

static struct ring *thread_ring(struct ue_native *n)
{
	struct ring *r;
	int i;

	for (i = 0; i < TLS_SLOTS; i++)
		if (tls[i].n == n)
			return tls[i].ring;
	r = new_ring(n);
	if (!r)
		return NULL;
	for (i = 0; i < TLS_SLOTS; i++) {
		if (!tls[i].n) {
			tls[i].n = n;
			tls[i].ring = r;
			return r;
		}
	}
	/*
	 * Every slot taken (sessions replaced by reconnections hold theirs):
	 * one in turn gives way; its session makes this thread another ring
	 * if it is still written.
	 */
	i = tls_next++ % TLS_SLOTS;
	tls[i].n = n;
	tls[i].ring = r;
	return r;
}

/* The heartbeat is old: whether the daemon's end of the socket is gone. */
static bool daemon_gone(struct ue_native *n, struct ring *r)
{
	char c;
	ssize_t k;

	if (__atomic_load_n(&r->hdr->state, __ATOMIC_ACQUIRE) == UE_RING_DEAD)
		return true;
	k = recv(n->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

int ue__native_write(struct ue_native *n, uint32_t id, struct ue_tracepoint *tp,
		     const struct iovec *iov, int iovcnt, size_t len)
{
	const struct ue_check *ev;
	struct ue_native_rec *rec;
	struct ring *r;
	uint64_t head, tail, pos, room, need;
	unsigned char *dst;
	uint64_t now, beat;
	int err;

	if (__builtin_expect(n->forked, 0))
		return -EOPNOTSUPP;
	if (__builtin_expect(__atomic_load_n(&n->dead, __ATOMIC_RELAXED), 0))
		return -EPIPE;
	ev = id <= MAX_EVENTS ? n->events[id] : NULL;
	if (__builtin_expect(!ev, 0))
		return -EOPNOTSUPP;
	/* The kernel's order: too short, then disabled, then the dynamic fields. */
	if (len < ev->min_size)
		return -EINVAL;
	if (!__atomic_load_n(&tp->enabled, __ATOMIC_RELAXED))
		return -EBADF;
	/* Beyond the largest record: taken, nothing recorded, as by the kernel beyond its own. */
	if (len > UE_MAX_PAYLOAD)
		return 0;
	r = thread_ring(n);
	if (!r)
		return -EOPNOTSUPP;
	now = ue_ring_stamp(r->hdr, r->tsc, &beat);
	/* Signed: another CPU's counter may be a little behind the daemon's. */
	if (__builtin_expect((int64_t)(now - beat) > (int64_t)r->stale, 0) && daemon_gone(n, r)) {
		__atomic_store_n(&n->dead, true, __ATOMIC_RELAXED);
		return -EPIPE;
	}
	need = (sizeof(*rec) + len + 7) & ~7ull;
	head = r->hdr->head;
	tail = __atomic_load_n(&r->hdr->tail, __ATOMIC_ACQUIRE);
	pos = head & r->mask;
	room = (uint64_t)r->mask + 1 - (head - tail);
	/* Too little room before the end of the area: a padding record, then from 0. */
	uint64_t pad = pos + need > (uint64_t)r->mask + 1 ? (uint64_t)r->mask + 1 - pos : 0;

	if (need + pad > room) {
		/* The drain is behind: wait for it (bounded by the daemon), then give up. */
		tail = ue_native_ring_wait(r->hdr, head, need + pad);
		room = (uint64_t)r->mask + 1 - (head - tail);
		if (need + pad > room) {
			__atomic_store_n(&r->hdr->dropped, r->hdr->dropped + 1, __ATOMIC_RELAXED);
			return -ENOBUFS;
		}
	}
	if (pad) {
		rec = (struct ue_native_rec *)(r->data + pos);
		rec->len = (uint32_t)pad;
		rec->id = 0;
		head += pad;
		pos = 0;
	}
	rec = (struct ue_native_rec *)(r->data + pos);
	dst = (unsigned char *)(rec + 1);
	for (int i = 0; i < iovcnt; i++) {
		memcpy(dst, iov[i].iov_base, iov[i].iov_len);
		dst += iov[i].iov_len;
	}
	/* Validated as the daemon (and the kernel) will, so the caller gets the errno. */
	if (ev->nlocs) {
		err = ue_check_record(ev, rec->entry, UE_ENTRY_HDR_SIZE + len);
		if (err < 0)
			return err;
	}
	rec->len = (uint32_t)need;
	rec->id = id;
	rec->ts_ns = now;
	rec->cpu = ue_this_cpu();
	rec->payload_len = (uint32_t)len;
	__atomic_store_n(&r->hdr->head, head + need, __ATOMIC_RELEASE);
	return 0;
}

void ue__native_after_fork_child(struct ue_provider *p)
{
	if (p->native) {
		/* The session is the parent's: a reconnection makes the child one of its own. */
		/* The socket and the rings are the parent's: the child writes through writev. */
		p->native->forked = true;
		tls_forget(p->native);
	}
}
