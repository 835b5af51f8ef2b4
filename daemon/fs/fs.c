// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs: the FUSE side of usereventsd (libfuse3 low level, multi-threaded).
 * Answers lookups, attributes and listings from the tree (fs-tree.c), keeps
 * the open-file handles and their limits, and dispatches each request on a
 * file to its operations (struct ue_file_ops, defined by the fs-*.c file
 * that owns it).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "fs.h"
#include "native.h"
#include "proc-events.h"

/* Entries that never change may be cached; the others are looked up each time. */
#define STATIC_TIMEOUT 3600.0

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ue_daemon *d = userdata;

	/* A table with more rows than the inode numbering has room for. */
	if (ue_tree_check() < 0) {
		fprintf(stderr, UE_DAEMON_NAME ": the tree's tables do not fit its inode numbers\n");
		abort();
	}
	d->max_write = conn->max_write;
	/* FOPEN_STREAM came with Linux 5.2; every kernel with FUSE 7.31 (5.9) honours it. */
	d->stream_pos = conn->proto_major > 7 || (conn->proto_major == 7 && conn->proto_minor >= 31);
	/* O_TRUNC arrives with open(): trace, set_event and dynamic_events act on it. */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* Nothing is cached: every file is generated or consumed on read. */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

static void reply_entry(fuse_req_t req, struct ue_daemon *d, struct ue_node *n)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = n->ino;
	e.generation = 1;
	ue_tree_attr(d, n, &e.attr);
	e.attr_timeout = n->dynamic ? 0.0 : STATIC_TIMEOUT;
	e.entry_timeout = n->dynamic ? 0.0 : STATIC_TIMEOUT;
	fuse_reply_entry(req, &e);
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_node n;
	int err;

	err = ue_tree_lookup(d, parent, name, &n);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	reply_entry(req, d, &n);
	ue_node_put(&n);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_node n;
	struct stat st;
	int err;

	(void)fi;
	err = ue_tree_resolve(d, ino, &n);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	ue_tree_attr(d, &n, &st);
	fuse_reply_attr(req, &st, n.dynamic ? 0.0 : STATIC_TIMEOUT);
	ue_node_put(&n);
}

/*
 * chmod and chown of the fixed nodes stick, as on tracefs (the kernel has
 * checked that the caller may: default_permissions); sizes stay 0
 * (docs/compat.md).
 */
static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync(ue_daemon_native(ue_req_daemon(req)));
	ue_state_begin(ue_req_daemon(req));
	ue_tree_setattr(ue_req_daemon(req), ino, attr, to_set);
	ue_state_end(ue_req_daemon(req));
	fs_getattr(req, ino, fi);
}

/*
 * The number the kernel keeps for an open file (fi->fh) is its slot in
 * d->fh_slots plus one, not its address: a daemon that takes the mount over
 * (upgrade.c, checkpoint.c) puts each file back in its slot, and the
 * kernel's numbers still name them.  The high half is the epoch of the
 * daemon that opened it (daemon.h).  Slots are found from a stack of free
 * ones, made at the first open (after a restore has taken its slots).
 */
static int fh_slots_alloc_locked(struct ue_daemon *d)
{
	if (!d->fh_slots)
		d->fh_slots = calloc(d->opts.max_files, sizeof(*d->fh_slots));
	if (!d->fh_ids)
		d->fh_ids = calloc(d->opts.max_files, sizeof(*d->fh_ids));
	return d->fh_slots && d->fh_ids ? 0 : -ENOMEM;
}

static inline uint32_t fh_slot(uint64_t id)
{
	return (uint32_t)id - 1;
}

static void fh_slot_set_locked(struct ue_daemon *d, struct ue_fh *fh)
{
	atomic_store(&d->fh_ids[fh_slot(fh->id)], fh->id);
	__atomic_store_n(&d->fh_slots[fh_slot(fh->id)], fh, __ATOMIC_RELEASE);
}

