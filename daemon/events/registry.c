// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * registry: the user events of usereventsd (the kernel's user_event_group),
 * their type ids, references, deletion, the event limit and enable state.
 * Parsing, matching and every text come from core/; this file only decides
 * which event a request means and how long it lives.  The trigger file is
 * triggers.c's, a record's fate on the write path commit.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userevents/abi.h"
#include "counts.h"
#include "enabler.h"
#include "registry-int.h"

/* Buckets of the kernel's register_table (DECLARE_HASHTABLE(..., 8)). */
#define STATUS_HASH_BITS 8

/* Bob Jenkins' lookup3 hash, the function the kernel's jhash() computes. */
static inline uint32_t rol32(uint32_t w, unsigned int s)
{
	return (w << s) | (w >> (32 - s));
}

static uint32_t jhash_bytes(const char *key, size_t len, uint32_t initval)
{
	const unsigned char *k = (const unsigned char *)key;
	uint32_t a, b, c;

	a = b = c = 0xdeadbeef + (uint32_t)len + initval;
	while (len > 12) {
		a += k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24;
		b += k[4] | (uint32_t)k[5] << 8 | (uint32_t)k[6] << 16 | (uint32_t)k[7] << 24;
		c += k[8] | (uint32_t)k[9] << 8 | (uint32_t)k[10] << 16 | (uint32_t)k[11] << 24;
		a -= c; a ^= rol32(c, 4); c += b;
		b -= a; b ^= rol32(a, 6); a += c;
		c -= b; c ^= rol32(b, 8); b += a;
		a -= c; a ^= rol32(c, 16); c += b;
		b -= a; b ^= rol32(a, 19); a += c;
		c -= b; c ^= rol32(b, 4); b += a;
		len -= 12;
		k += 12;
	}
	if (len == 0)
		return c;
	/* The last 1..12 bytes, little-endian into a, b, c. */
	for (size_t i = len; i-- > 0;) {
		uint32_t v = (uint32_t)k[i] << (8 * (i % 4));

		if (i < 4)
			a += v;
		else if (i < 8)
			b += v;
		else
			c += v;
	}
	c ^= b; c -= rol32(b, 14);
	a ^= c; a -= rol32(c, 11);
	b ^= a; b -= rol32(a, 25);
	c ^= b; c -= rol32(b, 16);
	a ^= c; a -= rol32(c, 4);
	b ^= a; b -= rol32(a, 14);
	c ^= b; c -= rol32(b, 24);
	return c;
}

static unsigned int name_bucket(const char *name)
{
	return jhash_bytes(name, strlen(name), 0) % NAME_BUCKETS;
}

/* hash_min(key, 8) of the kernel's hashtable for a 32-bit key. */
static unsigned int status_bucket(const char *name)
{
	uint32_t key = jhash_bytes(name, strlen(name), 0);

	return (uint32_t)(key * 0x61C88647u) >> (32 - STATUS_HASH_BITS);
}

int ue_registry_new(const struct ue_registry_opts *opts, struct ue_registry **ret)
{
	struct ue_registry *reg;

	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return -ENOMEM;
	reg->by_id = calloc(UE_REGISTRY_MAX_ID + 1, sizeof(*reg->by_id));
	if (!reg->by_id) {
		free(reg);
		return -ENOMEM;
	}
	reg->max_events = opts && opts->max_events ? opts->max_events
						   : UE_REGISTRY_DEFAULT_MAX_EVENTS;
	reg->first_id = opts && opts->first_id ? opts->first_id : UE_REGISTRY_FIRST_ID;
	reg->owner_only = opts && opts->owner_only;
	if (reg->first_id > UE_REGISTRY_MAX_ID) {
		free(reg->by_id);
		free(reg);
		return -EINVAL;
	}
	reg->next_seq = 1;
	ue_mutex_init(&reg->lock, UE_LOCK_REGISTRY);
	ue_mutex_init(&reg->state_lock, UE_LOCK_REG_STATE);
	*ret = reg;
	return 0;
}

void ue_registry_set_enablers(struct ue_registry *reg, struct ue_enablers *set)
{
	reg->enablers = set;
}

void ue_registry_set_counts(struct ue_registry *reg, struct ue_counts *counts)
{
	reg->counts = counts;
}

