// SPDX-License-Identifier: LGPL-2.1-or-later
/* Exits 0 when its library's constructor (preload-early-lib.c) got through. */
#include <stdio.h>

extern int early_done;

int main(void)
{
	if (!early_done) {
		fprintf(stderr, "preload-early: the constructor's calls failed\n");
		return 1;
	}
	return 0;
}
