// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-trace: the trace buffer's files.  trace (the ftrace header and a line
 * per record, rendered by core/), trace_pipe (consuming; a read with nothing
 * to return is parked and answered when records arrive, so no FUSE thread
 * blocks; poll), tracing_on, buffer_size_kb, buffer_total_size_kb,
 * trace_options and options/.  Of the options, overwrite, context-info,
 * irq-info and record-tgid change something; fields is what user events
 * always print; the others are kept and shown only.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"

/* The irq/preempt field of a record written from a system call. */
#define LAT_FLAGS "....."

const struct ue_option_desc ue_trace_options[UE_OPT_COUNT] = {
	[UE_OPT_PRINT_PARENT] = { "print-parent", true },
	[UE_OPT_SYM_OFFSET] = { "sym-offset", false },
	[UE_OPT_SYM_ADDR] = { "sym-addr", false },
	[UE_OPT_VERBOSE] = { "verbose", false },
	[UE_OPT_RAW] = { "raw", false },
	[UE_OPT_HEX] = { "hex", false },
	[UE_OPT_BIN] = { "bin", false },
	[UE_OPT_BLOCK] = { "block", false },
	[UE_OPT_FIELDS] = { "fields", false },
	[UE_OPT_TRACE_PRINTK] = { "trace_printk", true },
	[UE_OPT_ANNOTATE] = { "annotate", true },
	[UE_OPT_USERSTACKTRACE] = { "userstacktrace", false },
	[UE_OPT_SYM_USEROBJ] = { "sym-userobj", false },
	[UE_OPT_PRINTK_MSG_ONLY] = { "printk-msg-only", false },
	[UE_OPT_CONTEXT_INFO] = { "context-info", true },
	[UE_OPT_LATENCY_FORMAT] = { "latency-format", false },
	[UE_OPT_RECORD_CMD] = { "record-cmd", true },
	[UE_OPT_RECORD_TGID] = { "record-tgid", false },
	[UE_OPT_OVERWRITE] = { "overwrite", true },
	[UE_OPT_DISABLE_ON_FREE] = { "disable_on_free", false },
	[UE_OPT_IRQ_INFO] = { "irq-info", true },
	[UE_OPT_MARKERS] = { "markers", true },
	[UE_OPT_EVENT_FORK] = { "event-fork", false },
	[UE_OPT_TRACE_PRINTK_DEST] = { "trace_printk_dest", true },
	[UE_OPT_PAUSE_ON_TRACE] = { "pause-on-trace", false },
	[UE_OPT_HASH_PTR] = { "hash-ptr", true },
	[UE_OPT_STACKTRACE] = { "stacktrace", false },
	[UE_OPT_TEST_NOP_ACCEPT] = { "test_nop_accept", false },
	[UE_OPT_TEST_NOP_REFUSE] = { "test_nop_refuse", false },
};

unsigned int ue_trace_flags_default(void)
{
	unsigned int flags = 0;

	for (unsigned int i = 0; i < UE_OPT_COUNT; i++) {
		if (ue_trace_options[i].set)
			flags |= 1u << i;
	}
	return flags;
}

static bool option_on(struct ue_daemon *d, unsigned int flags, enum ue_trace_option o)
{
	/* The buffer holds the mode; the flag would only shadow it. */
	if (o == UE_OPT_OVERWRITE)
		return ue_buffer_get_overwrite(d->buf);
	return flags & (1u << o);
}

/*
 * Set an option as trace_options or options/NAME does.  The nop tracer
 * refuses test_nop_refuse, as in the kernel.
 */
static int option_set(struct ue_daemon *d, unsigned int o, bool on)
{
	if (o == UE_OPT_TEST_NOP_REFUSE && on)
		return -EINVAL;
	if (o == UE_OPT_OVERWRITE)
		ue_buffer_set_overwrite(d->buf, on);
	if (on)
		atomic_fetch_or(&d->trace_flags, 1u << o);
	else
		atomic_fetch_and(&d->trace_flags, ~(1u << o));
	return 0;
}

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
	pthread_mutex_t lock;
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

/* A few recently seen events, so a run of records costs one lookup. */
#define EV_CACHE 16

struct ev_cache {
	struct ue_revent *ev[EV_CACHE];
	unsigned int id[EV_CACHE];
	unsigned int next;
};

static struct ue_revent *cache_find(struct ue_daemon *d, struct ev_cache *c, unsigned int id)
{
	struct ue_revent *ev;

