/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * registry: the user events of usereventsd and their lifetimes, as the
 * kernel's user_event_group: lookup by name (single and multi-format), type
 * ids, the references that keep an event alive (open files, enablers, an
 * enabled tracer, PERSIST), deletion, the event limit and the enable state;
 * the filter and trigger files of an event (registry.c, triggers.c).  A
 * record's way into the buffer is commit.h's.
 */
#ifndef UE_DAEMON_REGISTRY_H
#define UE_DAEMON_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core.h"

/* Default of kernel.user_events_max. */
#define UE_REGISTRY_DEFAULT_MAX_EVENTS 32768

/*
 * First type id handed out.  The kernel allocates the lowest free id above
 * its built-in event types (an IDA); the reference kernel's first user event
 * gets 397, so ours does too, and freed ids are reused lowest first.
 */
#define UE_REGISTRY_FIRST_ID 397

/* Largest type id (common_type is 16 bits); beyond it registration fails ENODEV. */
#define UE_REGISTRY_MAX_ID 65535

/*
 * Triggers an event may have (events/<system>/<event>/trigger); one more
 * fails with ENOSPC.  The kernel has no bound but allows one trigger of a
 * kind (and target) per event; this bounds the memory and the work one
 * record can cause.
 */
#define UE_REGISTRY_MAX_TRIGGERS 64

struct ue_registry;
struct ue_enablers;
struct ue_buffer;
struct ue_counts;

/*
 * One registered event.  Two counts: refs are the kernel's references
 * (files, enablers, an enabled tracer, PERSIST's own); when they reach the
 * last one the event is destroyed at once.  Memory references (see
 * ue_revent_hold()) only keep the structure readable for a file that still
 * has it open after the event was destroyed (it is then "dead").
 */
struct ue_revent;

struct ue_registry_opts {
	unsigned int max_events;	/* 0: UE_REGISTRY_DEFAULT_MAX_EVENTS */
	unsigned int first_id;		/* 0: UE_REGISTRY_FIRST_ID */
	bool owner_only;		/* -o owner_only: see struct ue_who */
};

/*
 * Who asks: perfmon_capable() (CAP_PERFMON or CAP_SYS_ADMIN), and the fsuid
 * FUSE gives for the request.  With owner_only, an event belongs to the uid
 * that created it: only that uid or a capable caller may register it again
 * (take a reference, get a write index for it) or delete it; others get
 * -EPERM.  Without it the uid is recorded and never checked, as the kernel.
 */
struct ue_who {
	bool capable;
	uid_t uid;
};

/**
 * ue_registry_new - create an empty registry
 * @opts: limits, or NULL for the defaults
 * @ret: the registry
 *
 * Return: 0 or -ENOMEM / -EINVAL.
 */
int ue_registry_new(const struct ue_registry_opts *opts, struct ue_registry **ret);

/**
 * ue_registry_set_enablers - connect the enablers that mirror event states
 * @reg: the registry
 * @set: the enablers; their ops must be ue_registry_enabler_ops()
 */
void ue_registry_set_enablers(struct ue_registry *reg, struct ue_enablers *set);

/**
 * ue_registry_set_busy_hook - what to try before answering EBUSY
 * @reg: the registry
 * @hook: called without any registry lock when a deletion finds an event
 *        busy; it may release references that are stale (dead processes,
 *        files whose release is in flight); the deletion then checks again
 * @arg: passed to @hook
 */
void ue_registry_set_busy_hook(struct ue_registry *reg, void (*hook)(void *arg), void *arg);

/**
 * ue_registry_set_counts - the counts whose rows of a destroyed event go
 * with it (its id may be given again); set before any event is made
 */
void ue_registry_set_counts(struct ue_registry *reg, struct ue_counts *counts);

/**
 * ue_registry_set_register_hook - what every registration consults before it returns
 * @reg: the registry
 * @hook: called, without any registry lock, with the event of each successful
 *        registration (DIAG_IOCSREG, a "u:" line of dynamic_events), new or
 *        found, while the caller holds its reference; it may enable the
 *        event (ue_revent_set_enabled()): usereventsd's armed patterns
 * @arg: passed to @hook
 */
void ue_registry_set_register_hook(struct ue_registry *reg,
				   void (*hook)(void *arg, struct ue_revent *ev), void *arg);

/**
 * ue_registry_free - destroy every event and the registry (NULL is ignored)
 * @reg: nothing else may use it any more
 */
void ue_registry_free(struct ue_registry *reg);

/* The ops to give ue_enablers_new(): get/put/is_enabled on a struct ue_revent. */
struct ue_enabler_ops;
const struct ue_enabler_ops *ue_registry_enabler_ops(void);

/**
 * ue_registry_register - find or create the event of a DIAG_IOCSREG
 * @reg: the registry
 * @name_args: the caller's name_args (NUL-terminated, shorter than UE_MAX_EVENT_DESC)
 * @flags: user_reg.flags (already checked against USER_EVENT_REG_MAX)
 * @who: the caller
 * @ret: the event, with one reference for the caller (ue_revent_put())
 *
 * The kernel's order: text flags after the name (EINVAL), PERSIST without
 * the capability (EPERM), a same-named event of the same kind with other
 * fields (EADDRINUSE), another owner's event under owner_only (EPERM), the parse errors, the event limit (EMFILE), no free
 * id (ENODEV).
 *
 * Return: 0 or -errno.
 */
