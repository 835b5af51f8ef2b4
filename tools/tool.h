/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The userevents tool's private header: exit codes, the tracefs access it
 * shares between commands (tracefs.c) and the commands themselves.
 */
#ifndef UE_TOOLS_TOOL_H
#define UE_TOOLS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>

#include "core.h"

/* Exit codes a script can rely on (docs/man/userevents.1). */
#define UET_EXIT_OK 0
#define UET_EXIT_FAIL 1		/* an operation failed (message on stderr) */
#define UET_EXIT_USAGE 2	/* bad command line */
#define UET_EXIT_NO_TRACEFS 3	/* no tracefs with user_events found */
#define UET_EXIT_NO_MATCH 4	/* no event matched the GLOB */
#define UET_EXIT_RUN_FAIL 125	/* run: userevents itself failed before CMD ran */
#define UET_EXIT_CANNOT_EXEC 126
#define UET_EXIT_NOT_FOUND 127

#define UET_PROG "userevents"

/* The systems user events live in. */
extern const char *const uet_systems[2];

/* One event found under events/. */
struct uet_event {
	char system[32];
	char name[256];		/* directory name: NAME or NAME.<hex> */
	unsigned int id;
	struct ue_event *desc;	/* from its format file; NULL if it could not be read */
	int enabled;		/* 0, 1, or -1 when unreadable */
};

struct uet_events {
	struct uet_event *v;
	size_t n;
};

/** uet_err - print "userevents: " and the message to stderr */
void uet_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

/** uet_read - the whole of DIR/REL, NUL-terminated (free it); NULL with errno */
char *uet_read(const char *dir, const char *rel, size_t *ret_len);

/** uet_write - write @s to DIR/REL in one write(); 0 or -errno */
int uet_write(const char *dir, const char *rel, const char *s);

/** uet_events_load - every event of the user_events systems; 0 or -errno */
int uet_events_load(const char *tracefs, struct uet_events *ret);

/** uet_events_free - release what uet_events_load() returned */
void uet_events_free(struct uet_events *evs);

/** uet_events_find_id - the event of type @id, or NULL */
struct uet_event *uet_events_find_id(struct uet_events *evs, unsigned int id);

/**
 * uet_glob_match - whether @glob names SYSTEM:NAME
 * @glob: "SYSTEM:NAME" or "NAME", with fnmatch() wildcards
 *
 * A NAME.<hex> of user_events_multi also matches by its NAME.
 */
bool uet_glob_match(const char *glob, const char *system, const char *name);

/** uet_set_enable - write @on to the enable file of every event @glob names; count or -errno */
int uet_set_enable(const char *tracefs, struct uet_events *evs, const char *glob, bool on);

/* Commands: argc/argv start at the command's name; they return an exit code. */
int uet_cmd_list(const char *tracefs, int argc, char **argv);
int uet_cmd_enable(const char *tracefs, int argc, char **argv, bool on);
int uet_cmd_stream(const char *tracefs, int argc, char **argv);
int uet_cmd_stats(const char *tracefs, int argc, char **argv);
int uet_cmd_run(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_record(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_report(int argc, char **argv);

/* A private usereventsd, as run starts it (run.c). */
struct uet_private;

/**
 * uet_private_start - mount a private usereventsd (root: in a private mount
 * namespace, also bound over /sys/kernel/tracing)
 * @ret: the handle, for uet_private_stop()
 * @tracefs: its mount point
 * @len: size of @tracefs
 *
 * Return: 0, or -errno (the message is printed).
 */
int uet_private_start(struct uet_private **ret, char *tracefs, size_t len);

/** uet_private_stop - unmount, end the daemon, remove the mount point */
void uet_private_stop(struct uet_private *p);

/* Records seen of one event name. */
struct uet_count {
	char name[256];
	unsigned long long events;
	unsigned long long bytes;	/* text bytes of its lines */
};

/* Per-CPU buffer counters summed (per_cpu/cpuN/stats). */
struct uet_buf_stats {
	unsigned long long entries, overrun, bytes, dropped, read;
	unsigned int ncpus;
};

/** uet_buf_stats_read - sum per_cpu/cpuN/stats of @tracefs; 0 or -errno */
int uet_buf_stats_read(const char *tracefs, struct uet_buf_stats *ret);

/* A live copy of trace_pipe (stream.c), used by stream and run. */
struct uet_stream {
	const char *tracefs;
	char **globs;			/* show only these events (none: all) */
	size_t nglobs;
	FILE *out;			/* where lines go (NULL: count only) */
	FILE *copy;			/* a second output (run -o), or NULL */
	volatile sig_atomic_t *stop;	/* set: drain what is there, then return */
	void (*tick)(void *arg);	/* called between reads, at least every 200 ms */
	void *tick_arg;
	/* results */
	struct uet_count *counts;
	size_t ncounts;
	unsigned long long lost;	/* from "[LOST N EVENTS]" lines */
};

/**
 * uet_stream_loop - copy trace_pipe to @s->out until *@s->stop is set
 *
 * Return: 0, or -errno when trace_pipe cannot be opened or read.
 */
int uet_stream_loop(struct uet_stream *s);

/** uet_stream_free - release the counts */
void uet_stream_free(struct uet_stream *s);

/*
 * Events enabled on the fly: every tick, the events matching the globs
 * that are not enabled yet get enabled; at the end those are disabled again.
 */
struct uet_autoenable {
	const char *tracefs;
	char **globs;
	size_t nglobs;
	char (*done)[300];		/* "SYSTEM/NAME" of each event we enabled */
	size_t ndone;
	unsigned long long last_scan_ns;
};

/** uet_autoenable_tick - enable what matches now (a uet_stream tick) */
void uet_autoenable_tick(void *arg);

/** uet_autoenable_undo - disable the events we enabled, forget them */
void uet_autoenable_undo(struct uet_autoenable *a);

#endif /* UE_TOOLS_TOOL_H */
