// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The output formats by name, and a command's set of sinks: each call goes
 * to every sink in turn; every sink made by one constructor (uet_sink_make());
 * the helpers the stream sinks (text, fields, json) share to flush and
 * close their FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats.h"
#include "sink.h"
#include "tgids.h"
#include "util.h"

/* The output formats.  A new one: its sink-NAME.c and a row here. */
static const struct {
	const char *name;
	struct uet_sink *(*make)(FILE *out, const char *path);
} uet_sink_types[] = {
	{ "text", uet_sink_text_new },		/* trace lines, as trace_pipe */
	{ "fields", uet_sink_fields_new },	/* the same, options/fields set while live */
	{ "json", uet_sink_json_new },		/* one JSON object a record */
	{ "trace.dat", uet_sink_tracedat_new },	/* trace-cmd's file, version 7 */
	{ "perf", uet_sink_perf_new },		/* perf's perf.data, tracepoint samples */
	{ "perf-decode", uet_sink_perfdecode_new },	/* LinuxTracepoints' perf-decode JSON */
	{ "stat", uet_sink_stat_new },
	{ "chrome", uet_sink_chrome_new },	/* Chrome's Trace Event Format (Perfetto UI) */
	{ "html", uet_sink_html_new },		/* one page: a plot, a timeline, a table */		/* counts per event and CPU (report --stat) */
};

struct uet_sink *uet_sink_new(const char *name, FILE *out, const char *path)
{
	for (size_t i = 0; i < sizeof(uet_sink_types) / sizeof(uet_sink_types[0]); i++) {
		if (strcmp(uet_sink_types[i].name, name) == 0)
			return uet_sink_types[i].make(out, path);
	}
	uet_err("no output format '%s'", name);
	return NULL;
}

int uet_sinks_add(struct uet_sinks *ss, struct uet_sink *s)
{
	if (!s || ss->n == UET_SINKS_MAX)
		return -EINVAL;
	ss->v[ss->n++] = s;
	ss->needs |= s->ops->needs;
	return 0;
}

struct uet_tgids *uet_sink_tgids(const struct uet_sink_env *env)
{
	struct uet_tgids *t = uet_tgids_new(env->tracefs);

	if (t && env->saved_tgids &&
	    uet_tgids_parse(t, env->saved_tgids, strlen(env->saved_tgids)) < 0) {
		uet_tgids_free(t);
		t = NULL;
	}
	return t;
}

int uet_sinks_begin(struct uet_sinks *ss, const struct uet_sink_env *env)
{
	for (size_t i = 0; i < ss->n; i++) {
		int e = ss->v[i]->ops->begin(ss->v[i], env);

		if (e < 0)
			return e;
	}
	ss->begun = true;
	return 0;
}

int uet_sinks_format_seen(struct uet_sinks *ss, const struct uet_format *f)
{
	for (size_t i = 0; i < ss->n; i++) {
		int e = ss->v[i]->ops->format_seen ? ss->v[i]->ops->format_seen(ss->v[i], f) : 0;

		if (e < 0)
			return e;
	}
	return 0;
}

int uet_sinks_page(struct uet_sinks *ss, unsigned int cpu, const uint8_t *page, size_t len)
{
	ss->page_records = -1;
	for (size_t i = 0; i < ss->n; i++) {
		struct uet_sink *s = ss->v[i];
		int e;

		s->page_records = -1;
		e = s->ops->page ? s->ops->page(s, cpu, page, len) : 0;
		if (e < 0)
			return e;
		if (s->page_records >= 0 && ss->page_records < 0) {
			ss->page_records = s->page_records;
			ss->page_missed = s->page_missed;
		}
	}
	return 0;
}

int uet_sinks_record(struct uet_sinks *ss, const struct uet_sink_rec *r)
{
	for (size_t i = 0; i < ss->n; i++) {
		int e = ss->v[i]->ops->record ? ss->v[i]->ops->record(ss->v[i], r) : 0;

		if (e < 0)
			return e;
	}
	return 0;
}

int uet_sinks_lost(struct uet_sinks *ss, unsigned int cpu, uint64_t n)
{
	for (size_t i = 0; i < ss->n; i++) {
		int e = ss->v[i]->ops->lost ? ss->v[i]->ops->lost(ss->v[i], cpu, n) : 0;

		if (e < 0)
			return e;
	}
	return 0;
}

int uet_sinks_gap(struct uet_sinks *ss, unsigned int ncpus, bool back)
{
	for (size_t i = 0; i < ss->n; i++) {
		struct uet_sink *s = ss->v[i];
		int e = 0;

		if (s->ops->gap)
			e = s->ops->gap(s, ncpus, back);
		for (unsigned int cpu = 0; !s->ops->gap && s->ops->lost && e == 0 && cpu < ncpus; cpu++)
			e = s->ops->lost(s, cpu, UINT64_MAX);
		if (e < 0)
			return e;
	}
	return 0;
}