static int fh_slot_take_locked(struct ue_daemon *d, struct ue_fh *fh)
{
	uint32_t slot;

	ue_mutex_assert_held(&d->fh_lock);
	if (fh_slots_alloc_locked(d) < 0)
		return -ENOMEM;
	if (!d->fh_free) {
		d->fh_free = malloc(d->opts.max_files * sizeof(*d->fh_free));
		if (!d->fh_free)
			return -ENOMEM;
		d->fh_nfree = 0;
		for (uint32_t i = d->opts.max_files; i-- > 0;)
			if (!d->fh_slots[i])
				d->fh_free[d->fh_nfree++] = i;
	}
	if (!d->fh_nfree)
		return -EMFILE;
	slot = d->fh_free[--d->fh_nfree];
	fh->id = (uint64_t)d->fh_epoch << 32 | ((uint64_t)slot + 1);
	fh_slot_set_locked(d, fh);
	return 0;
}

static void fh_link_locked(struct ue_daemon *d, struct ue_fh *fh)
{
	fh->next = d->fh_list;
	if (d->fh_list)
		d->fh_list->prev = fh;
	d->fh_list = fh;
}

void ue_fh_destroy(struct ue_daemon *d, struct ue_fh *fh)
{
	if (!fh->ops) {
		for (size_t i = 0; i < fh->dir.n; i++)
			free(fh->dir.ents[i].name);
		free(fh->dir.ents);
	}
	ue_revent_release(fh->ev);
	if (fh->have_text)
		atomic_fetch_sub(&d->text_bytes, fh->text_len + 1);
	free(fh->text);
	ue_mutex_destroy(&fh->lock);
	free(fh);
}

struct ue_fh *ue_fh_alloc(struct ue_daemon *d, const struct ue_file_ops *ops)
{
	struct ue_fh *fh = calloc(1, sizeof(*fh));

	if (!fh)
		return NULL;
	fh->d = d;
	fh->ops = ops;
	ue_mutex_init(&fh->lock, UE_LOCK_FH);
	return fh;
}

int ue_fh_put_in_slot(struct ue_daemon *d, struct ue_fh *fh, uint64_t id)
{
	int err = 0;

	ue_mutex_lock(&d->fh_lock);
	err = fh_slots_alloc_locked(d);
	if (!err && (d->fh_free || (uint32_t)id == 0 || (uint32_t)id > d->opts.max_files ||
		     id >> 32 >= d->fh_epoch || d->fh_slots[fh_slot(id)]))
		err = -EINVAL;	/* after the first open, a slot twice, or a later epoch's */
	if (!err) {
		fh->id = id;
		fh_slot_set_locked(d, fh);
		fh_link_locked(d, fh);
		atomic_fetch_add(&d->open_files, 1);
	}
	ue_mutex_unlock(&d->fh_lock);
	return err;
}

/* Return: 0, -EMFILE past max_files (a client cannot make us grow), -ENOMEM. */
static int fh_new(struct ue_daemon *d, const struct ue_file_ops *ops, struct ue_fh **ret)
{
	struct ue_fh *fh;
	int err;

	if (atomic_fetch_add(&d->open_files, 1) >= d->opts.max_files) {
		atomic_fetch_sub(&d->open_files, 1);
		return -EMFILE;
	}
	fh = ue_fh_alloc(d, ops);
	if (!fh) {
		atomic_fetch_sub(&d->open_files, 1);
		return -ENOMEM;
	}
	ue_mutex_lock(&d->fh_lock);
	err = fh_slot_take_locked(d, fh);
	if (!err)
		fh_link_locked(d, fh);
	ue_mutex_unlock(&d->fh_lock);
	if (err < 0) {
		ue_mutex_destroy(&fh->lock);
		free(fh);
		atomic_fetch_sub(&d->open_files, 1);
		return err;
	}
	*ret = fh;
	return 0;
}

static void fh_free(struct ue_daemon *d, struct ue_fh *fh)
{
	if (!fh)
		return;
	ue_mutex_lock(&d->fh_lock);
	if (fh->prev)
		fh->prev->next = fh->next;
	else
		d->fh_list = fh->next;
	if (fh->next)
		fh->next->prev = fh->prev;
	if (fh->id) {
		__atomic_store_n(&d->fh_slots[fh_slot(fh->id)], NULL, __ATOMIC_RELEASE);
		atomic_store(&d->fh_ids[fh_slot(fh->id)], 0);
		if (d->fh_free)
			d->fh_free[d->fh_nfree++] = fh_slot(fh->id);
	}
	ue_mutex_unlock(&d->fh_lock);
	ue_fh_destroy(d, fh);
	atomic_fetch_sub(&d->open_files, 1);
}

