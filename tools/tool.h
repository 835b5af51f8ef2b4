/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The userevents tool's private header: exit codes, the commands, and what
 * they share: tracefs access (tracefs.c), options, signals, the traced
 * command and drops (session.c), a private daemon (private.c), records.
 */
#ifndef UE_TOOLS_TOOL_H
#define UE_TOOLS_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>
#include <stdio.h>

#include "core.h"

/* Exit codes a script can rely on (docs/man/userevents.1). */
#define UET_EXIT_OK 0
#define UET_EXIT_FAIL 1		/* an operation failed (message on stderr) */
#define UET_EXIT_USAGE 2	/* bad command line */
#define UET_EXIT_NO_TRACEFS 3	/* no tracefs with user_events found */
#define UET_EXIT_NO_MATCH 4	/* no event matched the GLOB */
#define UET_EXIT_DROPPED 5	/* export: records dropped or rejected (counted on stderr) */
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
	struct ue_event *desc;	/* from its format file */
	char *format;		/* that file's text */
	size_t format_len;
	int enabled;		/* 0, 1, or -1 when unreadable */
};

struct uet_events {
	struct uet_event *v;
	size_t n;
};

/** uet_err - print "userevents: " and the message to stderr */
void uet_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * uet_usage_err - a command line refused: "userevents: CMD: " and the message,
 * then CMD's usage line, both to stderr; every command's one wording
 * @cmd: the command ("list", "stream", ...); NULL: the global options
 * @usage: its usage after "userevents "
 * @fmt: what is wrong: "unknown option '--x'", "option '-e' needs a value",
 *       "--pid abc: not a pid"
 *
 * Return: UET_EXIT_USAGE.
 */
