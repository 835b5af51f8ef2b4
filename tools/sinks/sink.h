/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The output seam of the userevents tool: where records go.  A sink is one
 * output format (trace lines, --fields, --json, a trace.dat); run, stream,
 * record and report read records from their source and hand them to the
 * sinks they chose.  A new output format is one sink-*.c file and one row
 * of uet_sink_types[] (sink.c).
 */
#ifndef UE_TOOLS_SINK_H
#define UE_TOOLS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core.h"
#include "formats.h"

struct uet_format;
struct uet_sink;

/* What a sink needs from its source (uet_sink_ops.needs). */
#define UET_SINK_RECORDS (1u << 0)	/* binary records: trace_pipe's text lines will not do */
#define UET_SINK_PAGES	 (1u << 1)	/* the raw ring-buffer pages (ops.page) */

/* One record.  A text source (trace_pipe) gives @line; a binary one the rest. */
struct uet_sink_rec {
	const char *line;		/* a trace line, newline included, or NULL */
	size_t line_len;
	const struct uet_format *format;	/* binary: its event's format */
	struct ue_record_ctx ctx;	/* binary: comm, pid, CPU, time stamp */
	const void *data;		/* binary: struct trace_entry and payload */
	size_t len;
};

/* Where the records come from, for begin(). */
struct uet_sink_env {
	const char *who;		/* the command, for messages */
	const char *tracefs;		/* a live tracefs, or NULL (report: a file) */
	unsigned int ncpus;		/* its CPUs (UET_SINK_PAGES sinks) */
	const char *source;		/* report: the file read (perf-decode names it), or NULL */
	bool wall_clock;		/* --wall-clock: JSON time stamps in ns since the epoch */
	const char *trace_clock;	/* report: the file's trace clock ("mono"...), or NULL */
	const char *saved_tgids;	/* report: the file's saved_tgids text (NUL-terminated), or NULL */
};

/* Where a sink writes: what uet_sink_make() opens for it (uet_sink_ops.output). */
enum uet_sink_output {
	UET_SINK_OUT_STREAM,	/* a FILE: the @out given (stdout), or @path created */
	UET_SINK_OUT_FILE,	/* @path created read-write, a regular file (s->fd); no @out */
	UET_SINK_OUT_NONE,	/* nothing: its output is its own (export's collector, top's screen) */
};

/*
 * The operations of a sink.  Each returns 0 or -errno; after an error the
 * command stops and calls end().  Only begin and end are required.
 */
struct uet_sink_ops {
	const char *name;
	unsigned int needs;		/* UET_SINK_RECORDS, UET_SINK_PAGES */
	enum uet_sink_output output;	/* what uet_sink_make() opens */
	const char *what;		/* its messages' prefix ("trace.dat: needs a file"), or NULL */
	/* Before anything is read (and before run's or record's CMD starts). */
	int (*begin)(struct uet_sink *s, const struct uet_sink_env *env);
	/* An event format met for the first time, or with a new text. */
	int (*format_seen)(struct uet_sink *s, const struct uet_format *f);
	/* A ring-buffer page of @cpu as read (UET_SINK_PAGES). */
	int (*page)(struct uet_sink *s, unsigned int cpu, const uint8_t *page, size_t len);
	int (*record)(struct uet_sink *s, const struct uet_sink_rec *r);
	/* Records of @cpu lost before the next one of it (the page's mark; UINT64_MAX: some). */
	int (*lost)(struct uet_sink *s, unsigned int cpu, uint64_t n);
	/*
	 * The daemon went away (tools/reattach.c): what each of @ncpus CPUs
	 * had from then on is lost, count unknown; @back: a daemon serves
	 * again and records go on (what begin set on the tracefs is set again).
	 * Without it: lost(cpu, UINT64_MAX) on every CPU.
	 */
	int (*gap)(struct uet_sink *s, unsigned int ncpus, bool back);
	/* After each batch: what was handed over is out (readable if we die now). */
	int (*flush)(struct uet_sink *s);
	/* Finish (@ok: the command succeeded so far) and release the sink. */
	int (*end)(struct uet_sink *s, bool ok);
};

/* Every sink starts with this; its own state follows. */
struct uet_sink {
	const struct uet_sink_ops *ops;
	FILE *out;			/* stream sinks: where they write */
	const char *path;		/* file sinks: the file */
	int fd;				/* UET_SINK_OUT_FILE: @path, read-write (-1: none) */
	char *outbuf;			/* @out's buffer, when ours to free */
	/*
	 * Set by a page() that stepped over each record of its page anyway:
	 * their count and the page's loss mark (ue_rbpage_count()'s), so
	 * record need not count them again; -1: not counted.
	 */
	long long page_records;
	uint64_t page_missed;
};

/* The sinks a command writes to, in order (run: the terminal and -o FILE). */
#define UET_SINKS_MAX 4
struct uet_sinks {
	struct uet_sink *v[UET_SINKS_MAX];
	size_t n;
	unsigned int needs;		/* the union of their needs */
	bool begun;
	long long page_records;		/* uet_sinks_page(): the last page's records, or -1 */
	uint64_t page_missed;		/* ... and its loss mark */
};

/**
 * uet_sink_new - a sink of the output format @name
 * @name: a uet_sink_types[] name: "text", "fields", "json", "trace.dat"
 * @out: where a stream sink writes (stdout); NULL: to @path
 * @path: the file to write, created now (an unwritable one fails here,
 *        before anything starts), or NULL with @out
 *
 * Return: the sink, or NULL with a message printed.
 */
