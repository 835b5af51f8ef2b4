/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * counts: how many records each process wrote of each event, their bytes,
 * and how many were lost before the buffer had them, counted as the
 * writers hand records over (the FUSE write path a record, the native
 * drain a run of records).  What usereventsd_counts shows and `userevents
 * top` reads: rates of every writer without a reader of the records.
 */
#ifndef UE_DAEMON_COUNTS_H
#define UE_DAEMON_COUNTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ue_counts;

/* Most (process, event) rows kept; beyond, new ones count in their event's tgid-0 row. */
#define UE_COUNTS_MAX_ROWS 4096
/* A row not counted in for this long may make room for a new one when the table is full. */
#define UE_COUNTS_IDLE_NS (60 * 1000000000ull)

/** ue_counts_new - an empty table */
int ue_counts_new(struct ue_counts **ret);
/** ue_counts_free - free it (NULL is ignored) */
void ue_counts_free(struct ue_counts *c);

/**
 * ue_counts_add - count records of one process and event
 * @c: the table (NULL: nothing counted)
 * @tgid: the writing process
 * @id: the event's type id; 0 for records lost whose event is not known
 *	(refused by a producer's full ring)
 * @comm: the writing thread's name (kept for the row; NULL: none)
 * @main: whether that thread is the process's main one (its name wins)
 * @records: records stored or handed to the buffer
 * @bytes: their bytes (struct trace_entry and payload)
 * @lost: records that did not reach the buffer
 *
 * Safe from any thread; takes the table's lock (a leaf) once.
 */
void ue_counts_add(struct ue_counts *c, pid_t tgid, unsigned int id, const char *comm, int main,
		   uint64_t records, uint64_t bytes, uint64_t lost);

/**
 * ue_counts_forget_event - drop the rows of event @id (deleted: its id may
 * be given to another event)
 */
void ue_counts_forget_event(struct ue_counts *c, unsigned int id);

/* One row, as ue_counts_foreach() hands it. */
struct ue_counts_row {
	pid_t tgid;
	unsigned int id;
	char comm[16];
	uint64_t records, bytes, lost;
};

/**
 * ue_counts_foreach - call @fn for a copy of each row, in no order
 * @c: the table; its lock is not held while @fn runs
 * @fn: the callback
 * @arg: passed to @fn
 *
 * Return: the number of rows, or -ENOMEM.
 */
int ue_counts_foreach(struct ue_counts *c, void (*fn)(void *arg, const struct ue_counts_row *row),
		      void *arg);

#endif /* UE_DAEMON_COUNTS_H */
