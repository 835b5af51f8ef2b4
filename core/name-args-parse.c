// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * name_args -> struct ue_event: the grammar, limits and errno values of
 * Linux 6.12's user_events parser, oddities included (single-space word
 * splitting, empty field names, hexadecimal array sizes, wrapping offsets),
 * because registrations that work on the kernel must work here too.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Field types that hold a space.  Order matters: the kernel tries the
 * shorter "__data_loc " only after "__data_loc unsigned ", and the type
 * then runs to the next space.
 */
static const struct {
	const char *prefix;
	bool is_struct;
} spaced_types[] = {
	{ "unsigned ", false },
	{ "struct ", true },
	{ "__data_loc unsigned ", false },
	{ "__data_loc ", false },
	{ "__rel_loc unsigned ", false },
	{ "__rel_loc ", false },
};

/* Scalar types, spelled exactly; "long" is refused as its size is ambiguous. */
static const struct {
	const char *type;
	uint32_t size;
} scalar_types[] = {
	{ "s64", 8 }, { "u64", 8 },
	{ "s32", 4 }, { "u32", 4 }, { "int", 4 }, { "unsigned int", 4 },
	{ "s16", 2 }, { "u16", 2 }, { "short", 2 }, { "unsigned short", 2 },
	{ "s8", 1 }, { "u8", 1 }, { "char", 1 }, { "unsigned char", 1 },
};

static size_t has_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? n : 0;
}

