// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * preload: libuserevents-preload.so, loaded with LD_PRELOAD.  It learns
 * which descriptors are usereventsd's user_events_data and what their write
 * indexes name from DIAG_IOCSREG (the ioctl itself still goes to the
 * daemon), follows them through dup, fcntl, close and fork, and serves their
 * writes from the native path (preload-write.c), else the system call.  Its
 * calls that make, copy and close descriptors are preload-fds.c's, and its
 * opens lead the kernel's paths to the daemon that serves the program
 * (preload-reach.c).
 */
#undef _FILE_OFFSET_BITS	/* open and open64, pwrite and pwrite64: distinct symbols here */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core.h"
#include "native-proto.h"
#include "preload.h"
#include "userevents/abi.h"

#define PL_EXPORT __attribute__((visibility("default")))
#define PL_EVENT_HASH 256

ssize_t (*pl_real_writev)(int, const struct iovec *, int);
ssize_t (*pl_real_write)(int, const void *, size_t);
int (*pl_real_sigaction)(int, const struct sigaction *, struct sigaction *);
static int (*real_ioctl)(int, unsigned long, ...);
int (*pl_real_fcntl)(int, int, ...);

static struct pl_file **fds;		/* by descriptor, PL_MAX_FDS entries */
static struct pl_file *files;		/* every file in use */
static struct pl_file *free_files;	/* recycled, never freed: a racing writer may hold one */
static struct pl_event *events[PL_EVENT_HASH];

#define RESOLVE(name) (real_##name = (typeof(real_##name))dlsym(RTLD_NEXT, #name))

bool pl_resolved;

/*
 * The real functions.  A library initialised before us (ours is the first
 * loaded but not the first initialised: libselinux's constructor, say,
 * opens and closes files) may call a wrapper before our constructor ran:
 * every wrapper makes sure of them first (pl_ready()).
 */
static void preload_resolve(void)
{
	void *p;

	pl_real_write = (typeof(pl_real_write))dlsym(RTLD_NEXT, "write");
	pl_real_writev = (typeof(pl_real_writev))dlsym(RTLD_NEXT, "writev");
	pl_real_sigaction = (typeof(pl_real_sigaction))dlsym(RTLD_NEXT, "sigaction");
	pl_real_fcntl = (typeof(pl_real_fcntl))dlsym(RTLD_NEXT, "fcntl");
	RESOLVE(ioctl);
	pl_fds_resolve();
	/* Untouched pages cost nothing: 512 KiB of address space. */
	p = mmap(NULL, PL_MAX_FDS * sizeof(*fds), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p != MAP_FAILED)
		fds = p;
	__atomic_store_n(&pl_resolved, true, __ATOMIC_RELEASE);
}

void __attribute__((noinline, cold)) pl_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, preload_resolve);
}

/* A descriptor of usereventsd's user_events_data this process registered through; -1: none. */
static int fork_fd = -1;

static inline struct pl_file *file_of(int fd);

/*
 * In a fork child, before fork() returns to it (pthread_atfork(): not for
 * vfork(), posix_spawn() or a raw clone, whose children exec or share our
 * memory): tell the daemon, which reads and proves the fork at once, so
 * that the child's enable words follow their events from its first
 * instruction (core/native-proto.h, UE_IOC_FORKED).  One system call.
 */
static void fork_tell(void)
{
	int fd = __atomic_load_n(&fork_fd, __ATOMIC_RELAXED), saved = errno;

	if (fd < 0 || !real_ioctl)
		return;
	/* Closed since: another of ours, among the usual descriptor numbers. */
	for (int i = 0; !file_of(fd) && i < 1024; i++)
		fd = i;
	if (file_of(fd))
		real_ioctl(fd, UE_IOC_FORKED, 0);
	errno = saved;
}

__attribute__((constructor)) static void preload_ctor(void)
{
	pl_init();
	pthread_atfork(NULL, NULL, fork_tell);
}

static inline struct pl_file *file_of(int fd)
{
	struct pl_file **t = fds;

	if ((unsigned int)fd >= PL_MAX_FDS || !t)
		return NULL;
	return __atomic_load_n(&t[fd], __ATOMIC_ACQUIRE);
}

