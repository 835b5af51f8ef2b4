/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test support (libuetestsupport): processes and time.  A monotonic clock in
 * milliseconds, numbers from the environment, another process's
 * /proc/<pid>/status and descriptor count, waiting for a child with a bound,
 * choosing the next pid, and ASan's quarantine bounded for RSS checks.
 */
#ifndef UE_TESTS_COMMON_PROC_H
#define UE_TESTS_COMMON_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/**
 * now_ms - CLOCK_MONOTONIC in milliseconds
 */
long now_ms(void);

/**
 * env_uint - a positive number from the environment
 * @name: the variable
 * @def: its value when unset, empty, 0 or above @max
 * @max: the largest value taken
 */
unsigned int env_uint(const char *name, unsigned int def, unsigned int max);

/**
 * proc_status_kb - a number of /proc/@pid/status
 * @pid: the process
 * @key: the line's key with its colon, e.g. "VmRSS:"
 *
 * Return: the number after @key (KiB for the Vm* lines), or -1.
 */
long proc_status_kb(pid_t pid, const char *key);

/**
 * proc_fd_count - descriptors open in @pid (entries of /proc/@pid/fd), or -1
 * @pid: the process
 */
long proc_fd_count(pid_t pid);

/**
 * proc_dump_threads - say where every thread of @pid waits, as TAP comments
 * @pid: the process (a daemon that stopped answering, say)
 *
 * Each thread's name, state and kernel stack (/proc/@pid/task/TID, root
 * only), then its user-space stacks when gdb is installed.  For a test's
 * failure message: nothing depends on it.
 */
void proc_dump_threads(pid_t pid);

/**
 * next_pid_is - make the next fork of this pid namespace take @pid
 * @pid: the pid wanted
 *
 * Writes ns_last_pid (root only); another fork on the machine may still
 * take the pid first.  Return: whether ns_last_pid was written.
 */
bool next_pid_is(pid_t pid);

/**
 * wait_for - reap the child @pid within @ms milliseconds
 * @pid: the child
 * @ms: the bound
 *
 * Return: its wait status, or -1 when it did not end in time: it is then
 * killed (SIGKILL) and reaped.
 */
int wait_for(pid_t pid, long ms);

/**
 * asan_quarantine_bound - bound ASan's quarantine of freed memory (16 MiB)
 *
 * For the children started after the call (ASAN_OPTIONS is extended): its
 * default of 256 MiB would make RSS grow without a leak.
 */
void asan_quarantine_bound(void);

#endif /* UE_TESTS_COMMON_PROC_H */