void ue_registry_set_busy_hook(struct ue_registry *reg, void (*hook)(void *arg), void *arg)
{
	reg->busy_hook = hook;
	reg->busy_arg = arg;
}

void ue_registry_set_register_hook(struct ue_registry *reg,
				   void (*hook)(void *arg, struct ue_revent *ev), void *arg)
{
	reg->reg_hook = hook;
	reg->reg_arg = arg;
}

static void revent_free(struct ue_revent *ev)
{
	ue_mutex_destroy(&ev->trig_lock);
	ue_filter_free(ev->filter);
	free(ev->filter_shown);
	ue_rwlock_destroy(&ev->filter_lock);
	ue_check_free(ev->check);
	ue_event_free(ev->desc);
	free(ev->name_args);
	free(ev->tp_name);
	free(ev);
}

void ue_revent_hold(struct ue_revent *ev)
{
	atomic_fetch_add(&ev->mem, 1);
}

void ue_revent_release(struct ue_revent *ev)
{
	if (ev && atomic_fetch_sub(&ev->mem, 1) == 1)
		revent_free(ev);
}

/* Unlink a dead event from every table.  Called with reg->lock held. */
static void destroy_locked(struct ue_registry *reg, struct ue_revent *ev)
{
	struct ue_revent **pp;

	ue_mutex_assert_held(&reg->lock);

	for (pp = &reg->names[name_bucket(ev->desc->name)]; *pp; pp = &(*pp)->name_next) {
		if (*pp == ev) {
			*pp = ev->name_next;
			break;
		}
	}
	for (pp = &reg->seqs[ev->seq % SEQ_BUCKETS]; *pp; pp = &(*pp)->seq_next) {
		if (*pp == ev) {
			*pp = ev->seq_next;
			break;
		}
	}
	if (ev->prev)
		ev->prev->next = ev->next;
	else
		reg->head = ev->next;
	if (ev->next)
		ev->next->prev = ev->prev;
	else
		reg->tail = ev->prev;
	reg->by_id[ev->id] = NULL;
	/* Its id may go to another event: its counts go now. */
	ue_counts_forget_event(reg->counts, ev->id);
	reg->nevents--;
	ue_revent_triggers_free(ev);
	if (ev->multi)
		reg->nmulti--;
	/* Records of this id stay in the buffer; a reused id would misread them. */
	if (ev->was_enabled)
		reg->clear_trace = true;
	atomic_store(&ev->dead, true);
	ue_revent_release(ev);
}

void ue_registry_free(struct ue_registry *reg)
{
	if (!reg)
		return;
	ue_mutex_lock(&reg->lock);
	/* Every event goes: no id is given again, so no count need go row by row. */
	reg->counts = NULL;
	while (reg->head)
		destroy_locked(reg, reg->head);
	ue_mutex_unlock(&reg->lock);
	ue_mutex_destroy(&reg->lock);
	ue_mutex_destroy(&reg->state_lock);
	free(reg->by_id);
	free(reg);
}

/* The kernel's user_event_last_ref(): nothing but PERSIST's own reference. */
static bool last_ref(const struct ue_revent *ev)
{
	return ev->refs == (ev->persist ? 1u : 0u);
}

void ue_revent_get(struct ue_revent *ev)
{
	ue_mutex_lock(&ev->reg->lock);
	ev->refs++;
	ue_mutex_unlock(&ev->reg->lock);
}

void ue_revent_put(struct ue_revent *ev)
{
	struct ue_registry *reg;

	if (!ev)
		return;
	reg = ev->reg;
	ue_mutex_lock(&reg->lock);
	if (ev->refs > 0)
		ev->refs--;
	/*
	 * Destroyed here and now, under the lock that lookups take, so a
	 * program registering the name again right after finds nothing stale
	 * (the kernel defers this to a work queue and can race).
	 */
	if (ev->refs == 0 && !ev->persist && !atomic_load(&ev->dead))
		destroy_locked(reg, ev);
	ue_mutex_unlock(&reg->lock);
}

static void en_get(void *event)
{
	ue_revent_get(event);
}

static void en_put(void *event)
{
	ue_revent_put(event);
}

