// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * slurp: all a reader gives, in one growing buffer.  For files with no size
 * to stat (/proc, tracefs): the caller's reader does the I/O (a system call
 * of its own, say), this only grows the buffer and loops, so core stays
 * without I/O of its own.
 */
#include <errno.h>
#include <stdlib.h>

#include "slurp.h"

char *ue_slurp(ssize_t (*rd)(void *ctx, void *buf, size_t n), void *ctx, size_t first,
	       size_t *ret_len)
{
	size_t len = 0, cap = first;
	char *buf = malloc(cap), *nb;
	ssize_t n;
	int e = ENOMEM;

	if (!buf)
		goto fail;
	for (;;) {
		/* Room for a page and the NUL at every read. */
		if (cap - len < 4097) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				e = ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		n = rd(ctx, buf + len, cap - len - 1);
		if (n == -EINTR)
			continue;
		if (n < 0) {
			e = (int)-n;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	return buf;
fail:
	free(buf);
	errno = e;
	return NULL;
}
