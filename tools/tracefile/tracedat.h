/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/tracedat: trace-cmd's trace.dat, version 7 (trace-cmd.dat.v7(5)).
 * The writer (tracedat-write.c) lays out the metadata sections, one
 * flyrecord buffer of raw ring-buffer pages and an options section,
 * uncompressed, keeping the file valid while it grows; the reader
 * (tracedat-read.c) finds the same pieces in files written by us or by
 * trace-cmd, zstd-compressed ones included when built with libzstd.
 * uet_dat_read() (recording-read.c) reads a perf.data too (perfdata.h).
 */
#ifndef UE_TOOLS_TRACEDAT_H
#define UE_TOOLS_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One text of the file: a format file, header_page, ... */
struct uet_dat_text {
	const char *system;	/* event formats: the system; otherwise unused */
	char *text;
	size_t len;
};

/* What a recording holds besides the pages. */
struct uet_dat_meta {
	struct uet_dat_text header_page, header_event, cmdlines, trace_clock;
	struct uet_dat_text tgids;	/* saved_tgids' text, in the cmdlines section after it; or none */
	struct uet_dat_text *ftrace;	/* events/ftrace/<event>/format */
	size_t nftrace;
	struct uet_dat_text *formats;	/* grouped by system, in order */
	size_t nformats;
	unsigned int ncpus;
	/*
	 * Per CPU, "CPU: N\n" and its per_cpu/cpuN/stats text, as trace-cmd
	 * record saves them (trace-cmd report --stat shows them); or NULL.  Not
	 * in the live file (its options have a fixed size): only in the compact one.
	 */
	struct uet_dat_text *cpustats;
};

/* The file's magic, and the section and option ids of trace-cmd.dat.v7(5). */
#define UET_DAT_MAGIC "\x17\x08" "Dtracing"
#define UET_DAT_MAGIC_LEN 10
enum {
	UET_DAT_SEC_FL_COMPRESSED = 1,	/* a section's flag */
	UET_DAT_OPT_DONE = 0,
	UET_DAT_OPT_CPUSTAT = 2,
	UET_DAT_OPT_BUFFER = 3,
	UET_DAT_OPT_TRACECLOCK = 4,
	UET_DAT_OPT_CPUCOUNT = 8,
	UET_DAT_OPT_VERSION = 9,
	UET_DAT_SEC_STRINGS = 15,
	UET_DAT_SEC_HEADER_INFO = 16,
	UET_DAT_SEC_FTRACE_EVENTS = 17,
	UET_DAT_SEC_EVENT_FORMATS = 18,
	UET_DAT_SEC_KALLSYMS = 19,
	UET_DAT_SEC_PRINTK = 20,
	UET_DAT_SEC_CMDLINES = 21,
};

/*
 * A trace.dat being written, valid at every commit: the metadata first,
 * then each CPU's pages in a region of its own that moves to a region
 * twice the size when full (its pages must stay contiguous), and the
 * options in one of two fixed slots; a commit writes the other slot, then
 * the 8 bytes of the header that point at it.  Killed at any moment, the
 * file reads as of the last commit.  uet_dat_writer_compact() writes the
 * same content without the slack.
 */
struct uet_dat_writer;

/* What uet_dat_writer_commit() is to rewrite. */
#define UET_DAT_FORMATS (1u << 0)
#define UET_DAT_CMDLINES (1u << 1)

/**
 * uet_dat_writer_open - start a trace.dat: the metadata of @m, no pages, committed
 * @ret: the writer (uet_dat_writer_free())
 * @fd: the file, empty, read-write, seekable
 * @m: the metadata (kept by the caller, read again at commits)
 * @page_size: the ring buffer's page size
 *
 * Return: 0 or -errno.
 */
int uet_dat_writer_open(struct uet_dat_writer **ret, int fd, const struct uet_dat_meta *m,
			unsigned int page_size);

/**
 * uet_dat_writer_region_start - the room a CPU's region starts with (a
 * sparse hole; 256 MiB unless set, before the first page), growing fourfold
 */
void uet_dat_writer_region_start(struct uet_dat_writer *w, uint64_t bytes);

/** uet_dat_writer_page - append a page to @cpu's data (seen at the next commit); 0 or -errno */
int uet_dat_writer_page(struct uet_dat_writer *w, unsigned int cpu, const void *page, size_t len);

/**
 * uet_dat_writer_commit - make the pages written so far part of the file
 * @changed: UET_DAT_FORMATS, UET_DAT_CMDLINES: those sections of @m are new
 *
 * Return: 0 or -errno.
 */