/* Called under the enablers' lock: an increment of a count an enabler already holds. */
static void en_dup(void *event)
{
	struct ue_revent *ev = event;

	atomic_fetch_add(&ev->refs, 1);
}

static bool en_is_enabled(void *event)
{
	return ue_revent_enabled(event);
}

static const struct ue_enabler_ops enabler_ops = {
	.get = en_get,
	.put = en_put,
	.dup = en_dup,
	.is_enabled = en_is_enabled,
};

const struct ue_enabler_ops *ue_registry_enabler_ops(void)
{
	return &enabler_ops;
}

/*
 * The kernel's find_user_event(): only events of the same kind (single or
 * multi-format) count; a single-format name with other fields is
 * EADDRINUSE, a multi-format one just does not match.
 */
static struct ue_revent *find_locked(struct ue_registry *reg, const char *name, const char *args,
				     bool multi, int *err)
{
	struct ue_revent *ev;

	ue_mutex_assert_held(&reg->lock);

	*err = 0;
	for (ev = reg->names[name_bucket(name)]; ev; ev = ev->name_next) {
		if (ev->multi != multi || strcmp(ev->desc->name, name) != 0)
			continue;
		if (ue_event_match_args(ev->desc, args))
			return ev;
		if (multi)
			continue;
		*err = -EADDRINUSE;
		return NULL;
	}
	return NULL;
}

static int alloc_id_locked(struct ue_registry *reg)
{
	ue_mutex_assert_held(&reg->lock);

	for (unsigned int id = reg->first_id; id <= UE_REGISTRY_MAX_ID; id++) {
		if (!reg->by_id[id])
			return (int)id;
	}
	return -ENODEV;
}

/* owner_only: another uid's event may be used or deleted by capable callers only. */
static bool may_touch(const struct ue_registry *reg, const struct ue_revent *ev,
		      const struct ue_who *who)
{
	return !reg->owner_only || ev->owner == who->uid || who->capable;
}

/* Into the id, name and sequence tables and the creation order.  reg->lock held. */
static void link_locked(struct ue_registry *reg, struct ue_revent *ev)
{
	ue_mutex_assert_held(&reg->lock);
	reg->by_id[ev->id] = ev;
	ev->name_next = reg->names[name_bucket(ev->desc->name)];
	reg->names[name_bucket(ev->desc->name)] = ev;
	ev->seq_next = reg->seqs[ev->seq % SEQ_BUCKETS];
	reg->seqs[ev->seq % SEQ_BUCKETS] = ev;
	ev->prev = reg->tail;
	if (reg->tail)
		reg->tail->next = ev;
	else
		reg->head = ev;
	reg->tail = ev;
	reg->nevents++;
	if (ev->multi)
		reg->nmulti++;
}

void ue_registry_link_restored(struct ue_registry *reg, struct ue_revent *ev)
{
	ev->status_bucket = status_bucket(ev->desc->name);
	ue_mutex_lock(&reg->lock);
	link_locked(reg, ev);
	ue_mutex_unlock(&reg->lock);
}

