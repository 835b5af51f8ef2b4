// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * counts: records, bytes and losses per (process, event), for
 * usereventsd_counts.  An array of rows with an open-addressing index
 * (core/rowix.h), under one leaf lock.  Bounded: UE_COUNTS_MAX_ROWS rows; a full table
 * first lets rows idle for UE_COUNTS_IDLE_NS go (a reader sees them
 * vanish, as a process leaves top), then counts a new process in its
 * event's tgid-0 row ("other processes"), of which there are at most as
 * many again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "counts.h"
#include "lock.h"
#include "rowix.h"

struct row {
	struct ue_counts_row r;
	uint64_t last_ns; /* ue_buffer_clock_ns() of the last count */
};

struct ue_counts {
	struct ue_mutex lock;
	struct row *rows;
	size_t nrows, cap;
	struct ue_rowix ix;	/* (tgid, id) -> row */
};

/* What row_is() compares a row with. */
struct key {
	const struct ue_counts *c;
	pid_t tgid;
	unsigned int id;
};

static uint64_t key_hash(pid_t tgid, unsigned int id)
{
	return ((uint64_t)(uint32_t)tgid << 32 | id) * 0x9e3779b97f4a7c15ull >> 32;
}

static uint64_t row_hash(const void *ctx, size_t i)
{
	const struct ue_counts *c = ctx;

	return key_hash(c->rows[i].r.tgid, c->rows[i].r.id);
}

static bool row_is(const void *ctx, size_t i)
{
	const struct key *k = ctx;
	const struct ue_counts_row *r = &k->c->rows[i].r;

	return r->tgid == k->tgid && r->id == k->id;
}

int ue_counts_new(struct ue_counts **ret)
{
	struct ue_counts *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	ue_mutex_init(&c->lock, UE_LOCK_COUNTS);
	*ret = c;
	return 0;
}

void ue_counts_free(struct ue_counts *c)
{
	if (!c)
		return;
	ue_mutex_destroy(&c->lock);
	free(c->rows);
	ue_rowix_free(&c->ix);
	free(c);
}

/* Remove the rows @keep says no to, then index again. */
static void sweep_locked(struct ue_counts *c, int (*keep)(const struct row *r, void *arg),
			 void *arg)
{
	size_t j = 0;

	ue_mutex_assert_held(&c->lock);
	for (size_t i = 0; i < c->nrows; i++)
		if (keep(&c->rows[i], arg))
			c->rows[j++] = c->rows[i];
	if (j == c->nrows)
		return;
	c->nrows = j;
	/* Same size: cannot fail for want of room, only of memory (then nothing is indexed). */
	if (ue_rowix_rebuild(&c->ix, c->ix.cap, c->nrows, row_hash, c) < 0)
		c->nrows = 0;
}

static int keep_busy(const struct row *r, void *arg)
{
	uint64_t now = *(const uint64_t *)arg;

	return r->r.tgid == 0 || now - r->last_ns < UE_COUNTS_IDLE_NS;
}

static int keep_other_events(const struct row *r, void *arg)
{
	return r->r.id != *(const unsigned int *)arg;
}

/* The row of (@tgid, @id), made when new; NULL when there is no room. */
static struct row *row_locked(struct ue_counts *c, pid_t tgid, unsigned int id, uint64_t now)
{
	struct key key = { c, tgid, id };
	bool swept = false;
	size_t k;
	long i;

	ue_mutex_assert_held(&c->lock);
	for (;;) {
		i = ue_rowix_find(&c->ix, key_hash(key.tgid, id), row_is, &key, &k);
		if (i >= 0)
			return &c->rows[i];
		if (key.tgid == 0 || c->nrows < UE_COUNTS_MAX_ROWS)
			break;
		if (!swept) {
			swept = true;
			sweep_locked(c, keep_busy, &now);
		} else {
			/* Full of busy rows: an other process of this event. */
			key.tgid = 0;
		}
	}
	if (c->nrows >= 2 * UE_COUNTS_MAX_ROWS)
		return NULL;
	if (ue_rowix_room(&c->ix, c->nrows, 64, row_hash, c) < 0)
		return NULL;
	/* Its slot again: the index may have been made again. */
	ue_rowix_find(&c->ix, key_hash(key.tgid, id), row_is, &key, &k);
	if (c->nrows == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct row *v = realloc(c->rows, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->rows = v;
		c->cap = cap;
	}
	ue_rowix_set(&c->ix, k, c->nrows);
	memset(&c->rows[c->nrows], 0, sizeof(c->rows[0]));
	c->rows[c->nrows].r.tgid = key.tgid;
	c->rows[c->nrows].r.id = id;
	return &c->rows[c->nrows++];
}

void ue_counts_add(struct ue_counts *c, pid_t tgid, unsigned int id, const char *comm, int main,
		   uint64_t records, uint64_t bytes, uint64_t lost)
{
	uint64_t now;
	struct row *r;

	if (!c || tgid <= 0)
		return;
	now = ue_buffer_clock_ns();
	ue_mutex_lock(&c->lock);
	r = row_locked(c, tgid, id, now);
	if (r) {
		r->r.records += records;
		r->r.bytes += bytes;
		r->r.lost += lost;
		r->last_ns = now;
		/* The process's name: its main thread's, else the first writer's. */
		if (comm && *comm && r->r.tgid == tgid && (main || !r->r.comm[0])) {
			strncpy(r->r.comm, comm, sizeof(r->r.comm) - 1);
			r->r.comm[sizeof(r->r.comm) - 1] = '\0';
		}
	}
	ue_mutex_unlock(&c->lock);
}

void ue_counts_forget_event(struct ue_counts *c, unsigned int id)
{
	if (!c)
		return;
	ue_mutex_lock(&c->lock);
	sweep_locked(c, keep_other_events, &id);
	ue_mutex_unlock(&c->lock);
}

int ue_counts_foreach(struct ue_counts *c, void (*fn)(void *arg, const struct ue_counts_row *row),
		      void *arg)
{
	struct ue_counts_row *copy;
	size_t n;

	ue_mutex_lock(&c->lock);
	n = c->nrows;
	copy = malloc((n ? n : 1) * sizeof(*copy));
	for (size_t i = 0; copy && i < n; i++)
		copy[i] = c->rows[i].r;
	ue_mutex_unlock(&c->lock);
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		fn(arg, &copy[i]);
	free(copy);
	return (int)n;
}
