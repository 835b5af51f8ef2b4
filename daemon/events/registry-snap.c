// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * registry-snap: the registry in a state snapshot (core/snap.h), for the
 * daemon that takes over a mount (usereventsd --upgrade): every event with
 * its type id, inode sequence, name_args, owner, enable state, soft mode,
 * filter and triggers.  The successor parses each name_args again with its
 * own core, so an event it would refuse is a failed upgrade, not a quiet
 * loss.  References are not carried: each holder (open files, enablers,
 * sessions) takes its own again as it is restored, and the restore's own
 * reference goes last (ue_registry_restore_done()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userevents/abi.h"
#include "core.h"
#include "registry-int.h"
#include "snap.h"

enum { TAG_REGISTRY = 0x52454731, TAG_EVENT = 0x45564e31, TAG_TRIGGERS = 0x54524731 };

static int save_event(struct ue_revent *ev, void *arg)
{
	struct ue_snap_w *w = arg;
	size_t at = ue_snapw_begin(w, TAG_EVENT);
	char *filter;

	ue_snapw_str(w, ev->name_args);
	ue_snapw_bool(w, ev->dyn);
	ue_snapw_bool(w, ev->multi);
	ue_snapw_bool(w, ev->persist);
	ue_snapw_u64(w, ev->owner);
	ue_snapw_u64(w, ev->id);
	ue_snapw_u64(w, ev->seq);
	ue_snapw_str(w, ev->tp_name);
	ue_snapw_bool(w, ev->enabled);
	ue_snapw_bool(w, ev->was_enabled);
	ue_snapw_u64(w, atomic_load(&ev->status));
	ue_snapw_bool(w, ev->soft_mode);
	ue_snapw_u64(w, ev->sm_ref);
	ue_snapw_u64(w, atomic_load(&ev->tflags) & UE_TF_SOFT_DISABLED);
	ue_rwlock_rdlock(&ev->filter_lock);
	ue_snapw_bool(w, ev->filter != NULL);
	filter = ev->filter_shown;
	ue_snapw_str(w, filter);
	ue_rwlock_unlock(&ev->filter_lock);
	ue_snapw_end(w, at);
	return 0;
}

static int save_triggers(struct ue_revent *ev, void *arg)
{
	struct ue_snap_w *w = arg;
	char *text;
	size_t at;

	if (!ev->triggers)
		return 0;
	text = ue_revent_triggers_text(ev);
	if (!text)
		return -ENOMEM;
	at = ue_snapw_begin(w, TAG_TRIGGERS);
	ue_snapw_u64(w, ev->id);
	ue_snapw_str(w, text);
	ue_snapw_end(w, at);
	free(text);
	return 0;
}

int ue_registry_save(struct ue_registry *reg, struct ue_snap_w *w)
{
	size_t at = ue_snapw_begin(w, TAG_REGISTRY);
	int err;

	ue_mutex_lock(&reg->state_lock);
	ue_mutex_lock(&reg->lock);
	ue_snapw_u64(w, reg->first_id);
	ue_snapw_u64(w, reg->next_seq);
	ue_snapw_u64(w, reg->multi_id);
	ue_snapw_bool(w, reg->clear_trace);
	ue_mutex_unlock(&reg->lock);
	err = ue_registry_foreach(reg, UE_ORDER_CREATED, save_event, w);
	/* After every event: a trigger names its target by name. */
	if (!err)
		err = ue_registry_foreach(reg, UE_ORDER_CREATED, save_triggers, w);
	ue_mutex_unlock(&reg->state_lock);
	ue_snapw_end(w, at);
	return err ? err : w->err;
}

/* One event as its predecessor had it, with the restore's reference. */
static int restore_event(struct ue_registry *reg, struct ue_snap_r *r)
{
	char name_args[UE_MAX_EVENT_DESC], tp_name[UE_MAX_EVENT_DESC + 32], shown[8192];
	struct ue_revent *ev;
	bool has_filter;
	uint64_t id, seq;
	int err;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ue_rwlock_init(&ev->filter_lock, UE_LOCK_FILTER);
	ue_mutex_init(&ev->trig_lock, UE_LOCK_TRIGGERS);
	ue_snapr_str(r, name_args, sizeof(name_args));
	ev->dyn = ue_snapr_bool(r);
	ev->multi = ue_snapr_bool(r);
	ev->persist = ue_snapr_bool(r);
	ev->owner = (uid_t)ue_snapr_u64_max(r, UINT32_MAX);
	id = ue_snapr_u64_max(r, UE_REGISTRY_MAX_ID);
	seq = ue_snapr_u64(r);
	ue_snapr_str(r, tp_name, sizeof(tp_name));
	ev->enabled = ue_snapr_bool(r);
	ev->was_enabled = ue_snapr_bool(r);
	atomic_init(&ev->status, (unsigned int)ue_snapr_u64_max(r, UINT32_MAX));
	ev->soft_mode = ue_snapr_bool(r);
	ev->sm_ref = (unsigned int)ue_snapr_u64_max(r, UINT32_MAX);
	atomic_init(&ev->tflags, ue_snapr_u64(r) ? UE_TF_SOFT_DISABLED : 0);
	has_filter = ue_snapr_bool(r);
	if (!ue_snapr_str(r, shown, sizeof(shown)))
		shown[0] = 0;
	err = r->err;
	if (err || id < reg->first_id || reg->by_id[id] || seq >= reg->next_seq) {
		err = -EINVAL;
		goto fail;
	}
	err = ev->dyn ? ue_event_parse_dyn(name_args, &ev->desc) : ue_event_parse(name_args, &ev->desc);
	if (err < 0)
		goto fail;
	err = ue_check_new(ev->desc, &ev->check);
	if (err < 0)
		goto fail;
	ev->name_args = strdup(name_args);
	ev->tp_name = strdup(tp_name);
	if (!ev->name_args || !ev->tp_name) {
		err = -ENOMEM;
		goto fail;
	}
	if (shown[0]) {
		ev->filter_shown = strdup(shown);
		if (!ev->filter_shown) {
			err = -ENOMEM;
			goto fail;
		}
	}
	if (has_filter) {
		char *again = NULL;

		err = ue_filter_parse(ev->desc, shown, strlen(shown), &ev->filter, &again);
		free(again);
		if (err < 0 || !ev->filter) {
			err = err < 0 ? err : -EINVAL;
			goto fail;
		}
		atomic_init(&ev->filtered, true);
	}
	ev->reg = reg;
	ev->id = (unsigned int)id;
	ev->seq = seq;
	/* PERSIST's own, the tracer's while enabled, and the restore's. */
	ev->refs = (ev->persist ? 1u : 0u) + (ev->enabled ? 1u : 0u) + 1u;
	atomic_init(&ev->mem, 1);
	atomic_init(&ev->dead, false);
	ue_registry_link_restored(reg, ev);
	return 0;
fail:
	ue_filter_free(ev->filter);
	free(ev->filter_shown);
	ue_check_free(ev->check);
	ue_event_free(ev->desc);
	free(ev->name_args);
	free(ev->tp_name);
	ue_rwlock_destroy(&ev->filter_lock);
	ue_mutex_destroy(&ev->trig_lock);
	free(ev);
	return err;
}

static int restore_triggers(struct ue_registry *reg, struct ue_snap_r *r)
{
	struct ue_revent *ev;
	const char *p;
	char *text;
	size_t len, n;
	uint64_t id;
	int err = 0;

	id = ue_snapr_u64_max(r, UE_REGISTRY_MAX_ID);
	p = ue_snapr_bytes(r, &len);
	if (r->err || !(ev = reg->by_id[id]))
		return -EINVAL;
	text = strndup(p, len);
	if (!text)
		return -ENOMEM;
	/* Listed newest first: added from the last line up, they list as before. */
	n = strlen(text);
	while (n > 0 && !err) {
		size_t end = n;

		if (text[end - 1] == '\n')
			end--;
		n = end;
		while (n > 0 && text[n - 1] != '\n')
			n--;
		text[end] = 0;
		if (end > n)
			err = ue_revent_trigger_restore(reg, ev, text + n, end - n);
	}
	free(text);
	return err;
}

int ue_registry_restore(struct ue_registry *reg, struct ue_snap_r *snap)
{
	struct ue_snap_r r, sub;
	uint32_t tag;
	int err = 0;

	if (!ue_snapr_section(snap, &tag, &r) || tag != TAG_REGISTRY)
		return -EINVAL;
	reg->first_id = (unsigned int)ue_snapr_u64_max(&r, UE_REGISTRY_MAX_ID);
	reg->next_seq = ue_snapr_u64(&r);
	reg->multi_id = ue_snapr_u64(&r);
	reg->clear_trace = ue_snapr_bool(&r);
	while (!err && ue_snapr_section(&r, &tag, &sub)) {
		if (tag == TAG_EVENT)
			err = restore_event(reg, &sub);
		else if (tag == TAG_TRIGGERS)
			err = restore_triggers(reg, &sub);
	}
	return err ? err : r.err;
}

static int put_restore_ref(struct ue_revent *ev, void *arg)
{
	struct ue_revent ***list = arg;

	*(*list)++ = ev;
	return 0;
}

void ue_registry_restore_done(struct ue_registry *reg)
{
	struct ue_revent **all, **end;
	unsigned int n;

	ue_mutex_lock(&reg->lock);
	n = reg->nevents;
	ue_mutex_unlock(&reg->lock);
	all = calloc(n + 1, sizeof(*all));
	if (!all)
		return;	/* the events stay: a leak of references, never a loss */
	end = all;
	ue_registry_foreach(reg, UE_ORDER_CREATED, put_restore_ref, &end);
	for (struct ue_revent **p = all; p < end; p++)
		ue_revent_put(*p);
	free(all);
}
