// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * snap: the state snapshot's bytes (snap.h).  Integers are 8 bytes,
 * little-endian; a byte string is its length (UINT64_MAX: NULL) and its
 * bytes; a section is its tag (8 bytes), its length and its values.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snap.h"

#define HDR_LEN 16
#define NONE UINT64_MAX

static void put_le(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static bool reserve(struct ue_snap_w *w, size_t n)
{
	size_t ncap;
	unsigned char *nb;

	if (w->err)
		return false;
	if (n > w->max || w->len > w->max - n) {
		w->err = -E2BIG;
		return false;
	}
	if (w->len + n <= w->cap)
		return true;
	ncap = w->cap ? w->cap : 4096;
	while (ncap < w->len + n)
		ncap = ncap > w->max / 2 ? w->max : ncap * 2;
	nb = realloc(w->buf, ncap);
	if (!nb) {
		w->err = -ENOMEM;
		return false;
	}
	w->buf = nb;
	w->cap = ncap;
	return true;
}

int ue_snapw_init(struct ue_snap_w *w, size_t max)
{
	memset(w, 0, sizeof(*w));
	w->max = max < HDR_LEN ? HDR_LEN : max;
	if (!reserve(w, HDR_LEN))
		return w->err;
	memcpy(w->buf, UE_SNAP_MAGIC, 8);
	put_le(w->buf + 8, UE_SNAP_VERSION);
	w->len = HDR_LEN;
	return 0;
}

void ue_snapw_free(struct ue_snap_w *w)
{
	free(w->buf);
	free(w->fds);
	memset(w, 0, sizeof(*w));
}

void ue_snapw_u64(struct ue_snap_w *w, uint64_t v)
{
	if (!reserve(w, 8))
		return;
	put_le(w->buf + w->len, v);
	w->len += 8;
}

size_t ue_snapw_begin(struct ue_snap_w *w, uint32_t tag)
{
	size_t at = w->len;

	ue_snapw_u64(w, tag);
	ue_snapw_u64(w, 0);
	return at;
}

void ue_snapw_end(struct ue_snap_w *w, size_t begun)
{
	if (w->err || begun + 16 > w->len)
		return;
	put_le(w->buf + begun + 8, w->len - begun - 16);
}

void ue_snapw_bytes(struct ue_snap_w *w, const void *p, size_t n)
{
	ue_snapw_u64(w, n);
	if (!n || !reserve(w, n))
		return;
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void ue_snapw_str(struct ue_snap_w *w, const char *s)
{
	if (!s)
		ue_snapw_u64(w, NONE);
	else
		ue_snapw_bytes(w, s, strlen(s));
}

void ue_snapw_fd(struct ue_snap_w *w, int fd)
{
	int *nf;

	if (w->err)
		return;
	if (fd < 0 || w->fds_none) {
		ue_snapw_u64(w, NONE);
		return;
	}
	if (w->nfds == UE_SNAP_MAX_FDS) {
		w->err = -E2BIG;
		return;
	}
	if (w->nfds == w->fds_cap) {
		unsigned int ncap = w->fds_cap ? w->fds_cap * 2 : 64;

		nf = realloc(w->fds, ncap * sizeof(*nf));
		if (!nf) {
			w->err = -ENOMEM;
			return;
		}
		w->fds = nf;
		w->fds_cap = ncap;
	}
	w->fds[w->nfds] = fd;
	ue_snapw_u64(w, w->nfds);
	if (!w->err)
		w->nfds++;
}

int ue_snapr_init(struct ue_snap_r *r, const void *p, size_t len, int *fds, unsigned int nfds)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->len = len;
	r->fds = fds;
	r->nfds = nfds;
	if (len < HDR_LEN || memcmp(p, UE_SNAP_MAGIC, 8) != 0 ||
	    get_le(r->p + 8) != UE_SNAP_VERSION) {
		r->err = -EINVAL;
		return r->err;
	}
	r->off = HDR_LEN;
	return 0;
}

static bool take(struct ue_snap_r *r, size_t n)
{
	if (r->err)
		return false;
	if (n > r->len - r->off) {
		r->err = -EINVAL;
		return false;
	}
	return true;
}

uint64_t ue_snapr_u64(struct ue_snap_r *r)
{
	uint64_t v;

	if (!take(r, 8))
		return 0;
	v = get_le(r->p + r->off);
	r->off += 8;
	return v;
}

uint64_t ue_snapr_u64_max(struct ue_snap_r *r, uint64_t max)
{
	uint64_t v = ue_snapr_u64(r);

	if (v > max) {
		r->err = -EINVAL;
		return 0;
	}
	return v;
}

bool ue_snapr_section(struct ue_snap_r *r, uint32_t *tag, struct ue_snap_r *sub)
{
	uint64_t t, n;

	if (r->err || r->off == r->len)
		return false;
	t = ue_snapr_u64_max(r, UINT32_MAX);
	n = ue_snapr_u64(r);
	if (!take(r, n))
		return false;
	*tag = (uint32_t)t;
	memset(sub, 0, sizeof(*sub));
	sub->p = r->p + r->off;
	sub->len = n;
	sub->fds = r->fds;
	sub->nfds = r->nfds;
	r->off += n;
	return true;
}

static const void *bytes_or_none(struct ue_snap_r *r, size_t *len, bool *none)
{
	uint64_t n = ue_snapr_u64(r);
	const void *p;

	*len = 0;
	*none = !r->err && n == NONE;
	if (r->err || *none || !take(r, n))
		return NULL;
	p = r->p + r->off;
	r->off += n;
	*len = n;
	return p;
}

const void *ue_snapr_bytes(struct ue_snap_r *r, size_t *len)
{
	bool none;
	const void *p = bytes_or_none(r, len, &none);

	if (none)
		r->err = -EINVAL;
	return r->err ? NULL : p;
}

bool ue_snapr_str(struct ue_snap_r *r, char *buf, size_t cap)
{
	bool none;
	size_t n;
	const char *p = bytes_or_none(r, &n, &none);

	if (cap)
		buf[0] = 0;
	if (r->err || none)
		return false;
	if (n >= cap || (n && memchr(p, 0, n))) {
		r->err = -EINVAL;
		return false;
	}
	if (n)
		memcpy(buf, p, n);
	buf[n] = 0;
	return true;
}

int ue_snapr_fd(struct ue_snap_r *r)
{
	uint64_t i = ue_snapr_u64(r);
	int fd;

	if (r->err || i == NONE)
		return -1;
	if (i >= r->nfds || r->fds[i] < 0) {
		r->err = -EINVAL;
		return -1;
	}
	fd = r->fds[i];
	r->fds[i] = -1;
	return fd;
}
