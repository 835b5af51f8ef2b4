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

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/*
 * How the kernel prints a field: its filter_type (filter_assign_type(), a
 * substring test on the type text), and for the other fields the size and
 * substring rules of print_event_fields().  Which fields are *validated* on
 * write is a different rule (the type starts with "__data_loc " or
 * "__rel_loc "; a NUL is required when it contains "char"): do not derive
 * it from the kind, e.g. "__rel_loc x__data_loc[] a" prints as a __data_loc
 * array but is validated as a __rel_loc.
 */
enum ue_field_kind {
	UE_FIELD_INT,		/* printed by size: scalars, most structs */
	UE_FIELD_STATIC_STRING,	/* '[' and "char" in the type: char[N], "struct char[3] c 5" */
	UE_FIELD_DYN_STRING,	/* "__data_loc" and "char" in the type */
	UE_FIELD_RDYN_STRING,	/* "__rel_loc" and "char", no "__data_loc" */
	UE_FIELD_DATA_LOC,	/* size 4, "__data_loc", no "char": an array, absolute */
	UE_FIELD_REL_LOC,	/* size 4, "__rel_loc", no "__data_loc" or "char": relative */
	UE_FIELD_CPUMASK,	/* "__data_loc" and "cpumask_t", no "char": <INVALID-TYPE> */
};

