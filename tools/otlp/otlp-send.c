// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The OTLP sender: requests (gzipped as they come, with --gzip) wait in a
 * queue bounded in bytes (full: the oldest or the newest is dropped and
 * counted, the reader never waits), one thread posts them over libcurl,
 * retrying 429, 502, 503, 504 and transport errors with exponential backoff
 * and jitter (Retry-After honoured), reads partial_success, and keeps the
 * counters, which it also writes to a stats file, the one owner of its
 * format: written by the sending thread, read for `userevents stats`.
 */
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "otlp-export.h"
#include "otlp.h"
#include "util.h"

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 5000
#define RESPONSE_MAX 65536	/* of a response body kept for partial_success */
#define STATS_EVERY_NS 100000000ull	/* the stats file, when the counters moved */

struct req {
	struct req *next;
	uint8_t *body;
	size_t len;
	unsigned items;
	bool metrics;
};

struct uet_otlp_sender {
	struct uet_otlp_opts o;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* a request queued, or stop */
	struct req *head, *tail;
	bool stopping;
	uint64_t deadline_ns;		/* stopping: give up sending then */
	struct uet_otlp_stats st;	/* under lock */
	char logs_url[4096], metrics_url[4096];
	struct curl_slist *headers;	/* of logs requests */
	struct curl_slist *mheaders;	/* of metrics: their body is protobuf as it came */
	char stats_path[4200];
	char why[256];			/* the last attempt's failure */
	bool failing;			/* said; "delivering again" is said once it passes */
	uint64_t stats_at;
	struct uet_otlp_stats stats_written;	/* what the file says */
};

void uet_otlp_opts_default(struct uet_otlp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->batch_records = 512;
	o->batch_bytes = 1u << 20;
	o->batch_delay_ms = 200;
	o->queue_bytes = 16u << 20;
	o->timeout_ms = 10000;
	o->retry_ms = 60000;
	o->flush_ms = 5000;
}

uint64_t uet_otlp_dropped(const struct uet_otlp_stats *st)
{
	uint64_t n = st->rejected;

	for (int i = 0; i < UET_DROP_NREASONS; i++)
		n += st->dropped[i];
	return n;
}

static const char *const drop_names[UET_DROP_NREASONS] = {
	"queue_full", "http", "retries", "exit", "too_large",
};

/* The reasons in the closing line, in words (drop_names are the stats file's keys). */
static const char *const drop_words[UET_DROP_NREASONS] = {
	"with the queue full (--queue-bytes)",
	"refused by the collector (an HTTP status not retried)",
	"still failing after --retry-timeout",
	"unsent when export exited (--flush-timeout)",
	"larger than --batch-bytes",
};

