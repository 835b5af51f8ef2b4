// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * mountinfo: decoding the fields of /proc/PID/mountinfo, which the daemon,
 * the library and the tool read to find usereventsd mounts.  Pure: the
 * callers read the file.
 */
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
