/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test support (libuetestsupport): usereventsd ($USEREVENTSD) mounted on a
 * temporary directory of a private mount namespace, the tracefs files and
 * raw-ABI calls the tests make on it, its usereventsd_stats, and the check
 * many tests end with: another client still registers and writes.  Tests
 * that use it end with UE_TEST_MAIN() (still_serving() asserts).
 */
#ifndef UE_TESTS_COMMON_DAEMON_H
#define UE_TESTS_COMMON_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/proc.h"

/* The mount point (or a tracefs a test names itself). */
extern char mnt[256];
/* The daemon serving mnt; 0 when none was started or it was reaped. */
extern pid_t daemon_pid;
/* Set by a test that killed the daemon: its exit status then says nothing. */
extern bool daemon_killed;

/**
 * daemon_setup - root, /dev/fuse, a private mount namespace and a daemon
 * @opts: usereventsd's -o options, or NULL
 *
 * Prints "1..0 # SKIP ..." and exits where it cannot run (not root, no
 * /dev/fuse, no mount namespace), "Bail out!" when the daemon does not
 * mount.  Other usereventsd mounts copied into the namespace are detached
 * (libuserevents would find them first).  At exit the daemon is unmounted
 * and must end with status 0 (daemon_stop()).
 */
void daemon_setup(const char *opts);

/**
 * daemon_start - start usereventsd on mnt, again after it ended or died too
 * @opts: its -o options, or NULL
 *
 * Return: 0 once it serves (within 10 s), -1 after killing it otherwise.
 */
int daemon_start(const char *opts);

/**
 * daemon_unmount - unmount mnt and reap the daemon within @ms milliseconds
 * @ms: the bound
 *
 * Return: its wait status, or -1 when it did not end (it is then killed).
 */
int daemon_unmount(long ms);

/**
 * daemon_stop - daemon_unmount(), ending the test (exit 1) when the daemon
 * did not end or ended with anything but 0 (sanitizer reports do)
 *
 * Registered by daemon_setup() with atexit(); does nothing in a child of
 * the test or when no daemon runs.
 */
void daemon_stop(void);

/**
 * path - @rel below mnt; one of four per-thread buffers, reused in turn
 * @rel: a path relative to the mount
 */
const char *path(const char *rel);

/**
 * write_rel - one write() of @s to the file @rel (opened O_WRONLY)
 * @rel: relative to mnt
 * @s: the text
 *
 * Return: the byte count written, or -errno.
 */
ssize_t write_rel(const char *rel, const char *s);

/**
 * write_rel_flags - write_rel() with more open flags (O_TRUNC, O_APPEND)
 * @rel: relative to mnt
 * @s: the text
 * @flags: added to O_WRONLY | O_CLOEXEC
 */
ssize_t write_rel_flags(const char *rel, const char *s, int flags);

/**
 * read_rel - the whole file @rel into @buf, NUL-terminated
 * @rel: relative to mnt
 * @buf: the buffer
 * @size: its size (> 0)
 *
 * Return: the length read (at most @size - 1), or -errno.
 */
ssize_t read_rel(const char *rel, char *buf, size_t size);

/**
 * read_rel_alloc - the whole file @rel in a malloc'ed string
 * @rel: relative to mnt
 *
 * Return: the string (the caller frees it), or NULL.
 */
char *read_rel_alloc(const char *rel);

/**
 * trace_count - occurrences of @needle in the trace file, or -1
 * @needle: the text
 */
int trace_count(const char *needle);

/**
 * trace_wait - trace_count() once it reaches @want, or after 2 s
 * @needle: the text
 * @want: the count awaited
 *
 * Records of the native path reach the trace buffer when the daemon's
 * drain thread moves them.  Return: the last count.
 */
int trace_wait(const char *needle, int want);

/**
 * reg_full - DIAG_IOCSREG with every field of struct user_reg chosen
 * @fd: an open user_events_data
 * @name_args: the event
 * @addr: the enable word
 * @size: enable_size
 * @bit: enable_bit
 * @flags: USER_EVENT_REG_*
 * @idx: gets write_index (may be NULL)
 *
 * write_index is preset to 0xdeadbeef: the value read back is the daemon's.
 * Return: 0 or -errno.
 */
int reg_full(int fd, const void *name_args, void *addr, int size, int bit, unsigned int flags,
	     uint32_t *idx);

/**
 * reg_at - reg_full() of a 4-byte enable word without flags
 * @fd: an open user_events_data
 * @name_args: the event
 * @addr: the enable word
 * @bit: enable_bit
 * @idx: gets write_index (may be NULL)
 */
int reg_at(int fd, const void *name_args, void *addr, int bit, uint32_t *idx);

/**
 * unreg_at - DIAG_IOCSUNREG of (@addr, @bit); 0 or -errno
 * @fd: an open user_events_data
 * @addr: disable_addr
 * @bit: disable_bit
 */
int unreg_at(int fd, void *addr, int bit);

/**
 * del_at - DIAG_IOCSDEL of @name; 0 or -errno
 * @fd: an open user_events_data
 * @name: the event's name (passed as is: NULL and bad pointers too)
 */
int del_at(int fd, const void *name);

/**
 * stat_of - a counter of usereventsd_stats, or -1 when missing
 * @key: the line's key, without its colon
 */
long long stat_of(const char *key);

/**
 * stats_has - whether usereventsd_stats has the line "@key: @value"
 * @key: the key
 * @value: the value
 */
bool stats_has(const char *key, const char *value);

/**
 * bit_becomes - whether bit 0 of @word reaches @want within 5 s
 * @word: an enable word
 * @want: 0 or 1
 *
 * An enable write returns once the bits are written or after the enablers'
 * bounded wait (100 ms); on a loaded machine the write may land after that.
 */
bool bit_becomes(const uint32_t *word, uint32_t want);

/**
 * still_serving - a fresh client registers event @name ("@name u32 v"), the
 * event is enabled, its bit is set, a write lands; then all is undone
 * @name: an event name no other part of the test uses
 */
void still_serving(const char *name);

#endif /* UE_TESTS_COMMON_DAEMON_H */