static int register_common(struct ue_registry *reg, const char *name_args, unsigned int flags,
			   const struct ue_who *who, bool dyn, struct ue_revent **ret)
{
	bool multi = flags & USER_EVENT_REG_MULTI_FORMAT;
	struct ue_event *desc = NULL;
	struct ue_revent *ev;
	const char *args;
	size_t name_len;
	char *name;
	int err, id;

	err = ue_name_args_split(name_args, &name_len, &args);
	if (err < 0)
		return err;
	if ((flags & USER_EVENT_REG_PERSIST) && !who->capable)
		return -EPERM;
	name = strndup(name_args, name_len);
	if (!name)
		return -ENOMEM;

	ue_mutex_lock(&reg->lock);
	ev = find_locked(reg, name, args, multi, &err);
	if (ev && !may_touch(reg, ev, who)) {
		err = -EPERM;
		goto out_unlock;
	}
	if (ev) {
		ev->refs++;
		ue_mutex_unlock(&reg->lock);
		free(name);
		*ret = ev;
		return 0;
	}
	if (err < 0)
		goto out_unlock;

	ev = calloc(1, sizeof(*ev));
	if (!ev) {
		err = -ENOMEM;
		goto out_unlock;
	}
	ue_rwlock_init(&ev->filter_lock, UE_LOCK_FILTER);
	ue_mutex_init(&ev->trig_lock, UE_LOCK_TRIGGERS);
	if (multi) {
		/* As the kernel, a multi-format id is used up even if the rest fails. */
		if (asprintf(&ev->tp_name, "%s.%" PRIx64, name, reg->multi_id) < 0) {
			ev->tp_name = NULL;
			err = -ENOMEM;
			goto out_free;
		}
		reg->multi_id++;
	} else {
		ev->tp_name = name;
		name = NULL;
	}
	err = dyn ? ue_event_parse_dyn(name_args, &desc) : ue_event_parse(name_args, &desc);
	if (err < 0)
		goto out_free;
	ev->desc = desc;
	ev->dyn = dyn;
	ev->name_args = strdup(name_args);
	if (!ev->name_args) {
		err = -ENOMEM;
		goto out_free;
	}
	err = ue_check_new(desc, &ev->check);
	if (err < 0)
		goto out_free;
	if (reg->nevents >= reg->max_events) {
		err = -EMFILE;
		goto out_free;
	}
	id = alloc_id_locked(reg);
	if (id < 0) {
		err = id;
		goto out_free;
	}

	ev->reg = reg;
	ev->id = (unsigned int)id;
	ev->seq = reg->next_seq++;
	ev->multi = multi;
	ev->persist = flags & USER_EVENT_REG_PERSIST;
	ev->owner = who->uid;
	ev->status_bucket = status_bucket(desc->name);
	/* PERSIST keeps a reference of its own beside the caller's. */
	ev->refs = ev->persist ? 2 : 1;
	atomic_init(&ev->mem, 1);
	atomic_init(&ev->status, 0);
	atomic_init(&ev->dead, false);

	link_locked(reg, ev);
	ue_mutex_unlock(&reg->lock);
	free(name);
	*ret = ev;
	return 0;

out_free:
	ue_rwlock_destroy(&ev->filter_lock);
	ue_mutex_destroy(&ev->trig_lock);
	ue_check_free(ev->check);
	ue_event_free(ev->desc);
	free(ev->name_args);
	free(ev->tp_name);
	free(ev);
out_unlock:
	ue_mutex_unlock(&reg->lock);
	free(name);
	return err;
}

/*
 * Armed patterns are consulted here, before the registration returns: an
 * event they name is enabled before its registrant's enabler is made, so
 * its bit is set when DIAG_IOCSREG returns and its first write is kept.
 */
static int register_armed(struct ue_registry *reg, const char *name_args, unsigned int flags,
			  const struct ue_who *who, bool dyn, struct ue_revent **ret)
{
	int err = register_common(reg, name_args, flags, who, dyn, ret);

	if (err == 0 && reg->reg_hook)
		reg->reg_hook(reg->reg_arg, *ret);
	return err;
}

int ue_registry_register(struct ue_registry *reg, const char *name_args, unsigned int flags,
			 const struct ue_who *who, struct ue_revent **ret)
{
	return register_armed(reg, name_args, flags, who, false, ret);
}

int ue_registry_dyn_create(struct ue_registry *reg, const char *name_args,
			   const struct ue_who *who)
{
	struct ue_revent *ev;
	int err;

	err = register_armed(reg, name_args, USER_EVENT_REG_PERSIST, who, true, &ev);
	if (err < 0)
		return err;
	ue_revent_put(ev);
	return 0;
}

/*
 * The kernel's user_event_free()/delete_user_event() check for one event.
 * Called with reg->lock held.
 */
static int delete_check(const struct ue_revent *ev, const struct ue_who *who)
{
	/* Another owner's event: refused whatever its state, which is not theirs to learn. */
	if (!may_touch(ev->reg, ev, who))
		return -EPERM;
	if (!last_ref(ev))
		return -EBUSY;
	if (ev->persist && !who->capable)
		return -EPERM;
	return 0;
}

static bool run_busy_hook(struct ue_registry *reg, bool *tried)
{
	if (*tried || !reg->busy_hook)
		return false;
	*tried = true;
	ue_mutex_unlock(&reg->lock);
	reg->busy_hook(reg->busy_arg);
	ue_mutex_lock(&reg->lock);
	return true;
}

