/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test support (libueteststallfs, needs libfuse3): a FUSE file whose reads
 * block while stalled.  Mapped over a process's page, every access to that
 * page (another process's through /proc/<pid>/mem included) waits: a real
 * stall of remote memory access, which userfaultfd is not (remote accesses
 * to a missing uffd page fail with EIO at once).
 */
#ifndef UE_TESTS_COMMON_STALLFS_H
#define UE_TESTS_COMMON_STALLFS_H

#include <stdbool.h>

/**
 * stallfs_start - mount the file system on a new directory, served by a thread
 * @content: the start of its one file, "f" (64 KiB, zeros after it), or NULL
 *
 * Stopped at exit if the test does not stop it.  Return: 0 or -errno.
 */
int stallfs_start(const char *content);

/**
 * stallfs_file - the path of the file, for open() and mmap()
 */
const char *stallfs_file(void);

/**
 * stallfs_stall - from now on reads block until stallfs_release()
 */
void stallfs_stall(void);

/**
 * stallfs_release - end the stall: blocked reads return, new ones do not block
 */
void stallfs_release(void);

/**
 * stallfs_reads - the reads the file system has received
 */
int stallfs_reads(void);

/**
 * stallfs_stop - release, unmount and remove the directory
 */
void stallfs_stop(void);

#endif /* UE_TESTS_COMMON_STALLFS_H */
