// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The two seams the request-handler fuzzers fill, and nothing else: the
 * daemon's modules are linked as usereventsd links them, less
 *  - libfuse (usereventsd alone links it): the request and reply calls the
 *    handlers make (a request here only records its reply);
 *  - procmem (daemon/procs/procmem.h, a library of its own): the caller's
 *    memory, an image in a buffer, and its capabilities.
 * A definition here of anything else would collide with the module's own
 * at link time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handler.h"
#include "procmem.h"
#include "counts.h"
#include "tasks.h"

/* A request: who sent it and what the handler replied. */
struct fuse_req {
	struct ue_daemon *d;
	struct fuse_ctx ctx;
	bool replied;
	int err;
	size_t count;
};

int fuse_reply_err(fuse_req_t req, int err)
{
	if (req->replied)
		abort();	/* a handler must reply exactly once */
	req->replied = true;
	req->err = err;
	return 0;
}

int fuse_reply_write(fuse_req_t req, size_t count)
{
	if (req->replied)
		abort();
	req->replied = true;
	req->count = count;
	return 0;
}

/* Only reads reply with bytes: the targets make none. */
int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size)
{
	(void)req, (void)buf, (void)size;
	abort();
}

int fuse_reply_ioctl(fuse_req_t req, int result, const void *buf, size_t size)
{
	(void)buf;
	(void)size;
	if (req->replied)
		abort();
	req->replied = true;
	req->count = (size_t)result;
	return 0;
}

void *fuse_req_userdata(fuse_req_t req)
{
	return req->d;
}

const struct fuse_ctx *fuse_req_ctx(fuse_req_t req)
{
	return &req->ctx;
}

/* The caller's memory, shared with the enablers' writer threads. */
static struct {
	pthread_mutex_t lock;
	uint8_t *data;
	size_t len;
	bool writable;
	bool capable;
} img = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct ue_procmem {
	struct ue_procmem_id id;
};

static const struct ue_procmem_id fz_id = { .tgid = FZ_TID, .start_time = 1 };

void fz_image_set(const void *data, size_t len, bool writable)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		abort();
	memcpy(copy, data, len);
	pthread_mutex_lock(&img.lock);
	free(img.data);
	img.data = copy;
	img.len = len;
	img.writable = writable;
	pthread_mutex_unlock(&img.lock);
}

void fz_capable(bool capable)
{
	img.capable = capable;
}

bool ue_caller_capable(pid_t tid)
{
	return tid == FZ_TID && img.capable;
}

int ue_procmem_identify(pid_t tid, struct ue_procmem_id *ret_id)
{
	if (tid != FZ_TID)
		return -ESRCH;
	*ret_id = fz_id;
	return 0;
}

bool ue_procmem_id_equal(const struct ue_procmem_id *a, const struct ue_procmem_id *b)
{
	return a->tgid == b->tgid && a->start_time == b->start_time &&
	       a->start_stack == b->start_stack;
}

int ue_procmem_open(pid_t tid, struct ue_procmem **ret_pm)
{
	struct ue_procmem *pm;

	if (tid != FZ_TID)
		return -ESRCH;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return -ENOMEM;
	pm->id = fz_id;
	*ret_pm = pm;
	return 0;
}