/*
 * Deletes the events named @name (their hash chain) or, without a name,
 * those @cmd matches (the whole list), in that order, up to the first that
 * may not go.  The busy hook runs once, then the walk starts again.
 */
static int delete_matching(struct ue_registry *reg, const char *name,
			   const struct ue_dynevent_cmd *cmd, const struct ue_who *who)
{
	struct ue_revent *ev, *next;
	bool tried = false;
	int err = -ENOENT;

	ue_mutex_lock(&reg->lock);
again:
	for (ev = name ? reg->names[name_bucket(name)] : reg->head; ev; ev = next) {
		next = name ? ev->name_next : ev->next;
		if (name ? strcmp(ev->desc->name, name) != 0 : !ue_dynevent_match(cmd, ev->desc))
			continue;
		err = delete_check(ev, who);
		if (err == -EBUSY && run_busy_hook(reg, &tried)) {
			err = -ENOENT;
			goto again;
		}
		if (err < 0)
			break;
		destroy_locked(reg, ev);
	}
	ue_mutex_unlock(&reg->lock);
	return err;
}

int ue_registry_delete(struct ue_registry *reg, const char *name, const struct ue_who *who)
{
	return delete_matching(reg, name, NULL, who);
}

int ue_registry_dyn_delete(struct ue_registry *reg, const struct ue_dynevent_cmd *cmd,
			   const struct ue_who *who)
{
	return delete_matching(reg, NULL, cmd, who);
}

int ue_registry_delete_all(struct ue_registry *reg, const struct ue_who *who)
{
	struct ue_revent *ev;
	bool tried = false;
	int err = 0;

	ue_mutex_lock(&reg->lock);
again:
	for (ev = reg->head; ev; ev = ev->next) {
		if (!last_ref(ev)) {
			if (run_busy_hook(reg, &tried))
				goto again;
			ue_mutex_unlock(&reg->lock);
			return -EBUSY;
		}
	}
	while (reg->head) {
		err = delete_check(reg->head, who);
		if (err < 0)
			break;
		destroy_locked(reg, reg->head);
	}
	ue_mutex_unlock(&reg->lock);
	return err;
}

bool ue_registry_take_clear_trace(struct ue_registry *reg)
{
	bool clear;

	ue_mutex_lock(&reg->lock);
	clear = reg->clear_trace;
	reg->clear_trace = false;
	ue_mutex_unlock(&reg->lock);
	return clear;
}

/*
 * The kernel's __ftrace_event_enable_disable(): @soft counts soft-mode
 * users (triggers on the event, enable_event/disable_event aiming at it),
 * which keep it registered (enabled in every process) while SOFT_DISABLED
 * discards its records.  Called with state_lock held; the caller holds a
 * memory reference, as unregistering may destroy the event.
 */
int ue_registry_enable_locked(struct ue_registry *reg, struct ue_revent *ev, bool enable,
			      bool soft)
{
	bool change, dead, unreg = false;

	ue_mutex_assert_held(&reg->state_lock);

	if (!enable) {
		if (soft) {
			if (ev->sm_ref && --ev->sm_ref > 0)
				return 0;
			unreg = atomic_load(&ev->tflags) & UE_TF_SOFT_DISABLED;
			ev->soft_mode = false;
		} else {
			unreg = !ev->soft_mode;
		}
		if (ev->soft_mode)
			atomic_fetch_or(&ev->tflags, UE_TF_SOFT_DISABLED);
		else
			atomic_fetch_and(&ev->tflags, ~UE_TF_SOFT_DISABLED);
		if (!unreg || !ev->enabled)
			return 0;
		ev->enabled = false;
		atomic_store(&ev->status, 0);
		if (reg->enablers)
			ue_enablers_update_event(reg->enablers, ev, false);
		/* The tracer's reference, taken when it was registered. */
		ue_revent_put(ev);
		return 0;
	}
	if (!soft) {
		atomic_fetch_and(&ev->tflags, ~UE_TF_SOFT_DISABLED);
	} else {
		if (++ev->sm_ref > 1)
			return 0;
		ev->soft_mode = true;
	}
	if (ev->enabled)
		return 0;
	ue_mutex_lock(&reg->lock);
	dead = atomic_load(&ev->dead);
	change = !dead;
	if (change) {
		/* The tracer's reference, as user_event_reg(TRACE_REG_REGISTER). */
		ev->refs++;
		ev->was_enabled = true;
	}
	ue_mutex_unlock(&reg->lock);
	if (dead) {
		if (soft) {
			ev->sm_ref--;
			ev->soft_mode = ev->sm_ref > 0;
		}
		return -ENODEV;
	}
	if (soft)
		atomic_fetch_or(&ev->tflags, UE_TF_SOFT_DISABLED);
	ev->enabled = true;
	/* Stored before the update: a registration racing with us reads it. */
	atomic_store(&ev->status, UE_STATUS_FTRACE);
	if (reg->enablers)
		ue_enablers_update_event(reg->enablers, ev, true);
	return 0;
}

