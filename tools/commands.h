/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The userevents commands (main.c, run.c, record.c, report.c, stream.c,
 * export.c, top.c) and what the live ones share: a stream's loop
 * (stream.c), events enabled as they get registered and the start and end
 * of a live command (live.c), a daemon found again (reattach.c), a
 * recording's records in time order (report-walk.c).
 */
#ifndef UE_TOOLS_COMMANDS_H
#define UE_TOOLS_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "opts.h"
#include "tracefs.h"
#include "formats.h"
#include "raw.h"
#include "launch.h"

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
	/*
	 * Armed by uet_stream_raw() once its channel is open, not before: a
	 * channel takes records from its opening on, and the events the arming
	 * enables may be written at once (another reader's channel would
	 * have them, this one not).
	 */
	bool arm_in_reader;
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
 * uet_autoenable_saw - @system:@name had records: the globs that name it matched
 * (a stream cut short, | head, may end before any scan saw an event that
 * came and went)
 */
void uet_autoenable_saw(struct uet_autoenable *a, const char *system, const char *name);

/**
 * uet_autoenable_unmatched - say which -e GLOBs never named an event (without
 * CMD, the tracefs's events are looked at once more first)
 *
 * Return: their number (the command then exits UET_EXIT_NO_MATCH).
 */
size_t uet_autoenable_unmatched(struct uet_autoenable *a);

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
 * @cmd; without @cmd and with @arm_in_reader, left to uet_stream_raw(),
 * after its channel opens), @cmd started
 * @usage: the command's, for a usage error (--tracefs with CMD)
 * @priv: the private daemon started, for uet_private_stop()
 *
 * Return: 0, or the exit code to return (the message is printed).
 */
int uet_live_start(const char *who, const char *usage, const char *tracefs_opt,
		   const struct uet_opts *o, struct uet_child *cmd, struct uet_sinks *sinks,
		   struct uet_autoenable *a, bool arm_in_reader, struct uet_private **priv,
		   char *tracefs, size_t len, unsigned int *ncpus);

/**
 * uet_live_status - a live command's exit code once its reading returned @e:
 * a refused arming (said; @cmd ended), else @cmd's status (0 when @ours: we ended it) or ours
 * (0, 1 when @e < 0, 4 when a glob matched nothing)
 */
int uet_live_status(const char *who, struct uet_autoenable *a, struct uet_child *cmd,
		    int e, bool ours);

/** uet_live_end - @cmd ended, @sinks ended (not begun: released), @a freed, @priv stopped */
void uet_live_end(struct uet_child *cmd, struct uet_sinks *sinks, struct uet_autoenable *a,
		  struct uet_private *priv);

#endif /* UE_TOOLS_COMMANDS_H */
