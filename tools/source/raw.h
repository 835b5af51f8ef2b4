/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef UE_TOOLS_RAW_H
#define UE_TOOLS_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "consumer.h"

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

#endif /* UE_TOOLS_RAW_H */