int ue_revent_set_enabled(struct ue_registry *reg, struct ue_revent *ev, bool on)
{
	int err;

	/* Writing the enable file of a deleted event fails, whatever it would change. */
	if (atomic_load(&ev->dead))
		return -ENODEV;
	ue_mutex_lock(&reg->state_lock);
	err = ue_registry_enable_locked(reg, ev, on, false);
	ue_mutex_unlock(&reg->state_lock);
	return err;
}

int ue_registry_set_enabled_match(struct ue_registry *reg, const char *match, const char *sub,
				  const char *event, bool on)
{
	struct ue_revent **list, *ev;
	unsigned int n = 0, i;
	int err = 0, r;

	ue_mutex_lock(&reg->lock);
	list = calloc(reg->nevents ? reg->nevents : 1, sizeof(*list));
	if (!list) {
		ue_mutex_unlock(&reg->lock);
		return -ENOMEM;
	}
	for (ev = reg->tail; ev; ev = ev->prev) {
		const char *system = ue_revent_system(ev);

		if (match && strcmp(match, ev->tp_name) != 0 && strcmp(match, system) != 0)
			continue;
		if (sub && strcmp(sub, system) != 0)
			continue;
		if (event && strcmp(event, ev->tp_name) != 0)
			continue;
		ue_revent_hold(ev);
		list[n++] = ev;
	}
	ue_mutex_unlock(&reg->lock);
	for (i = 0; i < n; i++) {
		r = ue_revent_set_enabled(reg, list[i], on);
		if (r < 0 && !err)
			err = r;
		ue_revent_release(list[i]);
	}
	free(list);
	return n ? err : -EINVAL;
}

struct ue_revent *ue_registry_find_seq(struct ue_registry *reg, uint64_t seq)
{
	struct ue_revent *ev;

	ue_mutex_lock(&reg->lock);
	for (ev = reg->seqs[seq % SEQ_BUCKETS]; ev; ev = ev->seq_next) {
		if (ev->seq == seq) {
			ue_revent_hold(ev);
			break;
		}
	}
	ue_mutex_unlock(&reg->lock);
	return ev;
}

struct ue_revent *ue_registry_find_tp(struct ue_registry *reg, bool multi, const char *tp_name)
{
	struct ue_revent *ev;

	ue_mutex_lock(&reg->lock);
	for (ev = reg->head; ev; ev = ev->next) {
		if (ev->multi == multi && strcmp(ev->tp_name, tp_name) == 0) {
			ue_revent_hold(ev);
			break;
		}
	}
	ue_mutex_unlock(&reg->lock);
	return ev;
}

struct ue_revent *ue_registry_find_id(struct ue_registry *reg, unsigned int id)
{
	struct ue_revent *ev = NULL;

	if (id > UE_REGISTRY_MAX_ID)
		return NULL;
	ue_mutex_lock(&reg->lock);
	ev = reg->by_id[id];
	if (ev)
		ue_revent_hold(ev);
	ue_mutex_unlock(&reg->lock);
	return ev;
}

