// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-data: user_events_data.  The three ioctls (their arguments read from
 * the caller's memory, since FUSE only passes the raw pointer), the per-file
 * write_index table and writes: [u32 write_index][payload] becomes a record
 * in the trace buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"
#include "channel.h"
#include "commit.h"
#include "counts.h"
#include "snap.h"
#include "fs.h"
#include "native.h"
#include "native-proto.h"
#include "proc-events.h"
#include "procmem.h"
#include "tasks.h"

/* Bytes of struct user_reg / user_unreg up to their last mandatory field. */
#define REG_MIN_SIZE 28
#define UNREG_MIN_SIZE 16
/* The kernel refuses argument structs larger than a page (E2BIG). */
#define ARG_MAX_SIZE 4096
/*
 * access_ok() on x86-64 with 4-level page tables: user addresses end one
 * page below 2^47.
 */
#define USER_ADDR_END ((UINT64_C(1) << 47) - 4096)
/*
 * How long a deletion or a refused registration waits for the releases of
 * files already closed.  Only those paths wait, and only while a closed
 * file's RELEASE has not come; on a loaded machine FUSE's background queue
 * took longer than 50 ms (a close and a new registration failed).
 */
#define RELEASE_WAIT_MS 500

void ue_data_open(struct ue_daemon *d, struct ue_fh *fh)
{
	(void)d;
	memset(&fh->data, 0, sizeof(fh->data));
}

/* A file used again after a close of one of its descriptors is not closing. */
static void data_unflush(struct ue_daemon *d, struct ue_fh *fh)
{
	if (!__atomic_load_n(&fh->data.flushed, __ATOMIC_RELAXED))
		return;
	ue_mutex_lock(&d->release_lock);
	if (fh->data.flushed) {
		fh->data.flushed = false;
		d->flushed_files--;
	}
	ue_mutex_unlock(&d->release_lock);
}

void ue_data_flush(struct ue_daemon *d, struct ue_fh *fh)
{
	ue_mutex_lock(&d->release_lock);
	if (!fh->data.flushed) {
		fh->data.flushed = true;
		d->flushed_files++;
	}
	ue_mutex_unlock(&d->release_lock);
}

void ue_data_release(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_data_file *df = &fh->data;

	/* The kernel's user_events_release(): the file's references go. */
	for (uint32_t i = 0; i < df->count; i++)
		ue_revent_put(df->events[i]);
	free(df->events);
	df->events = NULL;
	df->count = 0;
	ue_mutex_lock(&d->release_lock);
	if (df->flushed) {
		df->flushed = false;
		d->flushed_files--;
	}
	pthread_cond_broadcast(&d->release_cond);
	ue_mutex_unlock(&d->release_lock);
}

/*
 * FUSE sends RELEASE in the background after close() returned, while the
 * kernel releases user_events_data before close() returns.  Before calling
 * an event busy, give the releases of already closed files a moment.
 */
static void wait_for_releases(struct ue_daemon *d)
{
	struct timespec deadline;

	ue_deadline_ms(&deadline, RELEASE_WAIT_MS);
	ue_mutex_lock(&d->release_lock);
	while (d->flushed_files > 0) {
		if (ue_cond_timedwait(&d->release_cond, &d->release_lock, &deadline) ==
		    ETIMEDOUT)
			break;
	}
	ue_mutex_unlock(&d->release_lock);
}

void ue_data_busy_hook(void *arg)
{
	struct ue_daemon *d = arg;

	/* Enablers of processes that exited hold references the kernel would have dropped. */
	if (d->enablers)
		ue_enablers_sweep(d->enablers);
	wait_for_releases(d);
}

static bool releases_pending(struct ue_daemon *d)
{
	bool pending;

	ue_mutex_lock(&d->release_lock);
	pending = d->flushed_files > 0;
	ue_mutex_unlock(&d->release_lock);
	return pending;
}

