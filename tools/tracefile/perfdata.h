/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/perfdata: perf's perf.data, as `perf record -e user_events:NAME`
 * writes it on a kernel with user_events (tools/perf/Documentation/
 * perf.data-file-format.txt).  The writer (perfdata-write.c) makes one
 * PERF_TYPE_TRACEPOINT attribute per event recorded, one sample per record
 * (its raw data the record as the ring buffer holds it), COMM records for
 * the task names, LOST records for losses, and the header features perf
 * writes for tracepoints (the tracing data with every event's format, the
 * event descriptions, the machine's); the reader (perfdata-read.c) turns
 * a perf.data of tracepoints, ours or perf's, into the pages of a trace.dat
 * in memory, so that report reads it as it reads a trace.dat.
 */
#ifndef UE_TOOLS_PERFDATA_H
#define UE_TOOLS_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracedat.h"

#define UET_PERF_MAGIC "PERFILE2"

/* The header features (perf's enum in util/header.h) this code knows. */
enum {
	UET_PERF_FEAT_TRACING_DATA = 1,
	UET_PERF_FEAT_HOSTNAME = 3,
	UET_PERF_FEAT_OSRELEASE = 4,
	UET_PERF_FEAT_VERSION = 5,
	UET_PERF_FEAT_ARCH = 6,
	UET_PERF_FEAT_NRCPUS = 7,
	UET_PERF_FEAT_CPUDESC = 8,
	UET_PERF_FEAT_TOTAL_MEM = 10,
	UET_PERF_FEAT_CMDLINE = 11,
	UET_PERF_FEAT_EVENT_DESC = 12,
	UET_PERF_FEAT_SAMPLE_TIME = 21,
	UET_PERF_FEAT_BITS = 256,
};

/* A perf.data being written: records appended, the header and features at the end. */
struct uet_perf_writer;

/* One event recorded: its tracepoint id (the format's ID) and name. */
struct uet_perf_event {
	unsigned int type;	/* the format's ID */
	char name[96];		/* "system:name", as perf names a tracepoint */
};

/**
 * uet_perf_writer_open - start a perf.data in @fd (empty, writable, seekable)
 * @cmdline: the command that records, for the CMDLINE feature (NULL-ended)
 *
 * Return: 0 or -errno.
 */
int uet_perf_writer_open(struct uet_perf_writer **ret, int fd, char *const *cmdline);

/** uet_perf_writer_event - the attribute of @ev (once per type; a later name replaces); 0 or -ENOMEM */
int uet_perf_writer_event(struct uet_perf_writer *w, const struct uet_perf_event *ev);

/* Who a page's thread is, asked when a record's thread differs from the one before. */
struct uet_perf_threads {
	/*
	 * @tid's process at *@ret_pid; the task's name for a COMM record when
	 * @told is false (its first sample in the file), else NULL.
	 */
	const char *(*thread)(void *arg, int32_t tid, bool told, int32_t *ret_pid);
	void *arg;
};

/**
 * uet_perf_writer_page - every record of a ring-buffer page as a sample
 * @cpu: the page's CPU
 * @page: the page as read, @len bytes (its loss mark a LOST record first)
 * @th: the threads' processes and names
 * @ret_last_ts: the time of its last record (untouched without one)
 * @ret_missed: the page's loss mark (0: none; UINT64_MAX: some)
 *
 * A record too large for a perf record (over 65535 bytes with its
 * sample's fields) is written as a loss of 1 where it was.
 *
 * Return: the page's data records, as ue_rbpage_count() counts them
 * (record's count needs no second pass), or -errno.
 */
int uet_perf_writer_page(struct uet_perf_writer *w, unsigned int cpu, const uint8_t *page,
			 size_t len, const struct uet_perf_threads *th, uint64_t *ret_last_ts,
			 uint64_t *ret_missed);

/** uet_perf_writer_lost - @n records of @cpu lost at @ts (UINT64_MAX: some: counted as 1); 0 or -errno */
int uet_perf_writer_lost(struct uet_perf_writer *w, unsigned int cpu, uint64_t ts, uint64_t n);

/** uet_perf_writer_round - the records so far may be sorted and shown (FINISHED_ROUND); 0 or -errno */
int uet_perf_writer_round(struct uet_perf_writer *w);

/**
 * uet_perf_writer_finish - the features (tracing data from @m), the
 * attributes and the header: the file is whole
 * Return: 0 or -errno.
 */
int uet_perf_writer_finish(struct uet_perf_writer *w, const struct uet_dat_meta *m);

/** uet_perf_writer_bytes - bytes written so far, and samples */
uint64_t uet_perf_writer_bytes(const struct uet_perf_writer *w);
uint64_t uet_perf_writer_samples(const struct uet_perf_writer *w);

void uet_perf_writer_free(struct uet_perf_writer *w);

/* Bounds of the reader, whatever a file claims. */
#define UET_PERF_EVENTS_MAX 4096		/* attributes */
#define UET_PERF_SAMPLES_MAX (UINT64_C(1) << 28)

/** uet_perf_is - whether @buf (@len bytes, 8 at least) starts a perf.data */
bool uet_perf_is(const void *buf, size_t len);

/**
 * uet_perf_read_mem - a perf.data in memory as a trace.dat would read
 * (uet_dat_free()): its tracepoint samples as ring-buffer pages per CPU in
 * time order, its losses as the pages' missed counts, the formats and task
 * names of its tracing data
 * @err: a message on failure, @errlen bytes
 *
 * Return: 0; -ENOTSUP (not little-endian, a pipe-mode file, no tracing
 * data); -EINVAL (malformed); -E2BIG (past the bounds); -ENOMEM.
 */
int uet_perf_read_mem(const void *buf, size_t len, struct uet_dat *ret, char *err, size_t errlen);

#endif /* UE_TOOLS_PERFDATA_H */
