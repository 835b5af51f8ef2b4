/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The request handlers of usereventsd (daemon/fs/fs-data.c, fs-text.c: their
 * files' operations) run without FUSE: handler-fakes.c stands in for libfuse's request calls and,
 * in place of daemon/procs/procmem.c, for the caller's memory, an image in a buffer.
 */
#ifndef UE_FUZZ_HANDLER_H
#define UE_FUZZ_HANDLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fs.h"

/* The caller: a thread id no real process has; its memory is the image. */
#define FZ_TID 0x3ffffff0
/* Where the image starts in the caller's address space. */
#define FZ_BASE UINT64_C(0x10000000)

/**
 * fz_image_set - the caller's memory from now on: @len bytes at FZ_BASE
 * @data: copied (the daemon may write into the copy: enable bits, write_index)
 * @len: at most 1 MiB
 * @writable: whether the caller could write there itself
 */
void fz_image_set(const void *data, size_t len, bool writable);

/** fz_capable - what perfmon_capable() says of the caller from now on */
void fz_capable(bool capable);

/** fz_daemon_new - a daemon context as main.c makes it, without FUSE (one CPU, 64 KiB ring) */
struct ue_daemon *fz_daemon_new(void);

/** fz_daemon_free - free it: every open file released first */
void fz_daemon_free(struct ue_daemon *d);

/**
 * fz_fh_open - an open of the file @name of the mount's root (user_events_data,
 * dynamic_events, set_event), through its operations
 */
struct ue_fh *fz_fh_open(struct ue_daemon *d, const char *name, int flags);

/** fz_fh_close - its flush and release */
void fz_fh_close(struct ue_daemon *d, struct ue_fh *fh);

/** fz_ioctl - the file's ioctl by the caller; 0 or -errno as replied */
int fz_ioctl(struct ue_daemon *d, struct ue_fh *fh, unsigned int cmd, uint64_t arg);

/** fz_write - the file's write by the caller; bytes or -errno */
ssize_t fz_write(struct ue_daemon *d, struct ue_fh *fh, const void *buf, size_t size, off_t off);

/** fz_enable_all - a tracer turns every event on or off (enable bits are written) */
void fz_enable_all(struct ue_daemon *d, bool on);

#endif /* UE_FUZZ_HANDLER_H */
