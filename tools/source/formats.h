/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/source: what a record means: event formats by type id
 * (format-table.c), task names and one record rendered as a line or as
 * JSON (record-render.c), EventHeader events read and rendered, globs
 * matched per record (eh-render.c).
 */
#ifndef UE_TOOLS_FORMATS_H
#define UE_TOOLS_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "tracefs.h"

struct uet_format;
/**
 * uet_glob_per_record - whether @glob's answer for @f's records is each
 * record's: a PROVIDER:EVENT of an EventHeader event, EVENT not "*"
 */
bool uet_glob_per_record(const char *glob, const struct uet_format *f);
/** uet_glob_match_rec - whether @glob names the record @rec (@len bytes) of @f: by its EventHeader name too */
bool uet_glob_match_rec(const char *glob, const struct uet_format *f, const void *rec, size_t len);

/* format-table.c: the formats of binary records, from trace_pipe_raw or a trace.dat. */

/* The format of one event type. */
struct uet_format {
	unsigned int id;
	char system[32];
	char *text;			/* the format file */
	size_t len;
	uint64_t hash;			/* of the text: seen again, it costs no parse */
	struct ue_event *desc;
	uint64_t checked;		/* the batch that found the type still its event's */
	bool eventheader;		/* a user event declared as EventHeader's header fields */
	struct ue_json_keys *json;	/* its JSON keys, escaped once (NULL: without memory) */
};

/* Formats by type id; a type seen again with another text takes the new one. */
struct uet_formats {
	struct uet_format *v;
	size_t n, cap;
	size_t *by_text, *by_id;	/* indexes of v (format-table.c) */
	size_t ix_cap, ix_used;
	/* If set: told of each format added or replaced (a negative return is returned) */
	int (*on_new)(void *arg, const struct uet_format *f);
	void *on_new_arg;
};

/**
 * uet_formats_add - parse and keep a copy of @text
 *
 * Return: 0, -EINVAL (not a format), -ENOMEM, or the error of on_new.
 */
int uet_formats_add(struct uet_formats *f, const char *system, const char *text, size_t len);

/** uet_formats_add_events - keep the formats of @evs; 0 or -ENOMEM */
int uet_formats_add_events(struct uet_formats *f, const struct uet_events *evs);

/** uet_formats_find - the format of type @id, or NULL */
const struct uet_format *uet_formats_find(const struct uet_formats *f, unsigned int id);

/* A batch of records being rendered (uet_formats_lookup): start each with ++n and !rescanned. */
struct uet_batch {
	uint64_t n;
	bool rescanned;		/* the tracefs's events were read again for it */
};

/**
 * uet_formats_lookup - the format of type @id for a record of batch @b
 *
 * A type is reused at once once its event is deleted (the kernel's ids, and
 * usereventsd's, are the lowest free): a kept format is used only once the
 * batch found events/SYSTEM/NAME/id still @id (one small read per type and
 * batch).  A type not known, or no longer its event's, reads the events of
 * @tracefs again, at most once per batch (an event registered since the
 * autoenable tick's scan); a type known, the common case, does not use that
 * reading up, or every event registered since the scan would lose its
 * records of the batch.
 *
 * Return: the format, or NULL (not a user event, or one deleted since).
 */
const struct uet_format *uet_formats_lookup(struct uet_formats *f, const char *tracefs,
					    unsigned int id, struct uet_batch *b);

/** uet_formats_free - release them all */
void uet_formats_free(struct uet_formats *f);

/**
 * uet_cmdline_next - the "PID COMM" line of saved_cmdlines at *@s: its pid
 * and name; *@s moves to the next line (NULL after the last)
 * Return: whether the line is one.
 */
bool uet_cmdline_next(const char **s, long *pid, const char **name, size_t *len);

/**
 * uet_comm_of - the task name of @pid in a saved_cmdlines text
 * Return: @buf holding it, or NULL when @pid is not there.
 */
const char *uet_comm_of(const char *cmdlines, int32_t pid, char *buf, size_t len);

/**
 * uet_render_line - one record as a trace line, newline included
 * @f: its event's format
 * @ctx: comm, pid, CPU, time stamp
 * @rec: struct trace_entry and payload
 * @len: its size as the ring buffer reports it
 * @buf: a malloc()ed buffer, grown as needed (may start NULL)
 * @cap: its size
 *
 * Return: the length of the text in *@buf (NUL-terminated), or -errno.
 */
int uet_render_line(const struct uet_format *f, const struct ue_record_ctx *ctx,
		    const void *rec, size_t len, char **buf, size_t *cap);

/** uet_render_json - as uet_render_line(), a JSON object (ue_render_json()) and a newline */
int uet_render_json(const struct uet_format *f, const struct ue_record_ctx *ctx,
		    const void *rec, size_t len, char **buf, size_t *cap);

/* EventHeader events in the text and JSON sinks (eh-render.c). */
struct ueh_event;

/** uet_eh_start - whether the record @rec of @f is an EventHeader event that parses (into @e) */
bool uet_eh_start(const struct uet_format *f, const void *rec, size_t len, struct ueh_event *e);

/** uet_eh_line - "Provider:Event: name=value ...\n" (snprintf's contract), or -errno: malformed */
int uet_eh_line(const struct ueh_event *e, char *buf, size_t cap);

/** uet_eh_json - ',"eventheader":{...}' for --json (snprintf's contract), or -errno */
int uet_eh_json(const struct ueh_event *e, char *buf, size_t cap);

#endif /* UE_TOOLS_FORMATS_H */