int ue_procmem_dup(const struct ue_procmem *pm, struct ue_procmem **ret_pm)
{
	struct ue_procmem *copy = malloc(sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	*copy = *pm;
	*ret_pm = copy;
	return 0;
}

void ue_procmem_close(struct ue_procmem *pm)
{
	free(pm);
}

const struct ue_procmem_id *ue_procmem_get_id(const struct ue_procmem *pm)
{
	return &pm->id;
}

/* The image has no descriptors: a snapshot of it carries none. */
void ue_procmem_fds(const struct ue_procmem *pm, int *ret_mem_fd, int *ret_maps_fd,
		    bool *ret_text_maps)
{
	(void)pm;
	*ret_mem_fd = -1;
	*ret_maps_fd = -1;
	*ret_text_maps = false;
}

int ue_procmem_adopt(int mem_fd, int maps_fd, bool text_maps, const struct ue_procmem_id *id,
		     struct ue_procmem **ret_pm)
{
	struct ue_procmem *pm = calloc(1, sizeof(*pm));

	(void)mem_fd;
	(void)maps_fd;
	(void)text_maps;
	if (!pm)
		return -ENOMEM;
	pm->id = *id;
	*ret_pm = pm;
	return 0;
}

int ue_procmem_alive(struct ue_procmem *pm)
{
	(void)pm;
	return 1;
}

/* Offset of @addr in the image, or -1; called with img.lock held. */
static long long img_off(uint64_t addr)
{
	return addr >= FZ_BASE && addr - FZ_BASE < img.len ? (long long)(addr - FZ_BASE) : -1;
}

int ue_procmem_writable(struct ue_procmem *pm, uint64_t addr)
{
	int r;

	(void)pm;
	pthread_mutex_lock(&img.lock);
	r = img_off(addr) >= 0 && img.writable ? 0 : -EFAULT;
	pthread_mutex_unlock(&img.lock);
	return r;
}

ssize_t ue_procmem_read(struct ue_procmem *pm, uint64_t addr, void *buf, size_t len)
{
	long long off;
	size_t n = 0;

	(void)pm;
	if (addr + len < addr)
		return -EFAULT;
	if (!len)
		return 0;
	pthread_mutex_lock(&img.lock);
	off = img_off(addr);
	if (off >= 0) {
		n = img.len - (size_t)off < len ? img.len - (size_t)off : len;
		memcpy(buf, img.data + off, n);
	}
	pthread_mutex_unlock(&img.lock);
	return n ? (ssize_t)n : -EIO;
}

/* The image has no protections: what is mapped can be loaded. */
ssize_t ue_procmem_read_user(struct ue_procmem *pm, uint64_t addr, void *buf, size_t len)
{
	ssize_t n = ue_procmem_read(pm, addr, buf, len);

	return n == -EIO ? -EFAULT : n;
}

int ue_procmem_read_byte(struct ue_procmem *pm, uint64_t addr, uint8_t *ret_val)
{
	return ue_procmem_read(pm, addr, ret_val, 1) == 1 ? 0 : -EIO;
}

int ue_procmem_write_byte(struct ue_procmem *pm, uint64_t addr, uint8_t val)
{
	long long off;

	(void)pm;
	pthread_mutex_lock(&img.lock);
	off = img_off(addr);
	if (off >= 0)
		img.data[off] = val;
	pthread_mutex_unlock(&img.lock);
	return off >= 0 ? 0 : -EIO;
}

int ue_procmem_update_bit(struct ue_procmem *pm, uint64_t addr, unsigned int bit, bool set)
{
	long long off;

	(void)pm;
	if (bit > 7)
		return -EINVAL;
	pthread_mutex_lock(&img.lock);
	off = img_off(addr);
	if (off >= 0 && img.writable) {
		if (set)
			img.data[off] |= (uint8_t)(1u << bit);
		else
			img.data[off] &= (uint8_t)~(1u << bit);
	}
	pthread_mutex_unlock(&img.lock);
	return off >= 0 && img.writable ? 0 : -EFAULT;
}

int ue_procmem_vma(struct ue_procmem *pm, uint64_t addr, struct ue_procmem_vma *ret_vma)
{
	int r = -EFAULT;

	(void)pm;
	pthread_mutex_lock(&img.lock);
	if (img_off(addr) >= 0) {
		memset(ret_vma, 0, sizeof(*ret_vma));
		ret_vma->start = FZ_BASE;
		ret_vma->end = FZ_BASE + ((img.len + 4095) & ~(size_t)4095);
		ret_vma->flags = UE_VMA_READ | (img.writable ? UE_VMA_WRITE : 0);
		r = 0;
	}
	pthread_mutex_unlock(&img.lock);
	return r;
}

void ue_procmem_use_text_maps(struct ue_procmem *pm)
{
	(void)pm;
}

struct ue_daemon *fz_daemon_new(void)
{
	struct ue_daemon *d = calloc(1, sizeof(*d));
	struct ue_registry_opts ropts = { .max_events = 64 };

	if (!d)
		abort();
	d->opts.max_events = 64;
	ue_mutex_init(&d->release_lock, UE_LOCK_RELEASE);
	ue_mutex_init(&d->fh_lock, UE_LOCK_FH_LIST);
	pthread_cond_init(&d->release_cond, NULL);
	if (ue_registry_new(&ropts, &d->reg) < 0 ||
	    ue_buffer_new(1, 64 << 10, true, &d->buf) < 0 || ue_tasks_new(&d->tasks) < 0 ||
	    ue_cmdlines_new(&d->cmdlines) < 0 || ue_counts_new(&d->counts) < 0 ||
	    ue_enablers_new(ue_registry_enabler_ops(), &d->enablers) < 0 || ue_sessions_new(d) < 0)
		abort();
	ue_registry_set_enablers(d->reg, d->enablers);
	ue_registry_set_counts(d->reg, d->counts);
	ue_registry_set_busy_hook(d->reg, ue_data_busy_hook, d);
	return d;
}

void fz_daemon_free(struct ue_daemon *d)
{
	ue_sessions_free(d);
	ue_enablers_free(d->enablers);
	ue_registry_free(d->reg);
	ue_buffer_free(d->buf);
	ue_tasks_free(d->tasks);
	ue_cmdlines_free(d->cmdlines);
	ue_counts_free(d->counts);
	ue_mutex_destroy(&d->release_lock);
	ue_mutex_destroy(&d->fh_lock);
	pthread_cond_destroy(&d->release_cond);
	free(d);
}

/* The row of @name in the mount's root among the files the targets link. */
static const struct ue_fs_file *root_file(const char *name)
{
	const struct ue_fs_files *const tables[] = { &ue_data_files, &ue_text_files };

	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		for (size_t i = 0; i < tables[t]->n; i++) {
			const struct ue_fs_file *f = &tables[t]->file[i];

			if (f->parent == UE_DIR_ROOT && strcmp(f->name, name) == 0)
				return f;
		}
	}
	abort();
}

