// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reader's end of a usereventsd consumer channel (core/native-proto.h,
 * "Consumer channels"): asked for over the daemon's native socket, with a
 * descriptor of per_cpu/cpu0/trace_pipe_raw as the proof that we may read
 * the trace; then whole pages are taken from shared memory and given back,
 * with no request per page and none per record.  The reader sleeps on an
 * eventfd the daemon signals when it hands a page over.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "consumer.h"
#include "native-proto.h"

struct uet_chan {
	int sock;
	int evfd;
	unsigned char *map;
	size_t map_bytes;
	struct ue_chan_hdr *hdr;
	unsigned int ncpus;
	uint64_t *next;		/* per CPU: the next sub-buffer to read */
};

static struct ue_chan_cpu *chan_cpu(struct uet_chan *c, unsigned int cpu)
{
	return (struct ue_chan_cpu *)(c->map + UE_CHAN_CPU_OFF) + cpu;
}

/* One request and its reply; up to two descriptors come back in @fds. */
static int xchg(int sock, struct ue_native_msg *m, int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec io = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	int got = 0;
	ssize_t n;

	m->magic = UE_NATIVE_MAGIC;
	m->major = UE_NATIVE_MAJOR;
	m->minor = UE_NATIVE_MINOR;
	if (send(sock, m, sizeof(*m), MSG_NOSIGNAL) != (ssize_t)sizeof(*m))
		return -EPIPE;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*m) || m->magic != UE_NATIVE_MAGIC)
		return -EPIPE;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof(int));
			if (got < nfds)
				fds[got++] = fd;
			else
				close(fd);
		}
	}
	if (m->status == 0 && got < nfds) {
		while (got--)
			close(fds[got]);
		return -EPROTO;
	}
	return 0;
}

static int connect_daemon(const char *tracefs)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char path[4200];
	ssize_t n;
	int s;

	snprintf(path, sizeof(path), "%s/user_events_data", tracefs);
	n = getxattr(path, UE_NATIVE_XATTR, a.sun_path + 1, UE_NATIVE_SOCK_NAME_MAX - 1);
	if (n <= 0)
		return -EOPNOTSUPP;	/* not usereventsd (the kernel's tracefs) */
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&a,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0) {
		int e = -errno;

		close(s);
		return e;
	}
	return s;
}

int uet_chan_open(struct uet_chan **ret, const char *tracefs, const struct uet_chan_params *p)
{
	struct ue_native_msg m = { .cmd = UE_NATIVE_CHANNEL };
	struct uet_chan *c;
	char path[4200];
	int fds[2] = { -1, -1 }, proof, e;
	struct stat st;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->evfd = -1;
	c->sock = connect_daemon(tracefs);
	if (c->sock < 0) {
		e = c->sock;
		free(c);
		return e;
	}
	snprintf(path, sizeof(path), "%s/per_cpu/cpu0/trace_pipe_raw", tracefs);
	proof = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (proof < 0) {
		e = -errno;
		goto fail;
	}
	m.write_index = (uint32_t)proof;
	m.chan.kib_per_cpu = p->kib_per_cpu;
	m.chan.flags = p->block_ms ? UE_CHAN_BLOCK : 0;
	m.chan.block_ms = p->block_ms;
	m.chan.flush_ms = p->flush_ms;
	e = xchg(c->sock, &m, fds, 2);
	close(proof);
	if (e == 0)
		e = m.status;
	if (e < 0)
		goto fail;
	c->evfd = fds[1];
	if (fstat(fds[0], &st) < 0 || st.st_size < (off_t)sizeof(struct ue_chan_hdr)) {
		e = -EPROTO;
		close(fds[0]);
		goto fail;
	}
	c->map_bytes = (size_t)st.st_size;
	c->map = mmap(NULL, c->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	close(fds[0]);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		e = -ENOMEM;
		goto fail;
	}
	c->hdr = (struct ue_chan_hdr *)c->map;
	c->ncpus = c->hdr->ncpus;
	if (c->hdr->magic != UE_CHAN_MAGIC || c->hdr->subbuf_size != UE_CHAN_SUBBUF ||
	    !c->ncpus || !c->hdr->nsubbufs || c->hdr->map_bytes != c->map_bytes ||
	    c->hdr->data_offset + (uint64_t)c->ncpus * c->hdr->nsubbufs * UE_CHAN_SUBBUF >
		    c->map_bytes) {
		e = -EPROTO;
		goto fail;
	}
	c->next = calloc(c->ncpus, sizeof(*c->next));
	if (!c->next) {
		e = -ENOMEM;
		goto fail;
	}
	*ret = c;
	return 0;
fail:
	uet_chan_close(c);
	return e;
}