int uet_dat_writer_commit(struct uet_dat_writer *w, const struct uet_dat_meta *m,
			  unsigned int changed);

/** uet_dat_writer_compact - the committed file without slack, into @fd (empty); 0 or -errno */
int uet_dat_writer_compact(struct uet_dat_writer *w, const struct uet_dat_meta *m, int fd);

/**
 * uet_dat_writer_compact_size - the bytes uet_dat_writer_compact() would
 * write now (the pages appended, committed or not, and @m); UINT64_MAX
 * without memory
 */
uint64_t uet_dat_writer_compact_size(struct uet_dat_writer *w, const struct uet_dat_meta *m);

/** uet_dat_writer_pages - pages appended since the open */
unsigned long long uet_dat_writer_pages(const struct uet_dat_writer *w);

/** uet_dat_writer_free - release @w (the file stays as of the last commit) */
void uet_dat_writer_free(struct uet_dat_writer *w);

/*
 * The process of each thread: trace-cmd's trace.dat has no place for them
 * (no option holds the kernel's saved_tgids; trace-cmd record does not
 * save them), so ours go in the command lines section, after the
 * saved_cmdlines text that trace-cmd reads ("<u64 size><text>", the rest
 * of the section unread), as the header info section holds its two texts:
 * "saved_tgids\0", <u64 size>, the saved_tgids text ("PID TGID\n" lines).
 */
#define UET_DAT_TGIDS_TAG "saved_tgids"

/* A trace.dat read into memory. */
struct uet_dat {
	uint8_t *buf;
	size_t len;
	unsigned int page_size;
	unsigned int ncpus;		/* CPUs with data (from the BUFFER option) */
	struct uet_dat_cpu {
		unsigned int cpu;
		const uint8_t *data;	/* its pages (in @buf, or uncompressed) */
		uint64_t size;
	} *cpus;
	struct uet_dat_text *formats;	/* every event format, ftrace ones included */
	size_t nformats;
	char *cmdlines;			/* NUL-terminated copy, or NULL */
	char *tgids;			/* saved_tgids' text, NUL-terminated (ours: UET_DAT_TGIDS_TAG), or NULL */
	char compression[32];		/* "none", "zstd", ... */
	char clock[32];			/* the trace clock of its time stamps ("mono", "local"...) */
	void **unpacked;		/* uncompressed sections and CPU data */
	size_t nunpacked;
	uint64_t unpacked_bytes;	/* their total, bounded (UET_DAT_UNPACK_MAX) */
	unsigned int seen;		/* bits: options read (formats, cmdlines: once) */
	bool any_system;		/* a perf.data (perfdata.h): every tracepoint is shown, not user events only */
};

/* Bounds of the reader, whatever a file claims. */
#define UET_DAT_UNPACK_MAX (UINT64_C(1) << 30)	/* bytes unpacked from one file */
#define UET_DAT_FORMATS_MAX 65536		/* event formats (type ids are 16-bit) */
#define UET_DAT_PAGE_HDR 16			/* smallest page: its header (timestamp, commit) */

/**
 * uet_dat_read - read and index a trace.dat v7 file (or a perf.data: perfdata.h)
 * @path: the file
 * @ret: the result (uet_dat_free())
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0; -ENOTSUP for another version, another byte order or an
 * algorithm of compression this build cannot undo; -EINVAL for a malformed
 * file; -EFBIG or -E2BIG when it goes past UET_DAT_UNPACK_MAX or
 * UET_DAT_FORMATS_MAX; -errno.
 */
int uet_dat_read(const char *path, struct uet_dat *ret, char *err, size_t errlen);

/**
 * uet_dat_read_mem - uet_dat_read() of a file already in memory
 * @buf: its bytes (copied: the caller keeps them)
 * @len: their count
 * @ret: the result (uet_dat_free())
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: as uet_dat_read().
 */
int uet_dat_read_mem(const void *buf, size_t len, struct uet_dat *ret, char *err, size_t errlen);

/**
 * uet_dat_parse - index the trace.dat v7 that @d->buf holds (@d->len
 * bytes, @d's own): uet_dat_read()'s part for a trace.dat (tracedat-read.c)
 * Return: as uet_dat_read(); on failure @d holds what was read so far
 * (uet_dat_free()).
 */
int uet_dat_parse(struct uet_dat *d, char *err, size_t errlen);

/** uet_dat_free - release what uet_dat_read() returned */
void uet_dat_free(struct uet_dat *d);

#endif /* UE_TOOLS_TRACEDAT_H */