/* Caller memory as the caller could load it, through the handle that pins its address space. */
static int mem_read(struct ue_procmem *pm, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;

	if (!len)
		return 0;
	n = ue_procmem_read_user(pm, addr, buf, len);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* check_zeroed_user(): 1 when all zero, 0 when not, -EFAULT. */
static int mem_zeroed(struct ue_procmem *pm, uint64_t addr, size_t len)
{
	uint8_t buf[ARG_MAX_SIZE];

	/* Callers pass the tail of a struct of at most ARG_MAX_SIZE bytes. */
	if (len > sizeof(buf) || mem_read(pm, addr, buf, len) < 0)
		return -EFAULT;
	for (size_t i = 0; i < len; i++)
		if (buf[i])
			return 0;
	return 1;
}

/*
 * strndup_user(@addr, UE_MAX_EVENT_DESC): EFAULT when unreadable before a
 * NUL, EINVAL when no NUL comes within the limit.  Read a page at a time,
 * so nothing past the page that holds the NUL is touched.
 */
static int mem_read_string(struct ue_procmem *pm, uint64_t addr, char *buf)
{
	size_t got = 0;

	while (got < UE_MAX_EVENT_DESC) {
		uint64_t at = addr + got;
		size_t chunk = 4096 - (size_t)(at & 4095);
		ssize_t n;

		if (at < addr)
			return -EFAULT;
		if (chunk > UE_MAX_EVENT_DESC - got)
			chunk = UE_MAX_EVENT_DESC - got;
		n = ue_procmem_read_user(pm, at, buf + got, chunk);
		if (n <= 0)
			return -EFAULT;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
		if ((size_t)n < chunk)
			return -EFAULT;
	}
	return -EINVAL;
}

/* put_user() of write_index: a write the process could do itself, or none. */
static void mem_write_u32(struct ue_procmem *pm, uint64_t addr, uint32_t val)
{
	uint8_t b[4];

	memcpy(b, &val, sizeof(b));
	if (ue_procmem_writable(pm, addr) < 0 || ue_procmem_writable(pm, addr + 3) < 0)
		return;
	for (unsigned int i = 0; i < 4; i++) {
		if (ue_procmem_write_byte(pm, addr + i, b[i]) < 0)
			return;
	}
}

/*
 * copy_struct_from_user(): @ksize bytes of a struct the caller says is
 * @usize long; bytes beyond what we know must be zero (E2BIG).
 */
static int copy_struct(struct ue_procmem *pm, uint64_t uaddr, uint32_t usize, void *dst,
		       size_t ksize)
{
	int r;

	memset(dst, 0, ksize);
	if (usize > ksize) {
		r = mem_zeroed(pm, uaddr + ksize, usize - ksize);
		if (r <= 0)
			return r ? r : -E2BIG;
	}
	return mem_read(pm, uaddr, dst, usize < ksize ? usize : ksize);
}

static uint32_t file_events_max(const struct ue_daemon *d)
{
	return d->opts.max_file_events ? d->opts.max_file_events : UE_DEFAULT_MAX_FILE_EVENTS;
}

/*
 * Index of @ev in the file's table, taking a reference when it is new.  The
 * table only grows until the file is closed (unregistering keeps the slot,
 * as in the kernel), so it is bounded: past max_file_events, -ENOMEM, the
 * kernel's answer when it cannot grow the table.
 */
static int ref_add(struct ue_daemon *d, struct ue_fh *fh, struct ue_revent *ev)
{
	struct ue_data_file *df = &fh->data;
	uint32_t max = file_events_max(d);
	int idx = -1;

	ue_mutex_lock(&fh->lock);
	for (uint32_t i = 0; i < df->count; i++) {
		if (df->events[i] == ev) {
			idx = (int)i;
			break;
		}
	}
	if (idx < 0 && df->count >= max) {
		ue_mutex_unlock(&fh->lock);
		return -ENOMEM;
	}
	if (idx < 0) {
		if (df->count == df->cap) {
			uint32_t ncap = df->cap ? df->cap * 2 : 8;
			struct ue_revent **n = realloc(df->events, ncap * sizeof(*n));

			if (!n) {
				ue_mutex_unlock(&fh->lock);
				return -ENOMEM;
			}
			df->events = n;
			df->cap = ncap;
		}
		ue_revent_get(ev);
		idx = (int)df->count;
		/* Published last: a concurrent write sees a complete slot or none. */
		df->events[idx] = ev;
		__atomic_store_n(&df->count, df->count + 1, __ATOMIC_RELEASE);
	}
	ue_mutex_unlock(&fh->lock);
	return idx;
}

/* Whether ref_add() would find @ev in the file's table or room for it. */
static bool ref_fits(struct ue_daemon *d, struct ue_fh *fh, struct ue_revent *ev)
{
	struct ue_data_file *df = &fh->data;
	uint32_t max = file_events_max(d);
	bool fits;

	ue_mutex_lock(&fh->lock);
	fits = df->count < max;
	for (uint32_t i = 0; i < df->count && !fits; i++)
		fits = df->events[i] == ev;
	ue_mutex_unlock(&fh->lock);
	return fits;
}

/*
 * The first half of the kernel's user_reg_get() and user_unreg_get(): the
 * size the caller gives, bounded, then the struct as copy_struct_from_user()
 * copies it.  @dst is zeroed first, whatever fails.  Return: 0 or -errno;
 * *@ret_size (may be NULL) gets the size once it is within bounds.
 */
static int user_struct_get(struct ue_procmem *pm, uint64_t uaddr, uint32_t min_size, void *dst,
			   size_t dst_size, uint32_t *ret_size)
{
	uint32_t size;
	int r;

	memset(dst, 0, dst_size);
	r = mem_read(pm, uaddr, &size, sizeof(size));
	if (r < 0)
		return r;
	if (size > ARG_MAX_SIZE)
		return -E2BIG;
	if (size < min_size)
		return -EINVAL;
	if (ret_size)
		*ret_size = size;
	return copy_struct(pm, uaddr, size, dst, dst_size);
}

/* The kernel's user_reg_get(). */
static int reg_get(struct ue_procmem *pm, uint64_t uaddr, struct user_reg *reg)
{
	uint32_t size;
	int r;

	r = user_struct_get(pm, uaddr, REG_MIN_SIZE, reg, sizeof(*reg), &size);
	if (r < 0)
		return r;
	if (reg->flags & ~(USER_EVENT_REG_MAX - 1))
		return -EINVAL;
	if (reg->enable_size != 4 && reg->enable_size != 8)
		return -EINVAL;
	if (reg->enable_addr % reg->enable_size)
		return -EINVAL;
	if (reg->enable_bit > reg->enable_size * 8 - 1)
		return -EINVAL;
	/* The size is a byte: access_ok() only checks where the word starts. */
	if (reg->enable_addr > USER_ADDR_END)
		return -EFAULT;
	reg->size = size;
	return 0;
}

/* The caller, its capability read only when it can matter (it costs a /proc read). */
static struct ue_who caller_who(const struct ue_daemon *d, fuse_req_t req, bool need_capable)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	return (struct ue_who){
		.capable = need_capable || d->opts.owner_only ? ue_caller_capable(ctx->pid) : true,
		.uid = ctx->uid,
	};
}