	for (unsigned int i = 0; i < EV_CACHE; i++) {
		if (c->ev[i] && c->id[i] == id)
			return c->ev[i];
	}
	ev = ue_registry_find_id(d->reg, id);
	if (!ev)
		return NULL;
	ue_revent_release(c->ev[c->next]);
	c->ev[c->next] = ev;
	c->id[c->next] = id;
	c->next = (c->next + 1) % EV_CACHE;
	return ev;
}

static void cache_clear(struct ev_cache *c)
{
	for (unsigned int i = 0; i < EV_CACHE; i++)
		ue_revent_release(c->ev[i]);
	memset(c, 0, sizeof(*c));
}

struct render_arg {
	const struct ue_buffer_rec *rec;
	const struct ue_revent *ev;
	struct ue_record_ctx ctx;
};

static int render_ctx(void *arg, char *buf, size_t len)
{
	return ue_render_context(&((struct render_arg *)arg)->ctx, buf, len);
}

static int render_fields(void *arg, char *buf, size_t len)
{
	struct render_arg *a = arg;
	/*
	 * The renderer may read up to the size the kernel's ring buffer reports
	 * (the record rounded up, 12 for records of 5 to 8 bytes); the snapshot
	 * holds only the record, so render from a zero-padded copy.
	 */
	_Alignas(8) unsigned char padded[UE_BUFFER_MAX_RECORD + 16];
	size_t ent = ue_record_ent_size(a->rec->len);

	if (ent > sizeof(padded))
		return -E2BIG;
	memcpy(padded, a->rec->data, a->rec->len);
	memset(padded + a->rec->len, 0, ent - a->rec->len);
	return ue_render_fields(ue_revent_desc(a->ev), ue_revent_tp_name(a->ev), padded, ent, buf,
				len);
}