static void write_stats(struct uet_otlp_sender *s, const struct uet_otlp_stats *st)
{
	char tmp[4300];
	FILE *f;

	if (!s->stats_path[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->stats_path);
	f = fopen(tmp, "we");
	if (!f)
		return;
	fprintf(f, "pid: %d\ntracefs: %s\nurl: %s\n", (int)getpid(),
		s->o.tracefs ? s->o.tracefs : "", s->o.url);
	fprintf(f, "records: %" PRIu64 "\nmetrics: %" PRIu64 "\nsent: %" PRIu64
		   "\nrejected: %" PRIu64 "\nrequests: %" PRIu64 "\nretried: %" PRIu64
		   "\ndropped: %" PRIu64 "\n",
		st->records, st->metrics, st->sent, st->rejected, st->requests, st->retried,
		uet_otlp_dropped(st) - st->rejected);
	for (int i = 0; i < UET_DROP_NREASONS; i++)
		fprintf(f, "dropped_%s: %" PRIu64 "\n", drop_names[i], st->dropped[i]);
	fprintf(f, "lost: %" PRIu64 "\nlost_unknown: %" PRIu64 "\ngaps: %" PRIu64 "\n", st->lost,
		st->lost_unknown, st->gaps);
	fprintf(f, "queued_bytes: %" PRIu64 "\nqueued_peak: %" PRIu64 "\n", st->queued_bytes,
		st->queued_peak);
	if (fclose(f) == 0)
		rename(tmp, s->stats_path);
	else
		unlink(tmp);
}

/*
 * The sending thread's (the one writer of the file): the counters into the
 * file when they moved and it is STATS_EVERY_NS old.  Called between
 * requests and while one is retried or in flight, so that the reader's
 * records and the retries show while the collector is down.
 */
static void stats_tick(struct uet_otlp_sender *s)
{
	struct uet_otlp_stats st;

	if (uet_now_ns() - s->stats_at < STATS_EVERY_NS)
		return;
	pthread_mutex_lock(&s->lock);
	st = s->st;
	pthread_mutex_unlock(&s->lock);
	if (memcmp(&st, &s->stats_written, sizeof(st)) == 0)
		return;
	write_stats(s, &st);
	s->stats_written = st;
	s->stats_at = uet_now_ns();
}

static void req_free(struct req *r)
{
	if (r) {
		free(r->body);
		free(r);
	}
}

/* Under lock: drop the head. */
static void drop_head(struct uet_otlp_sender *s, enum uet_otlp_drop why)
{
	struct req *r = s->head;

	s->head = r->next;
	if (!s->head)
		s->tail = NULL;
	s->st.queued_bytes -= r->len;
	s->st.dropped[why] += r->items;
	req_free(r);
}

/* gzip of @p, malloc()ed; NULL when it cannot be made. */
static uint8_t *gzip(const uint8_t *p, size_t n, size_t *out_len)
{
	z_stream z = { 0 };
	uLong cap = compressBound((uLong)n) + 32;
	uint8_t *out = malloc(cap);

	if (!out || deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return NULL;
	}
	z.next_in = (Bytef *)p;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return NULL;
	}
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

void uet_otlp_send(struct uet_otlp_sender *s, bool metrics, uint8_t *body, size_t len,
		   unsigned items)
{
	struct req *r = calloc(1, sizeof(*r));

	/*
	 * Compressed here, on the reader's side: the sending thread then only
	 * sends, and the queue's bound counts the bytes that wait.
	 */
	if (r && s->o.gzip) {
		size_t zlen;
		uint8_t *z = gzip(body, len, &zlen);

		if (z) {
			free(body);
			body = z;
			len = zlen;
		}
	}
	pthread_mutex_lock(&s->lock);
	if (!r) {
		s->st.dropped[UET_DROP_QUEUE_FULL] += items;
		free(body);
		goto out;
	}
	*r = (struct req){ .body = body, .len = len, .items = items, .metrics = metrics };
	/* queued_bytes counts the request in flight too (not in the list). */
	while (s->st.queued_bytes + len > s->o.queue_bytes) {
		if (s->o.drop_newest || !s->head) {
			s->st.dropped[UET_DROP_QUEUE_FULL] += items;
			req_free(r);
			goto out;
		}
		drop_head(s, UET_DROP_QUEUE_FULL);
	}
	if (s->tail)
		s->tail->next = r;
	else
		s->head = r;
	s->tail = r;
	s->st.queued_bytes += len;
	if (s->st.queued_bytes > s->st.queued_peak)
		s->st.queued_peak = s->st.queued_bytes;
	pthread_cond_signal(&s->cond);
out:
	pthread_mutex_unlock(&s->lock);
}

void uet_otlp_note(struct uet_otlp_sender *s, uint64_t records, uint64_t metrics,
		   uint64_t too_large)
{
	pthread_mutex_lock(&s->lock);
	s->st.records += records;
	s->st.metrics += metrics;
	s->st.dropped[UET_DROP_TOO_LARGE] += too_large;
	pthread_mutex_unlock(&s->lock);
}

void uet_otlp_lost(struct uet_otlp_sender *s, uint64_t n, uint64_t gaps)
{
	pthread_mutex_lock(&s->lock);
	if (n == UINT64_MAX)
		s->st.lost_unknown++;
	else
		s->st.lost += n;
	s->st.gaps += gaps;
	pthread_mutex_unlock(&s->lock);
}

/* ---- one HTTP exchange ------------------------------------------------------ */

struct answer {
	char body[RESPONSE_MAX];
	size_t len;
	long retry_after_ms;		/* -1: none */
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t k = size * n, room = sizeof(a->body) - a->len;

	memcpy(a->body + a->len, p, k < room ? k : room);
	a->len += k < room ? k : room;
	return k;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t k = size * n;
	char v[128];

	if (k > 12 && strncasecmp(p, "Retry-After:", 12) == 0) {
		size_t l = k - 12 < sizeof(v) - 1 ? k - 12 : sizeof(v) - 1;
		char *e;
		long sec;

		memcpy(v, p + 12, l);
		v[l] = '\0';
		v[strcspn(v, "\r\n")] = '\0';
		sec = strtol(v, &e, 10);
		if (e != v && *e == '\0' && sec >= 0) {
			a->retry_after_ms = sec > 3600 ? 3600000 : sec * 1000;
		} else {
			/* An HTTP date: how far off it is. */
			time_t when = curl_getdate(v + strspn(v, " "), NULL);

			if (when > 0) {
				time_t now = time(NULL);

				a->retry_after_ms = when > now ? (long)(when - now) * 1000 : 0;
				if (a->retry_after_ms > 3600000)
					a->retry_after_ms = 3600000;
			}
		}
	}
	return k;
}

/* Outcomes of one attempt. */
enum { SENT_OK, SENT_RETRY, SENT_REFUSED };

static int post(struct uet_otlp_sender *s, CURL *c, const struct req *r, const uint8_t *body,
		size_t len, long timeout_ms, struct answer *a, int64_t *rejected)
{
	long code = 0;
	CURLcode e;
	char msg[256];

	a->len = 0;
	a->retry_after_ms = -1;
	*rejected = 0;
	curl_easy_setopt(c, CURLOPT_URL, r->metrics ? s->metrics_url : s->logs_url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, (const char *)body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 1L);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
	e = curl_easy_perform(c);
	if (e != CURLE_OK) {
		snprintf(s->why, sizeof(s->why), "%s", curl_easy_strerror(e));
		return SENT_RETRY;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	/* Not found: most likely a URL with a path the collector does not serve. */
	snprintf(s->why, sizeof(s->why), "HTTP %ld%s", code,
		 code == 404 ? " Not Found: no OTLP receiver at this URL; --otlp takes the "
			       "collector's base URL (http://HOST:4318) or its .../v1/logs URL" : "");
	if (code >= 200 && code < 300) {
		/* Metrics bodies are ours only to forward: their answer is protobuf unless JSON. */
		if (uo_partial_success(a->body, a->len, s->o.json && !r->metrics, rejected, msg,
				       sizeof(msg)) < 0)
			*rejected = 0;
		if (*rejected < 0 || (uint64_t)*rejected > r->items)
			*rejected = r->items;
		return SENT_OK;
	}
	if (code == 429 || code == 502 || code == 503 || code == 504)
		return SENT_RETRY;
	return SENT_REFUSED;
}

/* A request in flight when the exit deadline passes is cut short. */
static int on_progress(void *arg, curl_off_t dt, curl_off_t d, curl_off_t ut, curl_off_t u)
{
	struct uet_otlp_sender *s = arg;
	bool late;

	(void)dt, (void)d, (void)ut, (void)u;
	pthread_mutex_lock(&s->lock);
	late = s->stopping && uet_now_ns() >= s->deadline_ns;
	pthread_mutex_unlock(&s->lock);
	stats_tick(s);
	return late;
}

static uint64_t rand_below(uint64_t n)
{
	static __thread unsigned int seed;

	if (!seed)
		seed = (unsigned int)(uet_now_ns() ^ (uint64_t)getpid());
	return n ? (uint64_t)rand_r(&seed) % n : 0;
}

/* Sleep @ms, unless the exit deadline comes first; false if it came. */
static bool wait_ms(struct uet_otlp_sender *s, uint64_t ms)
{
	uint64_t until = uet_now_ns() + ms * 1000000ull;

	for (;;) {
		uint64_t now = uet_now_ns(), end = until;

		pthread_mutex_lock(&s->lock);
		if (s->stopping && s->deadline_ns < end)
			end = s->deadline_ns;
		pthread_mutex_unlock(&s->lock);
		if (now >= end)
			return now < until ? false : true;
		/* In steps of the stats file's period: the counters move meanwhile. */
		end = end - now > STATS_EVERY_NS ? now + STATS_EVERY_NS : end;
		uet_sleep_ms((long)((end - now) / 1000000ull) + 1);
		stats_tick(s);
	}
}

/* Send @r until it is delivered, refused, or out of time; the counters updated. */
static void deliver(struct uet_otlp_sender *s, CURL *c, struct req *r)
{
	static struct answer a;	/* one sender thread */
	uint64_t start = uet_now_ns(), backoff = BACKOFF_FIRST_MS;
	const uint8_t *body = r->body;	/* compressed already with --gzip (uet_otlp_send()) */
	size_t len = r->len;
	enum uet_otlp_drop why = UET_DROP_RETRIES;

	curl_easy_setopt(c, CURLOPT_HTTPHEADER, r->metrics ? s->mheaders : s->headers);
	for (unsigned attempt = 0;; attempt++) {
		long timeout = (long)s->o.timeout_ms;
		int64_t rejected;
		int how;

		pthread_mutex_lock(&s->lock);
		if (s->stopping) {
			uint64_t now = uet_now_ns();
			long left = now < s->deadline_ns ? (long)((s->deadline_ns - now) / 1000000) : 0;

			if (left <= 0) {
				pthread_mutex_unlock(&s->lock);
				why = UET_DROP_EXIT;
				break;
			}
			if (left < timeout)
				timeout = left;
		}
		s->st.requests++;
		s->st.retried += attempt > 0;
		pthread_mutex_unlock(&s->lock);
		stats_tick(s);
		how = post(s, c, r, body, len, timeout, &a, &rejected);
		/* Said once when delivery starts failing, once when it works again. */
		if (how != SENT_OK && !s->failing && !s->o.quiet)
			uet_err("export: %s: %s%s", r->metrics ? s->metrics_url : s->logs_url, s->why,
				how == SENT_RETRY ? " (retrying)" : " (dropped)");
		else if (how == SENT_OK && s->failing && !s->o.quiet)
			uet_err("export: %s: delivering again", s->logs_url);
		s->failing = how != SENT_OK;
		if (how == SENT_OK) {
			pthread_mutex_lock(&s->lock);
			s->st.sent += r->items - (uint64_t)rejected;
			s->st.rejected += (uint64_t)rejected;
			pthread_mutex_unlock(&s->lock);
			return;
		}
		if (how == SENT_REFUSED) {
			why = UET_DROP_HTTP;
			break;
		}
		if ((uet_now_ns() - start) / 1000000ull >= s->o.retry_ms)
			break;
		/* Full jitter on the exponential step; the server's Retry-After when it gave one. */
		{
			uint64_t ms = a.retry_after_ms >= 0 ? (uint64_t)a.retry_after_ms
							    : backoff / 2 + rand_below(backoff / 2 + 1);

			if (!wait_ms(s, ms)) {
				why = UET_DROP_EXIT;
				break;
			}
		}
		backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
	}
	pthread_mutex_lock(&s->lock);
	s->st.dropped[why] += r->items;
	pthread_mutex_unlock(&s->lock);
}

static void *sender(void *arg)
{
	struct uet_otlp_sender *s = arg;
	CURL *c = curl_easy_init();

	if (c) {
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
		curl_easy_setopt(c, CURLOPT_USERAGENT, "userevents-export/" UE_VERSION);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, s);
	}
	for (;;) {
		struct req *r;

		pthread_mutex_lock(&s->lock);
		while (!s->head && !s->stopping) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += (long)STATS_EVERY_NS;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
			if (!s->head)
				break;
		}
		r = s->head;
		if (!r && s->stopping) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		/* In flight: out of the list, still counted against the bound until done. */
		if (r) {
			s->head = r->next;
			if (!s->head)
				s->tail = NULL;
		}
		pthread_mutex_unlock(&s->lock);
		stats_tick(s);
		if (!r)
			continue;
		if (c) {
			deliver(s, c, r);
		} else {
			pthread_mutex_lock(&s->lock);
			s->st.dropped[UET_DROP_RETRIES] += r->items;
			pthread_mutex_unlock(&s->lock);
		}
		pthread_mutex_lock(&s->lock);
		s->st.queued_bytes -= r->len;
		pthread_mutex_unlock(&s->lock);
		req_free(r);
	}
	if (c)
		curl_easy_cleanup(c);
	return NULL;
}

