/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * For the parse and dynevent fuzzers: write a parsed event's fields back as
 * text ("TYPE NAME[ SIZE]; ..."), the form dynamic_events shows, and say
 * whether the kernel's word matching must find the event from that text.
 */
#ifndef UE_FUZZ_CANONICAL_H
#define UE_FUZZ_CANONICAL_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core.h"

static bool canon_space(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

/*
 * Words are split on white space, so a field re-reads as itself only when
 * its name is one non-empty word and its type is words joined by single
 * spaces.
 */
static bool canon_field_ok(const struct ue_field *f)
{
	size_t n = strlen(f->type);

	if (!f->name[0] || !n || f->type[0] == ' ' || f->type[n - 1] == ' ' ||
	    strstr(f->type, "  "))
		return false;
	for (const char *p = f->name; *p; p++)
		if (canon_space(*p))
			return false;
	for (const char *p = f->type; *p; p++)
		if (*p != ' ' && canon_space(*p))
			return false;
	return true;
}

/* Returns the length written, or -1 when the text would not fit or not re-read. */
static int canon_fields(const struct ue_event *ev, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < ev->nfields; i++) {
		const struct ue_field *f = &ev->fields[i];
		int n;

		if (!canon_field_ok(f))
			return -1;
		if (f->is_struct)
			n = snprintf(buf + pos, len - pos, "%s%s %s %d", i ? "; " : "", f->type,
				     f->name, (int)f->size);
		else
			n = snprintf(buf + pos, len - pos, "%s%s %s", i ? "; " : "", f->type,
				     f->name);
		if (n < 0 || (size_t)n >= len - pos)
			return -1;
		pos += (size_t)n;
	}
	return (int)pos;
}

#endif /* UE_FUZZ_CANONICAL_H */
