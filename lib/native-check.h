/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The payload check of both ends of the native path: ue_payload_validate()'s
 * rules with the event's location fields found once, when the event is added,
 * instead of by string compares on every record.  The library checks a write
 * before it commits it, usereventsd checks its private copy of every record
 * it drains; tests/daemon/test_native_check.c holds both to core's verdicts.
 */
#ifndef UE_NATIVE_CHECK_H
#define UE_NATIVE_CHECK_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* A __data_loc/__rel_loc field, as ue_payload_validate() checks it. */
struct ue_native_loc {
	uint32_t offset;	/* in the record, entry header included */
	bool rel;		/* __rel_loc: the offset counts from the field's end */
	bool is_char;		/* the located bytes must end in NUL */
};

struct ue_native_check {
	uint32_t min_size;	/* payload bytes, entry header excluded */
	uint32_t nlocs;
	struct ue_native_loc locs[];
};

static inline bool ue_native_check_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/**
 * ue_native_check_new - the location fields of @event, in declaration order
 * @event: a parsed event description
 *
 * Return: a check to free(), or NULL when out of memory or when @event is not
 * one the parser builds (a field without a type, fields missing).
 */
static inline struct ue_native_check *ue_native_check_new(const struct ue_event *event)
{
	struct ue_native_check *c;
	uint32_t k = 0;

	if (!event || (event->nfields && !event->fields))
		return NULL;
	c = calloc(1, sizeof(*c) + (size_t)event->nfields * sizeof(c->locs[0]));
	if (!c)
		return NULL;
	c->min_size = event->min_size;
	for (uint32_t i = 0; i < event->nfields; i++) {
		const struct ue_field *f = &event->fields[i];
		bool rel;

		if (!f->type) {
			free(c);
			return NULL;
		}
		/* The validator's rule, not the field's print kind (see enum ue_field_kind). */
		if (ue_native_check_prefix(f->type, "__rel_loc "))
			rel = true;
		else if (ue_native_check_prefix(f->type, "__data_loc "))
			rel = false;
		else
			continue;
		c->locs[k].offset = f->offset;
		c->locs[k].rel = rel;
		c->locs[k].is_char = strstr(f->type, "char") != NULL;
		k++;
	}
	c->nlocs = k;
	return c;
}

/**
 * ue_native_check_record - ue_payload_validate() with a prepared check
 * @c: from ue_native_check_new() of the event written
 * @record: entry header and payload, in memory no other process can change
 * @record_len: UE_ENTRY_HDR_SIZE + payload length
 *
 * Return: what ue_payload_validate() returns for the same event and record:
 * 0, -EINVAL (too short) or -EFAULT (a location outside the record, a string
 * without its NUL).
 */
static inline int ue_native_check_record(const struct ue_native_check *c, const void *record,
					 size_t record_len)
{
	const unsigned char *rec = record;

	if (record_len < UE_ENTRY_HDR_SIZE || record_len - UE_ENTRY_HDR_SIZE < c->min_size)
		return -EINVAL;
	for (uint32_t i = 0; i < c->nlocs; i++) {
		const struct ue_native_loc *l = &c->locs[i];
		uint64_t start, end;
		uint32_t loc;

		if ((uint64_t)l->offset + sizeof(loc) > record_len)
			return -EINVAL;
		memcpy(&loc, rec + l->offset, sizeof(loc));
		start = loc & 0xffff;
		if (l->rel)
			start += (uint64_t)l->offset + sizeof(loc);
		end = start + (loc >> 16);
		if (end > record_len)
			return -EFAULT;
		if (l->is_char && end > 0 && rec[end - 1] != '\0')
			return -EFAULT;
	}
	return 0;
}

#endif /* UE_NATIVE_CHECK_H */
