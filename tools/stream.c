// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stream: `userevents stream`, and the two sources of records it hands to
 * its sink: the live copy of trace_pipe it shares with run (lines filtered
 * by event glob, counted per event name, lost-event notes counted), for
 * --fields; and, for every other output (trace lines by default), every
 * CPU's trace_pipe_raw, in time order within each pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "consumer.h"
#include "formats.h"
#include "launch.h"
#include "opts.h"
#include "raw.h"
#include "rbpage.h"
#include "sink.h"
#include "tracefs.h"
#include "util.h"

/*
 * The event name of a trace line: the word after the context
 * ("COMM-PID [CPU] FLAGS SEC.USEC: "), up to its ':'.  Found from the
 * timestamp, the first " DIGITS.DIGITS: " after the first '['.
 */
static bool line_event(const char *line, size_t len, char *name, size_t nlen)
{
	const char *e = line + len, *p = memchr(line, '[', len);

	if (!p)
		return false;
	for (; p < e; p++) {
		const char *q = p, *n;

		if (*q < '0' || *q > '9' || p[-1] != ' ')
			continue;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
		if (q >= e || *q != '.')
			continue;
		q++;
		while (q < e && *q >= '0' && *q <= '9')
			q++;
		if (e - q < 2 || q[0] != ':' || q[1] != ' ')
			continue;
		q += 2;
		n = memchr(q, ':', (size_t)(e - q));
		if (!n || n == q || (size_t)(n - q) >= nlen)
			return false;
		memcpy(name, q, (size_t)(n - q));
		name[n - q] = '\0';
		return true;
	}
	return false;
}

static bool wanted(const struct uet_stream *s, const char *name)
{
	/* A NAME.<hex> is a user_events_multi event. */
	const char *sys = strchr(name, '.') ? uet_systems[1] : uet_systems[0];

	if (!s->nglobs)
		return true;
	for (size_t i = 0; i < s->nglobs; i++)
		if (uet_glob_match(s->globs[i], sys, name))
			return true;
	return false;
}