/*
 * A vfork() child shares our memory, not our descriptors: what it does
 * with its own must not change the parent's table.
 */
static bool own_process(void)
{
	return pl_own_process();
}

/* One descriptor less for @f (lock held); the last one recycles it. */
static void file_put(struct pl_file *f)
{
	if (--f->refs > 0)
		return;
	for (struct pl_file **pp = &files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	for (int c = 0; c < PL_CHUNKS; c++)
		if (f->chunks[c])
			memset(f->chunks[c], 0, PL_CHUNK * sizeof(struct pl_index));
	f->next = free_files;
	free_files = f;
}

static struct pl_file *file_new(void)
{
	struct pl_file *f = free_files;

	if (f)
		free_files = f->next;
	else if (!(f = calloc(1, sizeof(*f))))
		return NULL;
	f->refs = 1;
	f->next = files;
	files = f;
	return f;
}

/* @fd names @f from now on, or nothing (lock held). */
static void fd_set_file(int fd, struct pl_file *f)
{
	struct pl_file *old;

	if ((unsigned int)fd >= PL_MAX_FDS || !fds)
		return;
	if (f)
		f->refs++;
	old = __atomic_exchange_n(&fds[fd], f, __ATOMIC_ACQ_REL);
	if (old)
		file_put(old);
}

void pl_fd_forget(int fd)
{
	if (!file_of(fd) || !own_process())
		return;
	if (!pl_lock()) {
		/* A signal handler's close while we hold the lock: the file leaks, the number goes. */
		__atomic_store_n(&fds[fd], NULL, __ATOMIC_RELEASE);
		return;
	}
	fd_set_file(fd, NULL);
	pl_unlock();
}

int pl_fd_fresh(int fd)
{
	if (file_of(fd) && own_process())
		__atomic_store_n(&fds[fd], NULL, __ATOMIC_RELEASE);
	return fd;
}

void pl_fd_dup(int oldfd, int newfd)
{
	int saved = errno;

	if ((file_of(oldfd) || file_of(newfd)) && own_process() && pl_lock()) {
		fd_set_file(newfd, file_of(oldfd));
		pl_unlock();
	}
	errno = saved;
}

/* The event of @name_args, parsed or not, made once (lock held). */
static const struct pl_event *event_intern(const char *name_args)
{
	unsigned int h = 5381;
	struct pl_event *e;
	struct ue_event *desc;

	for (const char *s = name_args; *s; s++)
		h = h * 33 + (unsigned char)*s;
	h %= PL_EVENT_HASH;
	for (e = events[h]; e; e = e->next)
		if (strcmp(e->name_args, name_args) == 0)
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->name_args = strdup(name_args);
	if (!e->name_args) {
		free(e);
		return NULL;
	}
	if (ue_event_parse(name_args, &desc) == 0) {
		if (ue_check_new(desc, &e->check) < 0)
			e->check = NULL;
		ue_event_free(desc);
	}
	e->next = events[h];
	events[h] = e;
	return e;
}

/* The parsed event of @name_args, made once (lock held); NULL: not one we can check. */
static const struct pl_event *event_get(const char *name_args)
{
	const struct pl_event *e = event_intern(name_args);

	return e && e->check ? e : NULL;
}

static struct pl_index *index_of(struct pl_file *f, uint32_t idx, bool make)
{
	struct pl_index *c;

	if (idx / PL_CHUNK >= PL_CHUNKS)
		return NULL;
	c = f->chunks[idx / PL_CHUNK];
	if (!c && make) {
		c = calloc(PL_CHUNK, sizeof(*c));
		if (c)
			__atomic_store_n(&f->chunks[idx / PL_CHUNK], c, __ATOMIC_RELEASE);
	}
	return c ? c + idx % PL_CHUNK : NULL;
}

/*
 * Copy @len bytes of the program's memory that another thread may have
 * unmapped or protected since the ioctl read it: process_vm_readv() on
 * ourselves fails where a load would fault, instead of crashing.
 * Return: the bytes copied (they stop at a fault), or -1.
 */
static ssize_t self_read(void *dst, uint64_t src, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)(uintptr_t)src, len };

	return process_vm_readv(getpid(), &l, 1, &r, 1, 0);
}