int ue_registry_register(struct ue_registry *reg, const char *name_args, unsigned int flags,
			 const struct ue_who *who, struct ue_revent **ret);

/**
 * ue_registry_dyn_create - a "u:" line written to dynamic_events
 * @reg: the registry
 * @name_args: the text after "u:" (ue_dynevent_cmd.name_args)
 * @who: the writer
 *
 * Creates a persistent event (or finds the same one).
 *
 * Return: 0 or -errno as ue_registry_register().
 */
int ue_registry_dyn_create(struct ue_registry *reg, const char *name_args,
			   const struct ue_who *who);

/**
 * ue_registry_delete - DIAG_IOCSDEL: delete every event registered as @name
 * @reg: the registry
 * @name: the name (single-format events and multi-format ones alike)
 * @who: the caller
 *
 * Return: 0; -ENOENT when no event has that name; -EBUSY when one is
 * referenced; -EPERM for a persistent one without the capability, or
 * another owner's under owner_only.
 */
int ue_registry_delete(struct ue_registry *reg, const char *name, const struct ue_who *who);

/**
 * ue_registry_dyn_delete - a "-:" or "!" line written to dynamic_events
 * @reg: the registry
 * @cmd: the parsed line (UE_DYNEVENT_DELETE)
 * @who: as ue_registry_delete()
 *
 * Deletes every event the line matches (ue_dynevent_match()).
 *
 * Return: 0, -ENOENT, -EBUSY or -EPERM.
 */
int ue_registry_dyn_delete(struct ue_registry *reg, const struct ue_dynevent_cmd *cmd,
			   const struct ue_who *who);

/**
 * ue_registry_delete_all - open(dynamic_events, O_TRUNC): delete every event
 * @reg: the registry
 * @who: as ue_registry_delete()
 *
 * As the kernel: -EBUSY, deleting nothing, when any event is referenced.
 *
 * Return: 0, -EBUSY or -EPERM.
 */
int ue_registry_delete_all(struct ue_registry *reg, const struct ue_who *who);

/**
 * ue_registry_take_clear_trace - whether the trace buffer must be cleared
 * @reg: the registry
 *
 * The kernel clears the trace buffer after a dynamic_events deletion when
 * an event that was ever enabled has gone since the last clear (its type id
 * may be reused).  Returns that flag and resets it.
 *
 * Return: true when the caller must reset the trace buffer.
 */
bool ue_registry_take_clear_trace(struct ue_registry *reg);

/** ue_revent_get - take a reference on a live event (the caller holds one already) */
void ue_revent_get(struct ue_revent *ev);

/**
 * ue_revent_put - drop a reference; the last one destroys the event
 * @ev: the event (NULL is ignored)
 */
void ue_revent_put(struct ue_revent *ev);

/**
 * ue_revent_set_enabled - write "0" or "1" to the event's enable file
 * @reg: the registry
 * @ev: the event
 * @on: the new state
 *
 * Enabling takes the tracer's reference and sets the bit in every process
 * that registered the event before returning (within the enablers' bound);
 * disabling clears them and drops that reference, which may destroy the
 * event.
 *
 * Return: 0; -ENODEV when the event was deleted meanwhile.
 */
int ue_revent_set_enabled(struct ue_registry *reg, struct ue_revent *ev, bool on);

/**
 * ue_registry_set_enabled_match - enable or disable every event a pattern names
 * @reg: the registry
 * @match: an event name or a system name (set_event's "NAME"), or NULL
 * @sub: a system, or NULL for any
 * @event: an event name shown, or NULL for any
 * @on: the new state
 *
 * The kernel's __ftrace_set_clr_event(): set_event, events/enable and
 * events/<system>/enable.
 *
 * Return: 0; -EINVAL when no event matched; the first error otherwise.
 */
int ue_registry_set_enabled_match(struct ue_registry *reg, const char *match, const char *sub,
				  const char *event, bool on);

/** ue_revent_hold - take a memory reference (keeps @ev readable, not alive) */
void ue_revent_hold(struct ue_revent *ev);

/** ue_revent_release - drop a memory reference (NULL is ignored) */
void ue_revent_release(struct ue_revent *ev);

/**
 * ue_registry_find_seq - the event whose creation number is @seq
 * @reg: the registry
 * @seq: ue_revent_seq() of a live event
 *
 * Return: the event with a memory reference, or NULL when there is none.
 */
struct ue_revent *ue_registry_find_seq(struct ue_registry *reg, uint64_t seq);

/**
 * ue_registry_find_tp - the live event shown as @tp_name in @multi's system
 * Return: the event with a memory reference, or NULL.
 */
struct ue_revent *ue_registry_find_tp(struct ue_registry *reg, bool multi, const char *tp_name);