/* What release does for a file, before its handle is freed. */
static void fh_close(struct ue_daemon *d, struct ue_fh *fh)
{
	if (fh->ops && fh->ops->release)
		fh->ops->release(d, fh);
	fh_free(d, fh);
}

void ue_fs_cleanup(struct ue_daemon *d)
{
	while (d->fh_list)
		fh_close(d, d->fh_list);
	free(d->fh_slots);
	free((void *)d->fh_ids);
	free(d->fh_free);
	d->fh_slots = NULL;
	d->fh_ids = NULL;
	d->fh_free = NULL;
}

/*
 * The end of an open or opendir: on @err the handle is dropped; otherwise it
 * is handed to the kernel, and closed at once if the opener is gone
 * (interrupted), since no release will come.  For a directory fh_close() is
 * fh_free().
 */
static void reply_open(fuse_req_t req, struct ue_daemon *d, struct ue_fh *fh,
		       struct fuse_file_info *fi, int err)
{
	if (err < 0) {
		fh_free(d, fh);
		fuse_reply_err(req, -err);
		return;
	}
	fi->fh = fh->id;
	if (fuse_reply_open(req, fi) != 0)
		fh_close(d, fh);
}

/*
 * The open reply of a file whose ops say .stream, built here: libfuse 3.14's
 * struct fuse_file_info has no bits for FOPEN_STREAM (no file position at
 * all, Linux 5.2) or FOPEN_PARALLEL_DIRECT_WRITES (Linux 6.2), and
 * fuse_reply_open() sends exactly this struct fuse_open_out.  Kernels that
 * do not know a flag ignore it (FOPEN_NONSEEKABLE stays for them).
 *
 * Parallel writes: the kernel's FUSE takes the inode lock shared for a
 * direct write that does not reach past i_size, exclusive otherwise.
 * With no position, a write starts at 0 and then sets i_size to its length
 * (the size a stat shows comes from getattr: still 0), so once a write of
 * an event's size went through, the next ones of that size or less from
 * other threads run side by side.
 */
static void reply_open_stream(fuse_req_t req, struct ue_daemon *d, struct ue_fh *fh,
			      const struct fuse_file_info *fi)
{
	enum {
		OPEN_DIRECT_IO = 1u << 0,
		OPEN_NONSEEKABLE = 1u << 2,
		OPEN_STREAM = 1u << 4,
		OPEN_NOFLUSH = 1u << 5,
		OPEN_PARALLEL_DIRECT_WRITES = 1u << 6,
	};
	struct {
		uint64_t fh;
		uint32_t open_flags;
		uint32_t padding;
	} out = {
		.fh = fh->id,
		.open_flags = OPEN_DIRECT_IO | OPEN_NONSEEKABLE | OPEN_STREAM |
			      OPEN_PARALLEL_DIRECT_WRITES | (fi->noflush ? OPEN_NOFLUSH : 0),
	};

	_Static_assert(sizeof(out) == 16, "struct fuse_open_out");
	if (fuse_reply_buf(req, (const char *)&out, sizeof(out)) != 0)
		fh_close(d, fh);
}

/*
 * The kernel hands back only numbers we gave; anything else finds NULL, and
 * so does a number a crashed predecessor gave after its last checkpoint
 * (another epoch, or a slot it freed since).  The file's number is checked
 * before its address is used: a slot freed meanwhile is cleared first.
 */
static inline struct ue_fh *lookup_fh(struct ue_daemon *d, struct fuse_file_info *fi)
{
	struct ue_fh *fh;

	if (!d->fh_slots || (uint32_t)fi->fh == 0 || (uint32_t)fi->fh > d->opts.max_files)
		return NULL;
	fh = __atomic_load_n(&d->fh_slots[fh_slot(fi->fh)], __ATOMIC_ACQUIRE);
	return fh && atomic_load(&d->fh_ids[fh_slot(fi->fh)]) == fi->fh ? fh : NULL;
}

/* The open file of a request; when there is none, the request is answered EBADF. */
static inline struct ue_fh *get_fh(fuse_req_t req, struct fuse_file_info *fi)
{
	struct ue_fh *fh = lookup_fh(ue_req_daemon(req), fi);

	if (!fh)
		fuse_reply_err(req, EBADF);
	return fh;
}

