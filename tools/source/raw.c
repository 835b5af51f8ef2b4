// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The trace's pages from every CPU: a usereventsd consumer channel
 * (consumer.c), else the per-CPU trace_pipe_raw readers of the kernel's
 * tracefs; the records of one page.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "raw.h"
#include "rbpage.h"
#include "tracefs.h"

int uet_raw_open(struct uet_raw *r, const char *tracefs, unsigned int ncpus, const char *who)
{
	r->ncpus = 0;
	r->chan = NULL;
	if (!r->no_channel && !getenv("USEREVENTS_NO_CHANNEL")) {
		int e = uet_chan_open(&r->chan, tracefs, &r->params);

		if (e == 0) {
			r->ncpus = uet_chan_ncpus(r->chan);
			return 0;
		}
		/*
		 * Not usereventsd, or one without its native path (no socket to
		 * reach): trace_pipe_raw.  Ours, but the channel refused: say why.
		 */
		if (e != -EOPNOTSUPP && e != -ENODATA && e != -ECONNREFUSED && e != -ENOENT) {
			if (who)
				uet_err("%s: %s: a channel of the trace: %s", who, tracefs, strerror(-e));
			return e;
		}
	}
	r->fds = calloc(ncpus ? ncpus : 1, sizeof(*r->fds));
	if (!r->fds)
		return -ENOMEM;
	for (unsigned int i = 0; i < ncpus; i++) {
		char p[4200];
		int e;

		snprintf(p, sizeof(p), "%s/per_cpu/cpu%u/trace_pipe_raw", tracefs, i);
		r->fds[i] = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (r->fds[i] < 0) {
			e = -errno;
			if (who)
				uet_err("%s: %s: %s", who, p, strerror(-e));
			uet_raw_close(r);
			return e;
		}
		r->ncpus++;
	}
	return 0;
}

int uet_raw_pass(struct uet_raw *r, unsigned int max,
		 int (*fn)(void *arg, unsigned int cpu, const uint8_t *page, size_t len), void *arg)
{
	/* usereventsd gives a reader this large 64 KiB pages; the kernel its 4 KiB ones. */
	static _Thread_local uint8_t page[UE_RB_PAGE_SIZE_MAX];
	int pages = 0;

	if (r->chan)
		return uet_chan_pass(r->chan, max, fn, arg);

	for (unsigned int c = 0; c < r->ncpus; c++) {
		for (unsigned int k = 0; k < max; k++) {
			ssize_t n = read(r->fds[c], page, sizeof(page));
			size_t len = UE_RB_PAGE_SIZE;
			int e;

			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n < 0)
				return -errno;
			if (n == 0)
				break;
			if ((size_t)n > len)
				len = (size_t)n;
			else
				memset(page + n, 0, len - (size_t)n);
			e = fn(arg, c, page, len);
			if (e < 0)
				return e;
			pages++;
		}
	}
	return pages;
}

int uet_page_records(const uint8_t *page, size_t len, unsigned long long *missed,
		     int (*fn)(void *arg, uint64_t ts, const void *data, size_t len), void *arg)
{
	struct ue_rbpage_iter it;
	const void *data;
	uint64_t ts;
	size_t dlen;
	int n = 0;

	if (!fn) {
		/* Only counted (record's count of every page): stepped over, not decoded. */
		uint64_t m;

		n = ue_rbpage_count(page, len, &m);
		if (missed && m && m != UINT64_MAX)
			*missed += m;
		return n < 0 ? 0 : n;
	}
	if (ue_rbpage_iter_init(&it, page, len) < 0)
		return 0;
	if (missed && it.missed && it.missed != UINT64_MAX)
		*missed += it.missed;
	while (ue_rbpage_next(&it, &ts, &data, &dlen) == 1) {
		int e = fn ? fn(arg, ts, data, dlen) : 0;

		if (e < 0)
			return e;
		n++;
	}
	return n;
}

void uet_raw_close(struct uet_raw *r)
{
	uet_chan_close(r->chan);
	r->chan = NULL;
	for (unsigned int i = 0; r->fds && i < r->ncpus; i++)
		close(r->fds[i]);
	free(r->fds);
	r->fds = NULL;
	r->ncpus = 0;
}

void uet_raw_wait(struct uet_raw *r, int ms)
{
	if (r->chan)
		uet_chan_wait(r->chan, ms);
	else
		uet_sleep_ms(ms);
}

uint64_t uet_raw_watermark(struct uet_raw *r)
{
	return r->chan ? uet_chan_watermark(r->chan) : UINT64_MAX;
}

void uet_raw_flush(struct uet_raw *r, const char *tracefs)
{
	if (r->chan)
		uet_chan_flush(r->chan);
	else
		uet_settle(tracefs);
}

bool uet_raw_lost(struct uet_raw *r, struct uet_chan_counts *ret)
{
	if (!r->chan)
		return false;
	uet_chan_counts(r->chan, ret);
	ret->records += r->before.records;
	ret->lost += r->before.lost;
	ret->lost_producer += r->before.lost_producer;
	return true;
}
