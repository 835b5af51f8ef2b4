/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private to core/: an output buffer with snprintf's contract, shared by the
 * text renderers (format-print.c, render.c).  Appends past the end are counted but
 * not stored, so one pass both sizes and fills.
 */
#ifndef UE_CORE_OUTBUF_H
#define UE_CORE_OUTBUF_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct outbuf {
	char *buf;
	size_t len;	/* capacity, NUL included; 0 when only sizing */
	size_t pos;	/* bytes the full text needs so far */
};

static inline void ob_init(struct outbuf *ob, char *buf, size_t len)
{
	ob->buf = len ? buf : NULL;
	ob->len = buf ? len : 0;
	ob->pos = 0;
	if (ob->len)
		ob->buf[0] = '\0';
}

static inline void ob_putn(struct outbuf *ob, const char *s, size_t n)
{
	if (ob->pos < ob->len) {
		size_t room = ob->len - 1 - ob->pos;

		/*
		 * Most pieces are a few bytes: no call for them, two overlapping
		 * loads and stores of 8 or 4 bytes rather than a loop.
		 */
		if (n <= 16 && n <= room) {
			char *d = ob->buf + ob->pos;

			if (n >= 8) {
				memcpy(d, s, 8);
				memcpy(d + n - 8, s + n - 8, 8);
			} else if (n >= 4) {
				memcpy(d, s, 4);
				memcpy(d + n - 4, s + n - 4, 4);
			} else {
				for (size_t i = 0; i < n; i++)
					d[i] = s[i];
			}
		} else {
			memcpy(ob->buf + ob->pos, s, n < room ? n : room);
		}
	}
	ob->pos += n;
}

static inline void ob_puts(struct outbuf *ob, const char *s)
{
	ob_putn(ob, s, strlen(s));
}

static inline void ob_putc(struct outbuf *ob, char c)
{
	ob_putn(ob, &c, 1);
}

static inline __attribute__((format(printf, 2, 3))) void ob_printf(struct outbuf *ob,
								     const char *fmt, ...)
{
	char *dst = NULL;
	size_t room = 0;
	va_list ap;
	int n;

	if (ob->pos < ob->len) {
		dst = ob->buf + ob->pos;
		room = ob->len - ob->pos;
	}
	va_start(ap, fmt);
	n = vsnprintf(dst, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		ob->pos += (size_t)n;
}

/* NUL-terminates what fits and returns the full length, as snprintf does. */
static inline int ob_finish(struct outbuf *ob)
{
	if (ob->len)
		ob->buf[ob->pos < ob->len ? ob->pos : ob->len - 1] = '\0';
	if (ob->pos > INT_MAX)
		return -EOVERFLOW;
	return (int)ob->pos;
}

#endif /* UE_CORE_OUTBUF_H */
