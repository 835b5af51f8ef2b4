/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * slurp: a whole file of no known size (/proc, tracefs) in one malloc'd,
 * NUL-terminated buffer, read through the caller's reader: the interposer
 * reads with raw system calls, the tools with read().
 */
#ifndef UE_CORE_SLURP_H
#define UE_CORE_SLURP_H

#include <stddef.h>
#include <sys/types.h>

/**
 * ue_slurp - all a reader gives, NUL-terminated
 * @rd: reads up to @n bytes into @buf: their number, 0 at the end, or
 *      -errno (-EINTR: asked again)
 * @ctx: for @rd
 * @first: the buffer's first size, above 4096 (it doubles while @rd gives more)
 * @ret_len: the bytes read (the NUL not counted), or NULL
 *
 * Return: the buffer (free() it), or NULL with errno: ENOMEM, or @rd's.
 */
char *ue_slurp(ssize_t (*rd)(void *ctx, void *buf, size_t n), void *ctx, size_t first,
	       size_t *ret_len);

#endif /* UE_CORE_SLURP_H */
