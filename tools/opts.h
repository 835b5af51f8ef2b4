/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The options of the tracing commands (opts.c): the bits a command takes,
 * what they were given, parsed once for every command.
 */
#ifndef UE_TOOLS_OPTS_H
#define UE_TOOLS_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "util.h"

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
#define UET_REATTACH_MS 5000	/* --reattach's default: 5 s (reattach.c) */
#define UET_REATTACH_MAX_MS 3600000u

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

#endif /* UE_TOOLS_OPTS_H */