void uet_chan_close(struct uet_chan *c)
{
	if (!c)
		return;
	if (c->map)
		munmap(c->map, c->map_bytes);
	if (c->evfd >= 0)
		close(c->evfd);
	if (c->sock >= 0)
		close(c->sock);
	free(c->next);
	free(c);
}

unsigned int uet_chan_ncpus(const struct uet_chan *c)
{
	return c->ncpus;
}

/* Whether the daemon's end of the socket is gone (it exited, or was killed). */
static bool daemon_gone(struct uet_chan *c)
{
	struct pollfd pfd = { .fd = c->sock, .events = POLLIN | POLLRDHUP };

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR));
}

int uet_chan_pass(struct uet_chan *c, unsigned int max,
		  int (*fn)(void *arg, unsigned int cpu, const uint8_t *page, size_t len), void *arg)
{
	int pages = 0;

	for (unsigned int cpu = 0; cpu < c->ncpus; cpu++) {
		struct ue_chan_cpu *s = chan_cpu(c, cpu);
		uint64_t produced = __atomic_load_n(&s->produced, __ATOMIC_ACQUIRE);

		for (unsigned int k = 0; k < max && c->next[cpu] < produced; k++) {
			uint64_t i = c->next[cpu];
			const uint8_t *page = c->map + c->hdr->data_offset +
					      ((size_t)cpu * c->hdr->nsubbufs + i % c->hdr->nsubbufs) *
						      UE_CHAN_SUBBUF;
			int e = fn(arg, cpu, page, UE_CHAN_SUBBUF);

			if (e < 0)
				return e;
			c->next[cpu] = i + 1;
			/* Given back: the daemon may fill it again. */
			__atomic_store_n(&s->consumed, i + 1, __ATOMIC_RELEASE);
			pages++;
		}
	}
	/* Nothing more to read and nobody to write it: the end of the trace. */
	if (!pages && daemon_gone(c))
		return -ENOTCONN;
	return pages;
}

int uet_chan_flush(struct uet_chan *c)
{
	struct ue_native_msg m = { .cmd = UE_NATIVE_CHANNEL_FLUSH };
	int e = xchg(c->sock, &m, NULL, 0);

	return e < 0 ? e : m.status;
}

int uet_chan_wait(struct uet_chan *c, int timeout_ms)
{
	/* The socket too: the daemon's end closing wakes us. */
	struct pollfd pfd[2] = { { .fd = c->evfd, .events = POLLIN },
				 { .fd = c->sock, .events = POLLRDHUP } };
	uint64_t v;
	int n;

	/* Say we sleep, then look once more: the daemon stores produced, then reads waiting. */
	__atomic_store_n(&c->hdr->waiting, 1, __ATOMIC_SEQ_CST);
	for (unsigned int cpu = 0; cpu < c->ncpus; cpu++)
		if (__atomic_load_n(&chan_cpu(c, cpu)->produced, __ATOMIC_SEQ_CST) > c->next[cpu])
			return 1;
	n = poll(pfd, 2, timeout_ms);
	if (n > 0 && (pfd[0].revents & POLLIN))
		(void)!read(c->evfd, &v, sizeof(v));
	return n < 0 ? -errno : n;
}

void uet_chan_counts(struct uet_chan *c, struct uet_chan_counts *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (unsigned int cpu = 0; cpu < c->ncpus; cpu++) {
		struct ue_chan_cpu *s = chan_cpu(c, cpu);

		ret->records += __atomic_load_n(&s->records, __ATOMIC_RELAXED);
		ret->lost += __atomic_load_n(&s->lost, __ATOMIC_RELAXED);
		ret->lost_producer += __atomic_load_n(&s->lost_producer, __ATOMIC_RELAXED);
	}
}

uint64_t uet_chan_watermark(struct uet_chan *c)
{
	uint64_t wm = UINT64_MAX;

	for (unsigned int cpu = 0; cpu < c->ncpus; cpu++) {
		uint64_t t = __atomic_load_n(&chan_cpu(c, cpu)->open_ts, __ATOMIC_ACQUIRE);

		if (t < wm)
			wm = t;
	}
	return wm;
}