/* strndup_user() of name_args into @buf (UE_MAX_EVENT_DESC bytes): 0, or -1. */
static int self_read_string(char *buf, uint64_t addr)
{
	size_t got = 0;

	while (got < UE_MAX_EVENT_DESC) {
		size_t chunk = 4096 - (size_t)((addr + got) & 4095);
		ssize_t n;

		if (chunk > UE_MAX_EVENT_DESC - got)
			chunk = UE_MAX_EVENT_DESC - got;
		n = self_read(buf + got, addr + got, chunk);
		if (n <= 0)
			return -1;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -1;
}

/* A DIAG_IOCSREG that succeeded on @fd: its index, event and enable word. */
static void learn_reg(int fd, const struct user_reg *ureg)
{
	char name_args[UE_MAX_EVENT_DESC];
	struct user_reg reg;
	const struct pl_event *ev;
	struct pl_index *x;
	struct pl_file *f;
	bool known = false, watch = false;

	if ((unsigned int)fd >= PL_MAX_FDS || !fds || !own_process())
		return;
	if (self_read(&reg, (uintptr_t)ureg, sizeof(reg)) != (ssize_t)sizeof(reg) ||
	    self_read_string(name_args, reg.name_args) < 0)
		return; /* gone or protected since: its writes take the system call */
	if (!pl_lock())
		return;
	f = file_of(fd);
	if (!f) {
		char link[64];
		ssize_t n;

		if (!pl_recognise(fd))
			goto out;
		f = file_new();
		if (!f)
			goto out;
		f->writable = (pl_real_fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDONLY;
		f->dead = false;
		/* Where a new daemon is looked for if this one dies, and which mount is its. */
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, f->path, sizeof(f->path) - 1);
		f->path[n > 0 && f->path[0] == '/' ? n : 0] = '\0';
		f->mnt_id = pl_fd_mnt_id(fd);
		__atomic_store_n(&fds[fd], f, __ATOMIC_RELEASE);
		pl_catch_faults();
		watch = true;
	}
	__atomic_store_n(&fork_fd, fd, __ATOMIC_RELAXED);
	x = index_of(f, reg.write_index, true);
	if (!x)
		goto out;
	/* What a new daemon gets again, should this one die. */
	if (!x->reg)
		x->reg = event_intern(name_args);
	x->flags = reg.flags;
	/* A multi-format event's name is not unique: those keep the system call. */
	if (!x->ev && !(reg.flags & USER_EVENT_REG_MULTI_FORMAT)) {
		ev = event_get(name_args);
		if (ev) {
			x->slot = pl_session_add(fd, ev);
			x->gen = pl_process_gen();
			if (x->slot)
				__atomic_store_n(&x->ev, ev, __ATOMIC_RELEASE);
		}
	}
	for (uint32_t k = 0; k < x->nen; k++)
		if (x->en[k].addr == reg.enable_addr && x->en[k].bit == reg.enable_bit)
			known = true;
	if (!known && x->nen < PL_MAX_EN) {
		x->en[x->nen] = (struct pl_enabler){ reg.enable_addr, reg.enable_bit,
						     reg.enable_size };
		__atomic_store_n(&x->nen, x->nen + 1, __ATOMIC_RELEASE);
	}
out:
	pl_unlock();
	/* A thread that watches for the daemon's death (and its successor), made once. */
	if (watch)
		pl_watch_start();
}

/* A DIAG_IOCSUNREG that succeeded: that word no longer follows its event, in any file. */
static void learn_unreg(const struct user_unreg *uu)
{
	struct user_unreg u;

	if (!fds || !own_process() || self_read(&u, (uintptr_t)uu, sizeof(u)) != (ssize_t)sizeof(u) ||
	    !pl_lock())
		return;
	for (struct pl_file *f = files; f; f = f->next) {
		for (int c = 0; c < PL_CHUNKS; c++) {
			struct pl_index *x = f->chunks[c];

			for (int i = 0; x && i < PL_CHUNK; i++, x++) {
				for (uint32_t k = 0; k < x->nen; k++) {
					if (x->en[k].addr != u.disable_addr ||
					    x->en[k].bit != u.disable_bit)
						continue;
					x->en[k] = x->en[x->nen - 1];
					__atomic_store_n(&x->nen, x->nen - 1, __ATOMIC_RELEASE);
					break;
				}
			}
		}
	}
	pl_unlock();
}

PL_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int r, saved;

	pl_ready();
	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	r = real_ioctl(fd, req, arg);
	if (r < 0 || (req != DIAG_IOCSREG && req != DIAG_IOCSUNREG))
		return r;
	saved = errno;
	if (req == DIAG_IOCSREG)
		learn_reg(fd, arg);
	else
		learn_unreg(arg);
	errno = saved;
	return r;
}