static struct curl_slist *headers(const struct uet_otlp_opts *o, const char *type)
{
	struct curl_slist *h = curl_slist_append(NULL, type);

	if (o->gzip)
		h = curl_slist_append(h, "Content-Encoding: gzip");
	/* No "Expect: 100-continue" round trip before each large body. */
	h = curl_slist_append(h, "Expect:");
	for (size_t i = 0; i < o->nheaders; i++)
		h = curl_slist_append(h, o->headers[i]);
	return h;
}

struct uet_otlp_sender *uet_otlp_sender_start(const struct uet_otlp_opts *o)
{
	struct uet_otlp_sender *s = calloc(1, sizeof(*s));
	size_t ul = strlen(o->url);
	char dir[4096];

	if (!s) {
		uet_err("export: %s", strerror(ENOMEM));
		return NULL;
	}
	s->o = *o;
	while (ul && o->url[ul - 1] == '/')
		ul--;
	/*
	 * The collector's docs write the logs endpoint in full
	 * (http://HOST:4318/v1/logs), as OTEL_EXPORTER_OTLP_LOGS_ENDPOINT takes
	 * it: such a URL names the signal's path, the base is what precedes it.
	 */
	for (size_t i = 0; i < 2; i++) {
		static const char *const sig[] = { "/v1/logs", "/v1/metrics" };
		size_t n = strlen(sig[i]);

		if (ul >= n && strncmp(o->url + ul - n, sig[i], n) == 0) {
			ul -= n;
			break;
		}
	}
	snprintf(s->logs_url, sizeof(s->logs_url), "%.*s/v1/logs", (int)ul, o->url);
	snprintf(s->metrics_url, sizeof(s->metrics_url), "%.*s/v1/metrics", (int)ul, o->url);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		uet_err("export: libcurl cannot start");
		free(s);
		return NULL;
	}
	s->headers = headers(o, o->json ? "Content-Type: application/json"
					: "Content-Type: application/x-protobuf");
	s->mheaders = headers(o, "Content-Type: application/x-protobuf");
	if (uet_otlp_stats_dir(dir, sizeof(dir)) == 0)
		snprintf(s->stats_path, sizeof(s->stats_path), "%s/export-%d.stats", dir,
			 (int)getpid());
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (pthread_create(&s->thread, NULL, sender, s) != 0) {
		uet_err("export: cannot start the sending thread");
		curl_slist_free_all(s->headers);
		curl_slist_free_all(s->mheaders);
		free(s);
		return NULL;
	}
	return s;
}

