/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * userevents export --otlp: the OTLP sink (sink-otlp.c: records to OTLP
 * requests, batched) and its sender (otlp-send.c: a bounded queue, one
 * thread posting over libcurl with retries, the counters and their stats
 * file).  docs/otlp.md is the mapping; userevents(1) the options.
 */
#ifndef UE_TOOLS_EXPORT_H
#define UE_TOOLS_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink.h"

#define UET_OTLP_HEADERS_MAX 32

struct uet_otlp_stats;

/* What export was told (defaults: uet_otlp_opts_default()). */
struct uet_otlp_opts {
	const char *url;		/* the endpoint: requests go to URL/v1/logs, URL/v1/metrics */
	const char *headers[UET_OTLP_HEADERS_MAX];	/* "K: V" lines */
	size_t nheaders;
	bool json;			/* http/json instead of http/protobuf */
	bool gzip;			/* Content-Encoding: gzip */
	unsigned batch_records;		/* records per request at most */
	size_t batch_bytes;		/* encoded bytes per request at most */
	unsigned batch_delay_ms;	/* a record waits this long at most before it is sent */
	size_t queue_bytes;		/* requests waiting (and in flight), in bytes, at most */
	bool drop_newest;		/* queue full: drop the new request (default: the oldest) */
	unsigned timeout_ms;		/* one HTTP request */
	unsigned retry_ms;		/* retrying one request, at most */
	unsigned flush_ms;		/* the flush at exit, at most */
	const char *tracefs;		/* named in the stats file */
	bool quiet;			/* no counters on stderr at the end */
	struct uet_otlp_stats *result;	/* the sink's end() leaves the final counters here */
};

void uet_otlp_opts_default(struct uet_otlp_opts *o);

/* The counters (records: log records and otlp_metrics events alike). */
enum uet_otlp_drop {
	UET_DROP_QUEUE_FULL,	/* the queue was at --queue-bytes */
	UET_DROP_HTTP,		/* refused with a status that is not retried (400, 401, 413, ...) */
	UET_DROP_RETRIES,	/* still failing after --retry-timeout */
	UET_DROP_EXIT,		/* not sent when the exit flush ran out of time */
	UET_DROP_TOO_LARGE,	/* one record larger than --batch-bytes */
	UET_DROP_NREASONS
};

struct uet_otlp_stats {
	uint64_t records;		/* log records encoded */
	uint64_t metrics;		/* otlp_metrics events forwarded to the queue */
	uint64_t sent;			/* delivered: a 2xx answer, less what it rejected */
	uint64_t rejected;		/* partial_success: rejected_log_records / data points */
	uint64_t requests;		/* HTTP requests made */
	uint64_t retried;		/* of them, repeats of a failed one */
	uint64_t dropped[UET_DROP_NREASONS];
	uint64_t lost;			/* lost before export read them, where the trace says how many */
	uint64_t lost_unknown;		/* losses of unknown count the trace marked */
	uint64_t gaps;			/* times the daemon went away (what it missed: count unknown) */
	uint64_t queued_bytes;		/* now */
	uint64_t queued_peak;		/* the most the queue held */
};

struct uet_otlp_sender;

/** uet_otlp_sender_start - the sending thread and its queue; NULL with a message printed */
struct uet_otlp_sender *uet_otlp_sender_start(const struct uet_otlp_opts *o);

/**
 * uet_otlp_send - queue one request body (ownership passes; freed when sent or dropped)
 * @metrics: for URL/v1/metrics (else URL/v1/logs)
 * @items: the records it holds, for the counters
 *
 * Never waits: a full queue drops a request (the oldest, or this one) and counts it.
 */
void uet_otlp_send(struct uet_otlp_sender *s, bool metrics, uint8_t *body, size_t len,
		   unsigned items);

/** uet_otlp_note - count records encoded (@metrics: otlp_metrics events) or dropped as too large */
void uet_otlp_note(struct uet_otlp_sender *s, uint64_t records, uint64_t metrics,
		   uint64_t too_large);

/** uet_otlp_lost - count records lost before they were read: @n (UINT64_MAX: some), @gaps */
void uet_otlp_lost(struct uet_otlp_sender *s, uint64_t n, uint64_t gaps);

/**
 * uet_otlp_sender_stop - send what is queued (for --flush-timeout at most),
 * stop the thread, print the counters on stderr unless @quiet, free @s
 * @ret: the final counters
 */
void uet_otlp_sender_stop(struct uet_otlp_sender *s, bool quiet, struct uet_otlp_stats *ret);

/** uet_otlp_dropped - the total of drops and rejections in @st */
uint64_t uet_otlp_dropped(const struct uet_otlp_stats *st);

/** uet_sink_otlp_new - the OTLP sink; NULL with a message printed */
struct uet_sink *uet_sink_otlp_new(const struct uet_otlp_opts *o);

/** uet_otlp_stats_dir - the directory of the exports' stats files (made if missing); 0 or -errno */
int uet_otlp_stats_dir(char *out, size_t len);

/**
 * uet_export_stats_print - `userevents stats`: the counters of each live export of @tracefs
 * @tracefs: the tracefs
 * @json: as stats --json: ',"exports":[{"pid":N,"KEY":VALUE,...},...]' (numbers as
 *        numbers, the rest as strings); otherwise "export.PID.KEY: VALUE" lines
 */
void uet_export_stats_print(const char *tracefs, bool json);

#endif /* UE_TOOLS_EXPORT_H */
