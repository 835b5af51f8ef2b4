/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rowix: rows kept in an array of the caller's, found by a key through an
 * open-addressing index beside it (linear probing, kept at most half full).
 * The caller hashes its keys and says which row is a key's; inline, so the
 * callbacks a caller passes as constants cost no call.  Used for the
 * daemon's usereventsd_counts (events/counts.c); userevents top keeps the
 * same shape.
 */
#ifndef UE_CORE_ROWIX_H
#define UE_CORE_ROWIX_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct ue_rowix {
	uint32_t *slot;		/* a row's index + 1; 0: empty */
	size_t cap;		/* 0, or a power of two */
};

/**
 * ue_rowix_find - the row of a key
 * @x: the index
 * @hash: the key's hash
 * @is: whether row @row is the key's (@ctx: the caller's)
 * @ret_slot: where the key would be indexed (with an index that has room,
 *            ue_rowix_room())
 *
 * Return: the row's index, or -1 when no row is the key's.
 */
static inline long ue_rowix_find(const struct ue_rowix *x, uint64_t hash,
				 bool (*is)(const void *ctx, size_t row), const void *ctx,
				 size_t *ret_slot)
{
	size_t k = 0;

	if (x->cap) {
		for (k = hash & (x->cap - 1); x->slot[k]; k = (k + 1) & (x->cap - 1))
			if (is(ctx, x->slot[k] - 1))
				return (long)x->slot[k] - 1;
	}
	*ret_slot = k;
	return -1;
}

/**
 * ue_rowix_rebuild - index rows 0 to @nrows - 1 again in @cap slots
 * @cap: a power of two above @nrows
 * @hash: the hash of row @row's key
 *
 * Return: 0; -ENOMEM, the index as it was.
 */
static inline int ue_rowix_rebuild(struct ue_rowix *x, size_t cap, size_t nrows,
				   uint64_t (*hash)(const void *ctx, size_t row), const void *ctx)
{
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < nrows; i++) {
		size_t k = hash(ctx, i) & (cap - 1);

		while (slot[k])
			k = (k + 1) & (cap - 1);
		slot[k] = (uint32_t)i + 1;
	}
	free(x->slot);
	x->slot = slot;
	x->cap = cap;
	return 0;
}

/**
 * ue_rowix_room - room in the index for one row more than @nrows: twice the
 * slots (at first @first, a power of two) when it would be over half full
 *
 * Return: 0; -ENOMEM, the index as it was.  Slots found before are stale.
 */
static inline int ue_rowix_room(struct ue_rowix *x, size_t nrows, size_t first,
				uint64_t (*hash)(const void *ctx, size_t row), const void *ctx)
{
	if (2 * (nrows + 1) <= x->cap)
		return 0;
	return ue_rowix_rebuild(x, x->cap ? 2 * x->cap : first, nrows, hash, ctx);
}

/** ue_rowix_set - index row @row at @slot, which ue_rowix_find() gave */
static inline void ue_rowix_set(struct ue_rowix *x, size_t slot, size_t row)
{
	x->slot[slot] = (uint32_t)row + 1;
}

/** ue_rowix_free - free the index (a zeroed one is empty) */
static inline void ue_rowix_free(struct ue_rowix *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
}

#endif /* UE_CORE_ROWIX_H */
