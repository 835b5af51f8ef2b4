// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lock: what each thread holds (UE_LOCKDEP) and the report of a broken
 * rule of the lock order (lock.h, "LOCKING").
 */
#include <stdio.h>
#include <stdlib.h>

#include "lock.h"

__thread struct ue_lockdep_thread ue_lockdep;

static const char *const rank_names[UE_LOCK_RANKS] = {
	[UE_LOCK_NONE] = "none",
	[UE_LOCK_FH] = "FH",
	[UE_LOCK_SESSIONS] = "SESSIONS",
	[UE_LOCK_PIPE] = "PIPE",
	[UE_LOCK_NATIVE] = "NATIVE",
	[UE_LOCK_PROC_EVENTS] = "PROC_EVENTS",
	[UE_LOCK_REG_STATE] = "REG_STATE",
	[UE_LOCK_PROC_IO] = "PROC_IO",
	[UE_LOCK_ENABLERS] = "ENABLERS",
	[UE_LOCK_REGISTRY] = "REGISTRY",
	[UE_LOCK_TRIGGERS] = "TRIGGERS",
	[UE_LOCK_FILTER] = "FILTER",
	[UE_LOCK_BUF_RESIZE] = "BUF_RESIZE",
	[UE_LOCK_BUF_CHANNELS] = "BUF_CHANNELS",
	[UE_LOCK_BUF_RING] = "BUF_RING",
	[UE_LOCK_BUF_WAIT] = "BUF_WAIT",
	[UE_LOCK_TASKS] = "TASKS",
	[UE_LOCK_CMDLINES] = "CMDLINES",
	[UE_LOCK_COUNTS] = "COUNTS",
	[UE_LOCK_NATIVE_WAKE] = "NATIVE_WAKE",
	[UE_LOCK_RELEASE] = "RELEASE",
	[UE_LOCK_FH_LIST] = "FH_LIST",
	[UE_LOCK_SWEEPER] = "SWEEPER",
	[UE_LOCK_PROBES] = "PROBES",
};

const char *ue_lock_rank_name(unsigned int rank)
{
	return rank < UE_LOCK_RANKS && rank_names[rank] ? rank_names[rank] : "?";
}

void ue_lockdep_fail(const char *what, unsigned int rank)
{
	char held[512];
	size_t n = 0;

	held[0] = '\0';
	for (unsigned int r = 0; r < UE_LOCK_RANKS && n < sizeof(held); r++) {
		if (ue_lockdep.held & (1u << r)) {
			int k = snprintf(held + n, sizeof(held) - n, " %s", ue_lock_rank_name(r));

			if (k < 0)
				break;
			n += (size_t)k;
		}
	}
	fprintf(stderr, "usereventsd: lock order: a lock of rank %s %s; this thread holds:%s\n",
		ue_lock_rank_name(rank), what, n ? held : " nothing");
	abort();
}