int uet_sinks_flush(struct uet_sinks *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		int e = ss->v[i]->ops->flush ? ss->v[i]->ops->flush(ss->v[i]) : 0;

		if (e < 0)
			return e;
	}
	return 0;
}

int uet_sinks_end(struct uet_sinks *ss, bool ok)
{
	int r = 0;

	for (size_t i = 0; i < ss->n; i++) {
		int e = ss->v[i]->ops->end(ss->v[i], ok && ss->begun);

		if (e < 0 && r == 0)
			r = e;
	}
	ss->n = 0;
	ss->begun = false;
	return r;
}

int uet_sink_stream_flush(struct uet_sink *s)
{
	if (fflush(s->out) != 0 || ferror(s->out))
		return errno ? -errno : -EIO;
	return 0;
}

int uet_sink_stream_end(struct uet_sink *s, bool ok)
{
	int e = 0;

	if (s->out) {
		e = uet_sink_stream_flush(s);
		if (s->path && fclose(s->out) != 0 && e == 0)
			e = -errno;
		if (s->path)
			free(s->outbuf);
		/* Not ok: the command stopped on an error it said (a write of ours). */
		if (e < 0 && s->path && ok)
			uet_err("%s: %s", s->path, strerror(-e));
	}
	free(s);
	return e;
}

/*
 * Not a terminal: a 1 MiB buffer (a 4 KiB one is a write(2) per ~25 JSON
 * records, and a file's page cache costs per write); each batch still ends
 * with a flush (uet_sinks_flush()).  glibc sizes a buffer it allocates
 * itself by st_blksize whatever setvbuf() asks, so it is ours: stdout's
 * lives as long as the process (exit flushes it), a file's until fclose().
 * Set before anything is written to the stream.
 */
#define STREAM_BUFFER (1 << 20)
static void stream_buffer(struct uet_sink *s)
{
	static char *stdout_buf;
	char **slot = s->out == stdout ? &stdout_buf : &s->outbuf;

	/* Another's stream (not stdout, not opened here) keeps its own buffer: it outlives us. */
	if ((s->out != stdout && !s->path) || *slot || isatty(fileno(s->out)))
		return;
	*slot = malloc(STREAM_BUFFER);
	if (*slot && setvbuf(s->out, *slot, _IOFBF, STREAM_BUFFER) != 0) {
		free(*slot);
		*slot = NULL;
	}
}

/* A stream sink's FILE: @out, or @path opened for writing; 0 or -errno (said). */
static int stream_open(struct uet_sink *s, FILE *out, const char *path)
{
	s->out = out;
	s->path = NULL;
	if (!out) {
		s->out = fopen(path, "we");
		if (!s->out) {
			int e = -errno;

			uet_err("%s: %s", path, strerror(-e));
			return e;
		}
		s->path = path;
	}
	stream_buffer(s);
	return 0;
}

int uet_sink_put(struct uet_sink *s, int w, const char *text, const struct uet_format *f,
		 const char *who)
{
	if (w == -ENOMEM)
		return w;
	if (w < 0)
		uet_err("%s: cannot render a record of %s: %s", who, f->desc->name, strerror(-w));
	else
		fwrite_unlocked(text, 1, (size_t)w, s->out);	/* one thread writes a sink */
	return 0;
}

/* A file sink's @path created read-write, as s->fd: a regular file only; 0 or -1 (said). */
static int file_open(struct uet_sink *s, const char *path)
{
	struct stat st = { 0 };

	s->path = path;
	s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->fd < 0 || fstat(s->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		uet_err("%s: %s", path, s->fd < 0 || !st.st_mode ? strerror(errno) : "not a regular file");
		if (s->fd >= 0)
			close(s->fd);
		return -1;
	}
	return 0;
}

/* A constructor's refusal, with the sink's prefix ("perf.data: needs a file"). */
static void refuse(const struct uet_sink_ops *ops, const char *why)
{
	if (ops->what)
		uet_err("%s: %s", ops->what, why);
	else
		uet_err("%s", why);
}

void *uet_sink_make(size_t size, const struct uet_sink_ops *ops, FILE *out, const char *path)
{
	struct uet_sink *s = calloc(1, size);
	int e = 0;

	if (!s) {
		refuse(ops, strerror(ENOMEM));
		return NULL;
	}
	s->ops = ops;
	s->fd = -1;
	switch (ops->output) {
	case UET_SINK_OUT_STREAM:
		e = stream_open(s, out, path);
		break;
	case UET_SINK_OUT_FILE:
		if (out || !path) {
			refuse(ops, "needs a file");
			e = -EINVAL;
		} else {
			e = file_open(s, path);
		}
		break;
	case UET_SINK_OUT_NONE:
		break;
	}
	if (e < 0) {
		free(s);
		return NULL;
	}
	return s;
}