static int count_digits(int32_t v)
{
	int n = v < 0 ? 2 : 1;

	while (v / 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The record of a trace_marker or trace_marker_raw write, as the kernel prints it. */
struct marker_arg {
	const struct ue_buffer_rec *rec;
	bool msg_only;
};

static int render_marker(void *arg, char *buf, size_t len)
{
	const struct marker_arg *a = arg;
	/* As render_fields(): the kernel prints up to the size its ring reports. */
	_Alignas(8) unsigned char padded[UE_BUFFER_MAX_RECORD + 16];
	size_t ent = ue_record_ent_size(a->rec->len);
	struct ue_entry_hdr hdr;

	if (ent > sizeof(padded))
		return -E2BIG;
	memcpy(padded, a->rec->data, a->rec->len);
	memset(padded + a->rec->len, 0, ent - a->rec->len);
	memcpy(&hdr, padded, sizeof(hdr));
	if (hdr.type == UE_TRACE_PRINT_ID)
		return ue_render_print(padded, ent, a->msg_only, buf, len);
	return ue_render_raw_data(padded, ent, buf, len);
}

static bool is_marker(uint16_t type)
{
	return type == UE_TRACE_PRINT_ID || type == UE_TRACE_RAW_DATA_ID;
}

/* One trace line, as print_trace_line() for a user event or a marker. */
static void render_record(struct ue_daemon *d, struct ev_cache *c, const struct ue_buffer_rec *rec,
			  unsigned int flags, struct ue_text *t)
{
	struct render_arg a = { .rec = rec };
	struct marker_arg m = { .rec = rec };
	struct ue_entry_hdr hdr;

	memcpy(&hdr, rec->data, sizeof(hdr));
	/* printk-msg-only (with trace_printk) shows a print record's text alone. */
	if (hdr.type == UE_TRACE_PRINT_ID && (flags & (1u << UE_OPT_TRACE_PRINTK)) &&
	    (flags & (1u << UE_OPT_PRINTK_MSG_ONLY))) {
		m.msg_only = true;
		ue_text_render(t, render_marker, &m);
		return;
	}
	if (flags & (1u << UE_OPT_CONTEXT_INFO)) {
		struct ue_text ctx = { 0 };

		a.ctx.comm = rec->meta.comm[0] ? rec->meta.comm : NULL;
		a.ctx.pid = hdr.pid;
		a.ctx.cpu = rec->meta.cpu;
		a.ctx.ts_ns = rec->meta.ts_ns;
		a.ctx.lat_flags = flags & (1u << UE_OPT_IRQ_INFO) ? LAT_FLAGS : NULL;
		ue_text_render(&ctx, render_ctx, &a);
		if (!ctx.failed && (flags & (1u << UE_OPT_RECORD_TGID))) {
			/* "COMM-PID " is 16 + 1 + the pid (at least 7) + 1 characters. */
			size_t at = 18 + (size_t)(count_digits(hdr.pid) > 7 ? count_digits(hdr.pid) : 7);

			if (at > ctx.len)
				at = ctx.len;
			ue_text_add(t, ctx.buf, at);
			ue_text_printf(t, "(%7d) ", (int)rec->meta.tgid);
			ue_text_add(t, ctx.buf + at, ctx.len - at);
		} else if (!ctx.failed) {
			ue_text_add(t, ctx.buf, ctx.len);
		} else {
			t->failed = true;
		}
		free(ctx.buf);
	}
	if (is_marker(hdr.type)) {
		ue_text_render(t, render_marker, &m);
		return;
	}
	/* An event deleted since: the kernel no longer knows the type either. */
	a.ev = cache_find(d, c, hdr.type);
	if (!a.ev) {
		ue_text_printf(t, "Unknown type %u\n", hdr.type);
		return;
	}
	ue_text_render(t, render_fields, &a);
}

static void trace_header(struct ue_daemon *d, struct ue_buffer_snap *snap, unsigned int flags,
			 struct ue_text *t)
{
	static const char space[] = "            ";
	unsigned int ncpus = ue_buffer_ncpus(d->buf);
	uint64_t entries = 0, written = 0;
	bool tgid = flags & (1u << UE_OPT_RECORD_TGID);
	int prec = tgid ? 12 : 2;

	ue_text_add(t, "# tracer: nop\n#\n", 16);
	if (!(flags & (1u << UE_OPT_CONTEXT_INFO)))
		return;
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		struct ue_buffer_stats st;

		if (ue_buffer_snap_stats(snap, cpu, &st) == 0) {
			entries += st.entries;
			written += st.entries + st.overrun;
		}
	}
	ue_text_printf(t, "# entries-in-buffer/entries-written: %llu/%llu   #P:%u\n#\n",
		       (unsigned long long)entries, (unsigned long long)written, ncpus);
	if (!(flags & (1u << UE_OPT_IRQ_INFO))) {
		ue_text_printf(t, "#           TASK-PID    %s CPU#     TIMESTAMP  FUNCTION\n",
			       tgid ? "   TGID   " : "");
		ue_text_printf(t, "#              | |      %s   |         |         |\n",
			       tgid ? "     |    " : "");
		return;
	}
	ue_text_printf(t, "#                            %.*s  _-----=> irqs-off/BH-disabled\n", prec,
		       space);
	ue_text_printf(t, "#                            %.*s / _----=> need-resched\n", prec, space);
	ue_text_printf(t, "#                            %.*s| / _---=> hardirq/softirq\n", prec, space);
	ue_text_printf(t, "#                            %.*s|| / _--=> preempt-depth\n", prec, space);
	ue_text_printf(t, "#                            %.*s||| / _-=> migrate-disable\n", prec,
		       space);
	ue_text_printf(t, "#                            %.*s|||| /     delay\n", prec, space);
	ue_text_printf(t, "#           TASK-PID  %.*s CPU#  |||||  TIMESTAMP  FUNCTION\n", prec,
		       "     TGID   ");
	ue_text_printf(t, "#              | |    %.*s   |   |||||     |         |\n", prec,
		       "       |    ");
}

/* per_cpu/cpuN/stats, as the kernel's tracing_stats_read(). */
static int generate_stats(struct ue_daemon *d, struct ue_fh *fh, struct ue_text *t)
{
	struct ue_buffer_stats st;
	uint64_t oldest, now;
	int r;

	r = ue_buffer_stats(d->buf, fh->option, &st);
	if (r < 0)
		return r;
	oldest = (st.oldest_ts_ns + 500) / 1000;
	now = (st.now_ts_ns + 500) / 1000;
	ue_text_printf(t,
		       "entries: %llu\n"
		       "overrun: %llu\n"
		       "commit overrun: 0\n"
		       "bytes: %llu\n"
		       "oldest event ts: %5llu.%06llu\n"
		       "now ts: %5llu.%06llu\n"
		       "dropped events: %llu\n"
		       "read events: %llu\n",
		       (unsigned long long)st.entries, (unsigned long long)st.overrun,
		       (unsigned long long)st.bytes, (unsigned long long)(oldest / 1000000),
		       (unsigned long long)(oldest % 1000000), (unsigned long long)(now / 1000000),
		       (unsigned long long)(now % 1000000), (unsigned long long)st.dropped,
		       (unsigned long long)st.read);
	return 0;
}

static int generate_trace(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };
	struct ev_cache cache = { 0 };
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	int r;

	unsigned int flags = atomic_load(&d->trace_flags);

	r = ue_buffer_snapshot(d->buf, fh->kind == UE_N_CPU_TRACE ? (int)fh->option : -1, &snap);
	if (r < 0)
		return r;
	trace_header(d, snap, flags, &t);
	while (ue_buffer_snap_next(snap, &rec) == 1 && !t.failed)
		render_record(d, &cache, &rec, flags, &t);
	cache_clear(&cache);
	ue_buffer_snap_free(snap);
	return ue_text_to_fh(&t, fh);
}