/* A directory's handle keeps the listing made at opendir (and at a restore: fs-snap.c). */
int ue_fh_dir_add(void *arg, const char *name, fuse_ino_t ino, mode_t mode)
{
	struct ue_dir_fill *df = arg;
	struct ue_fh *fh = df->fh;
	struct ue_dirent *e;

	if (fh->dir.n == df->cap) {
		size_t ncap = df->cap ? df->cap * 2 : 16;

		e = realloc(fh->dir.ents, ncap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		fh->dir.ents = e;
		df->cap = ncap;
	}
	e = &fh->dir.ents[fh->dir.n];
	e->name = strdup(name);
	if (!e->name)
		return -ENOMEM;
	e->ino = ino;
	e->mode = mode;
	fh->dir.n++;
	return 0;
}

/* A request that changes what a checkpoint keeps (daemon.h, ue_state_begin()). */
static void changing_state(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
			   void (*fn)(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi))
{
	struct ue_daemon *d = ue_req_daemon(req);	/* req is gone once answered */

	ue_state_begin(d);
	fn(req, ino, fi);
	ue_state_end(d);
}

static void do_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_dir_fill df = { 0 };
	struct ue_node n;
	int err;

	err = ue_tree_resolve(d, ino, &n);
	if (!err && n.ops)
		err = -ENOTDIR;
	if (!err)
		err = fh_new(d, NULL, &df.fh);
	if (!err)
		df.fh->ino = ino;
	if (err < 0) {
		ue_node_put(&n);
		fuse_reply_err(req, -err);
		return;
	}
	err = ue_tree_list(d, &n, ue_fh_dir_add, &df);
	ue_node_put(&n);
	reply_open(req, d, df.fh, fi, err);
}

static void fs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	changing_state(req, ino, fi, do_opendir);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct ue_fh *fh = get_fh(req, fi);
	size_t used = 0;
	char *buf;

	if (!fh)
		return;

	(void)ino;
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (size_t i = off < 0 ? 0 : (size_t)off; i < fh->dir.n; i++) {
		struct ue_dirent *e = &fh->dir.ents[i];
		struct stat st = { .st_ino = e->ino, .st_mode = e->mode };
		size_t len = fuse_add_direntry(req, buf + used, size - used, e->name, &st,
					       (off_t)(i + 1));

		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void do_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	struct ue_fh *fh = get_fh(req, fi);

	if (fh) {
		fh_free(ue_req_daemon(req), fh);
		fuse_reply_err(req, 0);
	}
}

static void fs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	changing_state(req, ino, fi, do_releasedir);
}

static void do_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	const struct ue_file_ops *ops;
	struct ue_fh *fh;
	struct ue_node n;
	int err;
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync(ue_daemon_native(ue_req_daemon(req)));

	err = ue_tree_resolve(d, ino, &n);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	ops = n.ops;
	if (!ops) {
		ue_node_put(&n);
		fuse_reply_err(req, EISDIR);
		return;
	}
	err = fh_new(d, ops, &fh);
	if (err < 0) {
		ue_node_put(&n);
		fuse_reply_err(req, -err);
		return;
	}
	fh->ino = ino;
	fh->multi = n.multi;
	fh->option = n.option;
	fh->ev = n.ev;
	n.ev = NULL;
	fh->open_flags = fi->flags;

	/* Every file is generated on read: no page cache, exact offsets. */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fi->nonseekable = ops->nonseekable;
	/* A file with a flush method must see each close() at once. */
	fi->noflush = !ops->flush;
	err = ops->open ? ops->open(req, fh) : 0;
	if (err == 0 && ops->stream)
		reply_open_stream(req, d, fh, fi);
	else
		reply_open(req, d, fh, fi, err);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	changing_state(req, ino, fi, do_open);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct ue_fh *fh = get_fh(req, fi);

	if (!fh)
		return;
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync(ue_daemon_native(ue_req_daemon(req)));

	(void)ino;
	if (fh->ops->read)
		fh->ops->read(req, fh, size, off, fi->flags);
	else if (fh->ops->show)
		ue_fs_serve_text(req, fh, size, off, fh->ops->show);
	else if (fh->ops->text)
		ue_fs_serve_text(req, fh, size, off, ue_fs_show_text);
	else
		fuse_reply_err(req, EINVAL);	/* no read method: vfs_read() says EINVAL */
}

