/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/tracedat: trace-cmd's trace.dat, version 7 (trace-cmd.dat.v7(5)).
 * The writer lays out the metadata sections, one flyrecord buffer of raw
 * ring-buffer pages and one options section, uncompressed; the reader finds
 * the same pieces in files written by us or by trace-cmd, zstd-compressed
 * ones included when built with libzstd.
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
	struct uet_dat_text *ftrace;	/* events/ftrace/<event>/format */
	size_t nftrace;
	struct uet_dat_text *formats;	/* grouped by system, in order */
	size_t nformats;
	unsigned int ncpus;
};

/**
 * uet_dat_write - write a trace.dat v7 file
 * @fd: the file, empty, seekable
 * @m: the metadata
 * @cpu_data: for each of @m->ncpus CPUs, a stream of whole pages (may be NULL: none)
 * @page_size: the ring buffer's page size
 *
 * Return: 0 or -errno.
 */
int uet_dat_write(int fd, const struct uet_dat_meta *m, FILE **cpu_data, unsigned int page_size);

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
	char compression[32];		/* "none", "zstd", ... */
	void **unpacked;		/* uncompressed sections and CPU data */
	size_t nunpacked;
	uint64_t unpacked_bytes;	/* their total, bounded (UET_DAT_UNPACK_MAX) */
	unsigned int seen;		/* bits: options read (formats, cmdlines: once) */
};

/* Bounds of the reader, whatever a file claims. */
#define UET_DAT_UNPACK_MAX (UINT64_C(1) << 30)	/* bytes unpacked from one file */
#define UET_DAT_FORMATS_MAX 65536		/* event formats (type ids are 16-bit) */
#define UET_DAT_PAGE_HDR 16			/* smallest page: its header (timestamp, commit) */

/**
 * uet_dat_read - read and index a trace.dat v7 file
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

/** uet_dat_free - release what uet_dat_read() returned */
void uet_dat_free(struct uet_dat *d);

#endif /* UE_TOOLS_TRACEDAT_H */
