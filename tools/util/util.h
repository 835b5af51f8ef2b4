/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/util: what every part of the userevents tool uses: exit codes,
 * messages and usage errors, files read and written whole, signals, sleep,
 * clocks, colour.  Nothing of the tracefs: source/tracefs.h.
 */
#ifndef UE_TOOLS_UTIL_H
#define UE_TOOLS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

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

/** uet_read - the whole of DIR/REL, NUL-terminated (free it); NULL with errno */
char *uet_read(const char *dir, const char *rel, size_t *ret_len);

/** uet_write - write @s to DIR/REL in one write(); 0 or -errno */
int uet_write(const char *dir, const char *rel, const char *s);

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

/**
 * uet_output_gone - whether @f writes to a pipe or socket whose reader went
 * away (| head): the end of a command's output, not an error to report
 */
bool uet_output_gone(FILE *f);

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

/** uet_wall_offset_ns - CLOCK_REALTIME minus @c now: a time stamp of @c plus it is ns since the epoch */
int64_t uet_wall_offset_ns(clockid_t c);

#endif /* UE_TOOLS_UTIL_H */
