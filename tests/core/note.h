/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * note(): names a table case as a TAP comment before it runs, with control
 * and non-ASCII bytes escaped so the stream stays valid TAP.
 */
#ifndef UE_TEST_NOTE_H
#define UE_TEST_NOTE_H

#include <stdio.h>

static inline void note(const char *s)
{
	printf("# ");
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	putchar('\n');
}

#endif /* UE_TEST_NOTE_H */