static bool is_xdigit(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

int ue_kstrtoull(const char *s, unsigned int base, uint64_t *ret)
{
	uint64_t v = 0;
	bool overflow = false;
	size_t digits = 0;

	if (*s == '+')
		s++;
	if (base == 0) {
		if (s[0] == '0')
			base = ((s[1] | 0x20) == 'x' && is_xdigit(s[2])) ? 16 : 8;
		else
			base = 10;
	}
	if (base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	for (;; s++, digits++) {
		unsigned int c = (unsigned char)*s, lc = c | 0x20, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (lc >= 'a' && lc <= 'f')
			d = lc - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		v = v * base + d;
	}
	if (overflow)
		return -ERANGE;
	if (!digits)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* The kernel's kstrtou32(): kstrtoull() and a range check. */
static int kernel_strtou32(const char *s, unsigned int base, uint32_t *res)
{
	uint64_t v;
	int r = ue_kstrtoull(s, base, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*res = (uint32_t)v;
	return 0;
}

/*
 * N of char[N]: the kernel copies at most 7 characters after '[' into a
 * small buffer, so a longer tail is refused even when its number is small,
 * and anything after the first ']' is ignored.
 */
static int array_size(const char *type)
{
	const char *start = strchr(type, '[');
	char val[8], *bracket;
	uint32_t size;
	size_t n;

	if (!start)
		return -EINVAL;
	n = strnlen(start + 1, sizeof(val));
	if (n == 0 || n == sizeof(val))
		return -EINVAL;
	memcpy(val, start + 1, n);
	val[n] = '\0';
	bracket = strchr(val, ']');
	if (!bracket)
		return -EINVAL;
	*bracket = '\0';
	if (kernel_strtou32(val, 0, &size) || size > UE_MAX_FIELD_ARRAY_SIZE)
		return -EINVAL;
	return (int)size;
}

static int field_size(const char *type)
{
	for (size_t i = 0; i < sizeof(scalar_types) / sizeof(scalar_types[0]); i++)
		if (strcmp(type, scalar_types[i].type) == 0)
			return (int)scalar_types[i].size;
	if (has_prefix(type, "char[") || has_prefix(type, "unsigned char["))
		return array_size(type);
	if (has_prefix(type, "__data_loc ") || has_prefix(type, "__rel_loc "))
		return 4;
	return -EINVAL;
}

enum ue_field_kind ue_field_kind_of(const char *type, uint32_t size)
{
	bool data_loc = strstr(type, "__data_loc"), rel_loc = strstr(type, "__rel_loc");
	bool has_char = strstr(type, "char");

	if (data_loc && has_char)
		return UE_FIELD_DYN_STRING;
	if (data_loc && strstr(type, "cpumask_t"))
		return UE_FIELD_CPUMASK;
	if (rel_loc && has_char)
		return UE_FIELD_RDYN_STRING;
	if (strchr(type, '[') && has_char)
		return UE_FIELD_STATIC_STRING;
	/* The fields printer shows a 4-byte field as an array on these substrings alone. */
	if (size == 4 && data_loc)
		return UE_FIELD_DATA_LOC;
	if (size == 4 && rel_loc)
		return UE_FIELD_REL_LOC;
	return UE_FIELD_INT;
}

/* strsep(&s, " "): the next part up to a single space; NULL after the last. */
static char *next_part(char **s)
{
	char *part = *s, *sp;

	if (!part)
		return NULL;
	sp = strchr(part, ' ');
	if (sp) {
		*sp = '\0';
		*s = sp + 1;
	} else {
		*s = NULL;
	}
	return part;
}

/*
 * A struct size is an int in the kernel: a value of 2^31 or more comes back
 * negative and is returned as is.  Keep that where it is an errno-sized
 * value; elsewhere the kernel's return is no errno at all.
 */
static int struct_size(uint32_t v)
{
	if (v <= INT_MAX)
		return (int)v;
	if (v >= 0xfffff001u)
		return -(int)(0xffffffffu - v) - 1;
	return -EINVAL;
}

/* One "type name [size]" between two ';'.  Parts are split on single spaces. */
static int parse_field(char *text, struct ue_event *event, uint32_t *offset)
{
	char *field = (char *)ue_kskip_spaces(text), *rest = field, *part;
	char *type = NULL, *name = NULL;
	unsigned int depth = 0;
	bool is_struct = false;
	struct ue_field *f;
	int size = -EINVAL;

	if (*field == '\0')
		return 0;

	for (size_t i = 0; i < sizeof(spaced_types) / sizeof(spaced_types[0]); i++) {
		size_t len = has_prefix(field, spaced_types[i].prefix);
		char *sp;

		if (!len)
			continue;
		is_struct = spaced_types[i].is_struct;
		sp = strchr(field + len, ' ');
		if (!sp)
			return -EINVAL;
		*sp = '\0';
		type = field;
		rest = sp + 1;
		depth = 1;
		break;
	}

	while ((part = next_part(&rest))) {
		uint32_t v;

		switch (depth++) {
		case 0:
			type = part;
			break;
		case 1:
			name = part;
			break;
		case 2:
			if (!is_struct || kernel_strtou32(part, 10, &v))
				return -EINVAL;
			size = struct_size(v);
			break;
		default:
			return -EINVAL;
		}
	}
	if (depth < 2 || !name)
		return -EINVAL;
	if (depth == 2)
		size = field_size(type);
	if (size == 0)
		return -EINVAL;
	if (size < 0)
		return size;

	f = &event->fields[event->nfields++];
	f->type = type;
	f->name = name;
	f->offset = *offset;
	f->size = (uint32_t)size;
	f->is_signed = type[0] != 'u';
	f->is_struct = is_struct;
	f->kind = ue_field_kind_of(type, f->size);
	/* The kernel's offsets and min_size are ints that wrap past 2^31. */
	*offset += f->size;
	event->min_size = *offset - UE_ENTRY_HDR_SIZE;
	if (has_prefix(type, "__data_loc ") || has_prefix(type, "__rel_loc "))
		event->nvalidators++;
	return 0;
}

int ue_name_args_split(const char *name_args, size_t *ret_name_len, const char **ret_args)
{
	const char *sp;
	size_t len;

	if (!name_args || !ret_name_len || !ret_args)
		return -EINVAL;
	sp = strchr(name_args, ' ');
	len = sp ? (size_t)(sp - name_args) : strlen(name_args);
	/* No text flags exist: any ':' in the name, even with nothing after it, is refused. */
	if (memchr(name_args, ':', len))
		return -EINVAL;
	*ret_name_len = len;
	*ret_args = sp ? sp + 1 : NULL;
	return 0;
}

static int parse(const char *name_args, size_t len, struct ue_event **ret_event)
{
	size_t name_len, max_fields = 0, bytes;
	struct ue_event *event;
	const char *args;
	uint32_t offset = UE_ENTRY_HDR_SIZE;
	char *text, *rest, *field;
	int ret;

	ret = ue_name_args_split(name_args, &name_len, &args);
	if (ret)
		return ret;
	if (args) {
		/* Fields are separated by ';', so there are at most one more than there are ';'. */
		max_fields = 1;
		for (const char *p = args; (p = strchr(p, ';')); p++)
			max_fields++;
	}
	if (max_fields > (SIZE_MAX - sizeof(*event) - len - 1) / sizeof(struct ue_field))
		return -ENOMEM;
	bytes = sizeof(*event) + max_fields * sizeof(struct ue_field) + len + 1;

	/* One block: the event, its fields, then its own copy of the text they point into. */
	event = calloc(1, bytes);
	if (!event)
		return -ENOMEM;
	event->fields = (struct ue_field *)(event + 1);
	text = (char *)(event->fields + max_fields);
	memcpy(text, name_args, len + 1);
	text[name_len] = '\0';
	event->name = text;

	rest = args ? text + name_len + 1 : NULL;
	while (rest) {
		field = rest;
		rest = strchr(rest, ';');
		if (rest)
			*rest++ = '\0';
		ret = parse_field(field, event, &offset);
		if (ret) {
			free(event);
			return ret;
		}
	}
	*ret_event = event;
	return 0;
}

int ue_event_parse(const char *name_args, struct ue_event **ret_event)
{
	size_t len;

	if (!name_args || !ret_event)
		return -EINVAL;
	/* The kernel copies name_args with strndup_user(..., 512): it must end within 512 bytes. */
	len = strnlen(name_args, UE_MAX_EVENT_DESC);
	if (len == UE_MAX_EVENT_DESC)
		return -EINVAL;
	return parse(name_args, len, ret_event);
}

int ue_event_parse_dyn(const char *name_args, struct ue_event **ret_event)
{
	if (!name_args || !ret_event)
		return -EINVAL;
	return parse(name_args, strlen(name_args), ret_event);
}

void ue_event_free(struct ue_event *event)
{
	free(event);
}
