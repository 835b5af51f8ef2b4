/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The payload validator: what a write to user_events_data must satisfy
 * before it becomes a record (minimum size, dynamic locations inside the
 * record, strings ending in NUL), with Linux 6.12's rules and errno.
 */
#include <errno.h>
#include <string.h>

#include "core.h"

/*
 * Only fields whose type starts with one of these prefixes carry a location
 * the kernel checks; a "char" anywhere in the type also asks for a final NUL.
 */
static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static uint32_t load_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * ue_payload_validate - check a write's payload as the kernel does
 * @event: the event written
 * @record: common header followed by the payload
 * @record_len: UE_ENTRY_HDR_SIZE + payload length
 *
 * A location is a u32, offset in the low 16 bits and length in the high 16.
 * For __data_loc the offset counts from the start of the record (common
 * header included), for __rel_loc from the end of the location field
 * itself.  The located bytes must lie inside the record and, for char
 * arrays, their last byte must be NUL.  Bytes after the last field are
 * allowed.
 *
 * Two corner cases: a zero-length string checks the byte just before its
 * offset, as the kernel does (its "last byte" is offset + length - 1); and
 * when that byte would lie before the record (a __data_loc of offset 0,
 * length 0) it counts as NUL.  The kernel reads a byte of its ring buffer
 * there: the reference kernel accepted and refused the same write in turn.
 *
 * Return: 0; -EINVAL when the payload is shorter than event->min_size (or a
 * location field of an inconsistent @event lies outside the record);
 * -EFAULT when a location points outside the record or a char array it
 * points to does not end in NUL.
 */
int ue_payload_validate(const struct ue_event *event, const void *record, size_t record_len)
{
	const unsigned char *data = record;

	if (!event || (!record && record_len) || (event->nfields && !event->fields))
		return -EINVAL;
	if (record_len < UE_ENTRY_HDR_SIZE || record_len - UE_ENTRY_HDR_SIZE < event->min_size)
		return -EINVAL;

	for (uint32_t i = 0; i < event->nfields; i++) {
		const struct ue_field *f = &event->fields[i];
		uint64_t start, end;
		uint32_t loc;
		bool rel;

		if (!f->type)
			return -EINVAL;
		if (has_prefix(f->type, "__rel_loc "))
			rel = true;
		else if (has_prefix(f->type, "__data_loc "))
			rel = false;
		else
			continue;

		/* min_size covers it for any event the parser built. */
		if ((uint64_t)f->offset + sizeof(loc) > record_len)
			return -EINVAL;
		loc = load_u32(data + f->offset);

		start = loc & 0xffff;
		if (rel)
			start += (uint64_t)f->offset + sizeof(loc);
		end = start + (loc >> 16);
		if (end > record_len)
			return -EFAULT;
		if (strstr(f->type, "char") && end > 0 && data[end - 1] != '\0')
			return -EFAULT;
	}
	return 0;
}
