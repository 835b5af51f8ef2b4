// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mountinfo: the fields of /proc/PID/mountinfo, which the daemon, the
 * library, its interposer and the tool read to find usereventsd mounts:
 * escapes, a line cut into fields, what a usereventsd mount is.  Pure: the
 * callers read the file.
 */
#include <errno.h>
#include <string.h>

#include "core.h"

void ue_mountinfo_unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

int ue_mountinfo_split(char *line, struct ue_mount_entry *ret)
{
	struct ue_mount_entry m = { 0 };
	char *save = NULL, *tok;
	bool dash = false;
	int i = 0;

	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), i++) {
		if (i == 4)
			m.mount_point = tok;
		else if (dash && !m.fstype)
			m.fstype = tok;
		else if (dash && !m.source)
			m.source = tok;
		else if (!dash && i > 5 && strcmp(tok, "-") == 0)
			dash = true;
	}
	if (!m.mount_point || !m.fstype)
		return -EINVAL;
	*ret = m;
	return 0;
}

bool ue_mount_is_usereventsd(const struct ue_mount_entry *m)
{
	return strcmp(m->fstype, "fuse.usereventsd") == 0 ||
	       (strncmp(m->fstype, "fuse", 4) == 0 && m->source &&
		strcmp(m->source, "usereventsd") == 0);
}
