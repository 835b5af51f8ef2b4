/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tasks: who wrote a record.  The tid -> comm/tgid cache a record is stored
 * with (read from /proc), and the table of tasks whose records were stored
 * or handed out, which saved_cmdlines and saved_tgids list (the kernel's
 * trace_save_cmdline()).
 */
#ifndef UE_DAEMON_TASKS_H
#define UE_DAEMON_TASKS_H

#include <stdint.h>
#include <sys/types.h>

#include "buffer.h"

struct ue_tasks;
struct ue_cmdlines;

/** ue_tasks_new - the tid -> comm/tgid cache written records carry */
int ue_tasks_new(struct ue_tasks **ret);
/** ue_tasks_free - free the cache (NULL is ignored) */
void ue_tasks_free(struct ue_tasks *tasks);
/**
 * ue_task_lookup - the comm and tgid a record of @tid carries, as the
 * kernel's saved_cmdlines/tgid maps would say (cached up to 1 s)
 * @tasks: the cache
 * @tid: the writing thread
 * @meta: its tid, tgid and comm are set ("" when unknown)
 */
void ue_task_lookup(struct ue_tasks *tasks, pid_t tid, struct ue_rec_meta *meta);

/* Slots of the saved_cmdlines table (a power of two above its 6552); a pid maps to one. */
#define UE_CMDLINES_SLOTS 8192

/** ue_cmdlines_new - the pid table behind saved_cmdlines and saved_tgids */
int ue_cmdlines_new(struct ue_cmdlines **ret);
/** ue_cmdlines_free - free it (NULL is ignored) */
void ue_cmdlines_free(struct ue_cmdlines *c);

/**
 * ue_cmdlines_remember - the task name and tgid of a thread whose records
 * were stored (saved_cmdlines, saved_tgids), as the kernel notes them when
 * it records: channel readers never pass through trace_pipe_raw
 * @c: the table
 * @m: the record's task; one without a tid or a comm is not noted
 */
void ue_cmdlines_remember(struct ue_cmdlines *c, const struct ue_rec_meta *m);

/**
 * ue_cmdlines_foreach - call @fn for each task noted, in slot order
 * @c: the table; its lock is held while @fn runs
 * @fn: called with the task's pid, tgid and comm
 * @arg: passed to @fn
 */
void ue_cmdlines_foreach(struct ue_cmdlines *c,
			 void (*fn)(void *arg, pid_t pid, pid_t tgid, const char *comm), void *arg);

#endif /* UE_DAEMON_TASKS_H */
