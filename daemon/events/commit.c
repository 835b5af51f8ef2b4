// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * commit: a record's fate, decided once for every writer (fs-data.c's FUSE
 * writes, native-drain.c's ring drain): soft mode, the trigger steps of
 * triggers.c in the kernel's order, the event's filter.  The keep-or-drop
 * condition lives here only.
 */
#include "buffer.h"
#include "commit.h"
#include "registry-int.h"

/*
 * The plain path (no triggers, no soft mode, no filter) stays a few
 * instructions without a stack frame: whatever needs locks or registers is
 * in the noinline functions below.
 */
static __attribute__((noinline)) bool begin_triggered(struct ue_commit *c)
{
	if (ue_revent_triggers_pre(c->ev, c->tf, c->buf))
		return false;
	c->on = ue_buffer_get_on(c->buf);
	return c->on || (c->tf & UE_TF_COND);
}

bool ue_commit_begin(struct ue_commit *c, struct ue_revent *ev, struct ue_buffer *buf)
{
	c->ev = ev;
	c->buf = buf;
	/* One load decides: events without triggers or soft mode take the plain path. */
	c->tf = atomic_load_explicit(&ev->tflags, memory_order_relaxed);
	if (c->tf)
		return begin_triggered(c);
	c->on = ue_buffer_get_on(buf);
	return c->on;
}

bool ue_commit_plain(struct ue_revent *ev)
{
	return !atomic_load_explicit(&ev->tflags, memory_order_relaxed) &&
	       !atomic_load_explicit(&ev->filtered, memory_order_relaxed);
}

/* Whether the event's filter passes @record; the caller saw ev->filtered set. */
static __attribute__((noinline)) bool filter_match(struct ue_revent *ev, const void *record,
						   size_t len, const struct ue_filter_ctx *ctx)
{
	bool pass = true;

	ue_rwlock_rdlock(&ev->filter_lock);
	if (ev->filter)
		pass = ue_filter_match(ev->filter, record, len, ctx);
	ue_rwlock_unlock(&ev->filter_lock);
	return pass;
}

/* Whether @record is kept: no filter (one load), or it passes the filter. */
static inline bool filter_passes(struct ue_revent *ev, const void *record, size_t len,
				 const struct ue_filter_ctx *ctx)
{
	return !atomic_load_explicit(&ev->filtered, memory_order_acquire) ||
	       filter_match(ev, record, len, ctx);
}

static __attribute__((noinline)) unsigned int decide_triggered(struct ue_commit *c,
							       const void *record, size_t len,
							       const struct ue_filter_ctx *ctx)
{
	struct ue_revent *ev = c->ev;
	unsigned int verdict = 0;

	if ((c->tf & UE_TF_COND) && ue_revent_triggers_rec(ev, record, len, ctx, c->buf))
		verdict |= UE_COMMIT_THEN_TRIGGER;
	/* Soft mode may have changed since ue_commit_begin() (a trigger fired): loaded again. */
	if (c->on &&
	    !(atomic_load_explicit(&ev->tflags, memory_order_relaxed) & UE_TF_SOFT_DISABLED) &&
	    filter_passes(ev, record, len, ctx))
		verdict |= UE_COMMIT_STORE;
	return verdict;
}

unsigned int ue_commit_decide(struct ue_commit *c, const void *record, size_t len,
			      const struct ue_filter_ctx *ctx)
{
	/*
	 * The one keep-or-drop condition: stored when the buffer was on at
	 * ue_commit_begin() (always so on the plain path), the event is not
	 * soft-disabled now and its filter passes the record.
	 */
	if (c->tf)
		return decide_triggered(c, record, len, ctx);
	return filter_passes(c->ev, record, len, ctx) ? UE_COMMIT_STORE : 0;
}

void ue_commit_trigger(struct ue_commit *c)
{
	ue_revent_triggers_post(c->ev, c->buf);
}
