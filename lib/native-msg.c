// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The native path's request/reply exchange: a fixed-size message each way,
 * a descriptor (a ring's memfd) possibly riding on the reply.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "native-msg.h"

int ue_native_xchg(int sock, struct ue_native_msg *m, int *ret_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1 };
	ssize_t r;

	m->magic = UE_NATIVE_MAGIC;
	m->major = UE_NATIVE_MAJOR;
	m->minor = UE_NATIVE_MINOR;
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof(*m))
		return -EPIPE;
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	do
		r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(*m) || m->magic != UE_NATIVE_MAGIC || m->major != UE_NATIVE_MAJOR)
		return -EPIPE;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int fd;

			memcpy(&fd, CMSG_DATA(c), sizeof(int));
			if (ret_fd && *ret_fd < 0)
				*ret_fd = fd;
			else
				close(fd);
		}
	}
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ue_native_ring_wait(struct ue_native_ring *h, uint64_t head, uint64_t need)
{
	uint64_t wait = __atomic_load_n(&h->full_wait_ns, __ATOMIC_RELAXED), start = 0;

	for (unsigned int i = 0;; i++) {
		uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE), now;

		if ((uint64_t)h->size - (head - tail) >= need || !wait ||
		    __atomic_load_n(&h->state, __ATOMIC_RELAXED) != UE_RING_LIVE)
			return tail;
		now = mono_ns();
		/* A drain that stopped passing (a stopped daemon) is not waited for. */
		if (now - __atomic_load_n(&h->heartbeat_ns, __ATOMIC_RELAXED) > UE_RING_WAIT_STALE_NS)
			return tail;
		if (!start)
			start = now;
		else if (now - start >= wait)
			return tail;
		if (i < 16) {
			sched_yield();
		} else {
			struct timespec ts = { 0, 20000 };

			nanosleep(&ts, NULL);
		}
	}
}
