// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * triggers: an event's trigger file (events/<system>/<event>/trigger) and
 * what its triggers do when a record is written: traceon/traceoff on the
 * trace buffer, enable_event/disable_event on another event's soft mode.
 * The parsing and the listing format are core/trigger.c's; when the steps
 * run is commit.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userevents/abi.h"
#include "buffer.h"
#include "registry-int.h"

/* One trigger of an event. */
struct rtrigger {
	struct rtrigger *next;
	enum ue_trigger_cmd cmd;
	unsigned long count;		/* under the event's trig_lock */
	struct ue_filter *filter;
	char *filter_text;
	struct ue_revent *target;	/* ENABLE/DISABLE_EVENT; a memory reference */
};

static void rtrigger_free(struct rtrigger *t)
{
	ue_filter_free(t->filter);
	free(t->filter_text);
	ue_revent_release(t->target);
	free(t);
}


void ue_revent_triggers_free(struct ue_revent *ev)
{
	/*
	 * Triggers keep their event enabled, so only ue_registry_free() gets
	 * here with some: their targets' memory goes now, or two events
	 * targeting each other would keep each other.
	 */
	ue_mutex_lock(&ev->trig_lock);
	while (ev->triggers) {
		struct rtrigger *t = ev->triggers;

		ev->triggers = t->next;
		rtrigger_free(t);
	}
	ev->ntriggers = 0;
	atomic_store(&ev->tflags, 0);
	ue_mutex_unlock(&ev->trig_lock);
}

/* Whether the event still needs the record for its triggers (the kernel's TRIGGER_COND). */
static bool needs_record(const struct ue_revent *ev)
{
	for (const struct rtrigger *t = ev->triggers; t; t = t->next) {
		if (t->filter || t->cmd == UE_TRIGGER_TRACEOFF)
			return true;
	}
	return false;
}

/* After the list changed: TRIGGER_MODE and TRIGGER_COND.  state_lock and trig_lock held. */
static void update_tflags_locked(struct ue_revent *ev)
{
	unsigned int set = 0;

	ue_mutex_assert_held(&ev->reg->state_lock);
	ue_mutex_assert_held(&ev->trig_lock);

	if (ev->triggers)
		set |= UE_TF_MODE;
	if (needs_record(ev))
		set |= UE_TF_COND;
	atomic_fetch_and(&ev->tflags, ~(UE_TF_MODE | UE_TF_COND) | set);
	atomic_fetch_or(&ev->tflags, set);
}

/* Unlink *@pp (the caller frees it) and undo the soft modes it held.  state_lock held. */
static void trigger_unlink_locked(struct ue_registry *reg, struct ue_revent *ev,
				  struct rtrigger **pp)
{
	struct rtrigger *t = *pp;

	ue_mutex_assert_held(&reg->state_lock);

	ue_mutex_lock(&ev->trig_lock);
	*pp = t->next;
	ev->ntriggers--;
	update_tflags_locked(ev);
	ue_mutex_unlock(&ev->trig_lock);
	if (!ev->triggers)
		ue_registry_enable_locked(reg, ev, false, true);
	if (t->target)
		ue_registry_enable_locked(reg, t->target, false, true);
}

/*
 * @enable false: a predecessor's trigger restored (registry-snap.c), whose
 * soft mode and enable state came with the events.
 */
static int trigger_add(struct ue_registry *reg, struct ue_revent *ev, struct rtrigger *t,
		       bool enable)
{
	struct rtrigger *it;
	int err;

	ue_mutex_lock(&reg->state_lock);
	if (atomic_load(&ev->dead)) {
		err = -ENODEV;
		goto out;
	}
	for (it = ev->triggers; it; it = it->next) {
		if (ue_trigger_same_kind(it->cmd, t->cmd) && it->target == t->target) {
			err = -EEXIST;
			goto out;
		}
	}
	if (ev->ntriggers >= UE_REGISTRY_MAX_TRIGGERS) {
		err = -ENOSPC;
		goto out;
	}
	if (t->target && enable) {
		err = ue_registry_enable_locked(reg, t->target, true, true);
		if (err < 0)
			goto out;
	}
	if (!ev->triggers && enable) {
		err = ue_registry_enable_locked(reg, ev, true, true);
		if (err < 0) {
			if (t->target)
				ue_registry_enable_locked(reg, t->target, false, true);
			goto out;
		}
	}
	ue_mutex_lock(&ev->trig_lock);
	t->next = ev->triggers;
	ev->triggers = t;
	ev->ntriggers++;
	update_tflags_locked(ev);
	ue_mutex_unlock(&ev->trig_lock);
	err = 0;
out:
	ue_mutex_unlock(&reg->state_lock);
	return err;
}

