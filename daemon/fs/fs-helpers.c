// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-helpers: what the files of the mount share, as the kernel's seq_file
 * and kstrtoul_from_user() serve tracefs: text snapshots built on open or
 * at offset 0 and served by offset, and numbers written to control files.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs.h"

void ue_fs_serve_text(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off,
		      int (*generate)(struct ue_daemon *d, struct ue_fh *fh))
{
	size_t o = off < 0 ? 0 : (size_t)off;
	char *slice = NULL;
	int r = 0;

	ue_mutex_lock(&fh->lock);
	/* Like seq_file: reading from the start shows the current state. */
	if (o == 0 || !fh->have_text)
		r = generate(ue_req_daemon(req), fh);
	if (r == 0 && o < fh->text_len) {
		if (size > fh->text_len - o)
			size = fh->text_len - o;
		slice = malloc(size);
		if (slice)
			memcpy(slice, fh->text + o, size);
		else
			r = -ENOMEM;
	} else {
		size = 0;
	}
	ue_mutex_unlock(&fh->lock);
	/*
	 * Replied only now: once the reply is out the caller may close the
	 * file, and its release may free @fh on another thread at once.
	 */
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_buf(req, slice, size);
	free(slice);
}

void ue_text_add(struct ue_text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t ncap = t->cap ? t->cap : 256;
		char *nb;

		while (ncap < t->len + n + 1)
			ncap *= 2;
		if (ncap > UE_TEXT_MAX) {
			t->failed = true;
			return;
		}
		nb = realloc(t->buf, ncap);
		if (!nb) {
			t->failed = true;
			return;
		}
		t->buf = nb;
		t->cap = ncap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

void ue_text_render(struct ue_text *t, int (*fn)(void *arg, char *buf, size_t len), void *arg)
{
	char small[512];
	int n;

	if (t->failed)
		return;
	n = fn(arg, small, sizeof(small));
	if (n < 0) {
		t->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		ue_text_add(t, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big) {
			t->failed = true;
			return;
		}
		if (fn(arg, big, (size_t)n + 1) == n)
			ue_text_add(t, big, (size_t)n);
		else
			t->failed = true;
		free(big);
	}
}

/* ue_text_printf()'s arguments, for ue_text_render(). */
struct text_vfmt {
	const char *fmt;
	va_list ap;
};

static int text_vformat(void *arg, char *buf, size_t len)
{
	struct text_vfmt *v = arg;
	va_list ap;
	int n;

	/* Called again when the text did not fit: each call formats from a copy. */
	va_copy(ap, v->ap);
	n = vsnprintf(buf, len, v->fmt, ap);
	va_end(ap);
	return n;
}

void ue_text_printf(struct ue_text *t, const char *fmt, ...)
{
	struct text_vfmt v = { .fmt = fmt };

	va_start(v.ap, fmt);
	ue_text_render(t, text_vformat, &v);
	va_end(v.ap);
}

int ue_text_to_fh(struct ue_text *t, struct ue_fh *fh)
{
	struct ue_daemon *d = fh->d;
	size_t add = t->len + 1, held;

	if (!t->failed) {
		held = atomic_fetch_add(&d->text_bytes, add);
		/* The snapshot it replaces is still counted: be strict, not exact. */
		if (held + add > d->opts.max_text_bytes) {
			atomic_fetch_sub(&d->text_bytes, add);
			t->failed = true;
		}
	}
	if (t->failed) {
		free(t->buf);
		memset(t, 0, sizeof(*t));
		return -ENOMEM;
	}
	if (fh->have_text)
		atomic_fetch_sub(&d->text_bytes, fh->text_len + 1);
	free(fh->text);
	fh->text = t->buf;
	fh->text_len = t->len;
	fh->have_text = true;
	memset(t, 0, sizeof(*t));
	return 0;
}

int ue_fs_show_text(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	(void)d;
	ue_text_add(&t, fh->ops->text, strlen(fh->ops->text));
	return ue_text_to_fh(&t, fh);
}

void ue_fs_reply_write(fuse_req_t req, int err, size_t size)
{
	if (err < 0)
		fuse_reply_err(req, -err);
	else
		fuse_reply_write(req, size);
}

int ue_parse_ulong(const char *buf, size_t size, unsigned long *ret)
{
	/* kstrtoul_from_user() looks at 66 bytes at most, up to a NUL; base 10 here. */
	char tmp[67];
	uint64_t v;
	int r;

	if (size > sizeof(tmp) - 1)
		size = sizeof(tmp) - 1;
	memcpy(tmp, buf, size);
	tmp[size] = '\0';
	r = ue_kstrtoull(tmp, 10, &v);
	if (r < 0)
		return r;
	if (v > ~0UL)
		return -ERANGE;
	*ret = (unsigned long)v;
	return 0;
}
