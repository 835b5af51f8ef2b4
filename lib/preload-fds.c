// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * preload-fds: the libc calls that make, copy and close descriptors, one
 * wrapper a symbol (most of them generated): each tells the descriptor
 * table (preload.c) what became of a number, and an open of the kernel's
 * user_events_data or of a mounts table is led to the daemon that serves
 * the program (preload-reach.c).
 */
#undef _FILE_OFFSET_BITS	/* open and open64, fopen and fopen64: distinct symbols here */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "preload.h"

#define PL_EXPORT __attribute__((visibility("default")))

static int (*real_close)(int);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_fcntl64)(int, int, ...);
static int (*real_close_range)(unsigned int, unsigned int, int);
static void (*real_closefrom)(int);
static int (*real_fclose)(FILE *);
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_fopen64)(const char *, const char *);
static FILE *(*real_setmntent)(const char *, const char *);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_socket)(int, int, int);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static int (*real_pipe)(int[2]);
static int (*real_pipe2)(int[2], int);

#define RESOLVE(name) (real_##name = (typeof(real_##name))dlsym(RTLD_NEXT, #name))

void pl_fds_resolve(void)
{
	RESOLVE(close);
	RESOLVE(dup);
	RESOLVE(dup2);
	RESOLVE(dup3);
	RESOLVE(fcntl64);
	RESOLVE(close_range);
	RESOLVE(closefrom);
	RESOLVE(fclose);
	RESOLVE(fopen);
	RESOLVE(fopen64);
	RESOLVE(setmntent);
	RESOLVE(open);
	RESOLVE(open64);
	RESOLVE(openat);
	RESOLVE(openat64);
	RESOLVE(socket);
	RESOLVE(accept);
	RESOLVE(accept4);
	RESOLVE(pipe);
	RESOLVE(pipe2);
	if (!real_fcntl64)
		real_fcntl64 = pl_real_fcntl;
}

PL_EXPORT int close(int fd)
{
	pl_ready();
	pl_fd_forget(fd);
	return real_close(fd);
}

PL_EXPORT int fclose(FILE *stream)
{
	pl_ready();
	if (stream)
		pl_fd_forget(fileno(stream));
	return real_fclose(stream);
}

PL_EXPORT int dup(int fd)
{
	int r;

	pl_ready();
	r = real_dup(fd);
	if (r >= 0)
		pl_fd_dup(fd, r);
	return r;
}

PL_EXPORT int dup2(int oldfd, int newfd)
{
	int r;

	pl_ready();
	r = real_dup2(oldfd, newfd);
	if (r >= 0 && oldfd != newfd)
		pl_fd_dup(oldfd, newfd);
	return r;
}

PL_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	int r;

	pl_ready();
	r = real_dup3(oldfd, newfd, flags);
	if (r >= 0)
		pl_fd_dup(oldfd, newfd);
	return r;
}

static int fcntl_any(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	int r = real(fd, cmd, arg);

	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		pl_fd_dup(fd, r);
	return r;
}

#define FCNTL(name, real)                                                                 \
	PL_EXPORT int name(int fd, int cmd, ...)                                          \
	{                                                                                 \
		va_list ap;                                                               \
		void *arg;                                                                \
                                                                                          \
		pl_ready();                                                                  \
		va_start(ap, cmd);                                                        \
		arg = va_arg(ap, void *);                                                 \
		va_end(ap);                                                               \
		return fcntl_any(real, fd, cmd, arg);                                     \
	}

FCNTL(fcntl, pl_real_fcntl)
FCNTL(fcntl64, real_fcntl64)

static void forget_range(unsigned int first, unsigned int last)
{
	for (unsigned int fd = first; fd <= last && fd < PL_MAX_FDS; fd++)
		pl_fd_forget((int)fd);
}

PL_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
	int r;

	pl_ready();
	r = real_close_range ? real_close_range(first, last, flags)
			     : (int)syscall(SYS_close_range, first, last, flags);
	if (r == 0 && !(flags & 4 /* CLOSE_RANGE_CLOEXEC */))
		forget_range(first, last);
	return r;
}

PL_EXPORT void closefrom(int lowfd)
{
	pl_ready();
	if (real_closefrom)
		real_closefrom(lowfd);
	else
		syscall(SYS_close_range, lowfd, ~0u, 0);
	if (lowfd >= 0)
		forget_range((unsigned int)lowfd, PL_MAX_FDS - 1);
}

/* New descriptors: a stale entry for their number goes (a close we did not see). */
static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

/* An open of user_events_data or of a mounts table may lead elsewhere (preload-reach.c). */
#define OPEN_AT(dirfd, path, flags, m, call)                                         \
	do {                                                                         \
		int k_ = pl_reach_kind(path);                                        \
                                                                                     \
		return pl_fd_fresh(k_ ? pl_reach_open(k_, dirfd, path, flags, m) : (call)); \
	} while (0)

