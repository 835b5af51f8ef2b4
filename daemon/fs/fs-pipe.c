// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-pipe: trace_pipe, the consuming reader of the trace.  Open once at a
 * time; a read with nothing to return is parked and answered by the pipe
 * thread when records arrive, so no FUSE thread blocks; polls are kept and
 * notified the same way.  Lines are rendered by fs-trace.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fs.h"
#include "snap.h"
#include "lock.h"

/* Where a parked read is; changes under ue_pipe.lock. */
enum waiter_state {
	W_NEW,		/* being parked by the reading thread */
	W_INTERRUPTED,	/* interrupted before it was parked */
	W_QUEUED,	/* in the list */
	W_TAKEN,	/* out of the list, being answered */
};

struct waiter {
	fuse_req_t req;
	struct ue_fh *fh;
	size_t size;
	enum waiter_state state;
	struct waiter *prev, *next;
};

struct ue_pipe {
	struct ue_daemon *d;
	struct ue_mutex lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started;
	bool stop;
	struct waiter *head, *tail;	/* parked reads, oldest first */
	struct ue_fh **pollers;		/* open trace_pipes with a poll handle */
	size_t npollers;
	size_t cap_pollers;
	/* trace_pipe opens one at a time (the kernel's pipe_cpumask). */
	struct ue_fh *owner;
	bool owner_closed;		/* flushed: its release is on the way */
	pthread_cond_t owner_cond;	/* CLOCK_MONOTONIC */
};

/* How long an open waits for the release of a trace_pipe closed just before. */
#define PIPE_RELEASE_WAIT_MS 100

/*
 * EBUSY while another trace_pipe is open.  FUSE releases a file after
 * close() has returned, so a reader that closed (flushed) just before us
 * is given a moment to go.
 */
static int pipe_open(fuse_req_t req, struct ue_fh *fh)
{
	struct ue_pipe *p = ue_req_daemon(req)->pipe;
	struct timespec deadline;
	int r = 0;

	ue_deadline_ms(&deadline, PIPE_RELEASE_WAIT_MS);
	ue_mutex_lock(&p->lock);
	while (p->owner && p->owner_closed) {
		if (ue_cond_timedwait(&p->owner_cond, &p->lock, &deadline) == ETIMEDOUT)
			break;
	}
	if (p->owner) {
		r = -EBUSY;
	} else {
		p->owner = fh;
		p->owner_closed = false;
	}
	ue_mutex_unlock(&p->lock);
	return r;
}

static void pipe_flush(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_pipe *p = d->pipe;

	ue_mutex_lock(&p->lock);
	if (p->owner == fh)
		p->owner_closed = true;
	ue_mutex_unlock(&p->lock);
}

/*
 * Move what trace_pipe has for @fh into @out: the rest of a line a previous
 * read cut, then whole lines while they fit.  A first line longer than
 * @size is cut and its rest kept.  Called with fh->lock held.
 */
static size_t pipe_fill(struct ue_daemon *d, struct ue_fh *fh, char *out, size_t size)
{
	struct ue_pipe_reader *pr = &fh->pipe;
	_Alignas(8) unsigned char data[UE_BUFFER_MAX_RECORD];
	struct ue_ev_cache cache = { 0 };
	struct ue_buffer_rec rec;
	unsigned int flags = atomic_load(&d->trace_flags);
	size_t used = 0;

	if (pr->left) {
		size_t n = pr->left_len - pr->left_off;

		if (n > size)
			n = size;
		memcpy(out, pr->left + pr->left_off, n);
		used = n;
		pr->left_off += n;
		if (pr->left_off == pr->left_len) {
			free(pr->left);
			pr->left = NULL;
		}
		pr->has_read = true;
		/* As the kernel: the rest of a cut line comes alone. */
		return used;
	}
	while (used < size) {
		struct ue_text t = { 0 };
		int r;

		r = ue_buffer_consume(d->buf, -1, &rec, data, sizeof(data));
		if (r < 0)
			break;
		if (rec.lost == UE_BUFFER_LOST_UNKNOWN)
			ue_text_printf(&t, "CPU:%u [LOST EVENTS]\n", rec.meta.cpu);
		else if (rec.lost)
			ue_text_printf(&t, "CPU:%u [LOST %llu EVENTS]\n", rec.meta.cpu,
				       (unsigned long long)rec.lost);
		ue_trace_render_record(d, &cache, &rec, flags, &t);
		if (t.failed || !t.len) {
			free(t.buf);
			continue;
		}
		if (t.len <= size - used) {
			memcpy(out + used, t.buf, t.len);
			used += t.len;
			free(t.buf);
			continue;
		}
		/* Does not fit: keep it for the next read. */
		if (used == 0) {
			memcpy(out, t.buf, size);
			used = size;
			pr->left_off = size;
		} else {
			pr->left_off = 0;
		}
		pr->left = t.buf;
		pr->left_len = t.len;
		break;
	}
	ue_ev_cache_clear(&cache);
	if (used)
		pr->has_read = true;
	return used;
}

