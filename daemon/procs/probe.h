/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probe: looks at another process that an exec may hold up (kcmp, an open
 * of its /proc memory), on worker threads, waited for with a bound.
 */
#ifndef UE_PROBE_H
#define UE_PROBE_H

#include <stdint.h>
#include <sys/types.h>

#include "procmem.h"

/* How long a fork's proof waits for one look before it is tried again later. */
#define UE_PROBE_MS 100

/**
 * ue_probe_kcmp_vm - whether two processes share their memory (kcmp KCMP_VM)
 * @a: a process
 * @b: another
 * @ms: the longest wait
 *
 * Return: 1 they do, 0 they do not, -ETIMEDOUT when one was held up longer
 * (an exec in progress), or another -errno of kcmp().
 */
int ue_probe_kcmp_vm(pid_t a, pid_t b, unsigned int ms);

/**
 * ue_probe_procmem_open - ue_procmem_open(), waited for at most @ms
 * @pid: the process
 * @ms: the longest wait
 * @ret_pm: the handle (the caller's); untouched on failure
 *
 * Return: what ue_procmem_open() returns, or -ETIMEDOUT (the handle, should
 * the open finish later, is closed then).
 */
int ue_probe_procmem_open(pid_t pid, unsigned int ms, struct ue_procmem **ret_pm);

/** ue_probe_timeouts - how many looks were given up so far */
uint64_t ue_probe_timeouts(void);

#endif /* UE_PROBE_H */