/**
 * ue_registry_find_id - the live event with type id @id (rendering records)
 * Return: the event with a memory reference, or NULL.
 */
struct ue_revent *ue_registry_find_id(struct ue_registry *reg, unsigned int id);

/* Orders of ue_registry_foreach(). */
enum ue_registry_order {
	UE_ORDER_CREATED,	/* oldest first: dynamic_events */
	UE_ORDER_NEWEST,	/* newest first: available_events, set_event, events/ */
	UE_ORDER_STATUS,	/* the kernel's hash table order: user_events_status */
};

/**
 * ue_registry_foreach - call @fn for every live event, under the registry lock
 * @reg: the registry
 * @order: the order of the kernel's file that lists them
 * @fn: must not call into the registry; a non-zero return stops the walk
 * @arg: passed to @fn
 *
 * Return: what the last @fn returned, or 0.
 */
int ue_registry_foreach(struct ue_registry *reg, enum ue_registry_order order,
			int (*fn)(struct ue_revent *ev, void *arg), void *arg);

/** ue_registry_count - live events of one system (multi) or the other */
unsigned int ue_registry_count(struct ue_registry *reg, bool multi);

/* Read-only accessors; valid while a reference of either kind is held. */
const struct ue_event *ue_revent_desc(const struct ue_revent *ev);
/** ue_revent_check - the event's payload validator (ue_check_record()), prepared once */
const struct ue_check *ue_revent_check(const struct ue_revent *ev);
const char *ue_revent_tp_name(const struct ue_revent *ev);
unsigned int ue_revent_id(const struct ue_revent *ev);
uint64_t ue_revent_seq(const struct ue_revent *ev);
bool ue_revent_multi(const struct ue_revent *ev);
bool ue_revent_persist(const struct ue_revent *ev);
bool ue_revent_dead(const struct ue_revent *ev);
/** ue_revent_status - UE_STATUS_* bits: UE_STATUS_FTRACE while enabled */
unsigned int ue_revent_status(const struct ue_revent *ev);
/** ue_revent_enabled - whether the event is enabled (a lock-free load, for writes) */
bool ue_revent_enabled(const struct ue_revent *ev);
/** ue_revent_system - "user_events" or "user_events_multi" */
const char *ue_revent_system(const struct ue_revent *ev);

/**
 * ue_revent_set_filter - replace what the event's filter file holds
 * @ev: the event
 * @filter: the compiled filter (ue_filter_parse()), or NULL: records all pass
 * @shown: what the file shows (a filter's text or a parse error), or NULL
 *         for "none"; both are the event's afterwards
 *
 * A record being matched meanwhile finishes with the old filter.
 */
void ue_revent_set_filter(struct ue_revent *ev, struct ue_filter *filter, char *shown);

/** ue_revent_filter_text - a copy of what the filter file shows, without its newline (NULL: no memory) */
char *ue_revent_filter_text(struct ue_revent *ev);

/**
 * ue_revent_trigger_write - a write to the event's trigger file
 * @reg: the registry
 * @ev: the event
 * @text: the bytes written
 * @len: their number
 *
 * Adds or ("!") removes a trigger (ue_trigger_parse()).  A trigger keeps
 * its event registered in soft mode, as does enable_event/disable_event
 * its target: enabled in every process but, unless enabled for tracing,
 * with its records discarded (soft-disabled).  Removing a trigger that is
 * not there succeeds, as in the kernel.
 *
 * Return: 0; -EINVAL (syntax, unknown command or target, bad filter),
 * -ERANGE, -EEXIST (one of that kind is there), -ENOSPC
 * (UE_REGISTRY_MAX_TRIGGERS), -ENODEV (deleted), -ENOMEM.
 */
int ue_revent_trigger_write(struct ue_registry *reg, struct ue_revent *ev, const char *text,
			    size_t len);

/** ue_revent_triggers_text - what the trigger file lists (malloc'ed; NULL: no memory) */
char *ue_revent_triggers_text(struct ue_revent *ev);

/** ue_revent_enable_text - what the enable file shows: "0\n", "1\n", "0*\n" or "1*\n" (soft mode) */
const char *ue_revent_enable_text(struct ue_revent *ev);

/*
 * registry-snap.c: the registry in a state snapshot, for the daemon that
 * takes the mount over (daemon/upgrade.c).  ue_registry_save() writes every
 * event (id, inode sequence, name_args, enable state, soft mode, filter,
 * triggers); ue_registry_restore() makes them again in an empty registry,
 * each with one reference of the restore's, which ue_registry_restore_done()
 * puts once every holder took its own.  Return: 0 or -errno (-EINVAL: a
 * snapshot this daemon cannot take).
 */
struct ue_snap_w;
struct ue_snap_r;
int ue_registry_save(struct ue_registry *reg, struct ue_snap_w *w);
int ue_registry_restore(struct ue_registry *reg, struct ue_snap_r *r);
void ue_registry_restore_done(struct ue_registry *reg);

#endif /* UE_DAEMON_REGISTRY_H */
