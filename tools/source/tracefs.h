/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/source: a tracefs that serves user_events (tracefs.c): finding it,
 * its events and globs over them, enabling them, its counters (per-CPU
 * buffers, usereventsd_stats, drops) and the wait for native rings.
 */
#ifndef UE_TOOLS_TRACEFS_H
#define UE_TOOLS_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "util.h"

/* The systems user events live in. */
extern const char *const uet_systems[2];

/* One event found under events/. */
struct uet_event {
	char system[32];
	char name[256];		/* directory name: NAME or NAME.<hex> */
	unsigned int id;
	struct ue_event *desc;	/* from its format file */
	char *format;		/* that file's text */
	size_t format_len;
	int enabled;		/* 0, 1, or -1 when unreadable */
};

struct uet_events {
	struct uet_event *v;
	size_t n;
};

/**
 * uet_tracefs_find - the tracefs to use
 * @opt: --tracefs, or NULL
 * @out: the directory found
 * @len: size of @out
 *
 * In order: @opt, $USEREVENTS_TRACEFS, a usereventsd mount in
 * /proc/self/mountinfo, /sys/kernel/tracing when it has user_events_data.
 *
 * Return: 0, or -ENOENT when none is there.
 */
int uet_tracefs_find(const char *opt, char *out, size_t len);

/**
 * uet_tracefs_resolve - the tracefs of a command (uet_tracefs_find()), checked
 * (uet_tracefs_check()): called once its command line was taken, so that a
 * usage error comes first
 *
 * Return: 0, or UET_EXIT_NO_TRACEFS with the message printed.
 */
int uet_tracefs_resolve(const char *opt, char *out, size_t len);

/** uet_events_load - every event of the user_events systems; 0 or -errno */
int uet_events_load(const char *tracefs, struct uet_events *ret);

/** uet_events_free - release what uet_events_load() returned */
void uet_events_free(struct uet_events *evs);

/** uet_events_find_id - the event of type @id, or NULL */
struct uet_event *uet_events_find_id(struct uet_events *evs, unsigned int id);

/*
 * A -p PROVIDER[:LEVEL[:KEYWORDS]] is kept among the -e GLOBs as this byte
 * and the spec (uet_opts_parse() checked it); uet_glob_shown() shows it.
 */
#define UET_PROVIDER_TAG "\001"

/**
 * uet_glob_match - whether @glob names SYSTEM:NAME
 * @glob: "SYSTEM:NAME" or "NAME", with fnmatch() wildcards (ue_glob_match()),
 *        or UET_PROVIDER_TAG and an EventHeader provider spec (ue_arm_match())
 *
 * A NAME.<hex> of user_events_multi also matches by its NAME.
 */
bool uet_glob_match(const char *glob, const char *system, const char *name);

/** uet_set_enable - write @on to the enable file of every event @glob names; count or -errno */
int uet_set_enable(const char *tracefs, struct uet_events *evs, const char *glob, bool on);

/* Per-CPU buffer counters summed (per_cpu/cpuN/stats). */
struct uet_buf_stats {
	unsigned long long entries, overrun, bytes, dropped, read;
	unsigned int ncpus;
};

/** uet_buf_stats_read - sum per_cpu/cpuN/stats of @tracefs; 0 or -errno */
int uet_buf_stats_read(const char *tracefs, struct uet_buf_stats *ret);

/** uet_trace_clockid - the clock of @tracefs's trace_clock (its [choice]); NULL: CLOCK_MONOTONIC */
clockid_t uet_trace_clockid(const char *tracefs);

/** uet_daemon_stat - one counter of usereventsd_stats, or -1 when there is none */
long long uet_daemon_stat(const char *tracefs, const char *key);

/**
 * uet_settle - wait (2 s at most) until usereventsd has moved every record
 * of the native path's rings into the trace buffer (native_pending_bytes of
 * usereventsd_stats is 0); returns at once on the kernel's tracefs
 */
void uet_settle(const char *tracefs);

/* Drops since uet_drops_begin(): every record written and not kept. */
struct uet_drops_at {
	struct uet_buf_stats st;
	unsigned long long ring_full;
	bool have;
};

struct uet_drops {
	struct uet_drops_at base;
	unsigned long long overrun;	/* overwritten in the ring buffer */
	unsigned long long discarded;	/* refused by a full ring buffer (no overwrite) */
	unsigned long long ring_full;	/* refused by a full native ring (usereventsd) */
	bool have;			/* the counters could be read */
};

/** uet_drops_begin - take the counters of @tracefs as the zero */
void uet_drops_begin(struct uet_drops *d, const char *tracefs);

/** uet_drops_now - update @d from @tracefs; the total of drops since the zero */
unsigned long long uet_drops_now(struct uet_drops *d, const char *tracefs);

/**
 * uet_tracefs_check - whether @dir serves user_events (has user_events_data)
 *
 * Return: 0, or -errno with the message printed (exit UET_EXIT_NO_TRACEFS).
 */
int uet_tracefs_check(const char *dir);

#endif /* UE_TOOLS_TRACEFS_H */
