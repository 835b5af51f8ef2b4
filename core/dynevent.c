// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One line written to dynamic_events, as Linux 6.12 reads it: "u:" creates
 * a user event, "-:[SYS/]NAME [fields]" and "!PREFIX:[SYS/]NAME [fields]"
 * delete the events they match, '#' starts a comment, and anything else
 * belongs to another dynamic event provider.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static bool all_space(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!ue_kspace(s[i]))
			return false;
	return true;
}

/* A delete line: its first word names the event, the other words its fields. */
static int parse_delete(const char *line, size_t len, struct ue_dynevent_cmd *ret_cmd)
{
	const char *first = line, *event, *slash, *sys = NULL, *p;
	size_t first_len = 0, event_len, sys_len = 0, pos;

	while (first_len < len && !ue_kspace(first[first_len]))
		first_len++;
	if (first[0] == '-') {
		if (first_len < 2 || first[1] != ':')
			return -EINVAL;
		event = first + 2;
	} else {
		event = memchr(first, ':', first_len);
		if (!event)
			return -EINVAL;
		event++;
	}
	event_len = first_len - (size_t)(event - first);
	slash = memchr(event, '/', event_len);
	if (slash) {
		sys = event;
		sys_len = (size_t)(slash - event);
		event_len -= sys_len + 1;
		event = slash + 1;
	}
	/* With a system named, an empty event name is allowed (and matches an empty name). */
	if (!sys && !event_len)
		return -EINVAL;

	ret_cmd->op = UE_DYNEVENT_DELETE;
	ret_cmd->has_system = sys != NULL;
	/* A system too long for the buffer is neither "user_events" nor "user_events_multi". */
	if (sys_len >= sizeof(ret_cmd->system))
		sys_len = sizeof(ret_cmd->system) - 1;
	memcpy(ret_cmd->system, sys ? sys : "", sys_len);
	ret_cmd->system[sys_len] = '\0';

	/* The words are rejoined by single spaces: no longer than the line itself. */
	memcpy(ret_cmd->name_args, event, event_len);
	pos = event_len;
	p = first + first_len;
	while (p < line + len) {
		size_t n = 0;

		while (p < line + len && ue_kspace(*p))
			p++;
		while (p + n < line + len && !ue_kspace(p[n]))
			n++;
		if (!n)
			break;
		ret_cmd->name_args[pos++] = ' ';
		memcpy(ret_cmd->name_args + pos, p, n);
		pos += n;
		p += n;
	}
	ret_cmd->name_args[pos] = '\0';
	return 0;
}

int ue_dynevent_parse(const char *line, struct ue_dynevent_cmd *ret_cmd)
{
	const char *hash, *p;
	size_t len;

	if (!line || !ret_cmd)
		return -EINVAL;
	len = strnlen(line, UE_DYNEVENT_MAX_LINE);
	if (len == UE_DYNEVENT_MAX_LINE)
		return -EINVAL;
	hash = memchr(line, '#', len);
	if (hash)
		len = (size_t)(hash - line);

	if (len && (line[0] == '-' || line[0] == '!'))
		return parse_delete(line, len, ret_cmd);
	if (len >= 2 && line[0] == 'u' && line[1] == ':') {
		p = line + 2;
		while (p < line + len && ue_kspace(*p))
			p++;
		ret_cmd->op = UE_DYNEVENT_CREATE;
		ret_cmd->has_system = false;
		ret_cmd->system[0] = '\0';
		memcpy(ret_cmd->name_args, p, len - (size_t)(p - line));
		ret_cmd->name_args[len - (size_t)(p - line)] = '\0';
		return 0;
	}
	/*
	 * The kernel offers a blank line to every provider; the probe
	 * providers take it as a no-op, so it succeeds doing nothing.
	 */
	if (all_space(line, len))
		return -ENOENT;
	return -ECANCELED;
}

bool ue_dynevent_match(const struct ue_dynevent_cmd *cmd, const struct ue_event *event)
{
	struct ue_words w = { .split_semis = false };
	size_t name_len;

	if (!cmd || !event || cmd->op != UE_DYNEVENT_DELETE)
		return false;
	name_len = strcspn(cmd->name_args, " ");
	if (strlen(event->name) != name_len || memcmp(event->name, cmd->name_args, name_len) != 0)
		return false;
	if (cmd->has_system && strcmp(cmd->system, "user_events") != 0 &&
	    strcmp(cmd->system, "user_events_multi") != 0)
		return false;
	w.pos = cmd->name_args + name_len;
	return ue_fields_match_words(event, &w);
}