static void waiter_unlink(struct ue_pipe *p, struct waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		p->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		p->tail = w->prev;
	w->prev = w->next = NULL;
	w->state = W_TAKEN;
}

static void waiter_queue(struct ue_pipe *p, struct waiter *w, bool front)
{
	w->state = W_QUEUED;
	if (front) {
		w->prev = NULL;
		w->next = p->head;
		if (p->head)
			p->head->prev = w;
		else
			p->tail = w;
		p->head = w;
	} else {
		w->next = NULL;
		w->prev = p->tail;
		if (p->tail)
			p->tail->next = w;
		else
			p->head = w;
		p->tail = w;
	}
}

/* FUSE_INTERRUPT for a parked read: the reader got a signal. */
static void pipe_interrupted(fuse_req_t req, void *data)
{
	struct ue_pipe *p = ue_req_daemon(req)->pipe;
	struct waiter *w = data;
	bool mine;

	ue_mutex_lock(&p->lock);
	mine = w->state == W_QUEUED;
	if (mine)
		waiter_unlink(p, w);
	else if (w->state == W_NEW)
		w->state = W_INTERRUPTED;
	ue_mutex_unlock(&p->lock);
	if (mine) {
		fuse_reply_err(req, EINTR);
		free(w);
	}
}

static void *pipe_thread(void *arg)
{
	struct ue_pipe *p = arg;
	struct ue_daemon *d = p->d;

	ue_mutex_lock(&p->lock);
	while (!p->stop) {
		struct waiter *w;
		char *out;
		size_t n;

		if (!p->head && !p->npollers) {
			ue_cond_wait(&p->cond, &p->lock);
			continue;
		}
		ue_mutex_unlock(&p->lock);
		if (ue_buffer_wait(d->buf, -1, 1000) != 0) {
			ue_mutex_lock(&p->lock);
			continue;
		}
		ue_mutex_lock(&p->lock);
		for (size_t i = 0; i < p->npollers; i++) {
			struct ue_fh *fh = p->pollers[i];

			fuse_lowlevel_notify_poll(fh->pipe.ph);
			fuse_pollhandle_destroy(fh->pipe.ph);
			fh->pipe.ph = NULL;
		}
		p->npollers = 0;
		w = p->head;
		if (!w)
			continue;
		waiter_unlink(p, w);
		ue_mutex_unlock(&p->lock);

		/* Waits for a running interrupt callback; none comes after. */
		fuse_req_interrupt_func(w->req, NULL, NULL);
		out = malloc(w->size ? w->size : 1);
		n = 0;
		if (out) {
			ue_mutex_lock(&w->fh->lock);
			n = pipe_fill(d, w->fh, out, w->size);
			ue_mutex_unlock(&w->fh->lock);
		}
		if (!out) {
			fuse_reply_err(w->req, ENOMEM);
			free(w);
		} else if (n) {
			fuse_reply_buf(w->req, out, n);
			free(w);
		} else {
			/* Another reader was faster: wait again, first in line. */
			ue_mutex_lock(&p->lock);
			waiter_queue(p, w, true);
			ue_mutex_unlock(&p->lock);
			fuse_req_interrupt_func(w->req, pipe_interrupted, w);
		}
		free(out);
		ue_mutex_lock(&p->lock);
	}
	ue_mutex_unlock(&p->lock);
	return NULL;
}

