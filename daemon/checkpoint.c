// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * checkpoint: the state kept for a crash (checkpoint.h).
 *
 * The memfd: a head page, then two slots wherever they fit.  A checkpoint
 * goes into the slot that is not current, placed where it overlaps nothing
 * current; then the slot's place is written, then `cur` names it.  Each is
 * a write(2) of its own, so a daemon killed at any point leaves the head
 * naming a complete snapshot (a crash is a process's death: what a system
 * call wrote into a memfd stays).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "snap.h"

#define HEAD_MAGIC "UECKPT\r\n"
#define HEAD_VERSION 1
#define HEAD_SIZE 4096
#define NO_SLOT 2
/* Largest checkpoint: as an upgrade's snapshot. */
#define CKPT_MAX ((size_t)1 << 30)

struct slot {
	uint64_t off, len, seq;
};

struct head {
	char magic[8];
	uint32_t version;
	uint32_t cur;		/* the slot a restart takes, NO_SLOT: none yet */
	struct slot slot[2];
};

struct ue_ckpt {
	int fd;
	pthread_t thread;
	bool running;
	int stop;		/* an eventfd: the thread returns */
	uint32_t cur;
	struct slot slot[2];
	uint64_t seq;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int read_head(int fd, struct head *h)
{
	ssize_t n = pread(fd, h, sizeof(*h), 0);

	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(*h) || memcmp(h->magic, HEAD_MAGIC, 8) != 0 ||
	    h->version != HEAD_VERSION || h->cur > NO_SLOT)
		return -EINVAL;
	return 0;
}