/* ---- writes ---- */

static ssize_t finish(ssize_t r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/*
 * A write no daemon takes: its daemon died (FUSE says ENOTCONN for a dead
 * connection, which the kernel never does).  The enable words are cleared
 * (preload-reconnect.c): the event is off as far as the program can see,
 * and the kernel says EBADF for a write of an event that is off.  Counted,
 * and told to the next daemon.
 */
static ssize_t refused(void)
{
	pl_count_lost();
	pl_watch_kick();
	return -EBADF;
}

/* write(2), pwrite at offset 0: the zero-length case faults as the kernel's index copy. */
static ssize_t write_one(struct pl_file *f, int fd, const void *buf, size_t n)
{
	struct iovec v = { (void *)buf, n };
	ssize_t r;

	if (n == 0)
		return -EFAULT;
	r = pl_writev(f, fd, &v, 1);
	if (r != -ENOSYS)
		return r;
	if (__atomic_load_n(&f->dead, __ATOMIC_RELAXED))
		return refused();
	r = pl_real_write(fd, buf, n) < 0 ? -errno : (ssize_t)n;
	return r == -ENOTCONN ? refused() : r;
}

/* Inside writev() itself: one call less on every interposed write (~1.4 ns of ~43). */
static inline __attribute__((always_inline)) ssize_t writev_any(struct pl_file *f, int fd,
							  const struct iovec *iov, int cnt)
{
	ssize_t r = pl_writev(f, fd, iov, cnt);

	if (r != -ENOSYS)
		return r;
	if (__atomic_load_n(&f->dead, __ATOMIC_RELAXED))
		return refused();
	r = pl_real_writev(fd, iov, cnt);
	r = r < 0 ? -errno : r;
	return r == -ENOTCONN ? refused() : r;
}

PL_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	struct pl_file *f = file_of(fd);

	pl_ready();
	if (__builtin_expect(!f, 1))
		return pl_real_write(fd, buf, n);
	return finish(write_one(f, fd, buf, n));
}

PL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	struct pl_file *f = file_of(fd);

	pl_ready();
	if (__builtin_expect(!f, 1))
		return pl_real_writev(fd, iov, cnt);
	return finish(writev_any(f, fd, iov, cnt));
}

/*
 * The kernel's user_events_data takes pwrite at offset 0 only (EFAULT
 * otherwise) and pwritev at any offset: both are writes of ours.
 */
static ssize_t pwrite_any(struct pl_file *f, int fd, const void *buf, size_t n, off_t off)
{
	if (off < 0)
		return -EINVAL;
	if (!f->writable)
		return -EBADF;
	if ((uintptr_t)buf + n < (uintptr_t)buf)
		return -EFAULT;
	if (off > 0 && (unsigned long long)off + n > (unsigned long long)INT64_MAX)
		return -EINVAL;
	if (off != 0)
		return -EFAULT;
	return write_one(f, fd, buf, n);
}

