// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Event triggers: the commands written to events/<system>/<event>/trigger
 * (traceon, traceoff, enable_event, disable_event, each with a count and a
 * filter, "!" to remove) split as Linux 6.12 splits them, and the lines the
 * file lists.  Compiling the filter and keeping the triggers are the daemon's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "internal.h"

static const char *const cmd_names[] = {
	[UE_TRIGGER_TRACEON] = "traceon",
	[UE_TRIGGER_TRACEOFF] = "traceoff",
	[UE_TRIGGER_ENABLE_EVENT] = "enable_event",
	[UE_TRIGGER_DISABLE_EVENT] = "disable_event",
};

/* strsep() on the kernel's separators; returns the token, moves *@s past its end or to NULL. */
static char *ksep(char **s, const char *delims)
{
	char *tok = *s, *end;

	if (!tok)
		return NULL;
	end = tok + strcspn(tok, delims);
	if (*end) {
		*end = '\0';
		*s = end + 1;
	} else {
		*s = NULL;
	}
	return tok;
}

static char *kskip(char *s)
{
	while (ue_kspace(*s))
		s++;
	return s;
}

/* The kernel's strim() on the end of @s. */
static void trim_end(char *s)
{
	size_t n = strlen(s);

	while (n && ue_kspace(s[n - 1]))
		s[--n] = '\0';
}

/* The count: up to the next ':', a whole number as kstrtoul(s, 0). */
static int parse_count(char *param, unsigned long *ret)
{
	char *number = ksep(&param, ":");
	uint64_t v;
	int err;

	if (!*number)
		return -EINVAL;
	err = ue_kstrtoull(number, 0, &v);
	if (err < 0)
		return err;
	if (v > (unsigned long)-1)
		return -ERANGE;
	*ret = (unsigned long)v;
	return 0;
}

/* "if FILTER": the word "if", one separator, then the filter text as written. */
static int split_if(char *text, const char **ret)
{
	char *word;

	*ret = NULL;
	if (!text)
		return 0;
	word = ksep(&text, " \t");
	if (strcmp(word, "if") != 0 || !text)
		return -EINVAL;
	*ret = text;
	return 0;
}

int ue_trigger_parse(const char *text, size_t len, struct ue_trigger_req *ret)
{
	char *buf, *next, *command, *param = NULL, *filter = NULL;
	int err;

	memset(ret, 0, sizeof(*ret));
	ret->count = UE_TRIGGER_UNLIMITED;
	if (!len)
		return 0;
	if (len >= UE_TRIGGER_MAX_WRITE)
		return -EINVAL;
	buf = strndup(text, len);
	if (!buf)
		return -ENOMEM;
	ret->buf = buf;
	trim_end(buf);

	next = buf = kskip(buf);
	command = ksep(&next, ": \t");
	if (next) {
		next = kskip(next);
		if (!*next)
			next = NULL;
	}
	if (command[0] == '!') {
		ret->remove = true;
		command++;
	}
	for (size_t i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++) {
		if (cmd_names[i] && strcmp(command, cmd_names[i]) == 0)
			ret->cmd = (enum ue_trigger_cmd)i;
	}
	if (ret->cmd == UE_TRIGGER_NONE)
		return -EINVAL;

	if (ret->cmd == UE_TRIGGER_ENABLE_EVENT || ret->cmd == UE_TRIGGER_DISABLE_EVENT) {
		/* SYSTEM:EVENT[:N] is required, a filter may follow it. */
		if (!next)
			return -EINVAL;
		param = ksep(&next, " \t");
		if (next) {
			filter = kskip(next);
			if (!*filter)
				filter = NULL;
		}
		ret->system = ksep(&param, ":");
		if (!param)
			return -EINVAL;
		ret->event = ksep(&param, ":");
		if (ret->remove)
			return 0;
		if (param)
			ret->late_err = parse_count(param, &ret->count);
		return split_if(filter, &ret->filter);
	}

	/* An optional count must start with a digit; anything else is the filter. */
	if (next && !isdigit((unsigned char)next[0])) {
		filter = next;
	} else if (next) {
		param = ksep(&next, " \t");
		if (next) {
			filter = kskip(next);
			if (!*filter)
				filter = NULL;
		}
	}
	if (ret->remove)
		return 0;
	if (param) {
		err = parse_count(param, &ret->count);
		if (err < 0)
			return err;
	}
	return split_if(filter, &ret->filter);
}

void ue_trigger_req_free(struct ue_trigger_req *req)
{
	if (!req)
		return;
	free(req->buf);
	req->buf = NULL;
}

static int cmd_kind(enum ue_trigger_cmd c)
{
	switch (c) {
	case UE_TRIGGER_TRACEON:
	case UE_TRIGGER_TRACEOFF:
		return 1;
	case UE_TRIGGER_ENABLE_EVENT:
	case UE_TRIGGER_DISABLE_EVENT:
		return 2;
	default:
		return 0;
	}
}

bool ue_trigger_same_kind(enum ue_trigger_cmd a, enum ue_trigger_cmd b)
{
	return cmd_kind(a) && cmd_kind(a) == cmd_kind(b);
}

int ue_trigger_print(enum ue_trigger_cmd cmd, const char *system, const char *event,
		     unsigned long count, const char *filter, char *buf, size_t len)
{
	char cnt[32];

	if (!cmd_kind(cmd))
		return -EINVAL;
	if (count == UE_TRIGGER_UNLIMITED)
		snprintf(cnt, sizeof(cnt), "unlimited");
	else
		snprintf(cnt, sizeof(cnt), "count=%ld", (long)count);
	if (cmd_kind(cmd) == 2)
		return snprintf(buf, len, "%s:%s:%s:%s%s%s\n", cmd_names[cmd], system, event, cnt,
				filter ? " if " : "", filter ? filter : "");
	return snprintf(buf, len, "%s:%s%s%s\n", cmd_names[cmd], cnt, filter ? " if " : "",
			filter ? filter : "");
}
