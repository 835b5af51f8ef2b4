/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The text an event shows about itself: its "print fmt", its format file,
 * its line in dynamic_events and in user_events_status, byte for byte as
 * Linux 6.12 prints them.  Everything is derived from the field type strings,
 * as written at registration, the way the kernel derives it.
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "internal.h"
#include "outbuf.h"

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The printf conversion print fmt uses for a field's type. */
static const char *field_conversion(const char *type)
{
	static const struct {
		const char *type;
		const char *conv;
	} scalars[] = {
		{ "s64", "%lld" }, { "u64", "%llu" },
		{ "s32", "%d" }, { "u32", "%u" },
		{ "int", "%d" }, { "unsigned int", "%u" },
		{ "s16", "%d" }, { "u16", "%u" },
		{ "short", "%d" }, { "unsigned short", "%u" },
		{ "s8", "%d" }, { "u8", "%u" },
		{ "char", "%d" }, { "unsigned char", "%u" },
	};

	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (strcmp(type, scalars[i].type) == 0)
			return scalars[i].conv;
	if (strstr(type, "char["))
		return "%s";
	/* Structs and dynamic arrays of anything but char: 64-bit, as the kernel. */
	return "%llu";
}

/*
 * The accessor print fmt names for a __data_loc/__rel_loc field whose type
 * mentions "char" anywhere, or NULL for a field read as REC->name.
 */
static const char *dyn_string_accessor(const char *type)
{
	const char *func;

	if (has_prefix(type, "__data_loc "))
		func = "__get_str";
	else if (has_prefix(type, "__rel_loc "))
		func = "__get_rel_str";
	else
		return NULL;
	return strstr(type, "char") ? func : NULL;
}

static void put_print_fmt(struct outbuf *ob, const struct ue_event *event)
{
	const struct ue_field *f;
	const char *func;
	uint32_t i;

	ob_putc(ob, '"');
	for (i = 0; i < event->nfields; i++) {
		f = &event->fields[i];
		if (i)
			ob_putc(ob, ' ');
		ob_printf(ob, "%s=%s", f->name, field_conversion(f->type));
	}
	ob_putc(ob, '"');
	for (i = 0; i < event->nfields; i++) {
		f = &event->fields[i];
		func = dyn_string_accessor(f->type);
		if (func)
			ob_printf(ob, ", %s(%s)", func, f->name);
		else
			ob_printf(ob, ", REC->%s", f->name);
	}
}

/**
 * ue_format_print_fmt - the text after "print fmt: " in the format file
 * @event: the event
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * Quoted "name=%conv ..." for every field in declaration order, then
 * ", REC->name" or ", __get_str(name)" / ", __get_rel_str(name)" for each.
 *
 * Return: the length of the full text (as snprintf), or -EINVAL.
 */
int ue_format_print_fmt(const struct ue_event *event, char *buf, size_t len)
{
	struct outbuf ob;

	if (!ue_event_ok(event))
		return -EINVAL;
	ob_init(&ob, buf, len);
	put_print_fmt(&ob, event);
	return ob_finish(&ob);
}

static void put_field_line(struct outbuf *ob, const char *type, const char *name,
			   uint32_t offset, uint32_t size, bool is_signed)
{
	const char *bracket = strchr(type, '[');

	/*
	 * A fixed array "T[N] x" is shown as "T x[]".  The kernel would print N
	 * from a length it never sets for user events (an uninitialised
	 * allocation, zero on a fresh one); we always print the zero case.
	 */
	if (has_prefix(type, "__data_loc"))
		bracket = NULL;
	if (bracket)
		ob_printf(ob, "\tfield:%.*s %s[];", (int)(bracket - type), type, name);
	else
		ob_printf(ob, "\tfield:%s %s;", type, name);
	ob_printf(ob, "\toffset:%u;\tsize:%u;\tsigned:%d;\n", offset, size, is_signed ? 1 : 0);
}

/**
 * ue_format_file - the whole events/<system>/<name>/format file
 * @event: the event
 * @tp_name: the name shown (NAME, or NAME.<hex> for multi-format events)
 * @id: the event's type id (the "ID:" line and common_type of its records)
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * Return: the length of the full text (as snprintf), or -EINVAL.
 */
int ue_format_file(const struct ue_event *event, const char *tp_name, unsigned int id,
		   char *buf, size_t len)
{
	struct outbuf ob;
	uint32_t i;

	if (!ue_event_ok(event) || !tp_name)
		return -EINVAL;
	ob_init(&ob, buf, len);
	ob_printf(&ob, "name: %s\nID: %u\nformat:\n", tp_name, id);
	put_field_line(&ob, "unsigned short", "common_type", 0, 2, false);
	put_field_line(&ob, "unsigned char", "common_flags", 2, 1, false);
	put_field_line(&ob, "unsigned char", "common_preempt_count", 3, 1, false);
	put_field_line(&ob, "int", "common_pid", 4, 4, true);
	ob_putc(&ob, '\n');
	for (i = 0; i < event->nfields; i++) {
		const struct ue_field *f = &event->fields[i];

		put_field_line(&ob, f->type, f->name, f->offset, f->size, f->is_signed);
	}
	ob_puts(&ob, "\nprint fmt: ");
	put_print_fmt(&ob, event);
	ob_putc(&ob, '\n');
	return ob_finish(&ob);
}

/**
 * ue_format_dynevent_line - the event's line in dynamic_events
 * @event: the event
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * "u:NAME type name; type name; struct foo st 6\n": fields as registered,
 * joined by "; ", struct fields followed by their size.
 *
 * Return: the length of the full text (as snprintf), or -EINVAL.
 */
int ue_format_dynevent_line(const struct ue_event *event, char *buf, size_t len)
{
	struct outbuf ob;
	uint32_t i;

	if (!ue_event_ok(event) || !event->name)
		return -EINVAL;
	ob_init(&ob, buf, len);
	ob_printf(&ob, "u:%s", event->name);
	for (i = 0; i < event->nfields; i++) {
		const struct ue_field *f = &event->fields[i];

		ob_printf(&ob, "%s%s %s", i ? "; " : " ", f->type, f->name);
		if (has_prefix(f->type, "struct "))
			ob_printf(&ob, " %u", f->size);
	}
	ob_putc(&ob, '\n');
	return ob_finish(&ob);
}

/**
 * ue_format_status_line - one event's line in user_events_status
 * @tp_name: name shown (NAME.<hex> for multi-format events)
 * @status: UE_STATUS_* bits
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * "NAME\n", or "NAME # Used by ftrace perf other\n" naming each set bit.
 * Like the kernel, which keeps the status in a char, only the low 8 bits
 * of @status count.
 *
 * Return: the length of the full text (as snprintf), or -EINVAL.
 */
int ue_format_status_line(const char *tp_name, unsigned int status, char *buf, size_t len)
{
	struct outbuf ob;

	if (!tp_name)
		return -EINVAL;
	status &= 0xff;
	ob_init(&ob, buf, len);
	ob_puts(&ob, tp_name);
	if (status) {
		ob_puts(&ob, " # Used by");
		if (status & UE_STATUS_FTRACE)
			ob_puts(&ob, " ftrace");
		if (status & UE_STATUS_PERF)
			ob_puts(&ob, " perf");
		if (status & UE_STATUS_OTHER)
			ob_puts(&ob, " other");
	}
	ob_putc(&ob, '\n');
	return ob_finish(&ob);
}