void uet_otlp_sender_stop(struct uet_otlp_sender *s, bool quiet, struct uet_otlp_stats *ret)
{
	struct uet_otlp_stats st;

	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	s->deadline_ns = uet_now_ns() + (uint64_t)s->o.flush_ms * 1000000ull;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	/* What the deadline left in the queue. */
	while (s->head)
		drop_head(s, UET_DROP_EXIT);
	st = s->st;
	if (s->stats_path[0])
		unlink(s->stats_path);
	if (!quiet) {
		fprintf(stderr,
			UET_PROG ": export: %" PRIu64 " records, %" PRIu64 " metrics events; sent %"
			PRIu64 ", rejected %" PRIu64 ", dropped %" PRIu64,
			st.records, st.metrics, st.sent, st.rejected, uet_otlp_dropped(&st) - st.rejected);
		for (int i = 0, n = 0; i < UET_DROP_NREASONS; i++)
			if (st.dropped[i])
				fprintf(stderr, "%s%" PRIu64 " %s", n++ ? ", " : ": ", st.dropped[i],
					drop_words[i]);
		fprintf(stderr, "; %" PRIu64 " requests, %" PRIu64 " retried", st.requests,
			st.retried);
		/* Lost before export read them: the trace's marks, the daemon's absences. */
		if (st.lost || st.lost_unknown)
			fprintf(stderr, "; lost %" PRIu64 "%s before they were read", st.lost,
				st.lost_unknown ? " and more (count unknown)" : "");
		if (st.gaps)
			fprintf(stderr, "; the daemon went away %" PRIu64 " time%s: what was written "
				"meanwhile is lost, count unknown", st.gaps, st.gaps == 1 ? "" : "s");
		fputc('\n', stderr);
	}
	if (ret)
		*ret = st;
	curl_slist_free_all(s->headers);
	curl_slist_free_all(s->mheaders);
	curl_global_cleanup();
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
}