int ue_pipe_start(struct ue_daemon *d)
{
	struct ue_pipe *p;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->d = d;
	ue_mutex_init(&p->lock, UE_LOCK_PIPE);
	pthread_cond_init(&p->cond, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&p->owner_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	d->pipe = p;
	r = pthread_create(&p->thread, NULL, pipe_thread, p);
	if (r) {
		d->pipe = NULL;
		free(p);
		return -r;
	}
	p->started = true;
	return 0;
}

void ue_pipe_stop(struct ue_daemon *d)
{
	struct ue_pipe *p = d->pipe;
	struct waiter *w;

	if (!p)
		return;
	ue_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	ue_mutex_unlock(&p->lock);
	ue_buffer_wakeup(d->buf);
	if (p->started)
		pthread_join(p->thread, NULL);
	ue_mutex_lock(&p->lock);
	while ((w = p->head)) {
		waiter_unlink(p, w);
		ue_mutex_unlock(&p->lock);
		fuse_req_interrupt_func(w->req, NULL, NULL);
		fuse_reply_err(w->req, EINTR);
		free(w);
		ue_mutex_lock(&p->lock);
	}
	for (size_t i = 0; i < p->npollers; i++) {
		fuse_pollhandle_destroy(p->pollers[i]->pipe.ph);
		p->pollers[i]->pipe.ph = NULL;
	}
	ue_mutex_unlock(&p->lock);
	free(p->pollers);
	ue_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	pthread_cond_destroy(&p->owner_cond);
	free(p);
	d->pipe = NULL;
}

static void pipe_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off, int flags)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_pipe *p = d->pipe;
	struct waiter *w;
	char *out;
	size_t n;

	bool eof;

	(void)off;
	/* Read again after a close: another descriptor still uses the file. */
	ue_mutex_lock(&p->lock);
	if (p->owner == fh)
		p->owner_closed = false;
	ue_mutex_unlock(&p->lock);
	out = malloc(size ? size : 1);
	if (!out) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	ue_mutex_lock(&fh->lock);
	n = pipe_fill(d, fh, out, size);
	/*
	 * tracing_wait_pipe(): a reader that got something before sees the
	 * end of the file once tracing is off and nothing is left.
	 */
	eof = !n && fh->pipe.has_read && !ue_buffer_get_on(d->buf);
	ue_mutex_unlock(&fh->lock);
	if (n || !size || eof) {
		fuse_reply_buf(req, out, n);
		free(out);
		return;
	}
	free(out);
	/* The read's flags are the file's current ones (fcntl may set O_NONBLOCK). */
	if (flags & O_NONBLOCK) {
		fuse_reply_err(req, EAGAIN);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	w->req = req;
	w->fh = fh;
	w->size = size;
	w->state = W_NEW;
	/*
	 * Registered before the waiter is visible: once queued, the pipe
	 * thread may answer and free it at any time.  An interrupt that
	 * comes first (the callback runs at once if it already came) only
	 * marks it.
	 */
	fuse_req_interrupt_func(req, pipe_interrupted, w);
	ue_mutex_lock(&p->lock);
	if (w->state == W_INTERRUPTED) {
		ue_mutex_unlock(&p->lock);
		fuse_req_interrupt_func(req, NULL, NULL);
		fuse_reply_err(req, EINTR);
		free(w);
		return;
	}
	waiter_queue(p, w, false);
	pthread_cond_broadcast(&p->cond);
	ue_mutex_unlock(&p->lock);
}