static int write_all_at(int fd, const void *p, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p = (const char *)p + n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int ue_ckpt_new(struct ue_daemon *d, int memfd)
{
	struct ue_ckpt *c = calloc(1, sizeof(*c));
	struct head h = { .magic = HEAD_MAGIC, .version = HEAD_VERSION, .cur = NO_SLOT };
	int err;

	if (!c)
		return -ENOMEM;
	c->stop = -1;
	if (memfd >= 0 && read_head(memfd, &h) == 0) {
		/* A restart's: the checkpoint it came from stays current until the next. */
		c->fd = memfd;
		c->cur = h.cur;
		memcpy(c->slot, h.slot, sizeof(c->slot));
		c->seq = h.cur < NO_SLOT ? h.slot[h.cur].seq : 0;
	} else {
		c->fd = memfd >= 0 ? memfd : memfd_create("usereventsd-checkpoint", MFD_CLOEXEC);
		c->cur = NO_SLOT;
		err = c->fd < 0 || ftruncate(c->fd, HEAD_SIZE) < 0 ? -errno :
								     write_all_at(c->fd, &h, sizeof(h), 0);
		if (err < 0) {
			if (c->fd >= 0 && c->fd != memfd)
				close(c->fd);
			free(c);
			return err;
		}
	}
	d->ckpt = c;
	return 0;
}

int ue_ckpt_fd(const struct ue_daemon *d)
{
	return d->ckpt ? d->ckpt->fd : -1;
}

/* Where a checkpoint of @len bytes goes: past the head, clear of the current slot. */
static uint64_t place(const struct ue_ckpt *c, uint64_t len)
{
	const struct slot *cur = c->cur < NO_SLOT ? &c->slot[c->cur] : NULL;
	uint64_t page = HEAD_SIZE;

	if (!cur || HEAD_SIZE + len <= cur->off)
		return HEAD_SIZE;
	return (cur->off + cur->len + page - 1) / page * page;
}

static int write_checkpoint(struct ue_daemon *d)
{
	struct ue_ckpt *c = d->ckpt;
	uint32_t next = c->cur == 0 ? 1 : 0;
	struct ue_snap_w w;
	uint64_t t0, held, off;
	struct stat st;
	int err;

	t0 = now_ns();
	pthread_rwlock_wrlock(&d->state_rw);
	err = ue_upgrade_snapshot(d, &w, true);
	pthread_rwlock_unlock(&d->state_rw);
	held = now_ns() - t0;
	if (err < 0)
		goto out;
	off = place(c, w.len);
	if (fstat(c->fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if ((uint64_t)st.st_size < off + w.len && ftruncate(c->fd, (off_t)(off + w.len)) < 0) {
		err = -errno;
		goto out;
	}
	err = write_all_at(c->fd, w.buf, w.len, (off_t)off);
	if (err < 0)
		goto out;
	c->slot[next] = (struct slot){ .off = off, .len = w.len, .seq = ++c->seq };
	err = write_all_at(c->fd, &c->slot[next], sizeof(struct slot),
			   (off_t)offsetof(struct head, slot[next]));
	if (!err)
		err = write_all_at(c->fd, &next, sizeof(next), (off_t)offsetof(struct head, cur));
	if (!err)
		c->cur = next;
	atomic_fetch_add(&d->ckpt_written, 1);
	atomic_store(&d->ckpt_bytes, w.len);
	atomic_store(&d->ckpt_last_ns, held);
	if (held > atomic_load(&d->ckpt_max_ns))
		atomic_store(&d->ckpt_max_ns, held);
out:
	ue_snapw_free(&w);
	return err;
}

static int gap_ms(struct ue_daemon *d)
{
	uint64_t ms = atomic_load(&d->ckpt_last_ns) * 10 / 1000000;

	return ms > UE_CKPT_GAP_MS ? (ms > 1000 ? 1000 : (int)ms) : UE_CKPT_GAP_MS;
}

static void *ckpt_main(void *arg)
{
	struct ue_daemon *d = arg;
	struct ue_ckpt *c = d->ckpt;
	uint_fast64_t done = (uint_fast64_t)-1;
	bool warned = false;

	for (;;) {
		uint_fast64_t gen = atomic_load(&d->state_gen);
		struct pollfd pfd[2] = { { .fd = d->ckpt_wake, .events = POLLIN },
					 { .fd = c->stop, .events = POLLIN } };
		uint64_t v;

		if (gen != done) {
			int err = write_checkpoint(d);

			if (err < 0 && !warned) {
				fprintf(stderr, UE_DAEMON_NAME ": the checkpoint for a restart: %s\n",
					strerror(-err));
				warned = true;
			}
			done = gen;
			/*
			 * A storm of changes costs one checkpoint per gap, and the
			 * gap grows with what one costs: the lock is held a tenth
			 * of the time at most.
			 */
			if (poll(&pfd[1], 1, gap_ms(d)) > 0)
				return NULL;
			continue;
		}
		atomic_store(&d->ckpt_idle, true);
		if (atomic_load(&d->state_gen) != done) {
			atomic_store(&d->ckpt_idle, false);
			continue;
		}
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return NULL;
		atomic_store(&d->ckpt_idle, false);
		if (pfd[1].revents & POLLIN)
			return NULL;
		if (pfd[0].revents & POLLIN)
			(void)!read(d->ckpt_wake, &v, sizeof(v));
	}
}

int ue_ckpt_start(struct ue_daemon *d)
{
	struct ue_ckpt *c = d->ckpt;
	int r;

	if (!c || c->running)
		return c ? 0 : -EINVAL;
	if (d->ckpt_wake < 0)
		d->ckpt_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->stop < 0)
		c->stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->ckpt_wake < 0 || c->stop < 0)
		return -errno;
	r = pthread_create(&c->thread, NULL, ckpt_main, d);
	if (r)
		return -r;
	c->running = true;
	return 0;
}

void ue_ckpt_stop(struct ue_daemon *d)
{
	struct ue_ckpt *c = d->ckpt;

	if (!c || !c->running)
		return;
	(void)!write(c->stop, &(uint64_t){ 1 }, sizeof(uint64_t));
	pthread_join(c->thread, NULL);
	c->running = false;
	/* Drained: the next start sees the stop's count again otherwise. */
	(void)!read(c->stop, &(uint64_t){ 0 }, sizeof(uint64_t));
	atomic_store(&d->ckpt_idle, false);
}

void ue_ckpt_free(struct ue_daemon *d)
{
	struct ue_ckpt *c = d->ckpt;

	if (!c)
		return;
	ue_ckpt_stop(d);
	if (c->stop >= 0)
		close(c->stop);
	close(c->fd);
	free(c);
	d->ckpt = NULL;
	if (d->ckpt_wake >= 0)
		close(d->ckpt_wake);
	d->ckpt_wake = -1;
}

int ue_ckpt_take(int memfd, struct ue_taken *t)
{
	struct head h;
	struct stat st;
	const struct slot *s;
	int err = read_head(memfd, &h);

	if (err < 0)
		return err;
	if (h.cur == NO_SLOT)
		return -ENOENT;
	s = &h.slot[h.cur];
	if (fstat(memfd, &st) < 0)
		return -errno;
	if (s->off % HEAD_SIZE || s->off < HEAD_SIZE || s->len == 0 || s->len > CKPT_MAX ||
	    s->off + s->len > (uint64_t)st.st_size)
		return -EINVAL;
	t->snap = mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, memfd, (off_t)s->off);
	if (t->snap == MAP_FAILED) {
		t->snap = NULL;
		return -errno;
	}
	t->snap_len = s->len;
	t->crash = true;
	return ue_upgrade_take_head(t);
}
