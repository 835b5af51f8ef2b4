/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core: the user_events event model, pure (libc only: no I/O, no globals,
 * no threads). Parses name_args and dynamic_events lines the way Linux 6.12
 * does, matches events, renders format/print fmt/status/dynamic_events text,
 * validates payloads and renders records as the kernel prints them.
 * Every function returns 0 (or a length) on success and -errno on failure,
 * with the errno the kernel gives for the same input.
 */
#ifndef UE_CORE_H
#define UE_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest name_args accepted, NUL included (kernel MAX_EVENT_DESC). */
#define UE_MAX_EVENT_DESC 512
/* Largest N in char[N] / unsigned char[N] (kernel MAX_FIELD_ARRAY_SIZE). */
#define UE_MAX_FIELD_ARRAY_SIZE 1024
/* Size of struct trace_entry: the common fields that precede every payload. */
#define UE_ENTRY_HDR_SIZE 8

/*
 * The common header of a record, as the kernel's struct trace_entry:
 * common_type, common_flags, common_preempt_count, common_pid.
 */
struct ue_entry_hdr {
	uint16_t type;
	uint8_t flags;
	uint8_t preempt_count;
	int32_t pid;
};

/* How a field is printed and validated (the kernel's filter_type). */
enum ue_field_kind {
	UE_FIELD_INT,		/* scalar or struct: printed by size */
	UE_FIELD_STATIC_STRING,	/* char[N] / unsigned char[N] */
	UE_FIELD_DYN_STRING,	/* __data_loc ... char ... [] */
	UE_FIELD_RDYN_STRING,	/* __rel_loc ... char ... [] */
	UE_FIELD_DATA_LOC,	/* __data_loc of a non-char array */
	UE_FIELD_REL_LOC,	/* __rel_loc of a non-char array */
};

struct ue_field {
	const char *type;	/* as written: "u32", "unsigned int", "char[0x14]", "__rel_loc char[]", "struct foo" */
	const char *name;
	uint32_t offset;	/* from the start of the record (common header included) */
	uint32_t size;		/* bytes in the fixed part of the record */
	bool is_signed;		/* the kernel's rule: type[0] != 'u' */
	bool is_struct;		/* "struct NAME field SIZE" */
	enum ue_field_kind kind;
};

/*
 * An event description: what DIAG_IOCSREG, a "u:" line of dynamic_events
 * or a record reader needs to know about one event.  Allocated as a whole
 * by ue_event_parse() and released with ue_event_free().
 */
struct ue_event {
	const char *name;	/* registered name, no system prefix */
	uint32_t nfields;
	struct ue_field *fields;	/* in declaration order */
	uint32_t min_size;	/* payload bytes a write must carry (header excluded) */
	uint32_t nvalidators;	/* number of __data_loc/__rel_loc fields */
};

/**
 * ue_event_parse - parse a name_args string ("name[:flags] [field[;field]...]")
 * @name_args: the NUL-terminated string the caller passed to DIAG_IOCSREG
 * @ret_event: on success, a new event description (free with ue_event_free())
 *
 * Applies the kernel's grammar and limits: a name_args of UE_MAX_EVENT_DESC
 * bytes or more, text flags after ':', an unknown type, a missing field name,
 * a size on a non-struct field, a zero size or char[N] with N above
 * UE_MAX_FIELD_ARRAY_SIZE are all rejected with the kernel's errno.
 *
 * Return: 0, or -EINVAL / -ENOMEM / -E2BIG as the kernel; *ret_event is
 * untouched on failure.
 */
int ue_event_parse(const char *name_args, struct ue_event **ret_event);

/** ue_event_free - release an event description (NULL is ignored) */
void ue_event_free(struct ue_event *event);

/**
 * ue_event_match_args - whether @args describes the same fields as @event
 * @event: an existing event
 * @args: the field part of a registration (after the name and one space),
 *        or NULL when the registration names no fields
 *
 * The kernel's rule: whitespace and "a;b" / "a; b" differences do not count;
 * any difference in field names, order, types, struct name or size does.
 *
 * Return: true when a registration of @args finds @event.
 */
bool ue_event_match_args(const struct ue_event *event, const char *args);

/**
 * ue_name_args_split - locate the name and the field part of name_args
 * @name_args: as given to DIAG_IOCSREG
 * @ret_name_len: length of the name (up to the first ' ' or ':')
 * @ret_args: the field part, or NULL when there is none
 *
 * Return: 0, or -EINVAL when flags follow ':' (the kernel accepts none).
 */
int ue_name_args_split(const char *name_args, size_t *ret_name_len, const char **ret_args);