#define PWRITE(name, offt)                                                                \
	PL_EXPORT ssize_t name(int fd, const void *buf, size_t n, offt off)               \
	{                                                                                 \
		struct pl_file *f = file_of(fd);                                          \
		static ssize_t (*real)(int, const void *, size_t, offt);                  \
                                                                                          \
		if (__builtin_expect(!f, 1)) {                                            \
			if (!real)                                                        \
				real = (typeof(real))dlsym(RTLD_NEXT, #name);             \
			return real(fd, buf, n, off);                                     \
		}                                                                         \
		return finish(pwrite_any(f, fd, buf, n, off));                            \
	}

PWRITE(pwrite, off_t)
PWRITE(pwrite64, off64_t)

static ssize_t pwritev_any(struct pl_file *f, int fd, const struct iovec *iov, int cnt,
			   off_t off, int flags, bool v2)
{
	if (flags)
		return -ENOSYS;
	if (v2 && off == -1)
		return writev_any(f, fd, iov, cnt);
	if (off < 0)
		return -EINVAL;
	return writev_any(f, fd, iov, cnt);
}

#define PWRITEV(name, offt, v2, ...)                                                          \
	PL_EXPORT ssize_t name(int fd, const struct iovec *iov, int cnt, offt off __VA_ARGS__) \
	{                                                                                     \
		struct pl_file *f = file_of(fd);                                              \
		static ssize_t (*real)(int, const struct iovec *, int, offt __VA_ARGS__);     \
		ssize_t r = -ENOSYS;                                                          \
                                                                                              \
		if (f)                                                                        \
			r = pwritev_any(f, fd, iov, cnt, off, PL_FLAGS, v2);                  \
		if (r != -ENOSYS)                                                             \
			return finish(r);                                                     \
		if (!real)                                                                    \
			real = (typeof(real))dlsym(RTLD_NEXT, #name);                         \
		return real(fd, iov, cnt, off PL_ARGS);                                       \
	}

#define PL_FLAGS 0
#define PL_ARGS
PWRITEV(pwritev, off_t, false)
PWRITEV(pwritev64, off64_t, false)
#undef PL_FLAGS
#undef PL_ARGS
#define PL_FLAGS flags
#define PL_ARGS , flags
PWRITEV(pwritev2, off_t, true, , int flags)
PWRITEV(pwritev64v2, off64_t, true, , int flags)
#undef PL_FLAGS
#undef PL_ARGS

/* ---- reconnection: the daemon died (preload-reconnect.c) ---- */

int pl_fd_mnt_id(int fd)
{
	char p[64], buf[512], *m;
	ssize_t n;
	int f;

	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", fd);
	f = (int)syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_CLOEXEC, 0);
	if (f < 0)
		return -1;
	n = syscall(SYS_read, f, buf, sizeof(buf) - 1);
	syscall(SYS_close, f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	m = strstr(buf, "mnt_id:");
	return m ? atoi(m + 7) : -1;
}

int pl_probe_fd(void)
{
	for (int fd = 0; fds && fd < PL_MAX_FDS; fd++) {
		struct pl_file *f = file_of(fd);

		if (f && !__atomic_load_n(&f->dead, __ATOMIC_RELAXED))
			return fd;
	}
	return -1;
}

/* Clears an enable bit, if the word is still ours to write. */
static void bit_clear(const struct pl_enabler *e)
{
	uint64_t w;

	if (self_read(&w, e->addr, e->size) != (ssize_t)e->size)
		return;
	if (e->size == 8)
		__atomic_and_fetch((uint64_t *)(uintptr_t)e->addr, ~(1ull << e->bit),
				   __ATOMIC_RELAXED);
	else
		__atomic_and_fetch((uint32_t *)(uintptr_t)e->addr, ~(1u << e->bit),
				   __ATOMIC_RELAXED);
}

void pl_files_gone_locked(void)
{
	for (struct pl_file *f = files; f; f = f->next) {
		__atomic_store_n(&f->dead, true, __ATOMIC_RELAXED);
		for (int c = 0; c < PL_CHUNKS; c++) {
			struct pl_index *x = f->chunks[c];

			for (int i = 0; x && i < PL_CHUNK; i++, x++)
				for (uint32_t k = 0; k < x->nen && k < PL_MAX_EN; k++)
					bit_clear(&x->en[k]);
		}
	}
}

/*
 * Every registration of @f again on @nfd, by write index: the indexes the
 * program holds name the same events if it learnt them all.  An index left
 * with no enable word is registered and unregistered (a scratch word), as
 * the kernel keeps a file's indexes.  Return: indexes that came out other
 * than they were (their writes through the system call name another event).
 */
static int register_again(struct pl_file *f, int nfd)
{
	static uint32_t scratch;
	int wrong = 0;

	for (int c = 0; c < PL_CHUNKS; c++) {
		struct pl_index *x = f->chunks[c];

		for (int i = 0; x && i < PL_CHUNK; i++, x++) {
			uint32_t idx = (uint32_t)(c * PL_CHUNK + i), n = x->nen;
			struct user_reg reg;

			if (!x->reg)
				continue;
			for (uint32_t k = 0; k < (n ? n : 1) && k < PL_MAX_EN; k++) {
				memset(&reg, 0, sizeof(reg));
				reg.size = sizeof(reg);
				reg.flags = x->flags;
				reg.name_args = (uintptr_t)x->reg->name_args;
				reg.enable_addr = n ? x->en[k].addr : (uintptr_t)&scratch;
				reg.enable_bit = n ? x->en[k].bit : 0;
				reg.enable_size = n ? x->en[k].size : sizeof(scratch);
				reg.write_index = idx;
				if (real_ioctl(nfd, DIAG_IOCSREG, &reg) < 0)
					continue;
				if (reg.write_index != idx)
					wrong++;
				if (!n) {
					struct user_unreg u = { .size = sizeof(u),
								.disable_addr = (uintptr_t)&scratch };

					real_ioctl(nfd, DIAG_IOCSUNREG, &u);
				}
			}
		}
	}
	return wrong;
}

bool pl_files_reconnect(void)
{
	char path[sizeof(((struct pl_file *)0)->path)], name[UE_NATIVE_SOCK_NAME_MAX + 1];
	struct pl_file *f;
	struct statfs sfs;
	int nfd, len, first;

	for (;;) {
		if (!pl_lock())
			return false;
		for (f = files; f && !(f->dead && f->path[0]); f = f->next)
			;
		if (f)
			memcpy(path, f->path, sizeof(path));
		else
			pl_gone_end_locked();
		pl_unlock();
		if (!f)
			return true;
		nfd = (int)syscall(SYS_openat, AT_FDCWD, path,
				   (f->writable ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0);
		if (nfd < 0)
			return false;
		/* A usereventsd that answers there: not the dead mount, not another file system. */
		len = (int)fgetxattr(nfd, UE_NATIVE_XATTR, name, UE_NATIVE_SOCK_NAME_MAX);
		if (fstatfs(nfd, &sfs) < 0 || sfs.f_type != 0x65735546 /* FUSE */ || len <= 0) {
			syscall(SYS_close, nfd);
			return false;
		}
		if (!pl_lock()) {
			syscall(SYS_close, nfd);
			return false;
		}
		first = -1;
		/* Still that dead file (not closed, nor recycled for another since). */
		for (struct pl_file *g = files; g; g = g->next)
			if (g == f && f->dead && strcmp(f->path, path) == 0)
				first = -2;
		if (first == -2) {
			first = -1;
			register_again(f, nfd);
			/* Our numbers of the dead file name the new one (the program keeps its own). */
			for (int fd = 0; fd < PL_MAX_FDS; fd++) {
				int fl;

				if (file_of(fd) != f || pl_fd_mnt_id(fd) != f->mnt_id)
					continue;
				fl = pl_real_fcntl(fd, F_GETFD);
				if (fl < 0 || syscall(SYS_dup3, nfd, fd, (fl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
					continue;
				if (first < 0)
					first = fd;
			}
			f->mnt_id = pl_fd_mnt_id(nfd);
			__atomic_store_n(&f->dead, false, __ATOMIC_RELEASE);
			if (first >= 0)
				pl_session_again_locked(first, name, len);
			else
				/* None of our numbers names it any more: nothing to reconnect. */
				f->path[0] = '\0';
		}
		pl_unlock();
		syscall(SYS_close, nfd);
	}
}

/* ---- SIGSEGV and SIGBUS stay ours while the program believes they are its own ---- */

PL_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	pl_ready();
	if (pl_sigaction_hook(sig, act, old) == 0)
		return 0;
	return pl_real_sigaction(sig, act, old);
}

PL_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	pl_ready();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (handler == SIG_ERR || sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (pl_sigaction_hook(sig, &sa, &old) == 0 || pl_real_sigaction(sig, &sa, &old) == 0)
		return old.sa_handler;
	return SIG_ERR;
}
