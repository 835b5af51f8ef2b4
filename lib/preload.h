/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuserevents-preload.so's private header: the descriptor table and the
 * write indexes learnt from DIAG_IOCSREG (preload.c), the calls that change
 * descriptors (preload-fds.c), and the per-process session and per-thread
 * rings of the write path (preload-write.c).
 */
#ifndef UE_PRELOAD_H
#define UE_PRELOAD_H

#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "core.h"

#define PL_MAX_FDS 65536	/* descriptors at or above: always the system call */
#define PL_CHUNK 256		/* write indexes per chunk */
#define PL_CHUNKS 256		/* write indexes 0..65535 */
#define PL_MAX_EN 4		/* enable words remembered per write index */

/* A parsed event description, by name_args; never freed (a racing writer may hold it). */
struct pl_event {
	struct pl_event *next;
	char *name_args;
	struct ue_check *check;
};

/* One address and bit the daemon keeps equal to the event's state. */
struct pl_enabler {
	uint64_t addr;
	uint8_t bit;
	uint8_t size;
};

/* What a write index of a file names, as far as this process saw it registered. */
struct pl_index {
	const struct pl_event *ev;	/* NULL: not served here (multi-format, unparsed) */
	const struct pl_event *reg;	/* its name_args as registered (a reconnection's), or NULL */
	uint16_t flags;			/* USER_EVENT_REG_* of its registrations */
	uint32_t slot;			/* the session's id of the event */
	uint32_t gen;			/* the process generation @slot belongs to */
	uint32_t nen;
	struct pl_enabler en[PL_MAX_EN];
};

/* An open user_events_data of usereventsd, shared by its duplicates. */
struct pl_file {
	struct pl_file *next;		/* every file, or the free list */
	int refs;			/* descriptors naming it */
	bool writable;			/* opened for writing (else EBADF from the system call) */
	bool dead;			/* its daemon died: writes refused and counted until reconnected */
	int mnt_id;			/* its mount (/proc/self/fdinfo), to know our descriptors of it */
	struct pl_index *chunks[PL_CHUNKS];
	char path[4096];		/* where it was opened: a new daemon is looked for there */
};

/*
 * The fault catcher's jump: a fault in the copy of user memory comes back
 * from the signal handler to the write, which returns EFAULT.  GCC's
 * builtins save three words (no registers, no signal mask: the handler is
 * SA_NODEFER); elsewhere sigsetjmp() without the mask.
 */
#if defined(__GNUC__) && (!defined(__clang__) || defined(__x86_64__) || defined(__i386__))
typedef void *pl_jmp_buf[5];
#define pl_setjmp(b) __builtin_setjmp(b)
#define pl_longjmp(b) __builtin_longjmp(b, 1)
#else
typedef sigjmp_buf pl_jmp_buf;
#define pl_setjmp(b) sigsetjmp(b, 0)
#define pl_longjmp(b) siglongjmp(b, 1)
#endif

/* Per thread: its ring, and the guards of the write path. */
struct pl_thread {
	struct ue_native_ring *hdr;
	unsigned char *data;
	uint32_t mask;
	uint32_t gen;			/* the ring is of this process generation */
	uint64_t tail;			/* the daemon's tail as last read (it only grows) */
	uint64_t stale;			/* PL_STALE_NS in the stamps' unit */
	bool tsc;			/* stamped with the counter (UE_RING_CLOCK_TSC) */
	size_t map_len;
	int busy;			/* in a write: a signal handler's write takes the system call */
	int holds;			/* holds the process lock */
	int phase;			/* what the write reads: a fault there is EFAULT or not */
	pl_jmp_buf *catch;		/* a fault of the copy jumps here */
};

extern __thread struct pl_thread pl_t __attribute__((tls_model("initial-exec")));

/* preload.c: the real functions. */
extern ssize_t (*pl_real_writev)(int, const struct iovec *, int);
extern ssize_t (*pl_real_write)(int, const void *, size_t);
extern int (*pl_real_sigaction)(int, const struct sigaction *, struct sigaction *);
extern int (*pl_real_fcntl)(int, int, ...);

/*
 * preload.c: whether the real functions are resolved.  A library
 * initialised before us may call a wrapper before our constructor ran:
 * every wrapper makes sure of them first.
 */
extern bool pl_resolved;
/** pl_init - resolve the real functions (once) and make the descriptor table */
void pl_init(void);
static inline void pl_ready(void)
{
	if (__builtin_expect(!__atomic_load_n(&pl_resolved, __ATOMIC_ACQUIRE), 0))
		pl_init();
}

