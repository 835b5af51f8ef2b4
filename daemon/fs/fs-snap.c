// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-snap: the open files in a state snapshot (core/snap.h), for the daemon
 * that takes the mount over (usereventsd --upgrade).  Each file keeps its
 * number (fi->fh, its slot), its node, its flags and the text a read had
 * begun; what its kind holds beyond that (user_events_data's table, a
 * session's holds and patterns, trace_pipe's leftover) its ops carry.  A
 * directory is listed again.  A file whose node is gone (its event deleted
 * while it was open) is not carried: the kernel's next request on it gets
 * EBADF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "snap.h"

enum { TAG_FILES = 0x46494c31, TAG_FH = 0x46484e31 };

static int save_fh(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_w *w)
{
	size_t at = ue_snapw_begin(w, TAG_FH);
	int err = 0;

	ue_snapw_u64(w, fh->id);
	ue_snapw_u64(w, fh->ino);
	ue_snapw_u64(w, (uint64_t)(uint32_t)fh->open_flags);
	ue_snapw_bool(w, fh->ops != NULL);
	ue_mutex_lock(&fh->lock);
	ue_snapw_bool(w, fh->have_text);
	ue_snapw_bytes(w, fh->text ? fh->text : "", fh->have_text ? fh->text_len : 0);
	ue_mutex_unlock(&fh->lock);
	if (fh->ops && fh->ops->save)
		err = fh->ops->save(d, fh, w);
	ue_snapw_end(w, at);
	return err ? err : w->err;
}

/*
 * The FUSE loop has stopped: no file opens or goes meanwhile.  The list is
 * copied under its lock, which ranks after each file's.
 */
int ue_fs_save(struct ue_daemon *d, struct ue_snap_w *w)
{
	size_t at = ue_snapw_begin(w, TAG_FILES), n = 0;
	struct ue_fh **all;
	int err = 0;

	all = calloc(atomic_load(&d->open_files) + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	ue_mutex_lock(&d->fh_lock);
	for (struct ue_fh *fh = d->fh_list; fh && n <= atomic_load(&d->open_files); fh = fh->next)
		all[n++] = fh;
	ue_mutex_unlock(&d->fh_lock);
	for (size_t i = 0; i < n && !err; i++)
		err = save_fh(d, all[i], w);
	free(all);
	ue_snapw_end(w, at);
	return err ? err : w->err;
}

/* A handle whose restore failed: what its kind's part took goes, then the handle. */
static void drop_fh(struct ue_daemon *d, struct ue_fh *fh)
{
	if (fh->ops && fh->ops->release)
		fh->ops->release(d, fh);
	ue_fh_destroy(d, fh);
}

static int restore_fh(struct ue_daemon *d, struct ue_snap_r *r)
{
	uint64_t id = ue_snapr_u64(r), ino = ue_snapr_u64(r);
	int open_flags = (int)(uint32_t)ue_snapr_u64_max(r, UINT32_MAX);
	bool is_file = ue_snapr_bool(r), have_text = ue_snapr_bool(r);
	size_t text_len;
	const void *text = ue_snapr_bytes(r, &text_len);
	struct ue_node n;
	struct ue_fh *fh;
	int err;

	if (r->err)
		return r->err;
	if (ue_tree_resolve(d, ino, &n) < 0)
		return 0;	/* its node went: not carried */
	if (is_file != (n.ops != NULL)) {
		ue_node_put(&n);
		return -EINVAL;
	}
	fh = ue_fh_alloc(d, n.ops);
	if (!fh) {
		ue_node_put(&n);
		return -ENOMEM;
	}
	fh->ino = ino;
	fh->multi = n.multi;
	fh->option = n.option;
	fh->open_flags = open_flags;
	if (have_text) {
		fh->text = malloc(text_len + 1);
		if (!fh->text) {
			err = -ENOMEM;
			goto fail;
		}
		memcpy(fh->text, text, text_len);
		fh->text[text_len] = 0;
		fh->text_len = text_len;
		fh->have_text = true;
		atomic_fetch_add(&d->text_bytes, text_len + 1);
	}
	fh->ev = n.ev;
	n.ev = NULL;
	if (!n.ops) {
		struct ue_dir_fill df = { fh, 0 };

		err = ue_tree_list(d, &n, ue_fh_dir_add, &df);
	} else {
		err = n.ops->restore ? n.ops->restore(d, fh, r) : 0;
	}
	if (!err)
		err = ue_fh_put_in_slot(d, fh, id);
	if (err < 0)
		goto fail;
	ue_node_put(&n);
	return 0;
fail:
	ue_node_put(&n);
	drop_fh(d, fh);
	return err;
}

int ue_fs_restore(struct ue_daemon *d, struct ue_snap_r *snap)
{
	struct ue_snap_r r, sub;
	uint32_t tag;
	int err = 0;

	if (!ue_snapr_section(snap, &tag, &r) || tag != TAG_FILES)
		return -EINVAL;
	while (!err && ue_snapr_section(&r, &tag, &sub))
		err = tag == TAG_FH ? restore_fh(d, &sub) : -EINVAL;
	return err ? err : r.err;
}