int uet_usage_err(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * uet_usage_getopt - uet_usage_err() for what getopt_long() (optstring
 * starting "+:", opterr 0) returned as '?' (an unknown option) or ':' (one
 * without its value)
 * @cmd: the command
 * @usage: its usage after "userevents "
 * @c: getopt_long()'s answer
 * @argv: the argv given to getopt_long()
 *
 * Return: UET_EXIT_USAGE.
 */
int uet_usage_getopt(const char *cmd, const char *usage, int c, char **argv);

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

/** uet_read - the whole of DIR/REL, NUL-terminated (free it); NULL with errno */
char *uet_read(const char *dir, const char *rel, size_t *ret_len);

/** uet_write - write @s to DIR/REL in one write(); 0 or -errno */
int uet_write(const char *dir, const char *rel, const char *s);

/*
 * Thread id -> process id (tgids.c): the kernel's saved_tgids text (a
 * recording's, a tracefs's) and, live, /proc/TID/status; cached.
 */
struct uet_tgids;

/** uet_tgids_new - an empty map; @tracefs: live (answers from /proc, then its saved_tgids), or NULL */
struct uet_tgids *uet_tgids_new(const char *tracefs);
/** uet_tgids_free - release @t (NULL is ignored) */
void uet_tgids_free(struct uet_tgids *t);
/** uet_tgids_parse - add the "PID TGID" lines of @text (saved_tgids' text); 0 or -ENOMEM */
int uet_tgids_parse(struct uet_tgids *t, const char *text, size_t len);
/** uet_tgids_get - the process of thread @tid, 0 when not known (@t NULL: 0) */
int32_t uet_tgids_get(struct uet_tgids *t, int32_t tid);
/** uet_tgids_text - every known pair as saved_tgids shows them, in pid order (free it); NULL without memory */
char *uet_tgids_text(struct uet_tgids *t, size_t *ret_len);
/** uet_tgids_known - how many threads have a known process */
size_t uet_tgids_known(const struct uet_tgids *t);

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

struct uet_format;
/**
 * uet_glob_per_record - whether @glob's answer for @f's records is each
 * record's: a PROVIDER:EVENT of an EventHeader event, EVENT not "*"
 */
bool uet_glob_per_record(const char *glob, const struct uet_format *f);
/** uet_glob_match_rec - whether @glob names the record @rec (@len bytes) of @f: by its EventHeader name too */
bool uet_glob_match_rec(const char *glob, const struct uet_format *f, const void *rec, size_t len);

/** uet_set_enable - write @on to the enable file of every event @glob names; count or -errno */
int uet_set_enable(const char *tracefs, struct uet_events *evs, const char *glob, bool on);

/* Commands: argc/argv start at the command's name; they return an exit code. */
int uet_cmd_list(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_enable(const char *tracefs_opt, int argc, char **argv, bool on);
int uet_cmd_stream(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_stats(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_run(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_record(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_report(int argc, char **argv);
int uet_cmd_export(const char *tracefs_opt, int argc, char **argv);
int uet_cmd_top(const char *tracefs_opt, int argc, char **argv);

/* Per-CPU buffer counters summed (per_cpu/cpuN/stats). */
struct uet_buf_stats {
	unsigned long long entries, overrun, bytes, dropped, read;
	unsigned int ncpus;
};

/** uet_buf_stats_read - sum per_cpu/cpuN/stats of @tracefs; 0 or -errno */
int uet_buf_stats_read(const char *tracefs, struct uet_buf_stats *ret);

/* session.c: what the tracing commands share. */

/* --color: 1 always, 0 never, -1 auto (a terminal, and no NO_COLOR in the environment). */
extern int uet_color;

/** uet_bold - the escape that starts bold text on @f, or "" when not in colour */
const char *uet_bold(FILE *f);

/** uet_bold_end - the escape that ends it, or "" */
const char *uet_bold_end(FILE *f);

/* The last SIGINT, SIGTERM, SIGHUP or SIGPIPE since uet_catch_signals(); 0: none. */
extern volatile sig_atomic_t uet_signal;

/** uet_catch_signals - SIGINT, SIGTERM, SIGHUP, SIGPIPE set uet_signal (and interrupt reads) */
void uet_catch_signals(void);

/** uet_sleep_ms - sleep @ms milliseconds (a signal may cut it short) */
void uet_sleep_ms(long ms);

/** uet_now_ns - CLOCK_MONOTONIC in nanoseconds */
uint64_t uet_now_ns(void);

/*
 * Wall-clock time of the trace's time stamps: the one conversion of export,
 * stream --wall-clock and report --wall-clock.
 */

/** uet_clock_ns - @c in nanoseconds */
int64_t uet_clock_ns(clockid_t c);

/**
 * uet_clock_named - the clock of a trace clock's name: "boot", "mono_raw",
 * "tai"; any other ("mono", usereventsd's; "local", "global", "perf", the
 * kernel's default, near enough to it) and NULL: CLOCK_MONOTONIC
 */
clockid_t uet_clock_named(const char *name);

/** uet_trace_clockid - the clock of @tracefs's trace_clock (its [choice]); NULL: CLOCK_MONOTONIC */
clockid_t uet_trace_clockid(const char *tracefs);

/** uet_wall_offset_ns - CLOCK_REALTIME minus @c now: a time stamp of @c plus it is ns since the epoch */
int64_t uet_wall_offset_ns(clockid_t c);

/* Options a command takes (the bits) and what they were given. */
#define UET_O_EVENT	(1u << 0)	/* -e, --event GLOB (repeatable) */
#define UET_O_OUTPUT	(1u << 1)	/* -o, --output FILE */
#define UET_O_QUIET	(1u << 2)	/* -q, --quiet */
#define UET_O_FIELDS	(1u << 3)	/* --fields */
#define UET_O_JSON	(1u << 4)	/* --json */
#define UET_O_PID	(1u << 5)	/* --pid N */
#define UET_O_FILTER	(1u << 6)	/* -f, --filter EXPR (the -e before it) */
#define UET_O_NO_PRELOAD (1u << 7)	/* --no-preload */
#define UET_O_PROVIDER	(1u << 8)	/* -p, --provider SPEC (among the globs, tagged) */
#define UET_O_FORMAT	(1u << 9)	/* --format=text|fields|json|perf-decode|chrome|html */
#define UET_O_BUFFER	(1u << 10)	/* -b, --buffer-size KiB; --blocking[=MS], --no-blocking */
#define UET_O_STAT	(1u << 11)	/* --stat (report: the "stat" sink) */
#define UET_O_LIMIT	(1u << 12)	/* --duration SECONDS, --max-size SIZE (record) */
#define UET_O_WALL	(1u << 13)	/* --wall-clock (--json's ts: ns since the epoch) */
/* --max-size's least: a few of the file's 64 KiB pages besides its metadata. */
#define UET_MAX_SIZE_MIN (1u << 20)
#define UET_O_COUNTER	(1u << 14)	/* --counter EVENT.FIELD (repeatable; --format=chrome) */
#define UET_O_HTML	(1u << 15)	/* --html (report: --format=html) */
#define UET_O_FILEFMT	(1u << 16)	/* --format=trace.dat|perf (record: the file's format) */
#define UET_O_REATTACH	(1u << 17)	/* --reattach SECONDS (a live reader whose daemon went away) */
/* -b's bounds (the daemon's for a channel) and --blocking's default and most. */
#define UET_BUFFER_MIN_KIB 256
#define UET_BUFFER_MAX_KIB (1024 * 1024)
#define UET_BLOCK_DEFAULT_MS 1000
#define UET_BLOCK_MAX_MS 10000

struct uet_opts {
	char **globs;		/* the -e GLOBs */
	char **filters;		/* filters[i]: the -f after globs[i], or NULL */
	size_t nglobs;
	const char *output;
	bool default_globs;	/* no -e: uet_opts_all_user_events() gave one */
	const char *format;	/* the output format (sink.h): "text", "fields", "json", "perf-decode" */
	bool format_opt;	/* it came from --format (stream: rendered from binary records) */
	bool quiet, have_pid;
	bool no_preload;	/* CMD runs without libuserevents-preload.so */
	unsigned int buffer_kib;	/* -b: the channel's KiB per CPU; 0: the daemon's default */
	unsigned int block_ms;		/* --blocking[=MS]: writers wait for us up to MS; 0: never */
	bool block_set;			/* --blocking or --no-blocking given */
	uint64_t duration_ns;		/* --duration: stop after it; 0: none */
	uint64_t max_size;		/* --max-size: bytes of the file at most; 0: none */
	bool wall_clock;		/* --wall-clock */
	long pid;
	const char **counters;	/* the --counter EVENT.FIELDs (argv's) */
	size_t ncounters;
	unsigned int reattach_ms;	/* --reattach: how long to look for a daemon again (UET_REATTACH_MS) */
	int rest;		/* index in argv of the first operand */
};

/**
 * uet_opts_parse - parse a command's options
 * @o: the result (uet_opts_free())
 * @argc: arguments, argv[0] the command's name
 * @argv: them
 * @allowed: UET_O_* the command takes (-h, --help always)
 * @usage: the usage line after "userevents "
 *
 * Parsing stops at the first operand or "--".
 *
 * Return: -1 to go on; else the exit code to return (0 after --help, 2 on
 * a bad option: the message is printed and @o already freed).
 */
int uet_opts_parse(struct uet_opts *o, int argc, char **argv, unsigned int allowed,
		   const char *usage);

/**
 * uet_size_arg - a size: N, or N with K, M or G (powers of 1024), above 0
 * Return: whether @s is one (in *@out).
 */
bool uet_size_arg(const char *s, uint64_t *out);

/** uet_glob_shown - how a glob was given: "-e GLOB" as GLOB, "-p SPEC" as "-p SPEC" (static buffer) */
const char *uet_glob_shown(const char *glob);
/** uet_opts_all_user_events - no -e given: every event of the user_events systems */
void uet_opts_all_user_events(struct uet_opts *o);

/** uet_opts_free - release what uet_opts_parse() allocated */
void uet_opts_free(struct uet_opts *o);

/* The command run and record -- CMD trace (child.c). */
struct uet_child {
	const char *who;	/* the tool's command ("run"), for messages */
	char **argv;
	bool no_preload;
	pid_t pid;		/* 0: not started */
	int ctl;		/* our end of the launcher's socket; -1: the command is our child */
	int lfd;		/* the launcher's end until the daemon's process has forked */
	int status;		/* wait status once done */
	bool done;
	bool ended;		/* uet_child_end() stopped it (SIGTERM) */
	bool lost;		/* the launcher ended before it said how the command ended */
};

/**
 * uet_project_tracefs - in the command's process, before its exec: when we
 * are not root and the interposer cannot serve it (@no_preload, or @argv[0]
 * is statically linked), a user and mount namespace of its own with
 * @tracefs bound on /sys/kernel/tracing; where the kernel refuses, says why
 * and what to do on stderr (the command runs all the same)
 */
void uet_project_tracefs(const char *who, char **argv, bool no_preload, const char *tracefs);

/** uet_child_init - the command @argv, not started; libuserevents-preload.so unless @no_preload */
void uet_child_init(struct uet_child *c, const char *who, char **argv, bool no_preload);

/**
 * uet_launcher_open - the command will be forked by a launcher (a private
 * daemon's child), not by us: the socket to it
 *
 * Return: 0 or -errno.
 */
int uet_launcher_open(struct uet_child *c);

/**
 * uet_launcher_fork - in the daemon's process, before it execs: fork the
 * launcher of @c, which will run the command with USEREVENTS_TRACEFS=@tracefs
 */
void uet_launcher_fork(const struct uet_child *c, const char *tracefs);

/** uet_launcher_forked - in the tool, once the daemon's process is forked */
void uet_launcher_forked(struct uet_child *c);

/**
 * uet_child_start - run the command with USEREVENTS_TRACEFS=@tracefs, and
 * libuserevents-preload.so in LD_PRELOAD unless no_preload: through its
 * launcher when it has one, else forked here
 *
 * The command exits 127 when the program is not found, 126 when it cannot
 * be executed.  Return: 0, or -errno (the message is printed).
 */
int uet_child_start(struct uet_child *c, const char *tracefs);

/** uet_daemon_stat - one counter of usereventsd_stats, or -1 when there is none */
long long uet_daemon_stat(const char *tracefs, const char *key);

/**
 * uet_child_poll - whether the command has exited (reaped when it has)
 *
 * Passes a SIGTERM or SIGHUP the tool received on to the command.
 */
bool uet_child_poll(struct uet_child *c);

/** uet_child_end - a command still running gets SIGTERM and is waited for; its launcher ends */
void uet_child_end(struct uet_child *c);

/**
 * uet_child_stop - a limit reached: SIGINT to a command still running, as a
 * ^C sends it; SIGTERM (uet_child_end()) if it is still there @grace_ms later
 *
 * Return: true when it ended of that SIGINT or SIGTERM (said on stderr):
 * no failure of the command; else its end is uet_child_exit_code()'s to tell.
 */
bool uet_child_stop(struct uet_child *c, int grace_ms);

/**
 * uet_child_exit_code - print how the command ended; the exit code that says it
 *
 * Return: its exit status, 128 + N when killed by signal N.
 */
int uet_child_exit_code(const struct uet_child *c, const char *who);

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

/* private.c: a private usereventsd, as run and record -- CMD start it. */
struct uet_private;

/**
 * uet_private_start - mount a private usereventsd (root: in a private mount
 * namespace, also bound over /sys/kernel/tracing)
 * @who: the command ("run"), for messages and the mount point's name
 * @ret: the handle, for uet_private_stop()
 * @tracefs: its mount point
 * @len: size of @tracefs
 * @cmd: the command to trace (NULL: none): forked, at uet_child_start(), by
 *       a launcher the daemon's process forks, so that the daemon is its
 *       ancestor (child.c)
 *
 * Return: 0, or -errno (the message is printed).
 */
int uet_private_start(const char *who, struct uet_private **ret, char *tracefs, size_t len,
		      struct uet_child *cmd);

/** uet_private_stop - unmount, end the daemon, remove the mount point (NULL: nothing) */
void uet_private_stop(struct uet_private *p);

/**
 * uet_tracefs_check - whether @dir serves user_events (has user_events_data)
 *
 * Return: 0, or -errno with the message printed (exit UET_EXIT_NO_TRACEFS).
 */
int uet_tracefs_check(const char *dir);

/* Records seen of one event name. */
struct uet_count {
	char name[256];
	unsigned long long events;
	unsigned long long bytes;	/* bytes of its records (of its lines, from trace_pipe) */
};

struct uet_reattach;

/* A live copy of trace_pipe (stream.c), used by stream and run. */
struct uet_stream {
	const char *tracefs;
	char **globs;			/* show only these events (none: all) */
	size_t nglobs;
	struct uet_sinks *sinks;	/* where lines go (none: count only) */
	volatile sig_atomic_t *stop;	/* set: drain what is there, then return */
	void (*tick)(void *arg);	/* called between reads, at least every 200 ms */
	void *tick_arg;
	struct uet_reattach *re;	/* the daemon went away: found again (NULL: the end) */
	unsigned int ncpus;		/* the CPUs a gap is marked on */
	/* results */
	struct uet_count *counts;
	size_t ncounts;
	size_t last;			/* the count met last: records come in runs of one event */
	unsigned long long lost;	/* from "[LOST N EVENTS]" lines */
};

/**
 * uet_stream_loop - copy trace_pipe to @s->sinks until *@s->stop is set
 *
 * Return: 0, or -errno when trace_pipe cannot be opened or read or a sink failed.
 */
int uet_stream_loop(struct uet_stream *s);

struct uet_autoenable;

/**
 * uet_stream_raw - every CPU's trace_pipe_raw, the records of the events
 * @o's globs name handed to @sinks in time order within each pass, until a
 * signal (without @child) or until @child has exited and what it wrote is
 * read; @ae ticks every 200 ms
 * @tally: when not NULL, its counts gain each record shown (bytes: the
 *         record's) and its lost the losses marked
 * @re: when the daemon goes away, look for one again with it (NULL: the
 *      end); each gap marked in @sinks (uet_sinks_gap()), the closing
 *      words the caller's (uet_reattach_said())
 *
 * Return: 0, or -errno (said, but for -EPIPE); -ENOTCONN: the daemon went
 * away and none came back (said, the loss marked).
 */
int uet_stream_raw(const char *tracefs, const struct uet_opts *o, struct uet_autoenable *ae,
		   struct uet_sinks *sinks, unsigned int ncpus, struct uet_child *child,
		   struct uet_stream *tally, struct uet_reattach *re);

/** uet_stream_free - release the counts */
void uet_stream_free(struct uet_stream *s);

/* formats.c: binary records, from trace_pipe_raw or a trace.dat. */

/* The format of one event type. */
struct uet_format {
	unsigned int id;
	char system[32];
	char *text;			/* the format file */
	size_t len;
	uint64_t hash;			/* of the text: seen again, it costs no parse */
	struct ue_event *desc;
	uint64_t checked;		/* the batch that found the type still its event's */
	bool eventheader;		/* a user event declared as EventHeader's header fields */
	struct ue_json_keys *json;	/* its JSON keys, escaped once (NULL: without memory) */
};

/* Formats by type id; a type seen again with another text takes the new one. */
struct uet_formats {
	struct uet_format *v;
	size_t n, cap;
	size_t *by_text, *by_id;	/* indexes of v (formats.c) */
	size_t ix_cap, ix_used;
	/* If set: told of each format added or replaced (a negative return is returned) */
	int (*on_new)(void *arg, const struct uet_format *f);
	void *on_new_arg;
};

/**
 * uet_formats_add - parse and keep a copy of @text
 *
 * Return: 0, -EINVAL (not a format), -ENOMEM, or the error of on_new.
 */
int uet_formats_add(struct uet_formats *f, const char *system, const char *text, size_t len);

/** uet_formats_add_events - keep the formats of @evs; 0 or -ENOMEM */
int uet_formats_add_events(struct uet_formats *f, const struct uet_events *evs);

/** uet_formats_find - the format of type @id, or NULL */
const struct uet_format *uet_formats_find(const struct uet_formats *f, unsigned int id);

/* A batch of records being rendered (uet_formats_lookup): start each with ++n and !rescanned. */
struct uet_batch {
	uint64_t n;
	bool rescanned;		/* the tracefs's events were read again for it */
};

/**
 * uet_formats_lookup - the format of type @id for a record of batch @b
 *
 * A type is reused at once once its event is deleted (the kernel's ids, and
 * usereventsd's, are the lowest free): a kept format is used only once the
 * batch found events/SYSTEM/NAME/id still @id (one small read per type and
 * batch).  A type not known, or no longer its event's, reads the events of
 * @tracefs again, at most once per batch (an event registered since the
 * autoenable tick's scan); a type known, the common case, does not use that
 * reading up, or every event registered since the scan would lose its
 * records of the batch.
 *
 * Return: the format, or NULL (not a user event, or one deleted since).
 */
const struct uet_format *uet_formats_lookup(struct uet_formats *f, const char *tracefs,
					    unsigned int id, struct uet_batch *b);

/** uet_formats_free - release them all */
void uet_formats_free(struct uet_formats *f);

/**
 * uet_comm_of - the task name of @pid in a saved_cmdlines text
 * Return: @buf holding it, or NULL when @pid is not there.
 */
const char *uet_comm_of(const char *cmdlines, int32_t pid, char *buf, size_t len);

/**
 * uet_render_line - one record as a trace line, newline included
 * @f: its event's format
 * @ctx: comm, pid, CPU, time stamp
 * @rec: struct trace_entry and payload
 * @len: its size as the ring buffer reports it
 * @buf: a malloc()ed buffer, grown as needed (may start NULL)
 * @cap: its size
 *
 * Return: the length of the text in *@buf (NUL-terminated), or -errno.
 */
int uet_render_line(const struct uet_format *f, const struct ue_record_ctx *ctx,
		    const void *rec, size_t len, char **buf, size_t *cap);

/** uet_render_json - as uet_render_line(), a JSON object (ue_render_json()) and a newline */
int uet_render_json(const struct uet_format *f, const struct ue_record_ctx *ctx,
		    const void *rec, size_t len, char **buf, size_t *cap);

struct uet_dat;
struct uet_sinks;

/**
 * uet_dat_report - the user events of a trace.dat, in time order over its
 * CPUs, to the sinks report chose
 * @d: the file (uet_dat_read())
 * @o: the -e GLOBs and --pid given
 * @sinks: where they go (begun)
 * @matched: NULL, or o->nglobs flags: set for each glob that named a record
 *
 * A record of an event without a format, or not wanted, is skipped.
 *
 * Return: 0; -ENOMEM; a sink's error.
 */
int uet_dat_report(const struct uet_dat *d, const struct uet_opts *o, struct uet_sinks *sinks,
		   bool *matched);

/*
 * A usereventsd consumer channel (channel.c): the trace's pages in shared
 * memory, handed over whole by the daemon (core/native-proto.h).
 */
struct uet_chan;

struct uet_chan_params {
	unsigned int kib_per_cpu;	/* 0: the daemon's default */
	unsigned int block_ms;		/* 0: lose records rather than wait for us */
	unsigned int flush_ms;		/* 0: the daemon's default */
};

struct uet_chan_counts {
	unsigned long long records;	/* written into the channel's pages */
	unsigned long long lost;	/* lost for want of room (all reasons) */
	unsigned long long lost_producer; /* of lost: refused by a full producer ring */
};

/** uet_chan_open - ask the daemon of @tracefs for a channel; -EOPNOTSUPP when it is not usereventsd */
int uet_chan_open(struct uet_chan **ret, const char *tracefs, const struct uet_chan_params *p);
/** uet_chan_close - give it back (NULL is ignored) */
void uet_chan_close(struct uet_chan *c);
/** uet_chan_ncpus - the CPUs it has pages of */
unsigned int uet_chan_ncpus(const struct uet_chan *c);
/** uet_chan_pass - the pages handed over, up to @max per CPU, each given back after @fn; pages or -errno */
int uet_chan_pass(struct uet_chan *c, unsigned int max,
		  int (*fn)(void *arg, unsigned int cpu, const uint8_t *page, size_t len), void *arg);
/** uet_chan_flush - everything written so far handed over (the producers' rings drained first) */
int uet_chan_flush(struct uet_chan *c);
/** uet_chan_wait - sleep until a page is handed over or @timeout_ms pass; >0 woken, 0 timeout, -errno */
int uet_chan_wait(struct uet_chan *c, int timeout_ms);
/**
 * uet_chan_watermark - records not handed over yet are at least this recent
 * (read it before a pass: of what the pass reads, those older than it can be
 * put in time order over every CPU now); UINT64_MAX when nothing is pending
 */
uint64_t uet_chan_watermark(struct uet_chan *c);
/** uet_chan_counts - the daemon's counters of the channel, all CPUs */
void uet_chan_counts(struct uet_chan *c, struct uet_chan_counts *ret);

/*
 * The trace's pages from every CPU: a consumer channel of usereventsd,
 * else non-blocking readers of per_cpu/cpuN/trace_pipe_raw (the kernel's).
 * Set the channel's parameters (and no_channel) before uet_raw_open().
 */
struct uet_raw {
	unsigned int ncpus;
	int *fds;
	struct uet_chan *chan;
	struct uet_chan_params params;
	bool no_channel;		/* trace_pipe_raw even on usereventsd */
	struct uet_chan_counts before;	/* the counts of the channels a reattach closed */
};

/**
 * uet_raw_open - the channel, or open them all (@ncpus from per_cpu/); 0 or
 * -errno, the message printed (@who NULL: none)
 */
int uet_raw_open(struct uet_raw *r, const char *tracefs, unsigned int ncpus, const char *who);

/** uet_raw_wait - sleep until pages may be there (the channel's wake-up), @ms at most */
void uet_raw_wait(struct uet_raw *r, int ms);

/** uet_raw_watermark - see uet_chan_watermark(); UINT64_MAX without a channel */
uint64_t uet_raw_watermark(struct uet_raw *r);

/** uet_raw_flush - make everything written so far readable now (a channel's partial pages) */
void uet_raw_flush(struct uet_raw *r, const char *tracefs);

/**
 * uet_raw_lost - records lost before a reader could take them: the
 * channel's counts (and those of the channels before it, a reattach's);
 * false when reading trace_pipe_raw (the buffer's counters say, uet_drops_now())
 */
bool uet_raw_lost(struct uet_raw *r, struct uet_chan_counts *ret);

/**
 * uet_raw_pass - read what is there, up to @max pages per CPU
 * @fn: called for each page (zero-padded to UE_RB_PAGE_SIZE; usereventsd's
 *      large pages are up to UE_RB_PAGE_SIZE_MAX bytes); a negative
 *      return stops the pass and is returned
 *
 * Return: the number of pages read, or -errno.
 */
int uet_raw_pass(struct uet_raw *r, unsigned int max,
		 int (*fn)(void *arg, unsigned int cpu, const uint8_t *page, size_t len), void *arg);

/**
 * uet_page_records - the records of a ring-buffer page
 * @missed: the count of records lost before the page is added here (NULL: not counted)
 * @fn: called for each record (may be NULL); a negative return stops and is returned
 *
 * Return: the number of records (none from a malformed page), or -errno.
 */
int uet_page_records(const uint8_t *page, size_t len, unsigned long long *missed,
		     int (*fn)(void *arg, uint64_t ts, const void *data, size_t len), void *arg);

/** uet_raw_close - close them */
void uet_raw_close(struct uet_raw *r);

/*
 * Events enabled on the fly: every tick, the events matching the globs
 * that are not enabled yet get enabled; at the end those are disabled again.
 * On usereventsd they are set through usereventsd_session, which undoes
 * them itself if the tool dies before it can (SIGKILL).
 */
struct uet_autoenable {
	const char *tracefs;
	const char *who;		/* the command, for messages */
	char **globs;
	char **filters;			/* as uet_opts: written to filter before enabling (armed with) */
	size_t nglobs;
	bool default_globs;		/* the globs are the default, not -e */
	struct uet_formats *formats;	/* if set: keeps the format of every event seen */
	char (*done)[300];		/* "SYSTEM/NAME" of each event we enabled */
	bool *filtered;			/* filtered[i]: we set done[i]'s filter */
	size_t ndone;
	bool *matched;			/* matched[g]: globs[g] named an event once */
	int failed;			/* -errno: a filter was refused (said); stop */
	int session;			/* usereventsd_session, open; -1: none */
	bool session_tried;		/* opened it, or found there is none */
	bool armed_filter;		/* a pattern was armed with a filter: its refusals are read */
	bool with_cmd;			/* CMD's own daemon (start()'s !warn): gone at the end */
	char *seen;			/* with_cmd: "SYSTEM:NAME, ..." of the user events met */
	size_t nseen;			/* its length */
};

/**
 * uet_autoenable_start - arm the globs (and -p specs) in usereventsd
 * (usereventsd_session's "arm", "arm-provider"), so that what they name is
 * enabled inside its registration, its first write kept (a tracefs without
 * that file, the kernel's, has the ticks only); then the first tick; with
 * @warn, a warning for each -e GLOB that names no event yet (events may
 * still come).  The patterns are disarmed when the session closes
 * (uet_autoenable_undo()).
 *
 * Return: 0, -ENOMEM, or a->failed.
 */
int uet_autoenable_start(struct uet_autoenable *a, bool warn);

/** uet_autoenable_tick - enable what matches now (a uet_stream tick) */
void uet_autoenable_tick(void *arg);

/**
 * uet_output_gone - whether @f writes to a pipe or socket whose reader went
 * away (| head): the end of a command's output, not an error to report
 */
bool uet_output_gone(FILE *f);

/**
 * uet_autoenable_saw - @system:@name had records: the globs that name it matched
 * (a stream cut short, | head, may end before any scan saw an event that
 * came and went)
 */
void uet_autoenable_saw(struct uet_autoenable *a, const char *system, const char *name);

/**
 * uet_autoenable_unmatched - say which -e GLOBs never named an event
 *
 * Return: their number (the command then exits UET_EXIT_NO_MATCH).
 */
size_t uet_autoenable_unmatched(const struct uet_autoenable *a);

/**
 * uet_autoenable_say_failed - after a refused filter (a->failed): the command
 * stopped (with @cmd: CMD ended, or ran out untraced as asked)
 * @cmd: the command traced, or NULL
 * @more: appended to the message ("": nothing)
 */
void uet_autoenable_say_failed(const struct uet_autoenable *a, const struct uet_child *cmd,
			       const char *more);

/** uet_autoenable_undo - disable the events we enabled, forget them */
void uet_autoenable_undo(struct uet_autoenable *a);

/** uet_autoenable_free - uet_autoenable_undo(), and release what start() allocated */
void uet_autoenable_free(struct uet_autoenable *a);

/**
 * uet_autoenable_rearm - the daemon is another one (a reattach): a session
 * of its own, the globs armed and the events enabled again as at start,
 * then the former session closed (on a kept mount its holds go only once
 * the new ones are there)
 *
 * Return: 0, or a->failed.
 */
int uet_autoenable_rearm(struct uet_autoenable *a);

/**
 * uet_autoenable_check - whether the daemon holding our session still
 * serves it (a read of one byte; for a reader that reads nothing else)
 *
 * Return: 0, or the read's -errno (uet_daemon_gone() tells what it means);
 * 0 without a session.
 */
int uet_autoenable_check(struct uet_autoenable *a);

/*
 * reattach.c: a live reader (record, stream, export, top) whose daemon went
 * away (its channel or its files say EOF, ENOTCONN, ECONNRESET) looks for
 * one serving again at the same place: the same mount kept by a keeper, or
 * a new mount at the same path.  Found, its source is opened there again
 * and its events armed again as at start; the caller marks the gap.
 */
#define UET_REATTACH_MS 5000	/* --reattach's default: 5 s */
#define UET_REATTACH_MAX_MS 3600000u

struct uet_reattach {
	const char *tracefs;
	const char *who;		/* the command, for messages */
	unsigned int wait_ms;		/* how long to look; 0: not at all (the end at once) */
	struct uet_autoenable *ae;	/* armed again (NULL: nothing) */
	/* what happened */
	unsigned int gaps;		/* daemons found again */
	bool gone;			/* the last time none came back: the reader ends */
};

/** uet_daemon_gone - whether @e (a read's -errno) says the daemon serving the file went away */
bool uet_daemon_gone(int e);

/**
 * uet_reattach - the daemon went away: look for one serving @re->tracefs
 * again, for @re->wait_ms at most (a signal ends the look)
 * @ending: the reader was ending anyway: no look, the end
 * @open_source: opens the reader's source on the daemon found (a channel,
 *               trace_pipe): 0, or -errno while none serves yet (called again)
 * @arg: its argument
 *
 * Then @re->ae is armed again (uet_autoenable_rearm()).  Said on stderr as
 * it goes: the daemon gone, how long it looks, the daemon back.
 *
 * Return: 0, found (@re->gaps counted: the caller marks the gap with
 * uet_sinks_gap()); -ENOTCONN, none came back (@re->gone; said).
 */
int uet_reattach(struct uet_reattach *re, bool ending, int (*open_source)(void *arg), void *arg);

/**
 * uet_reattach_raw - uet_reattach() for a uet_raw reader: closed, then
 * opened again as it was (a consumer channel with the same parameters, or
 * trace_pipe_raw), the closed channel's counts kept in @raw->before
 */
int uet_reattach_raw(struct uet_reattach *re, struct uet_raw *raw, bool ending);

/**
 * uet_reattach_said - the closing line's words for the gaps and the end
 * ("" when the daemon never went away), in @buf
 */
const char *uet_reattach_said(const struct uet_reattach *re, char *buf, size_t len);

struct uet_sinks;

/**
 * uet_live_start - what a live command (export, top) does before it reads:
 * its tracefs (a private usereventsd for @cmd when it has argv, --tracefs
 * @tracefs_opt refused then; else @tracefs_opt or the one found) and its
 * CPUs (@ncpus), @sinks begun, @a armed for @o's globs (warned of without
 * @cmd), @cmd started
 * @usage: the command's, for a usage error (--tracefs with CMD)
 * @priv: the private daemon started, for uet_private_stop()
 *
 * Return: 0, or the exit code to return (the message is printed).
 */
int uet_live_start(const char *who, const char *usage, const char *tracefs_opt,
		   const struct uet_opts *o, struct uet_child *cmd, struct uet_sinks *sinks,
		   struct uet_autoenable *a, struct uet_private **priv, char *tracefs, size_t len,
		   unsigned int *ncpus);

/**
 * uet_live_status - a live command's exit code once its reading returned @e:
 * a refused arming (said; @cmd ended), else @cmd's status (0 when @ours: we ended it) or ours
 * (0, 1 when @e < 0, 4 when a glob matched nothing)
 */
int uet_live_status(const char *who, const struct uet_autoenable *a, struct uet_child *cmd,
		    int e, bool ours);

/** uet_live_end - @cmd ended, @sinks ended (not begun: released), @a freed, @priv stopped */
void uet_live_end(struct uet_child *cmd, struct uet_sinks *sinks, struct uet_autoenable *a,
		  struct uet_private *priv);

#endif /* UE_TOOLS_TOOL_H */
