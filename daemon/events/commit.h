/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * commit: the one way a record enters the trace buffer, whatever brought it
 * (a write to user_events_data in fs-data.c, a record drained from a native
 * ring in native-drain.c): the decision drop / store / store-then-trigger, with
 * the event's soft mode, its filter and its triggers in the kernel's order.
 */
#ifndef UE_DAEMON_COMMIT_H
#define UE_DAEMON_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "core.h"

struct ue_revent;
struct ue_buffer;

/* One record on its way, from ue_commit_begin() to ue_commit_trigger(). */
struct ue_commit {
	struct ue_revent *ev;
	struct ue_buffer *buf;
	unsigned int tf;	/* the event's trigger flags, loaded once for this record */
	bool on;		/* whether the buffer recorded when the record was begun */
};

/* ue_commit_decide(): what the writer does with the record. */
#define UE_COMMIT_STORE		1u	/* put it in the buffer */
#define UE_COMMIT_THEN_TRIGGER	2u	/* then (stored or not) call ue_commit_trigger() */

/**
 * ue_commit_begin - whether a record of @ev is to be built at all
 * @c: the record's commit state, filled in
 * @ev: the event written (a memory reference held)
 * @buf: the trace buffer
 *
 * Runs the triggers that need no record (an event without filters on its
 * triggers and without traceoff), then answers as the kernel does: no
 * record when the event is soft-disabled, or when the buffer is off and no
 * trigger needs the record (the kernel's temp_buffer).  The write succeeds
 * either way.  An event without triggers or soft mode costs two relaxed
 * loads here.
 *
 * Return: true when the writer builds the record, validates it and calls
 * ue_commit_decide(); false when nothing more happens.
 */
bool ue_commit_begin(struct ue_commit *c, struct ue_revent *ev, struct ue_buffer *buf);

/**
 * ue_commit_plain - whether a record of @ev, with the buffer on, is simply
 * stored: no trigger, no soft mode, no filter (two relaxed loads)
 *
 * A writer that builds records under the buffer's lock takes this path
 * instead of ue_commit_begin() and ue_commit_decide(), which may take
 * other locks; a filter or trigger set a moment later applies from the
 * next record on, as if this one had been written before it.
 */
bool ue_commit_plain(struct ue_revent *ev);

/**
 * ue_commit_decide - the fate of a built and validated record
 * @c: from ue_commit_begin()
 * @record: common header and payload, validated (ue_revent_check())
 * @len: its bytes
 * @ctx: the CPU and task name the record is stored with
 *
 * Runs the triggers that need the record (those whose filter passes; a due
 * traceoff waits for ue_commit_trigger()), then decides: the record is
 * stored when the buffer was on at ue_commit_begin() (a record built while
 * it was off stays out, even if traceon just fired), the event is not
 * soft-disabled now, and the event's filter passes it.  As the kernel, a
 * record the filter discards still makes a successful write.
 *
 * Return: 0 (drop), UE_COMMIT_STORE, UE_COMMIT_THEN_TRIGGER or both.
 */
unsigned int ue_commit_decide(struct ue_commit *c, const void *record, size_t len,
			      const struct ue_filter_ctx *ctx);

/**
 * ue_commit_trigger - traceoff, once its record is in the buffer
 * @c: a record whose ue_commit_decide() answered UE_COMMIT_THEN_TRIGGER;
 *     called after the store is visible to readers, before the next record
 */
void ue_commit_trigger(struct ue_commit *c);

#endif /* UE_DAEMON_COMMIT_H */
