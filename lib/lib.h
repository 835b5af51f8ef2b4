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

#include "userevents/userevents.h"

struct ue_native;

struct ue_provider {
	int fd;				/* user_events_data */
	int backend;			/* enum ue_backend */
	unsigned int flags;		/* UE_PROVIDER_* */
	char tracefs[PATH_MAX];
	pthread_mutex_t lock;		/* registrations and the list */
	struct ue_tracepoint *events;	/* registered, through ue_tracepoint.next */
	struct ue_native *native;	/* NULL: writev only */
	struct ue_provider *next_open;	/* every open provider (fork handling) */
};

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

/* native.c: the zero-syscall path (stubs return -EOPNOTSUPP until a daemon offers it). */
int ue__native_open(struct ue_provider *p);
void ue__native_close(struct ue_provider *p);
int ue__native_add(struct ue_provider *p, struct ue_tracepoint *tp);
void ue__native_remove(struct ue_provider *p, struct ue_tracepoint *tp);
int ue__native_write(struct ue_provider *p, struct ue_tracepoint *tp, const struct iovec *iov,
		     int iovcnt, size_t len);
void ue__native_after_fork_child(struct ue_provider *p);

#endif /* UE_LIB_H */
