/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuserevents' private header: the provider object, backend discovery
 * (backend.c) and the native shared-memory path (native.c).
 */
#ifndef UE_LIB_H
#define UE_LIB_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "userevents/userevents.h"

struct ue_native;

struct ue_provider {
	int fd;				/* user_events_data */
	int backend;			/* enum ue_backend */
	unsigned int flags;		/* UE_PROVIDER_* */
	char tracefs[PATH_MAX];
	pthread_mutex_t lock;		/* registrations and the list */
	struct ue_tracepoint *events;	/* registered, through ue_tracepoint.next */
	struct ue_native *native;	/* NULL: writev only; atomic: a reconnection replaces it */
	struct ue_native *retired;	/* sessions replaced, freed at close (a writer may hold one) */
	struct ue_provider *next_open;	/* every open provider (fork handling, the watcher) */
	/* Reconnection (reconnect.c). */
	bool gone;			/* its daemon died: writes refused and counted until a new one */
	bool suspect;			/* a write saw ENOTCONN: the watcher looks at once */
	int watched;			/* the watcher is at it (under ue__providers_lock): close waits */
	uint64_t lost;			/* writes refused and ring records lost since open */
	uint64_t lost_told;		/* of them, told to a daemon (UE_NATIVE_LOST) */
	uint64_t checked_ns;		/* the watcher's last look at a provider without a session */
};

/*
 * ue_tracepoint.reserved (the library's): the registration's flags in the
 * low 16 bits, and whether the current daemon has it.
 */
#define UE_TP_FLAGS 0xffffu
#define UE_TP_PENDING (1u << 31)	/* not registered with the daemon now serving (none, or a refusal) */

/* Every open provider (provider.c). */
extern pthread_mutex_t ue__providers_lock;
extern struct ue_provider *ue__providers;

/**
 * ue__find_tracefs - locate and open user_events_data
 * @explicit_dir: a directory the caller named, or NULL to search
 * @no_kernel: skip the kernel's tracefs paths
 * @ret_dir: the directory found (PATH_MAX bytes)
 * @ret_backend: UE_BACKEND_*
 *
 * Return: the open descriptor, or -ENOENT / -EACCES / -errno.
 */
int ue__find_tracefs(const char *explicit_dir, bool no_kernel, char *ret_dir, int *ret_backend);

/**
 * ue__tp_register - DIAG_IOCSREG of @tp (its flags in @tp->reserved) on @p->fd
 *
 * Return: 0 with @tp->write_index set; -ENOTCONN when no daemon serves
 * (@p->gone, or its file is dead); -errno as the ioctl.
 */
int ue__tp_register(struct ue_provider *p, struct ue_tracepoint *tp);

/* native.c: the zero-syscall path (stubs return -EOPNOTSUPP until a daemon offers it). */
/** ue__native_connect - a session with the daemon serving @p->fd, not published; NULL and *@ret_err */
struct ue_native *ue__native_connect(struct ue_provider *p, int *ret_err);
/** ue__native_open - ue__native_connect(), then @p->native */
int ue__native_open(struct ue_provider *p);
void ue__native_close(struct ue_provider *p);
/** ue__native_add - @tp's slot in @n (@tp->native_id); the provider's lock held */
int ue__native_add(struct ue_native *n, struct ue_tracepoint *tp);
void ue__native_remove(struct ue_tracepoint *tp);
/** ue__native_write - one record of slot @id into this thread's ring of @n */
int ue__native_write(struct ue_native *n, uint32_t id, struct ue_tracepoint *tp,
		     const struct iovec *iov, int iovcnt, size_t len);
void ue__native_after_fork_child(struct ue_provider *p);
/** ue__native_sock - the session's socket, -1 once it is known dead */
int ue__native_sock(struct ue_native *n);
/**
 * ue__native_retire - @n's daemon is gone (or replaced it): dead from now
 * on, its socket closed, its rings' shared memory let go (the addresses stay
 * mapped); @n goes to @p->retired, freed at ue_provider_close() only, as a
 * writer may still hold it (@p's lock held)
 *
 * Return: the records its rings held that the daemon never took.
 */
uint64_t ue__native_retire(struct ue_provider *p, struct ue_native *n);
/** ue__native_tell_lost - UE_NATIVE_LOST: what the provider could not write */
int ue__native_tell_lost(struct ue_native *n, uint64_t lost);

/* reconnect.c: the watcher thread that reconnects providers whose daemon died. */
/** ue__watch_start_locked - the watcher of this process, started once (and in a fork child) */
void ue__watch_start_locked(void);
/** ue__watch_kick - a write saw the daemon gone (ENOTCONN): @p is looked at now */
void ue__watch_kick(struct ue_provider *p);
/** ue__watch_after_fork_child - in a fork child (ue__providers_lock held): its own watcher */
void ue__watch_after_fork_child(void);
/** ue__watch_forget_locked - @p leaves the list: wait until the watcher is done with it */
void ue__watch_forget_locked(struct ue_provider *p);

#endif /* UE_LIB_H */