static void pipe_poll(fuse_req_t req, struct ue_fh *fh, struct fuse_pollhandle *ph)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_pipe *p = d->pipe;
	bool ready;

	ue_mutex_lock(&fh->lock);
	ready = fh->pipe.left != NULL;
	ue_mutex_unlock(&fh->lock);
	if (!ready)
		ready = ue_buffer_has_data(d->buf, -1);
	if (ready || !ph) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req, ready ? POLLIN | POLLRDNORM : 0);
		return;
	}
	ue_mutex_lock(&p->lock);
	if (fh->pipe.ph) {
		fuse_pollhandle_destroy(fh->pipe.ph);
	} else {
		if (p->npollers == p->cap_pollers) {
			size_t ncap = p->cap_pollers ? p->cap_pollers * 2 : 8;
			struct ue_fh **n = realloc(p->pollers, ncap * sizeof(*n));

			if (!n) {
				ue_mutex_unlock(&p->lock);
				fuse_pollhandle_destroy(ph);
				fuse_reply_err(req, ENOMEM);
				return;
			}
			p->pollers = n;
			p->cap_pollers = ncap;
		}
		p->pollers[p->npollers++] = fh;
	}
	fh->pipe.ph = ph;
	pthread_cond_broadcast(&p->cond);
	ue_mutex_unlock(&p->lock);
	fuse_reply_poll(req, 0);
}

static void pipe_release(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_pipe *p = d->pipe;

	if (p) {
		ue_mutex_lock(&p->lock);
		for (size_t i = 0; i < p->npollers; i++) {
			if (p->pollers[i] == fh) {
				p->pollers[i] = p->pollers[--p->npollers];
				break;
			}
		}
		if (p->owner == fh) {
			p->owner = NULL;
			pthread_cond_broadcast(&p->owner_cond);
		}
		ue_mutex_unlock(&p->lock);
	}
	if (fh->pipe.ph)
		fuse_pollhandle_destroy(fh->pipe.ph);
	fh->pipe.ph = NULL;
	free(fh->pipe.left);
	fh->pipe.left = NULL;
}

/* The text a read left, and whether this open is the one trace_pipe allows. */
static int pipe_save(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_w *w)
{
	struct ue_pipe *p = d->pipe;

	ue_mutex_lock(&fh->lock);
	ue_snapw_bytes(w, fh->pipe.left ? fh->pipe.left + fh->pipe.left_off : "",
		       fh->pipe.left ? fh->pipe.left_len - fh->pipe.left_off : 0);
	ue_snapw_bool(w, fh->pipe.has_read);
	ue_mutex_unlock(&fh->lock);
	ue_mutex_lock(&p->lock);
	ue_snapw_bool(w, p->owner == fh);
	ue_snapw_bool(w, p->owner == fh && p->owner_closed);
	ue_mutex_unlock(&p->lock);
	return w->err;
}

static int pipe_restore(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_r *r)
{
	struct ue_pipe *p = d->pipe;
	size_t len;
	const void *left = ue_snapr_bytes(r, &len);
	bool owner, closed;

	if (r->err)
		return r->err;
	if (len) {
		fh->pipe.left = malloc(len);
		if (!fh->pipe.left)
			return -ENOMEM;
		memcpy(fh->pipe.left, left, len);
		fh->pipe.left_len = len;
	}
	fh->pipe.has_read = ue_snapr_bool(r);
	owner = ue_snapr_bool(r);
	closed = ue_snapr_bool(r);
	if (owner && p) {
		ue_mutex_lock(&p->lock);
		p->owner = fh;
		p->owner_closed = closed;
		ue_mutex_unlock(&p->lock);
	}
	return r->err;
}

void ue_pipe_handover(struct ue_daemon *d)
{
	struct ue_pipe *p = d->pipe;

	if (!p)
		return;
	ue_mutex_lock(&p->lock);
	for (size_t i = 0; i < p->npollers; i++) {
		struct ue_fh *fh = p->pollers[i];

		if (fh->pipe.ph)
			fuse_lowlevel_notify_poll(fh->pipe.ph);
	}
	ue_mutex_unlock(&p->lock);
}

static const struct ue_file_ops pipe_fops = {
	.save = pipe_save,
	.restore = pipe_restore,
	.open = pipe_open,
	.read = pipe_read,
	.poll = pipe_poll,
	/* Its close must be seen: the next open waits for the release. */
	.flush = pipe_flush,
	.release = pipe_release,
	.nonseekable = true,
};

static const struct ue_fs_file files[] = {
	{ UE_DIR_ROOT, "trace_pipe", 0440, &pipe_fops },
};

const struct ue_fs_files ue_pipe_files = UE_FS_FILES(files);