static int count(struct uet_stream *s, const char *name, size_t bytes)
{
	struct uet_count *c;

	/* The last one met first: a record a time on run's path, most of the same event. */
	if (s->last < s->ncounts && strcmp(s->counts[s->last].name, name) == 0) {
		s->counts[s->last].events++;
		s->counts[s->last].bytes += bytes;
		return 0;
	}
	for (size_t i = 0; i < s->ncounts; i++) {
		if (strcmp(s->counts[i].name, name) == 0) {
			s->counts[i].events++;
			s->counts[i].bytes += bytes;
			s->last = i;
			return 0;
		}
	}
	c = realloc(s->counts, (s->ncounts + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	s->counts = c;
	s->last = s->ncounts;
	c = &s->counts[s->ncounts++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->events = 1;
	c->bytes = bytes;
	return 0;
}

static int emit(struct uet_stream *s, const char *line, size_t len)
{
	struct uet_sink_rec r = { .line = line, .line_len = len };

	return s->sinks ? uet_sinks_record(s->sinks, &r) : 0;
}

static int one_line(struct uet_stream *s, const char *line, size_t len)
{
	char name[256];
	unsigned long long lost;
	unsigned int cpu;

	int e;

	if (sscanf(line, "CPU:%u [LOST %llu EVENTS]", &cpu, &lost) == 2) {
		s->lost += lost;
		return emit(s, line, len);
	}
	if (!line_event(line, len, name, sizeof(name))) {
		/* Not a record line we understand: show it, do not count it. */
		return s->nglobs ? 0 : emit(s, line, len);
	}
	if (!wanted(s, name))
		return 0;
	e = emit(s, line, len);
	return e < 0 ? e : count(s, name, len);
}

struct pipe_again {
	const char *tracefs;
	int fd;
};

/* trace_pipe of the daemon found again (a reattach's source). */
static int pipe_open(void *arg)
{
	struct pipe_again *p = arg;
	char path[4096];

	snprintf(path, sizeof(path), "%s/trace_pipe", p->tracefs);
	p->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return p->fd < 0 ? -errno : 0;
}

int uet_stream_loop(struct uet_stream *s)
{
	struct pipe_again pa = { s->tracefs, -1 };
	char buf[65536], *line = NULL;
	size_t llen = 0, lcap = 0;
	bool draining = false;
	int fd, r = 0;

	r = pipe_open(&pa);
	if (r < 0)
		return r;
	fd = pa.fd;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (!draining && *s->stop)
			draining = true;
		if (!draining) {
			if (s->tick)
				s->tick(s->tick_arg);
			if (poll(&pfd, 1, 200) < 0 && errno != EINTR) {
				r = -errno;
				break;
			}
		}
		n = read(fd, buf, sizeof(buf));
		/* The daemon went away: trace_pipe of one found again, the gap marked. */
		if (n < 0 && s->re && uet_daemon_gone(-errno)) {
			bool back;

			close(fd);
			fd = -1;
			if (llen) {
				line[llen] = '\0';
				r = one_line(s, line, llen);
			}
			llen = 0;
			back = r == 0 && uet_reattach(s->re, draining, pipe_open, &pa) == 0;
			if (r == 0)
				r = uet_sinks_gap(s->sinks, s->ncpus, back);
			if (r == 0)
				r = uet_sinks_flush(s->sinks);
			if (r == 0 && !back)
				r = -ENOTCONN;
			if (r < 0)
				goto out;
			fd = pa.fd;
			continue;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				if (draining)
					break;
				continue;
			}
			r = -errno;
			break;
		}
		if (n == 0) {
			/* Tracing was turned off after we read: the end of the pipe. */
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (llen + 1 >= lcap) {
				size_t ncap = lcap ? lcap * 2 : 1024;
				char *nl = realloc(line, ncap);

				if (!nl) {
					r = -ENOMEM;
					goto out;
				}
				line = nl;
				lcap = ncap;
			}
			line[llen++] = buf[i];
			if (buf[i] == '\n') {
				line[llen] = '\0';
				r = one_line(s, line, llen);
				llen = 0;
				if (r < 0)
					goto out;
			}
		}
		if (s->sinks) {
			r = uet_sinks_flush(s->sinks);
			if (r < 0)
				goto out;
		}
	}
out:
	if (llen && r == 0) {
		line[llen] = '\0';
		r = one_line(s, line, llen);
	}
	free(line);
	if (fd >= 0)
		close(fd);
	if (s->sinks && r == 0)
		r = uet_sinks_flush(s->sinks);
	return r;
}

void uet_stream_free(struct uet_stream *s)
{
	free(s->counts);
	s->counts = NULL;
	s->ncounts = 0;
}

/*
 * The records of the trace's pages, for a sink that needs them, handed on in
 * time order over every CPU: those a pass reads are sorted, and, from a
 * channel, those not older than its watermark wait for the next pass (a CPU
 * may still hold older ones).  Their bytes live in one arena.
 */
struct raw_rec {
	uint64_t ts;
	uint64_t seq;		/* read order: ties keep it */
	size_t off;		/* in the arena */
	uint32_t len;
	unsigned int cpu;
};

struct raw_stream {
	const char *tracefs;
	struct uet_formats formats;
	struct uet_sinks *sinks;
	char **globs;
	size_t nglobs;
	struct raw_rec *v, *tmp;	/* tmp: the merge's, as large as v */
	size_t n, cap;
	uint64_t seq;
	uint8_t *arena, *spare;		/* the records' bytes; a second arena for what is kept */
	size_t alen, acap, scap;
	unsigned long long missed;
	uint64_t last_ts;		/* of the last record read */
	struct uet_batch batch;		/* the one raw_flush renders */
	struct uet_stream *tally;	/* counts of what was shown, or NULL */
	bool sink_failed;		/* the error is an output's, for the caller to say */
	unsigned int cpu;		/* of the page being read */
	char *cmdlines;
	/* Task names found in cmdlines, by pid (direct-mapped; emptied when it is read again). */
	struct comm_slot {
		int32_t pid;		/* 0: empty */
		char comm[64];
	} comms[256];
};

static int arena_room(uint8_t **a, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 1 << 20;
	uint8_t *na;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	na = realloc(*a, ncap);
	if (!na)
		return -ENOMEM;
	*a = na;
	*cap = ncap;
	return 0;
}

static int raw_rec(void *arg, uint64_t ts, const void *data, size_t len)
{
	struct raw_stream *rs = arg;
	struct raw_rec *r;
	size_t at = (rs->alen + 7) & ~(size_t)7;

	if (rs->n == rs->cap) {
		size_t ncap = rs->cap ? rs->cap * 2 : 4096;
		struct raw_rec *nv = realloc(rs->v, ncap * sizeof(*nv)), *nt;

		if (!nv)
			return -ENOMEM;
		rs->v = nv;
		nt = realloc(rs->tmp, ncap * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		rs->tmp = nt;
		rs->cap = ncap;
	}
	if (arena_room(&rs->arena, &rs->acap, at + len) < 0)
		return -ENOMEM;
	if (len)
		memcpy(rs->arena + at, data, len);
	rs->alen = at + len;
	rs->last_ts = ts;
	r = &rs->v[rs->n++];
	r->ts = ts;
	r->seq = rs->seq++;
	r->off = at;
	r->len = (uint32_t)len;
	r->cpu = rs->cpu;
	return 0;
}

static int raw_page(void *arg, unsigned int cpu, const uint8_t *page, size_t len)
{
	struct raw_stream *rs = arg;
	struct ue_rbpage_iter it;
	int n = uet_sinks_page(rs->sinks, cpu, page, len);

	if (n < 0) {
		rs->sink_failed = true;
		return n;
	}
	rs->cpu = cpu;
	/*
	 * The page's loss mark goes in first, as a record of length 0 (its
	 * count in off) at the page's time, so it is told in time order.
	 */
	if (ue_rbpage_iter_init(&it, page, len) == 0 && it.missed) {
		uint64_t ts = it.ts ? it.ts : rs->last_ts;

		if (raw_rec(rs, ts, NULL, 0) < 0)
			return -ENOMEM;
		rs->v[rs->n - 1].off = (size_t)it.missed;
		if (it.missed != UINT64_MAX)
			rs->missed += it.missed;
	}
	n = uet_page_records(page, len, NULL, raw_rec, rs);
	return n < 0 ? n : 0;
}

static bool rec_before(const struct raw_rec *x, const struct raw_rec *y)
{
	return x->ts < y->ts || (x->ts == y->ts && x->seq < y->seq);
}

/*
 * Sort by (ts, seq).  The records come as a few sorted runs (what was held
 * back, then each CPU's pages in order): merged pairwise until one is
 * left, in @tmp, without an allocation or a comparison callback a record.
 */
static void sort_runs(struct raw_rec *v, struct raw_rec *tmp, size_t n)
{
	size_t starts[1026], nruns = 0;

	if (n < 2)
		return;
	starts[nruns++] = 0;
	for (size_t i = 1; i < n; i++) {
		if (rec_before(&v[i], &v[i - 1])) {
			if (nruns == sizeof(starts) / sizeof(starts[0]) - 1) {
				/* More runs than CPUs can make: one pass of insertion is not worth it. */
				for (size_t a = 1; a < n; a++)
					for (size_t b = a; b > 0 && rec_before(&v[b], &v[b - 1]); b--) {
						struct raw_rec t = v[b];

						v[b] = v[b - 1];
						v[b - 1] = t;
					}
				return;
			}
			starts[nruns++] = i;
		}
	}
	starts[nruns] = n;
	while (nruns > 1) {
		size_t out = 0, k;

		for (k = 0; k + 1 < nruns; k += 2) {
			size_t a = starts[k], ae = starts[k + 1], b = ae, be = starts[k + 2];
			size_t o = a;

			while (a < ae && b < be)
				tmp[o++] = rec_before(&v[b], &v[a]) ? v[b++] : v[a++];
			while (a < ae)
				tmp[o++] = v[a++];
			while (b < be)
				tmp[o++] = v[b++];
			memcpy(v + starts[k], tmp + starts[k], (be - starts[k]) * sizeof(*v));
			starts[out++] = starts[k];
		}
		if (k < nruns)
			starts[out++] = starts[k];
		starts[out] = n;
		nruns = out;
	}
}

static const char *raw_comm(struct raw_stream *rs, int32_t pid, char *buf, size_t len,
			    bool *reread)
{
	struct comm_slot *slot = &rs->comms[(uint32_t)pid % 256];
	const char *c;

	if (pid > 0 && slot->pid == pid)
		return slot->comm;
	c = uet_comm_of(rs->cmdlines, pid, buf, len);
	if (!c && !*reread) {
		free(rs->cmdlines);
		rs->cmdlines = uet_read(rs->tracefs, "saved_cmdlines", NULL);
		*reread = true;
		memset(rs->comms, 0, sizeof(rs->comms));
		c = uet_comm_of(rs->cmdlines, pid, buf, len);
	}
	if (c && pid > 0) {
		slot->pid = pid;
		snprintf(slot->comm, sizeof(slot->comm), "%s", c);
	}
	return c;
}

/*
 * Hand the records older than @wm, sorted by time, to the sinks; the others
 * are kept for the next batch.
 */
static int raw_flush(struct raw_stream *rs, uint64_t wm)
{
	bool reread = false, last_match = false, last_rec = false;
	const struct uet_format *last = NULL;	/* the globs' answer for the last format met */
	size_t i, kept = 0, klen = 0;
	int r = 0;

	rs->batch.n++;
	rs->batch.rescanned = false;

	sort_runs(rs->v, rs->tmp, rs->n);
	for (i = 0; i < rs->n && r == 0 && rs->v[i].ts < wm; i++) {
		const struct raw_rec *rec = &rs->v[i];
		const uint8_t *data = rs->arena + rec->off;
		struct uet_sink_rec sr = { .data = data, .len = rec->len };
		struct ue_entry_hdr hdr;
		bool match = !rs->nglobs;
		char comm[64];

		if (rec->len == 0) {
			r = uet_sinks_lost(rs->sinks, rec->cpu, (uint64_t)rec->off);
			if (rs->tally && rec->off != UINT64_MAX)
				rs->tally->lost += rec->off;
			continue;
		}
		if (rec->len < sizeof(hdr))
			continue;
		memcpy(&hdr, data, sizeof(hdr));
		sr.format = uet_formats_lookup(&rs->formats, rs->tracefs, hdr.type, &rs->batch);
		if (!sr.format)
			continue;	/* not a user event */
		if (sr.format == last) {
			match = last_match;
		} else {
			last_rec = false;
			for (size_t g = 0; g < rs->nglobs && !match; g++) {
				if (!uet_glob_match(rs->globs[g], sr.format->system, sr.format->desc->name))
					continue;
				/* PROVIDER:EVENT: by each record's EventHeader name. */
				if (uet_glob_per_record(rs->globs[g], sr.format))
					last_rec = true;
				else
					match = true;
			}
			last = sr.format;
			last_match = match;
		}
		for (size_t g = 0; !match && last_rec && g < rs->nglobs; g++)
			match = uet_glob_match_rec(rs->globs[g], sr.format, data, rec->len);
		if (!match)
			continue;
		sr.ctx = (struct ue_record_ctx){
			.comm = raw_comm(rs, hdr.pid, comm, sizeof(comm), &reread),
			.pid = hdr.pid, .cpu = rec->cpu, .ts_ns = rec->ts };
		r = uet_sinks_record(rs->sinks, &sr);
		if (r == 0 && rs->tally)
			r = count(rs->tally, sr.format->desc->name, rec->len);
	}
	if (r < 0)
		i = rs->n;
	/* What waits for the next batch moves to the front, its bytes to the spare arena. */
	for (size_t k = i; k < rs->n; k++)
		klen += ((size_t)rs->v[k].len + 7) & ~(size_t)7;
	if (i < rs->n && arena_room(&rs->spare, &rs->scap, klen) < 0)
		return -ENOMEM;
	klen = 0;
	for (size_t k = i; k < rs->n; k++) {
		struct raw_rec rec = rs->v[k];

		/* A loss mark has no bytes: its off is its count, kept as it is. */
		if (rec.len) {
			memcpy(rs->spare + klen, rs->arena + rec.off, rec.len);
			rec.off = klen;
			klen += ((size_t)rec.len + 7) & ~(size_t)7;
		}
		rs->v[kept++] = rec;
	}
	if (kept) {
		uint8_t *t = rs->arena;
		size_t tc = rs->acap;

		rs->arena = rs->spare;
		rs->acap = rs->scap;
		rs->spare = t;
		rs->scap = tc;
	}
	rs->n = kept;
	rs->alen = klen;
	if (r == 0)
		r = uet_sinks_flush(rs->sinks);
	/* Only the sinks fail here but for memory. */
	if (r < 0 && r != -ENOMEM)
		rs->sink_failed = true;
	return r;
}

static int formats_seen(void *arg, const struct uet_format *f)
{
	return uet_sinks_format_seen(arg, f);
}

int uet_stream_raw(const char *tracefs, const struct uet_opts *o, struct uet_autoenable *ae,
		   struct uet_sinks *sinks, unsigned int ncpus, struct uet_child *child,
		   struct uet_stream *tally, struct uet_reattach *re)
{
	struct raw_stream rs = { .tracefs = tracefs, .globs = o->globs, .nglobs = o->nglobs,
				 .sinks = sinks, .tally = tally };
	struct uet_raw raw = { 0 };
	bool slow_scan;
	int r;

	rs.formats.on_new = formats_seen;
	rs.formats.on_new_arg = sinks;
	/* Live: a page with records is handed over 100 ms old at most. */
	raw.params = (struct uet_chan_params){ .kib_per_cpu = o->buffer_kib,
					       .block_ms = o->block_ms, .flush_ms = 100 };
	r = uet_raw_open(&raw, tracefs, ncpus, ae->who);
	if (r < 0)
		return r;
	ae->formats = &rs.formats;
	if (ae->arm_in_reader) {
		/* The channel is open: what the arming enables is this reader's too. */
		ae->arm_in_reader = false;
		r = uet_autoenable_start(ae, true);
		if (r < 0 || ae->failed) {
			uet_raw_close(&raw);
			/* A refused filter was said; the caller's status says it (ae->failed). */
			return ae->failed ? 0 : r;
		}
	}
	slow_scan = raw.chan && ae->session >= 0 && !child;
	for (uint64_t last_tick = 0;;) {
		/* Decided before the pass: a pass that then reads nothing ends it. */
		bool stopping = child ? child->done : uet_signal != 0;
		uint64_t wm;
		int got;

		/*
		 * Armed in usereventsd, events are enabled as they register: a
		 * slower scan does, but for CMD, whose events the scans name when
		 * a glob matched none (they go with it: a short CMD needs them seen).
		 */
		if (uet_now_ns() - last_tick >= (slow_scan ? 1000000000ull : 200000000ull)) {
			uet_autoenable_tick(ae);
			last_tick = uet_now_ns();
		}
		/* The end: what the producers' rings and partly filled pages hold, too. */
		if (stopping)
			uet_raw_flush(&raw, tracefs);
		wm = uet_raw_watermark(&raw);
		got = uet_raw_pass(&raw, 64, raw_page, &rs);
		if (got >= 0) {
			r = raw_flush(&rs, wm);
			got = r < 0 ? r : got;
		}
		/*
		 * The daemon went away, every page read: what is held back goes
		 * first, then the gap is marked, on a daemon found again or at the end.
		 */
		if (uet_daemon_gone(got) && re && !rs.sink_failed) {
			unsigned int was = raw.ncpus;
			bool back;

			r = raw_flush(&rs, UINT64_MAX);
			back = r == 0 && uet_reattach_raw(re, &raw, stopping) == 0;
			if (r == 0)
				r = uet_sinks_gap(sinks, was > raw.ncpus ? was : raw.ncpus, back);
			if (r == 0)
				r = uet_sinks_flush(sinks);
			if (r < 0) {
				rs.sink_failed = r != -ENOMEM;
				break;
			}
			if (!back) {
				r = -ENOTCONN;
				break;
			}
			continue;
		}
		if (got < 0) {
			r = got;
			/*
			 * A reader that went away (| head): the end, as for
			 * trace_pipe's copy.  An output's error is the caller's to say.
			 */
			if (got != -EPIPE && !rs.sink_failed)
				uet_err("%s: %s/per_cpu: %s", ae->who, tracefs, strerror(-got));
			break;
		}
		/* After a signal: what was there when it came, then stop. */
		if (ae->failed || (stopping && got == 0))
			break;
		if (child && !child->done && uet_child_poll(child)) {
			/* What it left in native rings, and what registered last: the next passes. */
			uet_autoenable_tick(ae);
			continue;
		}
		if (!got)
			uet_raw_wait(&raw, slow_scan ? 1000 : 200);
	}
	{
		struct uet_chan_counts cc;

		if (uet_raw_lost(&raw, &cc) && cc.lost)
			uet_err("%s: %llu records lost (%llu with the buffer full, %llu with a producer's ring full)",
				ae->who, cc.lost, cc.lost - cc.lost_producer, cc.lost_producer);
		else if (!raw.chan && rs.missed)
			uet_err("%s: %llu records lost (overwritten before they were read)", ae->who,
				rs.missed);
	}
	/* Held back for a CPU that then said nothing more: theirs now. */
	if (r >= 0 && rs.n)
		r = raw_flush(&rs, UINT64_MAX);
	free(rs.v);
	free(rs.tmp);
	free(rs.arena);
	free(rs.spare);
	free(rs.cmdlines);
	uet_raw_close(&raw);
	ae->formats = NULL;
	uet_formats_free(&rs.formats);
	return r;
}

static volatile sig_atomic_t stream_stop;

/* A stream tick: enable what appeared; stop on a signal or a refused filter. */
static void stream_tick(void *arg)
{
	struct uet_autoenable *ae = arg;

	if (ae->nglobs)
		uet_autoenable_tick(ae);
	if (ae->failed || uet_signal)
		stream_stop = 1;
}

int uet_cmd_stream(const char *tracefs_opt, int argc, char **argv)
{
	static const char usage[] = "stream [-e GLOB [-f FILTER]]... [-p PROVIDER[:LEVEL[:KEYWORDS]]]... [--fields | --json [--wall-clock] | --format=FMT] [-b KiB] [--blocking[=MS] | --no-blocking] [--reattach SECONDS]";
	char tracefs[4096];
	struct uet_autoenable ae = { .tracefs = tracefs };
	struct uet_reattach re = { .tracefs = tracefs, .who = "stream", .ae = &ae };
	char said[256];
	struct uet_stream s = { .tracefs = tracefs, .stop = &stream_stop, .re = &re };
	struct uet_sinks sinks = { 0 };
	struct uet_buf_stats st;
	struct uet_opts o;
	bool closed;
	int r;

	r = uet_opts_parse(&o, argc, argv, UET_O_EVENT | UET_O_FILTER | UET_O_FIELDS | UET_O_JSON |
				   UET_O_PROVIDER | UET_O_FORMAT | UET_O_BUFFER | UET_O_WALL |
				   UET_O_REATTACH,
			   usage);
	if (r >= 0)
		return r;
	if (o.rest < argc) {
		r = uet_usage_err("stream", usage, "unexpected argument '%s'", argv[o.rest]);
		uet_opts_free(&o);
		return r;
	}
	r = uet_tracefs_resolve(tracefs_opt, tracefs, sizeof(tracefs));
	if (r) {
		uet_opts_free(&o);
		return r;
	}
	r = uet_buf_stats_read(tracefs, &st);
	if (r < 0) {
		uet_err("stream: %s/per_cpu: %s", tracefs, strerror(-r));
		uet_opts_free(&o);
		return UET_EXIT_FAIL;
	}
	if (uet_sinks_add(&sinks, uet_sink_new(o.format, stdout, NULL)) < 0 ||
	    uet_sinks_begin(&sinks, &(struct uet_sink_env){ .who = "stream", .tracefs = tracefs,
							    .ncpus = st.ncpus,
							    .wall_clock = o.wall_clock }) < 0) {
		uet_sinks_end(&sinks, false);
		uet_opts_free(&o);
		return UET_EXIT_FAIL;
	}
	uet_catch_signals();
	re.wait_ms = o.reattach_ms;
	s.ncpus = st.ncpus;
	ae.globs = o.globs;
	ae.filters = o.filters;
	ae.nglobs = o.nglobs;
	ae.who = "stream";
	ae.default_globs = o.default_globs;
	/*
	 * Every format but --fields renders binary records (trace lines with
	 * EventHeader events decoded), armed once their channel is open;
	 * --fields copies the tracefs's own text.
	 */
	ae.arm_in_reader = o.format_opt || strcmp(o.format, "fields") != 0;
	r = ae.arm_in_reader ? 0 : uet_autoenable_start(&ae, true);
	if (r == 0 && ae.arm_in_reader) {
		r = uet_stream_raw(tracefs, &o, &ae, &sinks, st.ncpus, NULL, NULL, &re);
		if (r < 0 && uet_output_gone(stdout))
			r = -EPIPE;
		if (r < 0 && r != -EPIPE && ferror(stdout))
			uet_err("stream: output: %s", strerror(-r));
	} else if (r == 0) {
		s.globs = o.globs;
		s.nglobs = o.nglobs;
		s.sinks = &sinks;
		s.tick = stream_tick;
		s.tick_arg = &ae;
		r = uet_stream_loop(&s);
		if (r < 0 && uet_output_gone(stdout))
			r = -EPIPE;
		/* A daemon gone for good was said, with the closing words. */
		if (r < 0 && r != -EPIPE && !re.gone)
			uet_err("stream: %s/trace_pipe: %s", tracefs, strerror(-r));
	}
	/* The closing words: the daemon's gaps (where, the lines of each CPU said). */
	if (*uet_reattach_said(&re, said, sizeof(said)))
		uet_err("stream: %s", said + 2);
	/*
	 * A reader that went away (| head): the end it asked for, quiet and 0,
	 * as run's; what the sinks still hold has nowhere to go.
	 */
	closed = r == -EPIPE;
	if (closed)
		r = 0;
	if (r == 0 && ae.failed)
		r = ae.failed;
	uet_autoenable_undo(&ae);
	if (uet_sinks_end(&sinks, r == 0 && !closed) < 0 && r == 0 && !closed)
		r = -EIO;
	if (r == 0 && uet_autoenable_unmatched(&ae))
		r = 1;	/* UET_EXIT_NO_MATCH */
	uet_autoenable_free(&ae);
	uet_stream_free(&s);
	uet_opts_free(&o);
	return r < 0 ? UET_EXIT_FAIL : r ? UET_EXIT_NO_MATCH : UET_EXIT_OK;
}
