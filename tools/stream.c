// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stream: `userevents stream`, and the live copy of trace_pipe it shares
 * with run (lines filtered by event glob, counted per event name, lost-event
 * notes counted); --json renders trace_pipe_raw's records instead.  Also the
 * per-CPU buffer counters that stats and the summaries print.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

int uet_buf_stats_read(const char *tracefs, struct uet_buf_stats *ret)
{
	struct uet_buf_stats st = { 0 };

	for (unsigned int cpu = 0;; cpu++) {
		char rel[64], *text, *line, *save = NULL;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%u/stats", cpu);
		text = uet_read(tracefs, rel, NULL);
		if (!text) {
			if (errno == ENOENT && cpu > 0)
				break;
			return -errno;
		}
		st.ncpus++;
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			unsigned long long v;
			char key[32];

			if (sscanf(line, "%31[^:]: %llu", key, &v) != 2)
				continue;
			if (strcmp(key, "entries") == 0)
				st.entries += v;
			else if (strcmp(key, "overrun") == 0)
				st.overrun += v;
			else if (strcmp(key, "bytes") == 0)
				st.bytes += v;
			else if (strcmp(key, "dropped events") == 0)
				st.dropped += v;
			else if (strcmp(key, "read events") == 0)
				st.read += v;
		}
		free(text);
	}
	*ret = st;
	return 0;
}

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

	for (size_t i = 0; i < s->ncounts; i++) {
		if (strcmp(s->counts[i].name, name) == 0) {
			s->counts[i].events++;
			s->counts[i].bytes += bytes;
			return 0;
		}
	}
	c = realloc(s->counts, (s->ncounts + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	s->counts = c;
	c = &s->counts[s->ncounts++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->events = 1;
	c->bytes = bytes;
	return 0;
}

static void emit(struct uet_stream *s, const char *line, size_t len)
{
	if (s->out)
		fwrite(line, 1, len, s->out);
	if (s->copy)
		fwrite(line, 1, len, s->copy);
}

static int one_line(struct uet_stream *s, const char *line, size_t len)
{
	char name[256];
	unsigned long long lost;
	unsigned int cpu;

	if (sscanf(line, "CPU:%u [LOST %llu EVENTS]", &cpu, &lost) == 2) {
		s->lost += lost;
		emit(s, line, len);
		return 0;
	}
	if (!line_event(line, len, name, sizeof(name))) {
		/* Not a record line we understand: show it, do not count it. */
		if (!s->nglobs)
			emit(s, line, len);
		return 0;
	}
	if (!wanted(s, name))
		return 0;
	emit(s, line, len);
	return count(s, name, len);
}

int uet_stream_loop(struct uet_stream *s)
{
	char path[4096], buf[65536], *line = NULL;
	size_t llen = 0, lcap = 0;
	bool draining = false;
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/trace_pipe", s->tracefs);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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
		if (s->out)
			fflush(s->out);
	}
out:
	if (llen && r == 0) {
		line[llen] = '\0';
		r = one_line(s, line, llen);
	}
	free(line);
	close(fd);
	if (s->out)
		fflush(s->out);
	return r;
}

void uet_stream_free(struct uet_stream *s)
{
	free(s->counts);
	s->counts = NULL;
	s->ncounts = 0;
}

/* stream --json: records of trace_pipe_raw, in time order within each pass. */
struct json_rec {
	uint64_t ts;
	unsigned int cpu;
	size_t seq;
	size_t len;
	uint8_t *data;
};

struct json_stream {
	const char *tracefs;
	struct uet_formats formats;
	char **globs;
	size_t nglobs;
	struct json_rec *v;
	size_t n, cap;
	unsigned long long missed;
	unsigned int cpu;		/* of the page being read */
	char *cmdlines;
	char *line;
	size_t line_cap;
};

static int json_rec(void *arg, uint64_t ts, const void *data, size_t len)
{
	struct json_stream *js = arg;
	struct json_rec *r;

	if (js->n == js->cap) {
		size_t ncap = js->cap ? js->cap * 2 : 256;
		struct json_rec *nv = realloc(js->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		js->v = nv;
		js->cap = ncap;
	}
	r = &js->v[js->n];
	r->data = malloc(len ? len : 1);
	if (!r->data)
		return -ENOMEM;
	memcpy(r->data, data, len);
	r->ts = ts;
	r->cpu = js->cpu;
	r->seq = js->n++;
	r->len = len;
	return 0;
}

static int json_page(void *arg, unsigned int cpu, const uint8_t *page, size_t len)
{
	struct json_stream *js = arg;
	int n;

	js->cpu = cpu;
	n = uet_page_records(page, len, &js->missed, json_rec, js);
	return n < 0 ? n : 0;
}

static int cmp_json_rec(const void *a, const void *b)
{
	const struct json_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const struct uet_format *json_format(struct json_stream *js, unsigned int id,
					    bool *rescanned)
{
	const struct uet_format *f = uet_formats_find(&js->formats, id);
	struct uet_events evs;

	/* A type registered since the last tick: look once per batch. */
	if (!f && !*rescanned && uet_events_load(js->tracefs, &evs) == 0) {
		uet_formats_add_events(&js->formats, &evs);
		uet_events_free(&evs);
		f = uet_formats_find(&js->formats, id);
	}
	*rescanned = true;
	return f;
}

static const char *json_comm(struct json_stream *js, int32_t pid, char *buf, size_t len,
			     bool *reread)
{
	const char *c = uet_comm_of(js->cmdlines, pid, buf, len);

	if (!c && !*reread) {
		free(js->cmdlines);
		js->cmdlines = uet_read(js->tracefs, "saved_cmdlines", NULL);
		*reread = true;
		c = uet_comm_of(js->cmdlines, pid, buf, len);
	}
	return c;
}

/* Print the batch sorted by time; the records are freed. */
static int json_flush(struct json_stream *js)
{
	bool rescanned = false, reread = false;
	int r = 0;

	if (js->n > 1)
		qsort(js->v, js->n, sizeof(*js->v), cmp_json_rec);
	for (size_t i = 0; i < js->n; i++) {
		const struct json_rec *rec = &js->v[i];
		const struct uet_format *f = NULL;
		struct ue_entry_hdr hdr;
		struct ue_record_ctx ctx;
		bool match = !js->nglobs;
		char comm[64];
		int w;

		if (r < 0 || rec->len < sizeof(hdr))
			continue;
		memcpy(&hdr, rec->data, sizeof(hdr));
		f = json_format(js, hdr.type, &rescanned);
		if (!f)
			continue;	/* not a user event */
		for (size_t g = 0; g < js->nglobs && !match; g++)
			match = uet_glob_match(js->globs[g], f->system, f->desc->name);
		if (!match)
			continue;
		ctx = (struct ue_record_ctx){ .comm = json_comm(js, hdr.pid, comm, sizeof(comm), &reread),
					      .pid = hdr.pid, .cpu = rec->cpu, .ts_ns = rec->ts };
		w = uet_render_record(f, &ctx, rec->data, rec->len, true, &js->line, &js->line_cap);
		if (w == -ENOMEM)
			r = w;
		else if (w < 0)
			uet_err("stream: cannot render a record of %s: %s", f->desc->name, strerror(-w));
		else
			fwrite(js->line, 1, (size_t)w, stdout);
	}
	for (size_t i = 0; i < js->n; i++)
		free(js->v[i].data);
	js->n = 0;
	if (fflush(stdout) != 0 && r == 0)
		r = -errno;
	return r;
}

static int stream_json(const char *tracefs, struct uet_opts *o, struct uet_autoenable *ae)
{
	struct json_stream js = { .tracefs = tracefs, .globs = o->globs, .nglobs = o->nglobs };
	struct uet_buf_stats st;
	struct uet_raw raw = { 0 };
	int r;

	r = uet_buf_stats_read(tracefs, &st);
	if (r < 0) {
		uet_err("stream: %s/per_cpu: %s", tracefs, strerror(-r));
		return r;
	}
	r = uet_raw_open(&raw, tracefs, st.ncpus, "stream");
	if (r < 0)
		return r;
	ae->formats = &js.formats;
	for (uint64_t last_tick = 0;;) {
		bool stopping = uet_signal != 0;
		int got;

		if (uet_now_ns() - last_tick >= 200000000ull) {
			uet_autoenable_tick(ae);
			last_tick = uet_now_ns();
		}
		got = uet_raw_pass(&raw, 64, json_page, &js);
		if (got >= 0)
			got = json_flush(&js) < 0 ? -EIO : got;
		if (got < 0) {
			r = got;
			uet_err("stream: %s/per_cpu: %s", tracefs, strerror(-got));
			break;
		}
		/* After a signal: what was there when it came, then stop. */
		if (stopping && got == 0)
			break;
		if (!got)
			uet_sleep_ms(50);
	}
	if (js.missed)
		uet_err("stream: %llu records lost (overwritten before they were read)", js.missed);
	for (size_t i = 0; i < js.n; i++)
		free(js.v[i].data);
	free(js.v);
	free(js.cmdlines);
	free(js.line);
	uet_raw_close(&raw);
	ae->formats = NULL;
	uet_formats_free(&js.formats);
	return r;
}

int uet_cmd_stream(const char *tracefs, int argc, char **argv)
{
	static const char usage[] = "stream [-e GLOB [-f FILTER]]... [--fields | --json]";
	struct uet_autoenable ae = { .tracefs = tracefs };
	struct uet_stream s = { .tracefs = tracefs, .out = stdout, .stop = &uet_signal };
	struct uet_opts o;
	char *old_fields = NULL;
	int r;

	r = uet_opts_parse(&o, argc, argv, UET_O_EVENT | UET_O_FILTER | UET_O_FIELDS | UET_O_JSON,
			   usage);
	if (r >= 0)
		return r;
	if (o.rest < argc) {
		uet_err("stream: unexpected argument '%s' (usage: " UET_PROG " %s)", argv[o.rest],
			usage);
		uet_opts_free(&o);
		return UET_EXIT_USAGE;
	}
	if (o.fields) {
		old_fields = uet_read(tracefs, "options/fields", NULL);
		if (!old_fields || uet_write(tracefs, "options/fields", "1") < 0) {
			uet_err("stream: cannot set options/fields: %s", strerror(errno));
			free(old_fields);
			uet_opts_free(&o);
			return UET_EXIT_FAIL;
		}
	}
	uet_catch_signals();
	ae.globs = o.globs;
	ae.filters = o.filters;
	ae.nglobs = o.nglobs;
	if (o.json) {
		r = stream_json(tracefs, &o, &ae);
	} else {
		s.globs = o.globs;
		s.nglobs = o.nglobs;
		if (o.nglobs) {
			s.tick = uet_autoenable_tick;
			s.tick_arg = &ae;
		}
		r = uet_stream_loop(&s);
		if (r < 0)
			uet_err("stream: %s/trace_pipe: %s", tracefs, strerror(-r));
	}
	uet_autoenable_undo(&ae);
	if (old_fields) {
		uet_write(tracefs, "options/fields", old_fields[0] == '1' ? "1" : "0");
		free(old_fields);
	}
	uet_stream_free(&s);
	uet_opts_free(&o);
	return r < 0 ? UET_EXIT_FAIL : UET_EXIT_OK;
}