struct ue_field {
	const char *type;	/* as written: "u32", "unsigned int", "char[0x14]", "__rel_loc char[]", "struct foo" */
	const char *name;
	uint32_t offset;	/* from the start of the record (common header included) */
	uint32_t size;		/* bytes in the fixed part of the record */
	/*
	 * offset and size wrap as the kernel's do: a struct of 2^31 - 1 bytes
	 * is accepted and the next field's offset is 2147483655 (the format
	 * file prints both with %u).
	 */
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
 * Return: 0, or -EINVAL / -ENOMEM as the kernel; *ret_event is untouched
 * on failure.  One kernel oddity is kept: "struct NAME field SIZE" with
 * SIZE in 4294963201..4294967295 returns SIZE as a negative int (-4095..-1,
 * e.g. -EPERM for 4294967295); a SIZE of 2^31 or more below that range
 * (which the kernel returns as a non-errno) gives -EINVAL.
 */
int ue_event_parse(const char *name_args, struct ue_event **ret_event);

/**
 * ue_event_parse_dyn - ue_event_parse() for a "u:" line of dynamic_events
 * @name_args: the line after "u:" and its spaces (ue_dynevent_cmd.name_args)
 * @ret_event: as ue_event_parse()
 *
 * The same grammar without the UE_MAX_EVENT_DESC limit: the kernel bounds
 * only DIAG_IOCSREG's copy of name_args; a dynamic_events line may be as
 * long as UE_DYNEVENT_MAX_LINE and so hold several hundred fields.
 *
 * Return: as ue_event_parse().
 */
int ue_event_parse_dyn(const char *name_args, struct ue_event **ret_event);

/**
 * ue_field_kind_of - how the kernel prints a field of @type and @size
 * @type: the field's type text as written ("__data_loc char[]", "u32", ...)
 * @size: the field's size in the record
 *
 * Return: the kind ue_event_parse() stores in ue_field.kind.
 */
enum ue_field_kind ue_field_kind_of(const char *type, uint32_t size);

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
 * The comparison is textual ("char[20]" is not "char[0x14]"), and the
 * kernel makes it before it parses the fields: a registration that matches
 * an existing event succeeds even when its text would not parse on its own
 * ("unsigned  int a" finds "unsigned int a"), so look up and match first.
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

/*
 * Longest line written to dynamic_events, NUL included (the kernel's
 * WRITE_BUFSIZE: its command splitter rejects longer lines with EINVAL).
 */
#define UE_DYNEVENT_MAX_LINE 4096

/* A parsed write to dynamic_events (one line). */
enum ue_dynevent_op {
	UE_DYNEVENT_CREATE,	/* "u:name fields" */
	UE_DYNEVENT_DELETE,	/* "-:name fields", "!u:name", "-:user_events/name" ... */
};

struct ue_dynevent_cmd {
	enum ue_dynevent_op op;
	bool has_system;	/* DELETE: the line named a system ("-:SYS/NAME", SYS may be "") */
	char system[64];	/* DELETE: that system (a longer one is cut: it matches nothing) */
	/*
	 * CREATE: the name_args after "u:" (for ue_name_args_split() and
	 * ue_event_parse_dyn()).  DELETE: the event name, then the field
	 * words of the line each after one space; ue_dynevent_match() reads it.
	 */
	char name_args[UE_DYNEVENT_MAX_LINE];
};

/**
 * ue_dynevent_parse - parse one line written to dynamic_events
 * @line: one line, without its newline
 * @ret_cmd: the command
 *
 * A '#' starts a comment up to the end of the line, as in the kernel.
 *
 * Return: 0; -ECANCELED when the line is not for user_events (another
 * dynamic event type, which the kernel would hand to another provider);
 * -EINVAL on a malformed line.  An empty, blank or comment line returns
 * -ENOENT: nothing to do, and the write succeeds (the kernel's probe
 * providers accept it).
 */
int ue_dynevent_parse(const char *line, struct ue_dynevent_cmd *ret_cmd);

/**
 * ue_kstrtoull - the kernel's kstrtoull(), as its parsers and control files read numbers
 *
 * @base 0 picks 16 for "0x" followed by a hex digit, 8 for a leading 0,
 * else 10; '+' may lead, one '\n' may follow.
 * Return: 0, -EINVAL (no digits, or anything else after them), -ERANGE.
 */
int ue_kstrtoull(const char *s, unsigned int base, uint64_t *ret);

/**
 * ue_dynevent_match - whether a DELETE line of dynamic_events names @event
 * @cmd: a UE_DYNEVENT_DELETE from ue_dynevent_parse()
 * @event: a registered event
 *
 * The kernel's rule (user_event_match()): the registered name is equal; a
 * system, when named, is "user_events" or "user_events_multi" (either one,
 * whatever the event's); and the field words describe the event's fields
 * as ue_event_match_args() does, except that "a;b" is *not* split at ';'.
 * A line without field words matches only events without fields.  The
 * caller deletes every event that matches, and reports -ENOENT when none
 * does.
 *
 * Return: true when @cmd deletes @event.
 */
bool ue_dynevent_match(const struct ue_dynevent_cmd *cmd, const struct ue_event *event);

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

/*
 * The payload validator (validate.c), prepared once per event: every writer
 * (the daemon's write paths, the library's native producer) checks each
 * record with the event's struct ue_check.
 */
struct ue_check_loc {
	uint32_t offset;	/* of the u32 location field, entry header included */
	bool rel;		/* __rel_loc: the offset counts from the field's end */
	bool is_char;		/* the located bytes must end in NUL */
};

struct ue_check {
	uint32_t min_size;	/* payload bytes, entry header excluded */
	uint32_t nlocs;		/* __data_loc/__rel_loc fields (the event's nvalidators) */
	struct ue_check_loc locs[];
};

/**
 * ue_check_new - prepare the payload check of @event
 * Return: 0 and *@ret (ue_check_free()); -EINVAL for an event the parser
 * does not build (a field without a type, fields missing); -ENOMEM.
 */
int ue_check_new(const struct ue_event *event, struct ue_check **ret);

/** ue_check_free - free a check (NULL is ignored) */
void ue_check_free(struct ue_check *check);

/*
 * ue_copy_exact - copy @k bytes, records' small pieces cheaply: two
 * overlapping moves up to 32 bytes (each byte of [src, src + k) read and
 * of [d, d + k) written, nothing outside them), memcpy() beyond.  Inline:
 * the interposer's write and the native drain copy every record with it.
 */
static inline void ue_copy_exact(unsigned char *d, const unsigned char *src, size_t k)
{
	unsigned char x[16], y[16];
	uint64_t a, b;
	uint32_t c, e;

	if (k > 16) {
		if (k > 32) {
			memcpy(d, src, k);
			return;
		}
		__builtin_memcpy(x, src, 16);
		__builtin_memcpy(y, src + k - 16, 16);
		__builtin_memcpy(d, x, 16);
		__builtin_memcpy(d + k - 16, y, 16);
	} else if (k >= 8) {
		__builtin_memcpy(&a, src, 8);
		__builtin_memcpy(&b, src + k - 8, 8);
		__builtin_memcpy(d, &a, 8);
		__builtin_memcpy(d + k - 8, &b, 8);
	} else if (k >= 4) {
		__builtin_memcpy(&c, src, 4);
		__builtin_memcpy(&e, src + k - 4, 4);
		__builtin_memcpy(d, &c, 4);
		__builtin_memcpy(d + k - 4, &e, 4);
	} else {
		while (k--)
			*d++ = *src++;
	}
}

/**
 * ue_check_record - check a write's record as the kernel does
 * @c: from ue_check_new() of the event written
 * @record: common header followed by the payload, in memory no other
 *          process can change while it is checked
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
 * Inline: libuserevents' native producer checks every write with it.
 *
 * Return: 0; -EINVAL when the payload is shorter than the event's min_size
 * (or a location field of an inconsistent event lies outside the record);
 * -EFAULT when a location points outside the record or a char array it
 * points to does not end in NUL.
 */
static inline int ue_check_record(const struct ue_check *c, const void *record,
				  size_t record_len)
{
	const unsigned char *rec = record;

	if (!rec && record_len)
		return -EINVAL;
	if (record_len < UE_ENTRY_HDR_SIZE || record_len - UE_ENTRY_HDR_SIZE < c->min_size)
		return -EINVAL;
	for (uint32_t i = 0; i < c->nlocs; i++) {
		const struct ue_check_loc *l = &c->locs[i];
		uint64_t start, end;
		uint32_t loc;

		/* min_size covers it for any event the parser built. */
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

/*
 * The parts of ue_render_json()'s text that are the same for every record
 * of an event (its system, name and field names, escaped once), for a
 * reader that renders many: ue_render_json_keys() writes the same bytes as
 * ue_render_json() with them.
 */
struct ue_json_keys;

/** ue_json_keys_new - prepare them; 0, -EINVAL or -ENOMEM (free with ue_json_keys_free()) */
int ue_json_keys_new(const struct ue_event *event, const char *system, const char *tp_name,
		     struct ue_json_keys **ret);

/** ue_json_keys_free - release them (NULL is ignored) */
void ue_json_keys_free(struct ue_json_keys *keys);

/**
 * ue_render_json_keys - ue_render_json() of a record of the event @keys were made for
 * @keys: from ue_json_keys_new() for @event
 *
 * The keys also remember the last record's "cpu", "pid" and "comm" as
 * rendered (most records repeat them): one renderer at a time per @keys.
 *
 * Return: as ue_render_json().
 */
int ue_render_json_keys(struct ue_json_keys *keys, const struct ue_event *event,
			const struct ue_record_ctx *ctx, const void *record, size_t ent_size,
			char *buf, size_t len);

/* A field's value in a record, typed (ue_field_value()). */
enum ue_value_kind {
	UE_VAL_NULL,	/* outside the record, or a location of negative length */
	UE_VAL_INT,	/* a signed integer of 1, 2, 4 or 8 bytes: .i */
	UE_VAL_UINT,	/* an unsigned one: .u */
	UE_VAL_STRING,	/* char[N] and dynamic char arrays up to their first NUL: .p, .len */
	UE_VAL_BYTES,	/* other dynamic arrays, structs, other sizes: .p, .len */
};

struct ue_value {
	enum ue_value_kind kind;
	int64_t i;
	uint64_t u;
	const void *p;		/* into the record */
	size_t len;
};

/**
 * ue_field_value - the value of @f in @record, classified as ue_render_json() does
 * @ent_size: the record's size as the ring buffer reports it
 *
 * Return: @v's kind (UE_VAL_NULL when it is not wholly in the record).
 */
enum ue_value_kind ue_field_value(const struct ue_field *f, const void *record, size_t ent_size,
				  struct ue_value *v);

/** ue_errno_name - "EINVAL" for EINVAL, ... ; NULL when unknown (tools, tests) */
const char *ue_errno_name(int err);

/**
 * ue_mountinfo_unescape - decode a field of /proc/PID/mountinfo in place
 * @s: the field; its \ooo escapes (space, tab, newline, backslash) become
 *     the bytes they stand for
 */
void ue_mountinfo_unescape(char *s);

/** struct ue_mount_entry - the fields of a mountinfo line a search needs (pointers into the line) */
struct ue_mount_entry {
	char *mount_point;	/* field 5, still escaped */
	char *fstype;		/* the first field after " - " */
	char *source;		/* the second, or NULL */
};

/**
 * ue_mountinfo_split - cut one line of /proc/PID/mountinfo into its fields
 * @line: the line (its trailing newline too); spaces become NULs
 * @ret: the fields, pointers into @line
 *
 * Return: 0, or -EINVAL for a line without a mount point or a type.
 */
int ue_mountinfo_split(char *line, struct ue_mount_entry *ret);

/** ue_mount_is_usereventsd - whether @m is a usereventsd mount (fuse.usereventsd, or fuse* of source usereventsd) */
bool ue_mount_is_usereventsd(const struct ue_mount_entry *m);

/*
 * Event filters (core/filter-parse.c, core/filter-match.c): the expression
 * language of events/<system>/<event>/filter, as Linux 6.12 parses, shows
 * and applies it.
 */

/* A compiled filter: immutable after ue_filter_parse(), so threads may share it. */
struct ue_filter;

/* What a record is matched with besides its bytes. */
struct ue_filter_ctx {
	unsigned int cpu;	/* for CPU, cpu, common_cpu */
	const char *comm;	/* for COMM, comm (its first 15 bytes); NULL: "" */
};

/* A write to a filter file of this many bytes or more fails with EINVAL (PAGE_SIZE). */
#define UE_FILTER_MAX_WRITE 4096

/**
 * ue_filter_parse - compile what was written to an event's filter file
 * @event: the event whose fields the expression names
 * @text: the bytes of the write (not NUL-terminated)
 * @len: their number
 * @ret: the compiled filter; NULL when the write clears the filter or fails
 * @ret_shown: the kernel's filter string afterwards (malloc'ed), or NULL
 *
 * As the kernel: a write of UE_FILTER_MAX_WRITE bytes or more is refused;
 * the text ends at its first NUL; trailing white space (the kernel's,
 * 0xa0 included) is cut, leading white space is kept, and "0" then clears
 * the filter.  Anything else is parsed and kept as the filter string, with
 * the error appended when it does not parse.  The filter file reads as
 * *@ret_shown followed by "\n", or "none\n" when there is no string.
 * Error positions count in the kept string.
 *
 * What the caller applies:
 * - 0, *@ret set: the new filter, shown as *@ret_shown (the kept text);
 * - 0, *@ret NULL (and *@ret_shown NULL): the filter is cleared ("none");
 * - error, *@ret_shown set: the write fails with that errno, the event is
 *   no longer filtered (every record passes) and the file shows
 *   *@ret_shown: "TEXT\n      ^\nparse_error: Field not found\n" or,
 *   where the kernel records no reason, "TEXT\nError: (0)\n";
 * - error, *@ret_shown NULL: the write fails and nothing changes
 *   (-EINVAL for UE_FILTER_MAX_WRITE bytes or more, -ENOMEM).
 * Not modelled: CPUS{...} values (-EINVAL, "parse_error: CPUS{} is not
 * supported by userevents" where the kernel would accept the list) and
 * .function (no kernel symbols: always "Function not found").
 *
 * Return: 0; -EINVAL for most parse errors, and the kernel's odd ones:
 * -EPERM where it expected "&&", "||" or ')' (or a predicate had no field
 * name, or a ')' closed nothing), -ENOENT for a '(' left open, -ESRCH for a
 * quote left open; -ENOMEM.
 */
int ue_filter_parse(const struct ue_event *event, const char *text, size_t len,
		    struct ue_filter **ret, char **ret_shown);

/**
 * ue_filter_match - whether a record passes a filter
 * @f: a filter from ue_filter_parse(); NULL passes everything
 * @record: the common header then the payload, as written to the ring
 * @len: the record's length in bytes (nothing past it is read)
 * @ctx: the CPU and comm of the writer (NULL: CPU 0, comm "")
 *
 * The kernel's semantics: sizes other than 1, 2, 4, 8 bytes and
 * stacktrace/STACKTRACE never match; a static char[N] compares within N
 * bytes; a __data_loc/__rel_loc string within the length of its location
 * word (length 0: up to its NUL).  Where the kernel would read outside the
 * record (a short record, a location pointing outside it, a length-0
 * string with no NUL inside it), that predicate is false, before any '!'
 * of the expression is applied.  Cost: one pass over the predicates, each
 * O(1) or, for strings, O(field length x pattern length) at worst.
 *
 * Return: true when the record passes.
 */
bool ue_filter_match(const struct ue_filter *f, const void *record, size_t len,
		     const struct ue_filter_ctx *ctx);

/**
 * ue_filter_check - the syntax of a filter, before any event is known
 * @text: the filter (not NUL-terminated)
 * @len: its length
 * @ret_msg: NULL, or on error the text, a line with a caret and
 *           "parse_error: REASON" (malloc'ed, ending in "\n"), as the filter
 *           file would show them; NULL when the write would fail without a
 *           text (UE_FILTER_MAX_WRITE bytes or more, -ENOMEM)
 *
 * Parses as ue_filter_parse() does for an event that has every field name
 * the filter uses, each of the type its operand needs (the names of the
 * generic fields too: an event may declare its own COMM).  What it refuses,
 * every event refuses: the syntax (operators, quotes, parentheses, "&&" and
 * "||", numbers); what it accepts, an event may still refuse for its fields.
 * Where the kernel gives no reason ("Error: (0)"), it says "Expecting a
 * field name" or "No filter found".  CPUS{...} and .function, which
 * usereventsd refuses, are accepted: the kernel's tracefs may take them.
 *
 * Return: 0, or the errno ue_filter_parse() would return.
 */
int ue_filter_check(const char *text, size_t len, char **ret_msg);

/**
 * ue_filter_subsystem_error - an event's filter string after a subsystem filter failed on it
 * @text: what was written to events/<system>/filter (not NUL-terminated)
 * @len: its length (below UE_FILTER_MAX_WRITE)
 *
 * When a filter written for a whole system does not parse for one of its
 * events, the kernel disables that event's filter and shows the kept text
 * with the caret at column 0 and "parse_error: Couldn't find or set field in
 * one of a subsystem's events", whatever the event's own error was.
 *
 * Return: that text (malloc'ed; without the file's final "\n"), or NULL
 * when out of memory.
 */
char *ue_filter_subsystem_error(const char *text, size_t len);

/** ue_filter_free - release a filter (NULL is ignored) */
void ue_filter_free(struct ue_filter *f);

/*
 * The kernel's own records that usereventsd makes (core/marker.c): a write to
 * trace_marker is an ftrace:print record (TRACE_PRINT, struct print_entry:
 * the entry header, an unsigned long ip, the text), a write to
 * trace_marker_raw an ftrace:raw_data record (TRACE_RAW_DATA: the entry
 * header, an unsigned int id, the bytes).
 */
#define UE_TRACE_PRINT_ID 5
#define UE_TRACE_RAW_DATA_ID 18
#define UE_PRINT_BUF_OFFSET 16
#define UE_RAW_DATA_BUF_OFFSET 12
/* Most bytes one trace_marker write takes before the ring's limit (TRACE_MARKER_MAX_SIZE). */
#define UE_MARKER_MAX_SIZE 4096
/* Largest record a 4 KiB ring-buffer page takes (ring_buffer_max_event_size()). */
#define UE_MARKER_MAX_RECORD 4072

/**
 * ue_print_record - the ftrace:print record a write to trace_marker makes
 * @text: the bytes written (any bytes, NULs included)
 * @n: their count
 * @pid: common_pid of the record
 * @ip: the record's ip field
 * @rec: where the record is built, at least UE_MARKER_MAX_RECORD bytes
 * @cap: size of @rec
 * @ret_taken: the bytes of @text the write takes, its return value
 */
int ue_print_record(const void *text, size_t n, int32_t pid, uint64_t ip, void *rec, size_t cap,
		    size_t *ret_taken);

/**
 * ue_raw_data_record - the ftrace:raw_data record a write to trace_marker_raw makes
 * @data: the bytes written: a u32 id, then any bytes
 * @n: their count, the write's return value when it records
 * @pid: common_pid of the record
 * @rec: where the record is built, at least UE_MARKER_MAX_RECORD bytes
 * @cap: size of @rec
 */
int ue_raw_data_record(const void *data, size_t n, int32_t pid, void *rec, size_t cap);

/**
 * ue_render_print - the event part of an ftrace:print record's trace line,
 * "tracing_mark_write: TEXT" (the text carries its own newline)
 * @msg_only: the text alone, as with options/printk-msg-only
 */
int ue_render_print(const void *record, size_t ent_size, bool msg_only, char *buf, size_t len);

/**
 * ue_render_raw_data - the event part of an ftrace:raw_data record's trace
 * line, "# ID buf: xx xx ...\n"
 */
int ue_render_raw_data(const void *record, size_t ent_size, char *buf, size_t len);

/*
 * Event triggers (core/trigger.c): the commands written to
 * events/<system>/<event>/trigger and the lines that file lists, as Linux
 * 6.12 parses and prints them.  The daemon keeps and runs them.
 */

enum ue_trigger_cmd {
	UE_TRIGGER_NONE,		/* an empty write: nothing to do */
	UE_TRIGGER_TRACEON,
	UE_TRIGGER_TRACEOFF,
	UE_TRIGGER_ENABLE_EVENT,
	UE_TRIGGER_DISABLE_EVENT,
};

/* A trigger's count when none was given: it acts every time. */
#define UE_TRIGGER_UNLIMITED ((unsigned long)-1)

/* A write to a trigger file of this many bytes or more fails with EINVAL (PAGE_SIZE). */
#define UE_TRIGGER_MAX_WRITE 4096

/* A parsed write to a trigger file.  The strings point into @buf. */
struct ue_trigger_req {
	enum ue_trigger_cmd cmd;
	bool remove;		/* "!CMD": remove the trigger of that kind */
	unsigned long count;	/* UE_TRIGGER_UNLIMITED unless ":N" */
	const char *system;	/* ENABLE/DISABLE_EVENT: the target event */
	const char *event;
	const char *filter;	/* the text after "if", or NULL */
	int late_err;		/* ENABLE/DISABLE_EVENT: the count's error, due after the target check */
	char *buf;
};

/**
 * ue_trigger_parse - parse a write to an event's trigger file
 * @text: the bytes written (not NUL-terminated; they end at a NUL)
 * @len: their number
 * @ret: the request; release it with ue_trigger_req_free(), also on error
 *
 * As the kernel: an empty write does nothing (UE_TRIGGER_NONE); one of
 * UE_TRIGGER_MAX_WRITE bytes or more is refused; white space around the
 * command is cut; "!" before the command removes.  The command name ends at
 * ':', ' ' or '\t'; an optional count (":N" or " N", base as strtoul with
 * base 0) and an optional "if FILTER" follow; enable_event and disable_event
 * need "SYSTEM:EVENT" before them.  A removal ignores the count and filter.
 * The filter is only split off here; the caller compiles it against the
 * event (ue_filter_parse()), and for ENABLE/DISABLE_EVENT looks the target
 * up first, then reports @ret->late_err (when not removing).  Commands the
 * kernel has but this library does not run (stacktrace, snapshot, hist) are
 * -EINVAL like unknown ones.
 *
 * Return: 0; -EINVAL; -ERANGE for a count beyond unsigned long; -ENOMEM.
 */
int ue_trigger_parse(const char *text, size_t len, struct ue_trigger_req *ret);

/** ue_trigger_req_free - release what ue_trigger_parse() allocated (NULL is ignored) */
void ue_trigger_req_free(struct ue_trigger_req *req);

/**
 * ue_trigger_same_kind - whether two commands exclude each other on one event
 *
 * The kernel allows one trigger of a kind per event: traceon and traceoff
 * are one kind, enable_event and disable_event another (per target event).
 * A removal removes the trigger of its kind, whichever command it has.
 */
bool ue_trigger_same_kind(enum ue_trigger_cmd a, enum ue_trigger_cmd b);

/**
 * ue_trigger_print - one line of a trigger file listing
 * @cmd: the command (not UE_TRIGGER_NONE)
 * @system: the target's system (ENABLE/DISABLE_EVENT), else ignored
 * @event: the target's name as shown in events/
 * @count: what is left of its count, or UE_TRIGGER_UNLIMITED
 * @filter: its filter text, or NULL
 * @buf: where the line goes, with its "\n" and NUL
 * @len: size of @buf
 *
 * Return: the length of the whole line, as snprintf(); -EINVAL for a bad @cmd.
 */
int ue_trigger_print(enum ue_trigger_cmd cmd, const char *system, const char *event,
		     unsigned long count, const char *filter, char *buf, size_t len);

/* What the trigger file lists when the event has no trigger. */
#define UE_TRIGGER_AVAILABLE \
	"# Available triggers:\n# traceon traceoff stacktrace enable_event disable_event\n"

/*
 * Armed patterns (arm.c): usereventsd enables an event a pattern names as it
 * is registered (usereventsd_session's "arm" and "arm-provider").
 */
#define UE_ARM_MAX_TEXT 256	/* bytes of a pattern, at least one less (EINVAL) */

enum ue_arm_kind {
	UE_ARM_GLOB,		/* "SYSTEM:NAME" or "NAME", fnmatch() wildcards */
	UE_ARM_PROVIDER,	/* "PROVIDER[:LEVEL[:KEYWORDS]]" of EventHeader names */
};

struct ue_arm {
	enum ue_arm_kind kind;
	char text[UE_ARM_MAX_TEXT];	/* as given */
	char provider[UE_ARM_MAX_TEXT];	/* UE_ARM_PROVIDER: the provider (a glob) */
	unsigned int level;		/* UE_ARM_PROVIDER: the highest level (255: all) */
	uint64_t keywords;		/* UE_ARM_PROVIDER: the mask (0: every keyword) */
};

/**
 * ue_glob_match - whether @glob names the event @system:@name
 * @glob: "SYSTEM:NAME", "PROVIDER:EVENT" or "NAME", with fnmatch() wildcards
 *
 * A NAME.<hex> of user_events_multi also matches by its NAME.  A bare
 * glob also matches by the system (-e user_events: all of them, as
 * trace-cmd takes it).  A "P:E" whose P is not the system names the
 * EventHeader tracepoints (PROVIDER_L<l>K<k>...) of the providers P
 * matches, whatever E: E is each record's own event name, which a reader
 * of records checks (ue_glob_event_part()).
 */
bool ue_glob_match(const char *glob, const char *system, const char *name);

/**
 * ue_glob_event_part - the EVENT glob of a "PROVIDER:EVENT" @glob for an
 * event of @system (one whose system its first part does not match), or NULL
 */
const char *ue_glob_event_part(const char *glob, const char *system);

/**
 * ue_eventheader_name - the parts of an EventHeader tracepoint name
 * @name: "PROVIDER_L<level>K<keyword>[options]", level and keyword in
 *        lowercase hex, options an uppercase letter and [0-9A-Za-z]*
 * @ret_provider_len: the length of PROVIDER (the name up to its last '_')
 * @ret_level: the level (at most 0xff)
 * @ret_keyword: the keyword (64 bits)
 *
 * Return: 0, or -EINVAL when @name is not such a name (nothing set).
 */
int ue_eventheader_name(const char *name, size_t *ret_provider_len, unsigned int *ret_level,
			uint64_t *ret_keyword);

/**
 * ue_arm_parse - an armed pattern from its text
 * @kind: a glob, or an EventHeader provider spec
 * @text: the text (no NUL needed)
 * @len: its length
 * @ret: the pattern
 *
 * A provider spec is PROVIDER (fnmatch() wildcards, no ':'), then optional
 * ":LEVEL" (decimal or 0x hex, 0..255; empty: all) and ":KEYWORDS" (hex,
 * with or without 0x; 0: all).
 *
 * Return: 0; -EINVAL for an empty text, UE_ARM_MAX_TEXT bytes or more,
 * blanks or control characters, or a malformed spec.
 */
int ue_arm_parse(enum ue_arm_kind kind, const char *text, size_t len, struct ue_arm *ret);

/**
 * ue_arm_match - whether @a names the event @system:@name
 *
 * A provider spec names the EventHeader events of its provider whose level
 * is at most its level and whose keyword shares a bit with its mask (a
 * keyword of 0, or a mask of 0, always does), in either system.
 */
bool ue_arm_match(const struct ue_arm *a, const char *system, const char *name);

#endif /* UE_CORE_H */
