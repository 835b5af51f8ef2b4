/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EventHeader events (the self-describing format of microsoft/LinuxTracepoints'
 * eventheader.h): recognising one, its header and extensions, and its fields
 * as JSON in the conventions of that project's perf-decode.  Pure: no I/O, no
 * allocation; every read is checked against the record, struct nesting and
 * the work per event are bounded.
 */
#ifndef UE_CORE_EVENTHEADER_H
#define UE_CORE_EVENTHEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

#define UEH_FLAG_POINTER64	0x01
#define UEH_FLAG_LITTLE_ENDIAN	0x02
#define UEH_FLAG_EXTENSION	0x04

#define UEH_EXT_METADATA	1
#define UEH_EXT_ACTIVITY_ID	2

#define UEH_NEST_MAX		8	/* struct nesting decoded (deeper: an error) */
#define UEH_ITEMS_MAX		65536	/* values formatted per event (more: an error) */

/* What the tracepoint name PROVIDER_L<level>K<keyword>[options] says. */
struct ueh_name {
	size_t provider_len;	/* PROVIDER is name[0..provider_len) */
	uint8_t level;
	uint64_t keyword;
	size_t options_off;	/* options start (== the name's length: none) */
};

/* One event, as ueh_start() found it; pointers into the caller's buffers. */
struct ueh_event {
	const char *tp_name;		/* the tracepoint name */
	size_t tp_len;
	struct ueh_name n;
	uint8_t flags, version, opcode, level;
	uint16_t id, tag;
	const uint8_t *activity;	/* 16 bytes, or NULL */
	const uint8_t *related;		/* 16 bytes, or NULL */
	const char *name;		/* the event's own name (no attributes) */
	size_t name_len;
	const uint8_t *meta;		/* the field definitions after the name */
	size_t meta_len;
	const uint8_t *data;		/* the field values */
	size_t data_len;
};

/** ueh_lower_hex - a lowercase hex digit's value, or -1: names spell numbers so */
int ueh_lower_hex(char c);

/**
 * ueh_parse_name - split an EventHeader tracepoint name
 * Return: true if @name (@len bytes) is PROVIDER_L<hex>K<hex>[options] with
 * options of lowercase letters and digits, each led by an uppercase letter.
 */
bool ueh_parse_name(const char *name, size_t len, struct ueh_name *n);

/** ueh_is_format - whether @ev is declared as EventHeader's six header fields */
bool ueh_is_format(const struct ue_event *ev);

/**
 * ueh_start - parse an EventHeader event
 * @data, @len: the event from its eventheader struct on (the payload after
 *              the common trace_entry header)
 *
 * Return: 0, -ENOTSUP (not an EventHeader name, unknown header flags, no
 * metadata extension), -EINVAL (shorter than the header), -EBADMSG (an
 * extension past the end, an activity ID of another size, a metadata
 * extension without the event name's NUL).  As LinuxTracepoints' decoder.
 */
int ueh_start(struct ueh_event *e, const char *tp_name, size_t tp_len, const void *data,
	      size_t len);

#define UEH_J_TAGS	1	/* field names with their ";tag=0xN" */
#define UEH_J_TEXT	2	/* top-level fields as a trace line's " name=value" */
#define UEH_J_BYTES	4	/* binary content as { "\\u0000": "hex bytes" } (put_binary()) */

/*
 * ueh_json_fields - the event's fields as JSON members, perf-decode's way:
 * ', "name;tag=0x1": value' each (a leading ", " before each), in @buf
 * (snprintf's contract).  @flags: UEH_J_*.
 * Return: the length the full text needs, or -EBADMSG if the metadata or
 * the data is malformed (what was formatted before the fault is in @buf),
 * -E2BIG for too deep a nesting or too many values.
 */
int ueh_json_fields(const struct ueh_event *e, unsigned flags, char *buf, size_t len);

/*
 * ueh_json_meta - the EventHeader members of perf-decode's "meta" object
 * (', "id": 1, "level": 5, "keyword": "0x1", ...': only those that are set).
 */
int ueh_json_meta(const struct ueh_event *e, char *buf, size_t len);

/* ueh_json_string - @s (@n bytes of UTF-8, or Latin-1 where not) as a JSON string */
int ueh_json_string(const char *s, size_t n, char *buf, size_t len);

#endif /* UE_CORE_EVENTHEADER_H */