struct ue_fh *fz_fh_open(struct ue_daemon *d, const char *name, int flags)
{
	struct ue_fh *fh = calloc(1, sizeof(*fh));
	struct fuse_req req = { .d = d, .ctx = { .pid = FZ_TID } };

	if (!fh)
		abort();
	fh->d = d;
	fh->ops = root_file(name)->ops;
	fh->open_flags = flags;
	ue_mutex_init(&fh->lock, UE_LOCK_FH);
	if (fh->ops->open)
		fh->ops->open(&req, fh);
	return fh;
}

void fz_fh_close(struct ue_daemon *d, struct ue_fh *fh)
{
	if (fh->ops->flush)
		fh->ops->flush(d, fh);
	if (fh->ops->release)
		fh->ops->release(d, fh);
	ue_mutex_destroy(&fh->lock);
	free(fh);
}

int fz_ioctl(struct ue_daemon *d, struct ue_fh *fh, unsigned int cmd, uint64_t arg)
{
	struct fuse_req req = { .d = d, .ctx = { .pid = FZ_TID } };

	if (!fh->ops->ioctl)
		abort();
	fh->ops->ioctl(&req, fh, cmd, (void *)(uintptr_t)arg, 0);
	if (!req.replied)
		abort();
	if (getenv("FZ_TRACE"))
		fprintf(stderr, "ioctl 0x%x at +%llu: %s\n", cmd,
			(unsigned long long)(arg - FZ_BASE), strerror(req.err));
	return req.err ? -req.err : 0;
}

ssize_t fz_write(struct ue_daemon *d, struct ue_fh *fh, const void *buf, size_t size, off_t off)
{
	struct fuse_req req = { .d = d, .ctx = { .pid = FZ_TID } };

	if (!fh->ops->write)
		abort();
	fh->ops->write(&req, fh, buf, size, off);
	if (!req.replied)
		abort();
	if (getenv("FZ_TRACE"))
		fprintf(stderr, "write %zu bytes: %s, %zu taken\n", size, strerror(req.err),
			req.count);
	if (req.err)
		return -req.err;
	/* A write never takes more than it was given. */
	if (req.count > size)
		abort();
	return (ssize_t)req.count;
}

void fz_enable_all(struct ue_daemon *d, bool on)
{
	ue_registry_set_enabled_match(d->reg, NULL, NULL, NULL, on);
}