/* A parsed write to dynamic_events (one line). */
enum ue_dynevent_op {
	UE_DYNEVENT_CREATE,	/* "u:name fields" */
	UE_DYNEVENT_DELETE,	/* "-:name", "-:u:name", "!u:name", "-:user_events/name" ... */
};

struct ue_dynevent_cmd {
	enum ue_dynevent_op op;
	char system[64];	/* DELETE: system named in the line, or "" */
	char name_args[UE_MAX_EVENT_DESC];	/* CREATE: name_args; DELETE: name and optional fields */
};

/**
 * ue_dynevent_parse - parse one line written to dynamic_events
 * @line: one line, without its newline
 * @ret_cmd: the command
 *
 * Return: 0; -ECANCELED when the line is not for user_events (another
 * dynamic event type, which the kernel would hand to another provider);
 * -EINVAL on a malformed line.  An empty or comment line returns -ENOENT
 * (nothing to do).
 */
int ue_dynevent_parse(const char *line, struct ue_dynevent_cmd *ret_cmd);

/*
 * Text renderers.  Each writes at most @len bytes (NUL included) to @buf
 * and returns the length the full text needs (without NUL), like snprintf,
 * so callers size a buffer with a first call of (NULL, 0).
 */

/**
 * ue_format_print_fmt - the text after "print fmt: " in the format file
 */
int ue_format_print_fmt(const struct ue_event *event, char *buf, size_t len);

/**
 * ue_format_file - the whole events/<system>/<name>/format file
 * @tp_name: the name shown (NAME, or NAME.<hex> for multi-format events)
 * @id: the event's type id (the "ID:" line and common_type of its records)
 */
int ue_format_file(const struct ue_event *event, const char *tp_name, unsigned int id,
		   char *buf, size_t len);

/**
 * ue_format_dynevent_line - the event's line in dynamic_events ("u:NAME fields\n")
 */
int ue_format_dynevent_line(const struct ue_event *event, char *buf, size_t len);

/*
 * The enabled-by bits shown in user_events_status, as the kernel's
 * EVENT_STATUS_* values.
 */
#define UE_STATUS_FTRACE 0x01
#define UE_STATUS_PERF 0x02
#define UE_STATUS_OTHER 0x80

/**
 * ue_format_status_line - one event's line in user_events_status
 * @tp_name: name shown (NAME.<hex> for multi-format events)
 * @status: UE_STATUS_* bits
 */
int ue_format_status_line(const char *tp_name, unsigned int status, char *buf, size_t len);

/**
 * ue_payload_validate - check a write's payload as the kernel does
 * @event: the event written
 * @record: common header followed by the payload
 * @record_len: UE_ENTRY_HDR_SIZE + payload length
 *
 * Return: 0; -EINVAL when the payload is shorter than event->min_size;
 * -EFAULT when a __data_loc/__rel_loc points outside the record or a char
 * array it points to does not end in NUL.
 */
int ue_payload_validate(const struct ue_event *event, const void *record, size_t record_len);

/* A record as stored in the trace buffers, for rendering. */
struct ue_record_ctx {
	const char *comm;	/* task name, or NULL for "<...>" */
	int32_t pid;		/* thread id the kernel shows */
	unsigned int cpu;
	uint64_t ts_ns;
	const char *lat_flags;	/* the 5-character irq/preempt field, e.g. "....." */
};

/**
 * ue_render_context - the line prefix: "<comm>-<pid> [cpu] flags  sec.usec: "
 */
int ue_render_context(const struct ue_record_ctx *ctx, char *buf, size_t len);

/**
 * ue_render_fields - the event part of a trace line, as print_event_fields():
 * "NAME: a=0x1 (1) s=hello arr=0a,0b\n"
 * @tp_name: the name shown
 * @record: common header followed by the payload
 * @ent_size: the record's size as the ring buffer reports it
 *            (see ue_record_ent_size())
 */
int ue_render_fields(const struct ue_event *event, const char *tp_name, const void *record,
		     size_t ent_size, char *buf, size_t len);

/** ue_record_ent_size - size the kernel's ring buffer reports for a record */
size_t ue_record_ent_size(size_t record_len);

/**
 * ue_render_json - one record as a JSON object (no trailing newline):
 * {"ts":..., "cpu":..., "pid":..., "comm":..., "system":..., "event":...,
 *  "fields":{...}}; integers as numbers, strings as strings, arrays of
 * bytes as arrays, out-of-bounds locations as null.
 */
int ue_render_json(const struct ue_event *event, const char *system, const char *tp_name,
		   const struct ue_record_ctx *ctx, const void *record, size_t ent_size, char *buf,
		   size_t len);

/** ue_errno_name - "EINVAL" for EINVAL, ... ; NULL when unknown (tools, tests) */
const char *ue_errno_name(int err);

#endif /* UE_CORE_H */