static int generate(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	switch (fh->kind) {
	case UE_N_TRACE:
	case UE_N_CPU_TRACE:
		return generate_trace(d, fh);
	case UE_N_CPU_STATS: {
		int r = generate_stats(d, fh, &t);

		if (r < 0) {
			free(t.buf);
			return r;
		}
		break;
	}
	case UE_N_TRACING_ON:
		ue_text_printf(&t, "%d\n", ue_buffer_get_on(d->buf) ? 1 : 0);
		break;
	case UE_N_CURRENT_TRACER:
	case UE_N_AVAILABLE_TRACERS:
		/* Events only: the nop tracer is the one there is. */
		ue_text_add(&t, "nop\n", 4);
		break;
	case UE_N_BUFFER_SIZE_KB:
	case UE_N_CPU_BUFFER_SIZE_KB:
		ue_text_printf(&t, "%zu\n", atomic_load(&d->buffer_kb));
		break;
	case UE_N_BUFFER_TOTAL_KB:
		ue_text_printf(&t, "%zu\n", atomic_load(&d->buffer_kb) * ue_buffer_ncpus(d->buf));
		break;
	case UE_N_OPTION:
		ue_text_printf(&t, "%d\n",
			       option_on(d, atomic_load(&d->trace_flags), fh->option) ? 1 : 0);
		break;
	case UE_N_TRACE_OPTIONS: {
		unsigned int flags = atomic_load(&d->trace_flags);

		for (unsigned int i = 0; i < UE_OPT_COUNT; i++)
			ue_text_printf(&t, "%s%s\n", option_on(d, flags, i) ? "" : "no",
				       ue_trace_options[i].name);
		break;
	}
	default:
		return -EINVAL;
	}
	return ue_text_to_fh(&t, fh);
}

/*
 * EBUSY while another trace_pipe is open.  FUSE releases a file after
 * close() has returned, so a reader that closed (flushed) just before us
 * is given a moment to go.
 */