/* ---- the stats files: written above (write_stats()), read by `userevents stats` -------------------------------------------------------------- */

int uet_otlp_stats_dir(char *out, size_t len)
{
	const char *env = getenv("USEREVENTS_RUNDIR"), *xdg = getenv("XDG_RUNTIME_DIR");

	if (env && *env)
		snprintf(out, len, "%s", env);
	else if (geteuid() == 0)
		snprintf(out, len, "/run/userevents");
	else if (xdg && *xdg)
		snprintf(out, len, "%s/userevents", xdg);
	else
		snprintf(out, len, "/tmp/userevents-%u", (unsigned)geteuid());
	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static bool same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (realpath(a, ra) && realpath(b, rb))
		return strcmp(ra, rb) == 0;
	return strcmp(a, b) == 0;
}

/* "KEY: VALUE" as JSON's '"KEY":VALUE', VALUE a number when it is all digits. */
static void stat_json(const char *line)
{
	const char *v = strstr(line, ": ");
	int kn = v ? (int)(v - line) : (int)strlen(line);
	bool num;

	v = v ? v + 2 : "";
	num = *v && strspn(v, "0123456789") == strlen(v) && (v[0] != '0' || !v[1]);
	printf(",\"%.*s\":", kn, line);
	if (num) {
		fputs(v, stdout);
		return;
	}
	putchar('"');
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			putchar('\\');
		if ((unsigned char)*v >= 0x20)
			putchar(*v);
	}
	putchar('"');
}

void uet_export_stats_print(const char *tracefs, bool json)
{
	char dir[4096], path[4400], line[4400];
	struct dirent *d;
	int shown = 0;
	DIR *dp;

	if (json)
		fputs(",\"exports\":[", stdout);
	if (uet_otlp_stats_dir(dir, sizeof(dir)) < 0 || !(dp = opendir(dir))) {
		if (json)
			putchar(']');
		return;
	}
	while ((d = readdir(dp))) {
		int pid = 0;
		FILE *f;
		bool ours = false;

		if (sscanf(d->d_name, "export-%d.stats", &pid) != 1 || pid <= 0 ||
		    strstr(d->d_name, ".tmp") || (kill(pid, 0) < 0 && errno == ESRCH))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (strncmp(line, "tracefs: ", 9) == 0) {
				ours = same_dir(line + 9, tracefs);
				if (ours && json)
					printf("%s{\"pid\":%d", shown++ ? "," : "", pid);
			} else if (ours && strncmp(line, "pid: ", 5) != 0) {
				if (json)
					stat_json(line);
				else
					printf("export.%d.%s\n", pid, line);
			}
		}
		if (ours && json)
			putchar('}');
		fclose(f);
	}
	closedir(dp);
	if (json)
		putchar(']');
}