static int ioctl_reg(struct ue_daemon *d, fuse_req_t req, struct ue_fh *fh, struct ue_proc *caller,
		     uint64_t uaddr)
{
	struct ue_procmem *pm = ue_proc_mem(caller);
	char name_args[UE_MAX_EVENT_DESC];
	struct user_reg reg;
	struct ue_revent *ev;
	struct ue_who who;
	bool retried = false;
	int r, idx;

	r = reg_get(pm, uaddr, &reg);
	if (r < 0)
		return r;
	/* The kernel refuses an address and bit in use before it reads name_args. */
	r = ue_enabler_exists(d->enablers, caller, reg.enable_addr, reg.enable_bit);
	if (r > 0)
		return -EADDRINUSE;
	if (r < 0)
		return -EFAULT;
	r = mem_read_string(pm, reg.name_args, name_args);
	if (r < 0)
		return r;
	who = caller_who(d, req, reg.flags & USER_EVENT_REG_PERSIST);
again:
	r = ue_registry_register(d->reg, name_args, reg.flags, &who, &ev);
	if ((r == -EADDRINUSE || (r == -EPERM && d->opts.owner_only)) && !retried &&
	    releases_pending(d)) {
		/* The old event (another owner's) may only wait for the release of a closed file. */
		retried = true;
		wait_for_releases(d);
		goto again;
	}
	if (r < 0)
		return r;

	/* The kernel adds to the file's table before it makes the enabler. */
	if (!ref_fits(d, fh, ev)) {
		ue_revent_put(ev);
		return -ENOMEM;
	}
	/*
	 * The enabler first: the kernel refuses an address and bit already in
	 * use before it takes any reference, so that error must leave the
	 * file's table alone.  The state written is read through the
	 * registry's is_enabled op, under the enablers' lock.
	 */
	r = ue_enabler_add(d->enablers, caller, reg.enable_addr, reg.enable_bit, reg.enable_size,
			   ev, ue_revent_enabled(ev));
	if (r == -EADDRINUSE) {
		ue_revent_put(ev);
		return r;
	}
	idx = ref_add(d, fh, ev);
	ue_revent_put(ev);
	if (idx < 0) {
		/* The kernel fails before it makes the enabler: undo ours. */
		if (r == 0)
			ue_enabler_remove(d->enablers, caller, reg.enable_addr, reg.enable_bit);
		return idx;
	}
	/* A failed enable write keeps the file's reference, as in the kernel. */
	if (r < 0)
		return r == -ESRCH ? -EFAULT : r;
	mem_write_u32(pm, uaddr + offsetof(struct user_reg, write_index), (uint32_t)idx);
	return 0;
}