/* preload.c: the descriptor table, as the calls that change descriptors tell it (preload-fds.c). */
/** pl_fd_forget - @fd was closed (or replaced) by a call we saw */
void pl_fd_forget(int fd);
/** pl_fd_fresh - a call made @fd anew: whatever the table held for it went unseen (a raw close); returns @fd */
int pl_fd_fresh(int fd);
/** pl_fd_dup - @newfd names what @oldfd names */
void pl_fd_dup(int oldfd, int newfd);

/* preload-fds.c */
/** pl_fds_resolve - the real functions of the descriptor calls (from pl_init(), after pl_real_fcntl) */
void pl_fds_resolve(void);

/* preload-write.c */
/**
 * pl_lock - take the process lock
 *
 * Return: true, or false when this thread holds it already (a signal
 * handler interrupted the holder): the caller then takes the system call.
 */
bool pl_lock(void);
void pl_unlock(void);
/** pl_own_process - false in a vfork() child, which shares our memory but not our descriptors */
bool pl_own_process(void);
/** pl_check_fork - a fork child (even of a raw clone) starts its own session */
void pl_check_fork(void);
/** pl_recognise - whether @fd is user_events_data of the daemon this process talks to */
bool pl_recognise(int fd);
/** pl_session_add - the session's id for @ev (a session is made from @fd first); 0 on failure */
uint32_t pl_session_add(int fd, const struct pl_event *ev);
/** pl_process_gen - the generation slots and rings must belong to */
uint32_t pl_process_gen(void);
/** pl_catch_faults - install the SIGSEGV/SIGBUS handler the copy needs (once) */
void pl_catch_faults(void);
/**
 * pl_writev - a write of @fd's file served in this process
 * @f: the file, @fd: its descriptor
 * @iov, @iovcnt: as writev() got them (user memory, maybe bad)
 *
 * Return: what the kernel's write would return (bytes, or -errno), or
 * -ENOSYS when the native path cannot serve it: the caller makes the system call.
 */
ssize_t pl_writev(struct pl_file *f, int fd, const struct iovec *iov, int iovcnt);
/** pl_sigaction_hook - sigaction() of SIGSEGV or SIGBUS while ours is installed; -1: not hooked */
int pl_sigaction_hook(int sig, const struct sigaction *act, struct sigaction *old);
/** pl_thread_end - the calling thread ends: hand its ring back */
void pl_thread_end(void);

/* Reconnection (preload-reconnect.c): the daemon died, a new one serves at the same path. */
/** pl_session_sock - the session's socket, or -1 */
int pl_session_sock(void);
/** pl_gone - whether the daemon died and no new one serves yet */
bool pl_gone(void);
/**
 * pl_gone_locked - the daemon died (lock held): the session closed, what its
 * rings held counted as lost, writes refused until pl_session_again_locked()
 */
void pl_gone_locked(void);
/**
 * pl_session_again_locked - a daemon serves @fd, its socket @name (@len
 * bytes): a session with it, told what was lost (lock held)
 */
void pl_session_again_locked(int fd, const char *name, int len);
/** pl_gone_end_locked - no file waits for a daemon any more (lock held) */
void pl_gone_end_locked(void);
/** pl_count_lost - a write refused as no daemon served it */
void pl_count_lost(void);
/** pl_watch_start - the watcher thread of this process, once (not from a signal handler) */
void pl_watch_start(void);
/** pl_watch_kick - a write saw ENOTCONN: the watcher looks now (async-signal-safe) */
void pl_watch_kick(void);
/** pl_watch_after_fork - in a fork child: its own watcher, if the parent had one */
void pl_watch_after_fork(void);
/* preload.c */
/** pl_probe_fd - one of our descriptors of a file not known dead, or -1 */
int pl_probe_fd(void);
/** pl_files_gone_locked - every file is its dead daemon's: enable bits cleared, writes refused */
void pl_files_gone_locked(void);
/**
 * pl_files_reconnect - each dead file's path opened again: a daemon serving
 * there gets every registration again, our descriptor numbers its file
 *
 * Return: true when no file waits for a daemon any more.
 */
bool pl_files_reconnect(void);
/** pl_fd_mnt_id - the mount id of @fd (/proc/self/fdinfo), or -1 */
int pl_fd_mnt_id(int fd);

/* preload-reach.c */
/** pl_reach_kind - 1: @path names a user_events_data, 2: this process's mounts table, 0: neither */
int pl_reach_kind(const char *path);
/**
 * pl_reach_open - open @path (@kind from pl_reach_kind()) as openat() would,
 * with the kernel's user_events_data leading to the daemon that serves us
 * and a mounts table showing it as a tracefs where the kernel has none
 *
 * Return: the descriptor, or -1 with errno.
 */
int pl_reach_open(int kind, int dirfd, const char *path, int flags, mode_t mode);

#endif /* UE_PRELOAD_H */