static int pipe_open(struct ue_pipe *p, struct ue_fh *fh)
{
	struct timespec deadline;
	int r = 0;

	ue_deadline_ms(&deadline, PIPE_RELEASE_WAIT_MS);
	pthread_mutex_lock(&p->lock);
	while (p->owner && p->owner_closed) {
		if (pthread_cond_timedwait(&p->owner_cond, &p->lock, &deadline) == ETIMEDOUT)
			break;
	}
	if (p->owner) {
		r = -EBUSY;
	} else {
		p->owner = fh;
		p->owner_closed = false;
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

void ue_trace_flush(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_pipe *p = d->pipe;

	pthread_mutex_lock(&p->lock);
	if (p->owner == fh)
		p->owner_closed = true;
	pthread_mutex_unlock(&p->lock);
}

int ue_trace_open(fuse_req_t req, struct ue_fh *fh)
{
	struct ue_daemon *d = ue_req_daemon(req);

	if (fh->kind == UE_N_TRACE_PIPE)
		return pipe_open(d->pipe, fh);
	/* tracing_open(): opening trace for writing with O_TRUNC empties the buffer. */
	if ((fh->open_flags & O_TRUNC) && (fh->open_flags & O_ACCMODE) != O_RDONLY) {
		if (fh->kind == UE_N_TRACE)
			ue_buffer_reset(d->buf);
		else if (fh->kind == UE_N_CPU_TRACE)
			ue_buffer_reset_cpu(d->buf, fh->option);
	}
	return 0;
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
	struct ev_cache cache = { 0 };
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
		if (rec.lost)
			ue_text_printf(&t, "CPU:%u [LOST %llu EVENTS]\n", rec.meta.cpu,
				       (unsigned long long)rec.lost);
		render_record(d, &cache, &rec, flags, &t);
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
	cache_clear(&cache);
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

	pthread_mutex_lock(&p->lock);
	mine = w->state == W_QUEUED;
	if (mine)
		waiter_unlink(p, w);
	else if (w->state == W_NEW)
		w->state = W_INTERRUPTED;
	pthread_mutex_unlock(&p->lock);
	if (mine) {
		fuse_reply_err(req, EINTR);
		free(w);
	}
}

static void *pipe_thread(void *arg)
{
	struct ue_pipe *p = arg;
	struct ue_daemon *d = p->d;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct waiter *w;
		char *out;
		size_t n;

		if (!p->head && !p->npollers) {
			pthread_cond_wait(&p->cond, &p->lock);
			continue;
		}
		pthread_mutex_unlock(&p->lock);
		if (ue_buffer_wait(d->buf, -1, 1000) != 0) {
			pthread_mutex_lock(&p->lock);
			continue;
		}
		pthread_mutex_lock(&p->lock);
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
		pthread_mutex_unlock(&p->lock);

		/* Waits for a running interrupt callback; none comes after. */
		fuse_req_interrupt_func(w->req, NULL, NULL);
		out = malloc(w->size ? w->size : 1);
		n = 0;
		if (out) {
			pthread_mutex_lock(&w->fh->lock);
			n = pipe_fill(d, w->fh, out, w->size);
			pthread_mutex_unlock(&w->fh->lock);
		}
		if (!out) {
			fuse_reply_err(w->req, ENOMEM);
			free(w);
		} else if (n) {
			fuse_reply_buf(w->req, out, n);
			free(w);
		} else {
			/* Another reader was faster: wait again, first in line. */
			pthread_mutex_lock(&p->lock);
			waiter_queue(p, w, true);
			pthread_mutex_unlock(&p->lock);
			fuse_req_interrupt_func(w->req, pipe_interrupted, w);
		}
		free(out);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
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
	pthread_mutex_init(&p->lock, NULL);
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
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	ue_buffer_wakeup(d->buf);
	if (p->started)
		pthread_join(p->thread, NULL);
	pthread_mutex_lock(&p->lock);
	while ((w = p->head)) {
		waiter_unlink(p, w);
		pthread_mutex_unlock(&p->lock);
		fuse_req_interrupt_func(w->req, NULL, NULL);
		fuse_reply_err(w->req, EINTR);
		free(w);
		pthread_mutex_lock(&p->lock);
	}
	for (size_t i = 0; i < p->npollers; i++) {
		fuse_pollhandle_destroy(p->pollers[i]->pipe.ph);
		p->pollers[i]->pipe.ph = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	free(p->pollers);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	pthread_cond_destroy(&p->owner_cond);
	free(p);
	d->pipe = NULL;
}

static void pipe_read(fuse_req_t req, struct ue_fh *fh, size_t size, int flags)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_pipe *p = d->pipe;
	struct waiter *w;
	char *out;
	size_t n;

	bool eof;

	/* Read again after a close: another descriptor still uses the file. */
	pthread_mutex_lock(&p->lock);
	if (p->owner == fh)
		p->owner_closed = false;
	pthread_mutex_unlock(&p->lock);
	out = malloc(size ? size : 1);
	if (!out) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	pthread_mutex_lock(&fh->lock);
	n = pipe_fill(d, fh, out, size);
	/*
	 * tracing_wait_pipe(): a reader that got something before sees the
	 * end of the file once tracing is off and nothing is left.
	 */
	eof = !n && fh->pipe.has_read && !ue_buffer_get_on(d->buf);
	pthread_mutex_unlock(&fh->lock);
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
	pthread_mutex_lock(&p->lock);
	if (w->state == W_INTERRUPTED) {
		pthread_mutex_unlock(&p->lock);
		fuse_req_interrupt_func(req, NULL, NULL);
		fuse_reply_err(req, EINTR);
		free(w);
		return;
	}
	waiter_queue(p, w, false);
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

void ue_trace_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off, int flags)
{
	if (fh->kind == UE_N_TRACE_PIPE)
		pipe_read(req, fh, size, flags);
	else
		ue_fs_serve_text(req, fh, size, off, generate);
}

void ue_trace_poll(fuse_req_t req, struct ue_fh *fh, struct fuse_pollhandle *ph)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_pipe *p = d->pipe;
	bool ready;

	pthread_mutex_lock(&fh->lock);
	ready = fh->pipe.left != NULL;
	pthread_mutex_unlock(&fh->lock);
	if (!ready)
		ready = ue_buffer_has_data(d->buf, -1);
	if (ready || !ph) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req, ready ? POLLIN | POLLRDNORM : 0);
		return;
	}
	pthread_mutex_lock(&p->lock);
	if (fh->pipe.ph) {
		fuse_pollhandle_destroy(fh->pipe.ph);
	} else {
		if (p->npollers == p->cap_pollers) {
			size_t ncap = p->cap_pollers ? p->cap_pollers * 2 : 8;
			struct ue_fh **n = realloc(p->pollers, ncap * sizeof(*n));

			if (!n) {
				pthread_mutex_unlock(&p->lock);
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
	pthread_mutex_unlock(&p->lock);
	fuse_reply_poll(req, 0);
}

void ue_trace_release(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_pipe *p = d->pipe;

	if (p) {
		pthread_mutex_lock(&p->lock);
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
		pthread_mutex_unlock(&p->lock);
	}
	if (fh->pipe.ph)
		fuse_pollhandle_destroy(fh->pipe.ph);
	fh->pipe.ph = NULL;
	free(fh->pipe.left);
	fh->pipe.left = NULL;
}

/*
 * trace_options: one option name, "no" before it to clear it, spaces
 * around ignored (the kernel's trace_set_options()).
 */
static int trace_options_write(struct ue_daemon *d, const char *buf, size_t size)
{
	char opt[64], *s, *e;
	bool on = true;

	if (size >= sizeof(opt))
		return -EINVAL;
	memcpy(opt, buf, size);
	opt[size] = '\0';
	for (s = opt; isspace((unsigned char)*s); s++)
		;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	if (strncmp(s, "no", 2) == 0) {
		on = false;
		s += 2;
	}
	for (unsigned int i = 0; i < UE_OPT_COUNT; i++) {
		if (strcmp(s, ue_trace_options[i].name) == 0)
			return option_set(d, i, on);
	}
	return -EINVAL;
}

void ue_trace_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size)
{
	struct ue_daemon *d = ue_req_daemon(req);
	unsigned long val;
	int r;

	/* Writing to trace does nothing (tracing_write_stub); O_TRUNC cleared it. */
	if (fh->kind == UE_N_TRACE || fh->kind == UE_N_CPU_TRACE) {
		fuse_reply_write(req, size);
		return;
	}
	if (fh->kind == UE_N_CURRENT_TRACER) {
		/* tracing_set_trace_write(): the name, spaces around stripped. */
		size_t b = 0, n = size > 100 ? 100 : size;

		n = strnlen(buf, n);
		while (n && isspace((unsigned char)buf[n - 1]))
			n--;
		while (b < n && isspace((unsigned char)buf[b]))
			b++;
		if (n - b == 3 && memcmp(buf + b, "nop", 3) == 0)
			fuse_reply_write(req, size);
		else
			fuse_reply_err(req, EINVAL);
		return;
	}
	if (fh->kind == UE_N_TRACE_OPTIONS) {
		r = trace_options_write(d, buf, size);
		if (r < 0)
			fuse_reply_err(req, -r);
		else
			fuse_reply_write(req, size);
		return;
	}
	r = ue_parse_ulong(buf, size, &val);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	switch (fh->kind) {
	case UE_N_TRACING_ON:
		/* Parked readers stay parked, as in the kernel: the next read ends. */
		ue_buffer_set_on(d->buf, val != 0);
		break;
	case UE_N_BUFFER_SIZE_KB:
		if (!val || val > (SIZE_MAX >> 10)) {
			r = -EINVAL;
			break;
		}
		r = ue_buffer_resize(d->buf, (size_t)val << 10);
		if (!r)
			atomic_store(&d->buffer_kb, (size_t)val);
		break;
	case UE_N_OPTION:
		if (val > 1) {
			r = -EINVAL;
			break;
		}
		r = option_set(d, fh->option, val != 0);
		break;
	default:
		r = -EINVAL;
		break;
	}
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}
