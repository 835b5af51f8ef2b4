// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * stream: a live copy of trace_pipe for `userevents stream` and `run`:
 * lines filtered by event glob, counted per event name, lost-event notes
 * counted; and the per-CPU buffer counters that `stats` and run's summary
 * print.
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