static int ioctl_del(struct ue_daemon *d, fuse_req_t req, struct ue_procmem *pm, uint64_t uaddr)
{
	char name[UE_MAX_EVENT_DESC];
	struct ue_who who;
	int r;

	r = mem_read_string(pm, uaddr, name);
	if (r < 0)
		return r;
	who = caller_who(d, req, true);
	return ue_registry_delete(d->reg, name, &who);
}

/* The kernel's user_unreg_get(): the reserved fields are checked after a failed copy too. */
static int unreg_get(struct ue_procmem *pm, uint64_t uaddr, struct user_unreg *unreg)
{
	int r = user_struct_get(pm, uaddr, UNREG_MIN_SIZE, unreg, sizeof(*unreg), NULL);

	if (r == -EFAULT)
		return r;
	/* Zeroed when the size was refused: its errno stands. */
	if (unreg->__reserved || unreg->__reserved2)
		return -EINVAL;
	return r;
}

static int ioctl_unreg(struct ue_daemon *d, struct ue_proc *caller, uint64_t uaddr)
{
	struct user_unreg unreg;
	int r;

	r = unreg_get(ue_proc_mem(caller), uaddr, &unreg);
	if (r < 0)
		return r;
	r = ue_enabler_remove(d->enablers, caller, unreg.disable_addr, unreg.disable_bit);
	return r == -ESRCH ? -EFAULT : r;
}

void ue_data_ioctl(fuse_req_t req, struct ue_fh *fh, unsigned int cmd, void *arg,
		   unsigned int flags)
{
	struct ue_daemon *d = ue_req_daemon(req);
	pid_t tid = fuse_req_ctx(req)->pid;
	struct ue_proc *caller = NULL;
	int r;

	data_unflush(d, fh);
	/* The file has no compat_ioctl: a 32-bit caller gets ENOTTY. */
	if ((flags & FUSE_IOCTL_COMPAT) || (cmd != DIAG_IOCSREG && cmd != DIAG_IOCSDEL &&
					     cmd != DIAG_IOCSUNREG && cmd != UE_IOC_FORKED)) {
		fuse_reply_err(req, ENOTTY);
		return;
	}
	/*
	 * The caller waits in this ioctl, so its thread is alive: the handle
	 * opened now pins its address space for every access below, and is
	 * the caller's proof in every enabler call of this request.  A caller
	 * whose pid we cannot see (another pid namespace) gets EFAULT.
	 */
	r = ue_proc_open(d->enablers, tid, &caller);
	if (r < 0) {
		fuse_reply_err(req, EFAULT);
		return;
	}
	/* Forks, execs and exits reported before this request come first, as in the kernel. */
	ue_proc_events_sync(d->procev, caller);
	switch (cmd) {
	case DIAG_IOCSREG:
		r = ioctl_reg(d, req, fh, caller, (uintptr_t)arg);
		break;
	case DIAG_IOCSDEL:
		r = ioctl_del(d, req, ue_proc_mem(caller), (uintptr_t)arg);
		break;
	case UE_IOC_FORKED:
		/*
		 * A fork child: the sync above found, proved and confirmed it;
		 * what changed since its fork (an enable write the parent made
		 * as fork() returned to it) is written before this returns.
		 */
		ue_enablers_settle_caller(d->enablers, caller);
		r = 0;
		break;
	default:
		r = ioctl_unreg(d, caller, (uintptr_t)arg);
		break;
	}
	ue_proc_close(caller);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_ioctl(req, 0, NULL, 0);
}

