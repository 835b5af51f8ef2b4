// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The payload validator: what a write to user_events_data must satisfy
 * before it becomes a record (minimum size, dynamic locations inside the
 * record, strings ending in NUL), with Linux 6.12's rules and errno.  The
 * event's location fields are found once (ue_check_new()); every writer
 * (the daemon's two write paths, the library's native producer) checks
 * records with that prepared check.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/*
 * Only fields whose type starts with one of these prefixes carry a location
 * the kernel checks; a "char" anywhere in the type also asks for a final NUL.
 * This is the validator's rule, not the field's print kind (see enum
 * ue_field_kind).
 */
static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/**
 * ue_check_new - prepare the payload check of one event
 * @event: a parsed event description
 * @ret: the check, to free with ue_check_free()
 *
 * Finds the event's __data_loc/__rel_loc fields, in declaration order, so
 * that checking a record is no string compare.
 *
 * Return: 0; -EINVAL when @event is not one the parser builds (a field
 * without a type, fields missing); -ENOMEM.
 */
int ue_check_new(const struct ue_event *event, struct ue_check **ret)
{
	struct ue_check *c;
	uint32_t k = 0;

	if (!event || !ret || (event->nfields && !event->fields))
		return -EINVAL;
	for (uint32_t i = 0; i < event->nfields; i++)
		if (!event->fields[i].type)
			return -EINVAL;
	c = calloc(1, sizeof(*c) + (size_t)event->nfields * sizeof(c->locs[0]));
	if (!c)
		return -ENOMEM;
	c->min_size = event->min_size;
	for (uint32_t i = 0; i < event->nfields; i++) {
		const struct ue_field *f = &event->fields[i];
		bool rel;

		if (has_prefix(f->type, "__rel_loc "))
			rel = true;
		else if (has_prefix(f->type, "__data_loc "))
			rel = false;
		else
			continue;
		c->locs[k].offset = f->offset;
		c->locs[k].rel = rel;
		c->locs[k].is_char = strstr(f->type, "char") != NULL;
		k++;
	}
	c->nlocs = k;
	*ret = c;
	return 0;
}

/** ue_check_free - free a check of ue_check_new() (NULL is ignored) */
void ue_check_free(struct ue_check *check)
{
	free(check);
}
