/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * registry-int: what the three files of the event registry share and nothing
 * else includes: the event and registry structures, the trigger flags and
 * the calls between registry.c (the event table, references, enable state),
 * triggers.c (the trigger file and its actions) and commit.c (a record's
 * fate on the write path).
 */
#ifndef UE_DAEMON_REGISTRY_INT_H
#define UE_DAEMON_REGISTRY_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "lock.h"
#include "registry.h"

#define NAME_BUCKETS 4096
#define SEQ_BUCKETS 4096

/* ue_revent.tflags: what a write must do besides storing the record. */
#define UE_TF_MODE		1u	/* the event has triggers */
#define UE_TF_COND		2u	/* one of them needs the record (a filter, traceoff) */
#define UE_TF_SOFT_DISABLED	4u	/* live for triggers only: records are discarded */

struct rtrigger;

struct ue_revent {
	struct ue_registry *reg;
	struct ue_event *desc;
	char *name_args;		/* as registered: what a successor parses again (upgrade.c) */
	bool dyn;			/* made by a "u:" line of dynamic_events */
	struct ue_check *check;		/* the payload validator, prepared for desc */
	char *tp_name;
	unsigned int id;
	uint64_t seq;
	unsigned int status_bucket;
	bool multi;
	bool persist;
	uid_t owner;		/* who created it (struct ue_who) */
	bool enabled;		/* under state_lock */
	bool was_enabled;	/* under lock */
	atomic_bool dead;
	/* Changed under lock, except the enablers' dup (an increment of a held count). */
	_Atomic unsigned int refs;
	atomic_uint mem;
	atomic_uint status;
	struct ue_revent *prev, *next;	/* creation order */
	struct ue_revent *name_next;	/* same name hash; newest first */
	struct ue_revent *seq_next;
	/*
	 * The filter file: the compiled filter (NULL: every record passes)
	 * and the text the file shows (NULL: "none").  Matching takes the
	 * read lock only when filtered is set, so unfiltered events pay one
	 * load per record.
	 */
	struct ue_rwlock filter_lock;
	struct ue_filter *filter;
	char *filter_shown;
	atomic_bool filtered;
	/*
	 * The trigger file and soft mode (the kernel's sm_ref and
	 * SOFT_MODE).  The list changes under the registry's state_lock
	 * and trig_lock; writers run it under trig_lock only.  tflags
	 * (UE_TF_*) is all an untriggered write loads.
	 */
	struct ue_mutex trig_lock;
	struct rtrigger *triggers;	/* newest first, as the kernel lists them */
	unsigned int ntriggers;
	unsigned int sm_ref;		/* under state_lock */
	bool soft_mode;			/* under state_lock */
	atomic_uint tflags;
};

struct ue_registry {
	struct ue_mutex lock;		/* the tables, refs, counts */
	struct ue_mutex state_lock;	/* enable changes, held across enabler updates */
	unsigned int max_events;
	unsigned int first_id;
	unsigned int nevents;
	unsigned int nmulti;
	uint64_t next_seq;
	uint64_t multi_id;
	bool clear_trace;
	bool owner_only;
	struct ue_revent *head, *tail;
	struct ue_revent *names[NAME_BUCKETS];
	struct ue_revent *seqs[SEQ_BUCKETS];
	struct ue_revent **by_id;	/* UE_REGISTRY_MAX_ID + 1 slots */
	struct ue_enablers *enablers;
	void (*busy_hook)(void *arg);
	void *busy_arg;
	struct ue_counts *counts;	/* rows of a destroyed event go with it */
	void (*reg_hook)(void *arg, struct ue_revent *ev);	/* armed patterns */
	void *reg_arg;
};


/*
 * registry.c: enable or disable @ev for tracing (@soft: for a trigger's
 * soft mode).  state_lock held; see its definition.
 */
int ue_registry_enable_locked(struct ue_registry *reg, struct ue_revent *ev, bool enable,
			      bool soft);

/*
 * triggers.c: a trigger line as ue_revent_triggers_text() listed it, added
 * without the soft enables a new one makes (they came with the events).
 */
int ue_revent_trigger_restore(struct ue_registry *reg, struct ue_revent *ev, const char *text,
			      size_t len);

/* registry.c: link a restored event into the tables (registry-snap.c). */
void ue_registry_link_restored(struct ue_registry *reg, struct ue_revent *ev);

/* triggers.c: free @ev's triggers when it is destroyed.  reg->lock held. */
void ue_revent_triggers_free(struct ue_revent *ev);

/*
 * triggers.c: the trigger steps of the write path, called by commit.c
 * only, in the kernel's order (see ue_commit_begin()).  @tf is the event's
 * tflags loaded once for the record, @buf the trace buffer that traceon and
 * traceoff switch.
 *
 * ue_revent_triggers_pre(): without UE_TF_COND, runs every trigger without
 * the record; true when the record is to be discarded (soft-disabled).
 */
bool ue_revent_triggers_pre(struct ue_revent *ev, unsigned int tf, struct ue_buffer *buf);

/*
 * ue_revent_triggers_rec(): with UE_TF_COND, runs the triggers whose filter
 * passes @record, keeping traceoff for later; true when
 * ue_revent_triggers_post() (traceoff) must follow the store.
 */
bool ue_revent_triggers_rec(struct ue_revent *ev, const void *record, size_t len,
			    const struct ue_filter_ctx *ctx, struct ue_buffer *buf);

/* ue_revent_triggers_post(): traceoff, once its record is stored. */
void ue_revent_triggers_post(struct ue_revent *ev, struct ue_buffer *buf);

#endif /* UE_DAEMON_REGISTRY_INT_H */