/*
 * Whether this request continues a write() that FUSE cut into pieces (at
 * max_write, or sooner at its page limit when the vector has small
 * segments).  The file is a stream (FOPEN_STREAM): each write starts at
 * offset 0 and only its further pieces come at a higher one, whatever other
 * threads write meanwhile.  Kernels before that flag keep a position: there
 * a piece follows the previous request, which was a piece near max_write.
 */
static bool split_piece(struct ue_daemon *d, struct ue_fh *fh, size_t size, off_t off)
{
	struct ue_data_file *df = &fh->data;
	bool cont;

	if (d->stream_pos)
		return off != 0;
	ue_mutex_lock(&fh->lock);
	cont = df->split && (uint64_t)off == df->split_next;
	df->split = d->max_write > 4096 && size >= d->max_write - 4096;
	df->split_next = (uint64_t)off + size;
	ue_mutex_unlock(&fh->lock);
	return cont;
}

void ue_data_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_data_file *df = &fh->data;
	_Alignas(8) unsigned char rec[UE_BUFFER_MAX_RECORD];
	const struct ue_event *desc;
	struct ue_entry_hdr hdr;
	struct ue_rec_meta meta;
	struct ue_filter_ctx fctx;
	struct ue_revent *ev = NULL;
	struct ue_commit commit;
	unsigned int verdict;
	struct iovec iov;
	size_t payload;
	int32_t idx;
	int cpu, r;

	__atomic_fetch_add(&d->fuse_writes, 1, __ATOMIC_RELAXED);
	data_unflush(d, fh);
	if (split_piece(d, fh, size, off)) {
		/* The rest of a write too large for any record: taken, as the first piece. */
		fuse_reply_write(req, size);
		return;
	}
	/* The kernel copies the index first: a shorter write faults. */
	if (size < sizeof(idx)) {
		fuse_reply_err(req, EFAULT);
		return;
	}
	memcpy(&idx, buf, sizeof(idx));
	if (idx < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	/* Slots are only ever appended: the count is published after its slot. */
	if ((uint32_t)idx < __atomic_load_n(&df->count, __ATOMIC_ACQUIRE)) {
		ue_mutex_lock(&fh->lock);
		ev = df->events[idx];
		ue_mutex_unlock(&fh->lock);
	}
	if (!ev) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	desc = ue_revent_desc(ev);
	payload = size - sizeof(idx);
	if (payload < desc->min_size) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (!ue_revent_enabled(ev)) {
		fuse_reply_err(req, EBADF);
		return;
	}
	/*
	 * As the kernel: when no record is to be built (soft-disabled,
	 * recording off and no trigger needing it, larger than the largest
	 * record: 4072 bytes there, UE_BUFFER_MAX_RECORD here) nothing is
	 * validated or stored and the write still succeeds.
	 */
	if (!ue_commit_begin(&commit, ev, d->buf) || payload + sizeof(hdr) > sizeof(rec)) {
		fuse_reply_write(req, size);
		return;
	}
	hdr.type = (uint16_t)ue_revent_id(ev);
	hdr.flags = 0;
	hdr.preempt_count = 0;
	hdr.pid = fuse_req_ctx(req)->pid;
	memcpy(rec, &hdr, sizeof(hdr));
	memcpy(rec + sizeof(hdr), buf + sizeof(idx), payload);
	r = ue_check_record(ue_revent_check(ev), rec, sizeof(hdr) + payload);
	if (r < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	ue_task_lookup(d->tasks, hdr.pid, &meta);
	meta.ts_ns = 0;
	meta.cpu = 0;
	cpu = sched_getcpu();
	fctx.cpu = cpu < 0 ? 0 : (unsigned int)cpu % ue_buffer_ncpus(d->buf);
	fctx.comm = meta.comm;
	verdict = ue_commit_decide(&commit, rec, sizeof(hdr) + payload, &fctx);
	if (verdict & UE_COMMIT_STORE) {
		/* A blocking reader behind: this writer waits (bounded), as the native ones do. */
		ue_buffer_chan_wait_room(d->buf);
		iov.iov_base = rec;
		iov.iov_len = sizeof(hdr) + payload;
		r = ue_buffer_write(d->buf, fctx.cpu, &meta, &iov, 1, iov.iov_len);
		if (r == 0)
			ue_cmdlines_remember(d->cmdlines, &meta);
		/* Refused by a full ring (discard mode): lost.  Recording off (-EAGAIN): never written. */
		if (r == 0 || r == -ENOSPC)
			ue_counts_add(d->counts, meta.tgid > 0 ? meta.tgid : hdr.pid, hdr.type, meta.comm,
				      meta.tid == meta.tgid,
				      1, iov.iov_len, r == -ENOSPC);
	}
	if (verdict & UE_COMMIT_THEN_TRIGGER)
		ue_commit_trigger(&commit);
	fuse_reply_write(req, size);
}

static int data_open(fuse_req_t req, struct ue_fh *fh)
{
	ue_data_open(ue_req_daemon(req), fh);
	return 0;
}

/*
 * No extended attributes, as on tracefs, but one: user_events_data names
 * the socket of this daemon's native path, for libuserevents (fgetxattr()
 * on its descriptor reaches the daemon that serves that very file).
 */
static int data_getxattr(struct ue_daemon *d, const char *name, const char **ret_value)
{
	const char *val = NULL;

	if (strcmp(name, UE_NATIVE_XATTR) == 0)
		val = ue_native_name(ue_daemon_native(d));
	else if (strcmp(name, UE_CONTROL_XATTR) == 0 && d->ctl_sock >= 0)
		val = d->ctl_name;
	if (!val)
		return -EOPNOTSUPP;
	*ret_value = val;
	return 0;
}

/*
 * No read method (EINVAL).  Each write() is one request with the caller's
 * bytes: the file position means nothing (see docs/compat.md on pwrite).
 * Close must reach us at once: the file's references go on release.
 * Writes of several threads need not wait for each other (.stream): the
 * write path takes only the file's and the buffer's own locks.
 */
static int data_save(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_w *w)
{
	struct ue_data_file *df = &fh->data;

	(void)d;
	ue_mutex_lock(&fh->lock);
	ue_snapw_u64(w, df->count);
	for (uint32_t i = 0; i < df->count; i++)
		ue_snapw_u64(w, ue_revent_id(df->events[i]));
	ue_snapw_bool(w, df->flushed);
	ue_snapw_bool(w, df->split);
	ue_snapw_u64(w, df->split_next);
	ue_mutex_unlock(&fh->lock);
	return w->err;
}

static int data_restore(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_r *r)
{
	struct ue_data_file *df = &fh->data;
	uint64_t n = ue_snapr_u64_max(r, file_events_max(d));

	if (r->err)
		return r->err;
	df->events = calloc(n ? n : 1, sizeof(*df->events));
	if (!df->events)
		return -ENOMEM;
	df->cap = (uint32_t)(n ? n : 1);
	for (uint64_t i = 0; i < n; i++) {
		struct ue_revent *ev = ue_registry_find_id(d->reg, (unsigned int)ue_snapr_u64(r));

		if (!ev)
			return -EINVAL;
		/* The file's reference, as DIAG_IOCSREG took it. */
		ue_revent_get(ev);
		ue_revent_release(ev);
		df->events[df->count++] = ev;
	}
	df->flushed = ue_snapr_bool(r);
	df->split = ue_snapr_bool(r);
	df->split_next = ue_snapr_u64(r);
	if (df->flushed) {
		ue_mutex_lock(&d->release_lock);
		d->flushed_files++;
		ue_mutex_unlock(&d->release_lock);
	}
	return r->err;
}

/* The file's table of events, by type id, and where a split write stands. */
static const struct ue_file_ops data_fops = {
	.save = data_save,
	.restore = data_restore,
	.open = data_open,
	.write = ue_data_write,
	.payload = true,
	.ioctl = ue_data_ioctl,
	.flush = ue_data_flush,
	.release = ue_data_release,
	.getxattr = data_getxattr,
	.nonseekable = true,
	.stream = true,
};

static const struct ue_fs_file files[] = {
	{ UE_DIR_ROOT, "user_events_data", 0640, &data_fops },
};

const struct ue_fs_files ue_data_files = UE_FS_FILES(files);