static void trigger_remove(struct ue_registry *reg, struct ue_revent *ev, enum ue_trigger_cmd cmd,
			   struct ue_revent *target)
{
	struct rtrigger **pp, *t = NULL;

	ue_mutex_lock(&reg->state_lock);
	for (pp = &ev->triggers; *pp; pp = &(*pp)->next) {
		if (ue_trigger_same_kind((*pp)->cmd, cmd) && (*pp)->target == target) {
			t = *pp;
			trigger_unlink_locked(reg, ev, pp);
			break;
		}
	}
	ue_mutex_unlock(&reg->state_lock);
	if (t)
		rtrigger_free(t);
}

static int trigger_write(struct ue_registry *reg, struct ue_revent *ev, const char *text,
			 size_t len, bool enable)
{
	struct ue_trigger_req req;
	struct ue_revent *target = NULL;
	struct rtrigger *t = NULL;
	int err;

	err = ue_trigger_parse(text, len, &req);
	if (err < 0 || req.cmd == UE_TRIGGER_NONE)
		goto out;
	if (atomic_load(&ev->dead)) {
		err = -ENODEV;
		goto out;
	}
	if (req.cmd == UE_TRIGGER_ENABLE_EVENT || req.cmd == UE_TRIGGER_DISABLE_EVENT) {
		bool multi = strcmp(req.system, USER_EVENTS_MULTI_SYSTEM) == 0;

		/* Only user events exist here; the kernel's own are not found either. */
		if (multi || strcmp(req.system, USER_EVENTS_SYSTEM) == 0)
			target = ue_registry_find_tp(reg, multi, req.event);
		if (!target) {
			err = -EINVAL;
			goto out;
		}
		if (!req.remove && req.late_err < 0) {
			err = req.late_err;
			goto out;
		}
	}
	if (req.remove) {
		trigger_remove(reg, ev, req.cmd, target);
		goto out;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	t->cmd = req.cmd;
	t->count = req.count;
	if (req.filter) {
		char *shown = NULL;

		err = ue_filter_parse(ev->desc, req.filter, strlen(req.filter), &t->filter, &shown);
		free(shown);
		if (err < 0)
			goto out;
		/* "0" would clear an event's filter; a trigger's has nothing to clear. */
		if (!t->filter) {
			err = -EINVAL;
			goto out;
		}
		t->filter_text = strdup(req.filter);
		if (!t->filter_text) {
			err = -ENOMEM;
			goto out;
		}
	}
	t->target = target;
	target = NULL;
	err = trigger_add(reg, ev, t, enable);
	if (!err)
		t = NULL;
out:
	if (t)
		rtrigger_free(t);
	ue_revent_release(target);
	ue_trigger_req_free(&req);
	return err;
}

int ue_revent_trigger_write(struct ue_registry *reg, struct ue_revent *ev, const char *text,
			    size_t len)
{
	return trigger_write(reg, ev, text, len, true);
}

int ue_revent_trigger_restore(struct ue_registry *reg, struct ue_revent *ev, const char *text,
			      size_t len)
{
	return trigger_write(reg, ev, text, len, false);
}

char *ue_revent_triggers_text(struct ue_revent *ev)
{
	char *text = NULL, *line;
	size_t len = 0;
	int n;

	ue_mutex_lock(&ev->trig_lock);
	if (!ev->triggers) {
		text = strdup(UE_TRIGGER_AVAILABLE);
		goto out;
	}
	text = strdup("");
	for (const struct rtrigger *t = ev->triggers; t && text; t = t->next) {
		const struct ue_revent *tg = t->target;
		char *grown;

		n = ue_trigger_print(t->cmd, tg ? ue_revent_system(tg) : NULL,
				     tg ? tg->tp_name : NULL, t->count, t->filter_text, NULL, 0);
		grown = n < 0 ? NULL : realloc(text, len + (size_t)n + 1);
		if (!grown) {
			free(text);
			text = NULL;
			break;
		}
		text = grown;
		line = text + len;
		ue_trigger_print(t->cmd, tg ? ue_revent_system(tg) : NULL, tg ? tg->tp_name : NULL,
				 t->count, t->filter_text, line, (size_t)n + 1);
		len += (size_t)n;
	}
out:
	ue_mutex_unlock(&ev->trig_lock);
	return text;
}

/*
 * One trigger acting (the kernel's count functions, then the command): a
 * count is spent only when the trigger changes something.  trig_lock held.
 */
static void trigger_act(struct rtrigger *t, struct ue_buffer *buf)
{
	bool on;

	switch (t->cmd) {
	case UE_TRIGGER_TRACEON:
	case UE_TRIGGER_TRACEOFF:
		on = t->cmd == UE_TRIGGER_TRACEON;
		if (ue_buffer_get_on(buf) == on || !t->count)
			return;
		if (t->count != UE_TRIGGER_UNLIMITED)
			t->count--;
		ue_buffer_set_on(buf, on);
		break;
	case UE_TRIGGER_ENABLE_EVENT:
	case UE_TRIGGER_DISABLE_EVENT: {
		struct ue_revent *tg = t->target;
		bool enable = t->cmd == UE_TRIGGER_ENABLE_EVENT;

		if (!t->count)
			return;
		if (enable == !(atomic_load(&tg->tflags) & UE_TF_SOFT_DISABLED))
			return;
		if (t->count != UE_TRIGGER_UNLIMITED)
			t->count--;
		if (enable)
			atomic_fetch_and(&tg->tflags, ~UE_TF_SOFT_DISABLED);
		else
			atomic_fetch_or(&tg->tflags, UE_TF_SOFT_DISABLED);
		break;
	}
	default:
		break;
	}
}

bool ue_revent_triggers_pre(struct ue_revent *ev, unsigned int tf, struct ue_buffer *buf)
{
	if (tf & UE_TF_COND)
		return false;
	if (tf & UE_TF_MODE) {
		ue_mutex_lock(&ev->trig_lock);
		for (struct rtrigger *t = ev->triggers; t; t = t->next)
			trigger_act(t, buf);
		ue_mutex_unlock(&ev->trig_lock);
	}
	return tf & UE_TF_SOFT_DISABLED;
}

bool ue_revent_triggers_rec(struct ue_revent *ev, const void *record, size_t len,
			    const struct ue_filter_ctx *ctx, struct ue_buffer *buf)
{
	bool post = false;

	ue_mutex_lock(&ev->trig_lock);
	for (struct rtrigger *t = ev->triggers; t; t = t->next) {
		if (t->filter && !ue_filter_match(t->filter, record, len, ctx))
			continue;
		/* traceoff acts after the record is stored, so the trace keeps it. */
		if (t->cmd == UE_TRIGGER_TRACEOFF) {
			post = true;
			continue;
		}
		trigger_act(t, buf);
	}
	ue_mutex_unlock(&ev->trig_lock);
	return post;
}

void ue_revent_triggers_post(struct ue_revent *ev, struct ue_buffer *buf)
{
	ue_mutex_lock(&ev->trig_lock);
	for (struct rtrigger *t = ev->triggers; t; t = t->next) {
		if (t->cmd == UE_TRIGGER_TRACEOFF)
			trigger_act(t, buf);
	}
	ue_mutex_unlock(&ev->trig_lock);
}