static int cmp_status_order(const void *a, const void *b)
{
	const struct ue_revent *x = *(struct ue_revent *const *)a;
	const struct ue_revent *y = *(struct ue_revent *const *)b;

	if (x->status_bucket != y->status_bucket)
		return x->status_bucket < y->status_bucket ? -1 : 1;
	/* hash_add() puts the newest first in its bucket. */
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

int ue_registry_foreach(struct ue_registry *reg, enum ue_registry_order order,
			int (*fn)(struct ue_revent *ev, void *arg), void *arg)
{
	struct ue_revent *ev, **list;
	unsigned int n = 0;
	int r = 0;

	ue_mutex_lock(&reg->lock);
	switch (order) {
	case UE_ORDER_CREATED:
		for (ev = reg->head; ev && !r; ev = ev->next)
			r = fn(ev, arg);
		break;
	case UE_ORDER_NEWEST:
		for (ev = reg->tail; ev && !r; ev = ev->prev)
			r = fn(ev, arg);
		break;
	case UE_ORDER_STATUS:
		list = malloc((reg->nevents ? reg->nevents : 1) * sizeof(*list));
		if (!list) {
			r = -ENOMEM;
			break;
		}
		for (ev = reg->head; ev; ev = ev->next)
			list[n++] = ev;
		qsort(list, n, sizeof(*list), cmp_status_order);
		for (unsigned int i = 0; i < n && !r; i++)
			r = fn(list[i], arg);
		free(list);
		break;
	}
	ue_mutex_unlock(&reg->lock);
	return r;
}

unsigned int ue_registry_count(struct ue_registry *reg, bool multi)
{
	unsigned int n;

	ue_mutex_lock(&reg->lock);
	n = multi ? reg->nmulti : reg->nevents - reg->nmulti;
	ue_mutex_unlock(&reg->lock);
	return n;
}

const struct ue_event *ue_revent_desc(const struct ue_revent *ev)
{
	return ev->desc;
}

const struct ue_check *ue_revent_check(const struct ue_revent *ev)
{
	return ev->check;
}

const char *ue_revent_tp_name(const struct ue_revent *ev)
{
	return ev->tp_name;
}

unsigned int ue_revent_id(const struct ue_revent *ev)
{
	return ev->id;
}

uint64_t ue_revent_seq(const struct ue_revent *ev)
{
	return ev->seq;
}

bool ue_revent_multi(const struct ue_revent *ev)
{
	return ev->multi;
}

bool ue_revent_persist(const struct ue_revent *ev)
{
	return ev->persist;
}

bool ue_revent_dead(const struct ue_revent *ev)
{
	return atomic_load(&ev->dead);
}

unsigned int ue_revent_status(const struct ue_revent *ev)
{
	return atomic_load(&((struct ue_revent *)ev)->status);
}

bool ue_revent_enabled(const struct ue_revent *ev)
{
	return atomic_load_explicit(&((struct ue_revent *)ev)->status, memory_order_relaxed) != 0;
}

const char *ue_revent_system(const struct ue_revent *ev)
{
	return ev->multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM;
}

void ue_revent_set_filter(struct ue_revent *ev, struct ue_filter *filter, char *shown)
{
	struct ue_filter *old;
	char *old_shown;

	ue_rwlock_wrlock(&ev->filter_lock);
	old = ev->filter;
	old_shown = ev->filter_shown;
	ev->filter = filter;
	ev->filter_shown = shown;
	atomic_store_explicit(&ev->filtered, filter != NULL, memory_order_release);
	ue_rwlock_unlock(&ev->filter_lock);
	ue_filter_free(old);
	free(old_shown);
}

char *ue_revent_filter_text(struct ue_revent *ev)
{
	char *t;

	ue_rwlock_rdlock(&ev->filter_lock);
	t = ev->filter_shown ? strdup(ev->filter_shown) : strdup("none");
	ue_rwlock_unlock(&ev->filter_lock);
	return t;
}

const char *ue_revent_enable_text(struct ue_revent *ev)
{
	static const char *const texts[] = { "0\n", "1\n", "0*\n", "1*\n" };
	unsigned int tf = atomic_load(&ev->tflags);
	bool soft_mode, on;

	ue_mutex_lock(&ev->reg->state_lock);
	soft_mode = ev->soft_mode;
	on = ev->enabled && !(tf & UE_TF_SOFT_DISABLED);
	ue_mutex_unlock(&ev->reg->state_lock);
	return texts[(on ? 1 : 0) + ((soft_mode || (tf & UE_TF_SOFT_DISABLED)) ? 2 : 0)];
}