static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_fh *fh = get_fh(req, fi);
	unsigned long val;
	int err;

	if (!fh)
		return;
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync(ue_daemon_native(ue_req_daemon(req)));

	(void)ino;
	if (fh->ops->payload) {
		fh->ops->write(req, fh, buf, size, off);
		return;
	}
	/* The request is gone once answered: its daemon is taken before. */
	ue_state_begin(d);
	if (fh->ops->write) {
		fh->ops->write(req, fh, buf, size, off);
	} else if (fh->ops->set) {
		err = ue_parse_ulong(buf, size, &val);
		if (!err)
			err = fh->ops->set(d, fh, val);
		ue_fs_reply_write(req, err, size);
	} else {
		fuse_reply_err(req, EINVAL);	/* read-only files opened by root, as vfs_write() */
	}
	ue_state_end(d);
}

static void do_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_fh *fh = get_fh(req, fi);

	if (!fh)
		return;

	(void)ino;
	if (fh->ops->flush)
		fh->ops->flush(ue_req_daemon(req), fh);
	/* Before an exiting process's children are reparented (no proc connector). */
	ue_proc_events_closing(ue_req_daemon(req)->procev, fuse_req_ctx(req)->pid);
	fuse_reply_err(req, 0);
}

static void fs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	changing_state(req, ino, fi, do_flush);
}

static void do_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_fh *fh;

	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync(ue_daemon_native(ue_req_daemon(req)));

	(void)ino;
	fh = get_fh(req, fi);
	if (fh) {
		fh_close(ue_req_daemon(req), fh);
		fuse_reply_err(req, 0);
	}
}

static void fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	changing_state(req, ino, fi, do_release);
}

static void fs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		     struct fuse_file_info *fi, unsigned int flags, const void *in_buf,
		     size_t in_bufsz, size_t out_bufsz)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_fh *fh;

	(void)ino;
	(void)in_buf;
	(void)in_bufsz;
	(void)out_bufsz;
	ue_state_begin(d);
	fh = get_fh(req, fi);
	if (fh) {
		/* Native writes that returned before this request are in the buffer first. */
		ue_native_sync(ue_daemon_native(d));
		if (fh->ops->ioctl)
			fh->ops->ioctl(req, fh, cmd, arg, flags);
		else
			fuse_reply_err(req, ENOTTY);
	}
	ue_state_end(d);
}

static void fs_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct ue_fh *fh = get_fh(req, fi);

	if (!fh)
		return;

	(void)ino;
	if (fh->ops->poll) {
		fh->ops->poll(req, fh, ph);
		return;
	}
	/*
	 * Files without a poll method are always ready (DEFAULT_POLLMASK).
	 * Answering ENOSYS instead would turn poll off for the whole mount.
	 */
	if (ph)
		fuse_pollhandle_destroy(ph);
	fuse_reply_poll(req, POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
}

/* No extended attributes, as on tracefs, but those a file's getxattr gives. */
static void fs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct ue_daemon *d = ue_req_daemon(req);
	const char *val = NULL;
	struct ue_node n;
	size_t len;
	int err;

	err = ue_tree_resolve(d, ino, &n);
	if (!err) {
		err = n.ops && n.ops->getxattr ? n.ops->getxattr(d, name, &val) : -EOPNOTSUPP;
		ue_node_put(&n);
	}
	if (err < 0) {
		/* Extended attributes of a node that went: none, as before. */
		fuse_reply_err(req, err == -ENOENT ? EOPNOTSUPP : -err);
		return;
	}
	len = strlen(val);
	if (size == 0)
		fuse_reply_xattr(req, len);
	else if (size < len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, val, len);
}

/* An empty list, as tracefs gives (the native path's name is not listed). */
static void fs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	(void)ino;
	if (size == 0)
		fuse_reply_xattr(req, 0);
	else
		fuse_reply_buf(req, NULL, 0);
}

static void fs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs st;

	(void)ino;
	memset(&st, 0, sizeof(st));
	st.f_bsize = 4096;
	st.f_frsize = 4096;
	st.f_namemax = 255;
	fuse_reply_statfs(req, &st);
}

const struct fuse_lowlevel_ops ue_fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.setattr = fs_setattr,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.flush = fs_flush,
	.release = fs_release,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
	.statfs = fs_statfs,
	.getxattr = fs_getxattr,
	.listxattr = fs_listxattr,
	.ioctl = fs_ioctl,
	.poll = fs_poll,
};
