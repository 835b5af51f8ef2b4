/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/snap: usereventsd's state as bytes, for a daemon that hands its
 * mount to the next one (usereventsd --upgrade).  A snapshot is a header
 * (magic, version) and a list of sections, each a 32-bit tag and a 64-bit
 * length; a section holds values in order: fixed-width little-endian
 * integers, byte strings with their length, and descriptors by their index
 * in the list of descriptors that travels beside the bytes (SCM_RIGHTS).
 *
 * The writer grows its buffer up to a bound; the reader never reads past
 * its input.  Both keep the first error and turn every later call into a
 * no-op returning zeros, so a caller checks once, at the end.  Pure: no
 * I/O (the descriptors are numbers here), fuzzed as it is.
 */
#ifndef UE_CORE_SNAP_H
#define UE_CORE_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UE_SNAP_MAGIC "UESNAP\r\n"
#define UE_SNAP_VERSION 1
/* Descriptors one snapshot may carry. */
#define UE_SNAP_MAX_FDS 65536

struct ue_snap_w {
	unsigned char *buf;
	size_t len, cap, max;
	int *fds;		/* the descriptors written, in index order (not owned) */
	unsigned int nfds, fds_cap;
	int err;		/* the first error, -ENOMEM or -E2BIG */
	/*
	 * A checkpoint kept for a crash (daemon/checkpoint.c): no descriptor
	 * can outlive the process that holds it, so each is written as none
	 * and a reader opens again what it can prove is the same.
	 */
	bool fds_none;
};

struct ue_snap_r {
	const unsigned char *p;
	size_t len, off;
	int *fds;		/* received descriptors; a taken one becomes -1 */
	unsigned int nfds;
	int err;		/* the first error, -EINVAL (malformed) */
};

/**
 * ue_snapw_init - an empty snapshot holding its header
 * @w: the writer
 * @max: most bytes the snapshot may grow to (-E2BIG past it)
 *
 * Return: 0 or -ENOMEM.  Free with ue_snapw_free().
 */
int ue_snapw_init(struct ue_snap_w *w, size_t max);
void ue_snapw_free(struct ue_snap_w *w);

/* A section: ue_snapw_end(w, ue_snapw_begin(w, TAG)) around its values. */
size_t ue_snapw_begin(struct ue_snap_w *w, uint32_t tag);
void ue_snapw_end(struct ue_snap_w *w, size_t begun);

void ue_snapw_u64(struct ue_snap_w *w, uint64_t v);
static inline void ue_snapw_bool(struct ue_snap_w *w, bool v)
{
	ue_snapw_u64(w, v);
}
void ue_snapw_bytes(struct ue_snap_w *w, const void *p, size_t n);
/* A string, or NULL (read back as NULL). */
void ue_snapw_str(struct ue_snap_w *w, const char *s);
/* A descriptor: its index among the snapshot's; -1 travels as "none". */
void ue_snapw_fd(struct ue_snap_w *w, int fd);

/**
 * ue_snapr_init - read a whole snapshot
 * @r: the reader
 * @p: the snapshot's bytes, @len of them
 * @fds: the descriptors that came with it, @nfds of them
 *
 * Return: 0, or -EINVAL when the header is not a snapshot of this version.
 */
int ue_snapr_init(struct ue_snap_r *r, const void *p, size_t len, int *fds, unsigned int nfds);

/*
 * The next section: its tag, and @sub reading its values only.  False at
 * the end, or on a malformed section (r->err set).
 */
bool ue_snapr_section(struct ue_snap_r *r, uint32_t *tag, struct ue_snap_r *sub);

uint64_t ue_snapr_u64(struct ue_snap_r *r);
static inline bool ue_snapr_bool(struct ue_snap_r *r)
{
	return ue_snapr_u64(r) != 0;
}
/* Most @max: larger is malformed. */
uint64_t ue_snapr_u64_max(struct ue_snap_r *r, uint64_t max);
/* The bytes in place (NULL with *len 0 on error). */
const void *ue_snapr_bytes(struct ue_snap_r *r, size_t *len);
/*
 * A string into @buf of @cap bytes, NUL-terminated.  Return: true when
 * there was one, false for NULL or an error (a string with a NUL inside,
 * or longer than @cap - 1, is malformed).
 */
bool ue_snapr_str(struct ue_snap_r *r, char *buf, size_t cap);
/*
 * A descriptor, now the caller's (its slot becomes -1; asked twice it is
 * malformed); -1 when none was written.
 */
int ue_snapr_fd(struct ue_snap_r *r);

/* Whether everything read so far was well formed and @r is at its end. */
static inline bool ue_snapr_done(const struct ue_snap_r *r)
{
	return r->err == 0 && r->off == r->len;
}

#endif /* UE_CORE_SNAP_H */
