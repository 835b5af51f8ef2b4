// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * EventHeader events (core/eventheader.c) as every sink shows them: read
 * from a record of their format, rendered as a line or as JSON; a glob
 * matched against each record's provider and event names.
 */
#include <fnmatch.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats.h"
#include "eventheader.h"

#define ENTRY 8	/* struct trace_entry before the payload */

bool uet_eh_start(const struct uet_format *f, const void *rec, size_t len, struct ueh_event *e)
{
	if (!f || !f->desc || !f->eventheader || len < ENTRY)
		return false;
	return ueh_start(e, f->desc->name, strlen(f->desc->name), (const uint8_t *)rec + ENTRY,
			 len - ENTRY) == 0;
}

bool uet_glob_per_record(const char *glob, const struct uet_format *f)
{
	const char *ev;

	if (glob[0] == UET_PROVIDER_TAG[0] || !f->eventheader)
		return false;
	ev = ue_glob_event_part(glob, f->system);
	return ev && strcmp(ev, "*") != 0;
}

bool uet_glob_match_rec(const char *glob, const struct uet_format *f, const void *rec, size_t len)
{
	struct ueh_event e;
	char name[256];

	if (!uet_glob_match(glob, f->system, f->desc->name))
		return false;
	if (!uet_glob_per_record(glob, f))
		return true;
	if (!uet_eh_start(f, rec, len, &e))
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)e.name_len, e.name);
	return fnmatch(ue_glob_event_part(glob, f->system), name, 0) == 0;
}

/* snprintf into @buf at *@pos (counting past the end). */
static void cat(char *buf, size_t cap, size_t *pos, const char *s, size_t n)
{
	if (*pos < cap) {
		size_t room = cap - *pos - 1;

		memcpy(buf + *pos, s, n < room ? n : room);
		buf[*pos + (n < room ? n : room)] = '\0';
	}
	*pos += n;
}

/* A text of @fn(e, flags) appended; -errno on a malformed event. */
static int cat_fields(char *buf, size_t cap, size_t *pos, const struct ueh_event *e,
		      unsigned flags)
{
	int w = ueh_json_fields(e, flags, *pos < cap ? buf + *pos : NULL,
				*pos < cap ? cap - *pos : 0);

	if (w < 0)
		return w;
	*pos += (size_t)w;
	return 0;
}

static void cat_jstr(char *buf, size_t cap, size_t *pos, const char *s, size_t n)
{
	int w = ueh_json_string(s, n, *pos < cap ? buf + *pos : NULL, *pos < cap ? cap - *pos : 0);

	if (w > 0)
		*pos += (size_t)w;
}

int uet_eh_line(const struct ueh_event *e, char *buf, size_t cap)
{
	size_t pos = 0;
	int r;

	if (cap)
		buf[0] = '\0';
	cat(buf, cap, &pos, e->tp_name, e->n.provider_len);
	cat(buf, cap, &pos, ":", 1);
	cat(buf, cap, &pos, e->name, e->name_len);
	cat(buf, cap, &pos, ":", 1);
	r = cat_fields(buf, cap, &pos, e, UEH_J_TEXT);
	if (r < 0)
		return r;
	cat(buf, cap, &pos, "\n", 1);
	return pos > INT32_MAX ? -EOVERFLOW : (int)pos;
}

int uet_eh_json(const struct ueh_event *e, char *buf, size_t cap)
{
	char tmp[160];
	size_t pos = 0;
	int r;

	if (cap)
		buf[0] = '\0';
	cat(buf, cap, &pos, ",\"eventheader\":{\"provider\":", 27);
	cat_jstr(buf, cap, &pos, e->tp_name, e->n.provider_len);
	cat(buf, cap, &pos, ",\"name\":", 8);
	cat_jstr(buf, cap, &pos, e->name, e->name_len);
	r = snprintf(tmp, sizeof(tmp),
		     ",\"level\":%u,\"keyword\":\"0x%" PRIx64 "\",\"opcode\":%u,\"id\":%u,"
		     "\"version\":%u,\"tag\":%u,\"flags\":%u",
		     e->level, e->n.keyword, e->opcode, e->id, e->version, e->tag, e->flags);
	cat(buf, cap, &pos, tmp, (size_t)r);
	for (int i = 0; i < 2; i++) {
		const uint8_t *u = i ? e->related : e->activity;

		cat(buf, cap, &pos, i ? ",\"related_activity\":" : ",\"activity\":",
		    i ? 20 : 12);
		if (!u) {
			cat(buf, cap, &pos, "null", 4);
			continue;
		}
		r = snprintf(tmp, sizeof(tmp),
			     "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"",
			     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
			     u[11], u[12], u[13], u[14], u[15]);
		cat(buf, cap, &pos, tmp, (size_t)r);
	}
	cat(buf, cap, &pos, ",\"fields\":{", 11);
	{
		/* perf-decode's members, without the leading ", " of the first. */
		int w = ueh_json_fields(e, UEH_J_TAGS, NULL, 0);
		char *f = w >= 0 ? malloc((size_t)w + 1) : NULL;

		if (w < 0)
			return w;
		if (!f)
			return -ENOMEM;
		ueh_json_fields(e, UEH_J_TAGS, f, (size_t)w + 1);
		if (w >= 2)
			cat(buf, cap, &pos, f + 2, (size_t)w - 2);
		free(f);
	}
	cat(buf, cap, &pos, "}}", 2);
	return pos > INT32_MAX ? -EOVERFLOW : (int)pos;
}