/* open() and its kin: the mode read as the kernel's open reads it. */
#define OPEN(name, params, dirfd, args)                                                   \
	PL_EXPORT int name params                                                         \
	{                                                                                 \
		va_list ap;                                                               \
		mode_t m;                                                                 \
                                                                                          \
		pl_ready();                                                                  \
		va_start(ap, flags);                                                      \
		m = mode_arg(flags, ap);                                                  \
		va_end(ap);                                                               \
		OPEN_AT(dirfd, path, flags, m, real_##name args);                         \
	}

OPEN(open, (const char *path, int flags, ...), AT_FDCWD, (path, flags, m))
OPEN(open64, (const char *path, int flags, ...), AT_FDCWD, (path, flags, m))
OPEN(openat, (int dirfd, const char *path, int flags, ...), dirfd, (dirfd, path, flags, m))
OPEN(openat64, (int dirfd, const char *path, int flags, ...), dirfd, (dirfd, path, flags, m))

/* _FORTIFY_SOURCE's opens (flags not known at compile time), without O_CREAT. */
#define OPEN_2(name, real, params, dirfd, args)                                           \
	int name params;                                                                  \
	PL_EXPORT int name params                                                         \
	{                                                                                 \
		pl_ready();                                                                  \
		OPEN_AT(dirfd, path, flags, 0, real args);                                \
	}

OPEN_2(__open_2, real_open, (const char *path, int flags), AT_FDCWD, (path, flags, 0))
OPEN_2(__open64_2, real_open64, (const char *path, int flags), AT_FDCWD, (path, flags, 0))
OPEN_2(__openat_2, real_openat, (int dirfd, const char *path, int flags), dirfd,
       (dirfd, path, flags, 0))
OPEN_2(__openat64_2, real_openat64, (int dirfd, const char *path, int flags), dirfd,
       (dirfd, path, flags, 0))

/* fopen()'s @mode as open() flags. */
static int fopen_flags(const char *mode)
{
	int flags = strchr(mode, '+') ? O_RDWR : mode[0] == 'r' ? O_RDONLY : O_WRONLY;

	if (mode[0] == 'w')
		flags |= O_CREAT | O_TRUNC;
	else if (mode[0] == 'a')
		flags |= O_CREAT | O_APPEND;
	if (strchr(mode, 'e'))
		flags |= O_CLOEXEC;
	if (strchr(mode, 'x'))
		flags |= O_EXCL;
	return flags;
}

/* fopen() of a path pl_reach_kind() names (glibc's fopen opens without our open()). */
static FILE *fopen_reach(int kind, const char *path, const char *mode)
{
	int fd = pl_fd_fresh(pl_reach_open(kind, AT_FDCWD, path, fopen_flags(mode), 0666));
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, mode);
	if (!f) {
		int e = errno;

		real_close(fd);
		errno = e;
	}
	return f;
}

#define FOPEN(name)                                                                       \
	PL_EXPORT FILE *name(const char *path, const char *mode)                          \
	{                                                                                 \
		int k;                                                                    \
                                                                                          \
		pl_ready();                                                                  \
		k = mode && (mode[0] == 'r' || mode[0] == 'w' || mode[0] == 'a')          \
			    ? pl_reach_kind(path)                                         \
			    : 0;                                                          \
		return k ? fopen_reach(k, path, mode) : real_##name(path, mode);          \
	}

FOPEN(fopen)
FOPEN(fopen64)

/* getmntent()'s table, opened as glibc's setmntent() does (close on exec, locked by the caller). */
PL_EXPORT FILE *setmntent(const char *path, const char *mode)
{
	FILE *f;
	int k;

	pl_ready();
	k = mode && mode[0] == 'r' ? pl_reach_kind(path) : 0;
	if (k != 2)
		return real_setmntent(path, mode);
	f = fopen_reach(k, path, "re");
	if (f)
		__fsetlocking(f, FSETLOCKING_BYCALLER);
	return f;
}

/* New descriptors of the calls resolved at start (real_NAME). */
#define FRESH_RESOLVED(name, params, args)                                                \
	PL_EXPORT int name params                                                         \
	{                                                                                 \
		pl_ready();                                                                  \
		return pl_fd_fresh(real_##name args);                                        \
	}

FRESH_RESOLVED(socket, (int domain, int type, int proto), (domain, type, proto))
FRESH_RESOLVED(accept, (int fd, struct sockaddr *addr, socklen_t *len), (fd, addr, len))
FRESH_RESOLVED(accept4, (int fd, struct sockaddr *addr, socklen_t *len, int flags),
	       (fd, addr, len, flags))

#define PIPE(name, params, args)                                                          \
	PL_EXPORT int name params                                                         \
	{                                                                                 \
		int r;                                                                    \
                                                                                          \
		pl_ready();                                                                  \
		r = real_##name args;                                                     \
		if (r == 0) {                                                             \
			pl_fd_fresh(p[0]);                                                   \
			pl_fd_fresh(p[1]);                                                   \
		}                                                                         \
		return r;                                                                 \
	}

PIPE(pipe, (int p[2]), (p))
PIPE(pipe2, (int p[2], int flags), (p, flags))

/* New descriptors of calls looked up at their first use (many programs never make one). */
#define FRESH(name, params, args)                                                      \
	PL_EXPORT int name params                                                      \
	{                                                                              \
		static int(*real) params;                                              \
                                                                                       \
		if (!real)                                                             \
			real = (typeof(real))dlsym(RTLD_NEXT, #name);                  \
		if (!real) {                                                           \
			errno = ENOSYS;                                                \
			return -1;                                                     \
		}                                                                      \
		return pl_fd_fresh(real args);                                            \
	}

FRESH(eventfd, (unsigned int v, int flags), (v, flags))
FRESH(memfd_create, (const char *name, unsigned int flags), (name, flags))
FRESH(epoll_create, (int size), (size))
FRESH(epoll_create1, (int flags), (flags))
FRESH(timerfd_create, (int clock, int flags), (clock, flags))
FRESH(inotify_init, (void), ())
FRESH(inotify_init1, (int flags), (flags))
FRESH(signalfd, (int fd, const sigset_t *mask, int flags), (fd, mask, flags))
FRESH(creat, (const char *path, mode_t mode), (path, mode))
FRESH(creat64, (const char *path, mode_t mode), (path, mode))
