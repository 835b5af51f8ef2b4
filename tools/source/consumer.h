/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef UE_TOOLS_CONSUMER_H
#define UE_TOOLS_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "util.h"

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

#endif /* UE_TOOLS_CONSUMER_H */