struct uet_sink *uet_sink_new(const char *name, FILE *out, const char *path);

/**
 * uet_sink_tgids - the thread -> process map of a sink's records: live,
 * /proc and @env's tracefs's saved_tgids; a file, the saved_tgids it holds
 * Return: the map (uet_tgids_free()), or NULL without memory.
 */
struct uet_tgids *uet_sink_tgids(const struct uet_sink_env *env);

/** uet_sinks_add - add @s (NULL: out of memory or refused) to @ss; 0 or -EINVAL */
int uet_sinks_add(struct uet_sinks *ss, struct uet_sink *s);

/** uet_sinks_begin - begin every sink; 0 or the first error */
int uet_sinks_begin(struct uet_sinks *ss, const struct uet_sink_env *env);

/** uet_sinks_format_seen - tell every sink of @f; 0 or the first error */
int uet_sinks_format_seen(struct uet_sinks *ss, const struct uet_format *f);

/**
 * uet_sinks_page - hand a raw page to the sinks that take pages
 *
 * After it, @ss->page_records holds the page's records when a sink counted
 * them as it went (as ue_rbpage_count() would; -1: none did) and
 * @ss->page_missed its loss mark.
 *
 * Return: 0 or the first error.
 */
int uet_sinks_page(struct uet_sinks *ss, unsigned int cpu, const uint8_t *page, size_t len);

/** uet_sinks_record - hand @r to every sink */
int uet_sinks_record(struct uet_sinks *ss, const struct uet_sink_rec *r);

/** uet_sinks_flush - flush every sink; 0 or the first error */
int uet_sinks_flush(struct uet_sinks *ss);
/** uet_sinks_lost - tell each sink that has .lost of records lost on @cpu */
int uet_sinks_lost(struct uet_sinks *ss, unsigned int cpu, uint64_t n);
/** uet_sinks_gap - tell each sink that the daemon went away (ops.gap); 0 or the first error */
int uet_sinks_gap(struct uet_sinks *ss, unsigned int ncpus, bool back);

/**
 * uet_sinks_end - end and release every sink (whether begun or not)
 * @ok: whether the command succeeded so far
 *
 * Return: 0 or the first error (the message is printed).
 */
int uet_sinks_end(struct uet_sinks *ss, bool ok);

/**
 * uet_sink_make - what every sink's constructor does: a sink of @size bytes
 * (its own struct, struct uet_sink first), zeroed, with @ops, and its output
 * opened as @ops->output says (an unwritable one fails here, before
 * anything starts): a stream's @out, or @path created (a FILE, buffered);
 * a file sink's @path created, a regular file (s->fd; @out refused); nothing
 * Return: the sink (free() it on a later failure of the constructor), or
 * NULL with a message printed.
 */
void *uet_sink_make(size_t size, const struct uet_sink_ops *ops, FILE *out, const char *path);

/* The sinks, one file each: constructors for uet_sink_types[]. */
struct uet_sink *uet_sink_text_new(FILE *out, const char *path);
struct uet_sink *uet_sink_fields_new(FILE *out, const char *path);
struct uet_sink *uet_sink_json_new(FILE *out, const char *path);
/** uet_sink_stat_new - report --stat: the records counted, the counts at the end */
struct uet_sink *uet_sink_stat_new(FILE *out, const char *path);
struct uet_sink *uet_sink_tracedat_new(FILE *out, const char *path);
/**
 * uet_sink_tracedat_limit - record --max-size: a page that could take the
 * compact file past @max bytes (at least one page) is refused with -EFBIG,
 * the file as it is, valid; the task names read at its end are not
 * counted ahead
 */
void uet_sink_tracedat_limit(struct uet_sink *s, uint64_t max);
/** uet_sink_tracedat_size - the bytes of the compact file if it ended now (0: not a trace.dat sink) */
uint64_t uet_sink_tracedat_size(struct uet_sink *s);
struct uet_sink *uet_sink_perfdecode_new(FILE *out, const char *path);
/** uet_sink_perf_new - perf's perf.data: one tracepoint sample a record (perfdata-write.c) */
struct uet_sink *uet_sink_perf_new(FILE *out, const char *path);
/** uet_sink_chrome_new - Chrome's Trace Event Format JSON (Perfetto UI, chrome://tracing) */
struct uet_sink *uet_sink_chrome_new(FILE *out, const char *path);
/** uet_sink_html_new - one self-contained HTML page: a plot, a timeline, a table */
struct uet_sink *uet_sink_html_new(FILE *out, const char *path);
/** uet_sink_chrome_counter - --counter EVENT.FIELD (kept, not copied); 0, -EINVAL (not chrome) or -ENOMEM */
int uet_sink_chrome_counter(struct uet_sink *s, const char *spec);

/**
 * uet_sink_put - write what uet_render_line() or uet_render_json() returned
 * @w: its return: the length of @text, or -errno (said, but for -ENOMEM)
 *
 * Return: 0, or -ENOMEM (the command stops).
 */
int uet_sink_put(struct uet_sink *s, int w, const char *text, const struct uet_format *f,
		 const char *who);

/** uet_sink_stream_flush - fflush a stream sink's FILE; 0 or -errno (EPIPE...) */
int uet_sink_stream_flush(struct uet_sink *s);

/** uet_sink_stream_end - flush it, close it unless stdout, free @s */
int uet_sink_stream_end(struct uet_sink *s, bool ok);

#endif /* UE_TOOLS_SINK_H */
