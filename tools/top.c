// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents top: the events being written, live, as top shows processes:
 * events/s, bytes/s and lost/s per event, per provider (EventHeader's, or
 * the system) or per process, sorted, with totals, refreshed every -d
 * SECONDS.  From usereventsd, the counts are the daemon's own
 * (usereventsd_counts: records of each process and event as writers hand
 * them over), read at each refresh: no record is read, so watching costs
 * the writers next to nothing.  From a kernel's tracefs, or with --records
 * (EventHeader events by their own names, not their tracepoint's), the
 * records come as stream's do (uet_stream_raw(): the consumer channel, not
 * blocking the writers) into a sink that counts them (the reader's
 * thread).  A second thread renders the table and reads the keys.  On a
 * terminal: the alternate screen, plain ANSI escapes, the terminal raw (no
 * echo, no line editing; ^C still a signal); every way out restores it and
 * leaves the last table on the terminal's own screen, as top(1) leaves its
 * last screen.  Elsewhere: one plain table a refresh (--once: one).
 * Against the running daemon, or a private one for -- CMD (as run).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "commands.h"
#include "eventheader.h"
#include "formats.h"
#include "launch.h"
#include "opts.h"
#include "sink.h"
#include "tgids.h"
#include "tracefs.h"
#include "util.h"

static const char usage[] =
	"top [-e GLOB [-f FILTER]]... [-p PROVIDER[:LEVEL[:KEYWORDS]]]... [-d SECONDS] [--once]\n"
	"        [--group event|provider|process] [--sort events|bytes|lost|name] [--records] [-b KiB]\n"
	"        [--reattach SECONDS] [--no-preload] [-- CMD [ARGS]]";

enum group { G_EVENT, G_PROVIDER, G_PROCESS, G_N };
enum sortkey { S_EVENTS, S_BYTES, S_LOST, S_NAME, S_N };
static const char *const group_names[G_N] = { "event", "provider", "process" };
static const char *const sort_names[S_N] = { "events", "bytes", "lost", "name" };

/* One event of one thread: what the reader counts. */
struct top_row {
	char event[160];	/* NAME, or Provider:Event */
	char provider[96];	/* SYSTEM, or Provider */
	char comm[20];
	char pcomm[20];		/* its process's: the main thread's comm */
	int32_t pid;
	int32_t tgid;		/* its process (tgids.c), or pid when not known */
	unsigned long long events, bytes, lost;		/* since the start */
	unsigned long long pevents, pbytes, plost;	/* at the last refresh */
	/* From usereventsd_counts: the daemon's last totals, and what came before them. */
	unsigned long long devents, dbytes, dlost;
	unsigned long long bevents, bbytes, blost;
	double revents, rbytes, rlost;			/* the rates it measured */
};

/* A line of the table: rows grouped, their rates. */
struct top_line {
	char name[200];
	double events, bytes, lost;
	unsigned long long total;
};

struct top_sink {
	struct uet_sink s;
	pthread_mutex_t mu;
	struct top_row *rows;
	size_t nrows, cap;
	uint32_t *ix;		/* open addressing: row index + 1, 0 empty */
	size_t ixcap;		/* a power of two */
	uint64_t *lost_cpu;	/* losses marked, for the CPU's next record */
	unsigned int nlost;
	/* The last row counted: a plain event's next record of the thread costs no lookup. */
	const struct uet_format *last_f;
	int32_t last_pid;
	size_t last_row;
	struct uet_tgids *tgids;	/* thread -> process (the reader's thread only) */
	char tracefs[4096];
	/* Records stamped before this (the trace clock) were in the buffer already: not counted. */
	uint64_t start_ns;
	/* And when that was by uet_now_ns(): the first refresh's rates are over the time since. */
	uint64_t start_now;
	/* Counting from usereventsd_counts (not from records): the events shown. */
	bool counts;
	/* Which daemon the counts were read from last: its mount, its state's upgrades and crashes (-1: not known). */
	dev_t dev;
	long long upgrades, restarts;
	unsigned int gaps;	/* the daemon went away and one served again (under mu) */
	char **globs;
	size_t nglobs;
};

static uint64_t row_hash(const char *event, int32_t pid)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)pid;

	for (; *event; event++)
		h = (h ^ (unsigned char)*event) * 1099511628211ull;
	return h;
}

static int ix_grow(struct top_sink *t)
{
	size_t cap = t->ixcap ? t->ixcap * 2 : 256;
	uint32_t *ix = calloc(cap, sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < t->nrows; i++) {
		size_t k = row_hash(t->rows[i].event, t->rows[i].pid) & (cap - 1);

		while (ix[k])
			k = (k + 1) & (cap - 1);
		ix[k] = (uint32_t)i + 1;
	}
	free(t->ix);
	t->ix = ix;
	t->ixcap = cap;
	return 0;
}

/* The row of @event written by @pid (of process @tgid), made when new (under the lock). */
static struct top_row *row_of(struct top_sink *t, const char *event, const char *provider,
			      const struct ue_record_ctx *ctx, int32_t tgid)
{
	struct top_row *r;
	char dir[32], *pc = NULL;
	size_t k;

	if (2 * (t->nrows + 1) > t->ixcap && ix_grow(t) < 0)
		return NULL;
	for (k = row_hash(event, ctx->pid) & (t->ixcap - 1); t->ix[k]; k = (k + 1) & (t->ixcap - 1)) {
		r = &t->rows[t->ix[k] - 1];
		if (r->pid == ctx->pid && strcmp(r->event, event) == 0)
			return r;
	}
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct top_row *v = realloc(t->rows, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->rows = v;
		t->cap = cap;
	}
	t->ix[k] = (uint32_t)++t->nrows;
	r = &t->rows[t->nrows - 1];
	memset(r, 0, sizeof(*r));
	snprintf(r->event, sizeof(r->event), "%s", event);
	snprintf(r->provider, sizeof(r->provider), "%s", provider);
	snprintf(r->comm, sizeof(r->comm), "%s", ctx->comm ? ctx->comm : "<...>");
	r->pid = ctx->pid;
	r->tgid = tgid > 0 ? tgid : ctx->pid;
	/* The process's name: its main thread's, while it lives; else this thread's. */
	if (r->tgid != r->pid) {
		snprintf(dir, sizeof(dir), "/proc/%d", (int)r->tgid);
		pc = uet_read(dir, "comm", NULL);
	}
	snprintf(r->pcomm, sizeof(r->pcomm), "%.*s", pc ? (int)strcspn(pc, "\n") : 19,
		 pc ? pc : r->comm);
	free(pc);
	return r;
}

static int top_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	struct top_sink *t = (struct top_sink *)s;

	/* Which process a thread is: /proc, then the tracefs's saved_tgids. */
	snprintf(t->tracefs, sizeof(t->tracefs), "%s", env->tracefs ? env->tracefs : "");
	/*
	 * A reader's channel first hands over what the buffer holds: written
	 * before top started, it is no rate of now.
	 */
	t->start_ns = env->tracefs ? (uint64_t)uet_clock_ns(uet_trace_clockid(env->tracefs)) : 0;
	t->start_now = uet_now_ns();
	return 0;
}

static int top_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct top_sink *t = (struct top_sink *)s;
	char event[160], provider[96];
	struct top_row *row;
	struct ueh_event e;
	int32_t tgid;

	if (!r->format || r->ctx.ts_ns < t->start_ns)
		return 0;
	if (r->format == t->last_f && r->ctx.pid == t->last_pid) {
		pthread_mutex_lock(&t->mu);
		row = &t->rows[t->last_row];
	} else {
		bool eh = uet_eh_start(r->format, r->data, r->len, &e);

		if (eh) {
			snprintf(event, sizeof(event), "%.*s:%.*s", (int)e.n.provider_len, e.tp_name,
				 (int)e.name_len, e.name);
			snprintf(provider, sizeof(provider), "%.*s", (int)e.n.provider_len, e.tp_name);
		} else {
			snprintf(event, sizeof(event), "%s", r->format->desc->name);
			snprintf(provider, sizeof(provider), "%s", r->format->system);
		}
		if (!t->tgids)
			t->tgids = uet_tgids_new(t->tracefs[0] ? t->tracefs : NULL);
		tgid = uet_tgids_get(t->tgids, r->ctx.pid);
		pthread_mutex_lock(&t->mu);
		row = row_of(t, event, provider, &r->ctx, tgid);
		/* An EventHeader tracepoint carries several events: looked up each time. */
		t->last_f = row && !eh ? r->format : NULL;
		t->last_pid = r->ctx.pid;
		t->last_row = row ? (size_t)(row - t->rows) : 0;
	}
	if (row) {
		row->events++;
		row->bytes += r->len;
		if (r->ctx.cpu < t->nlost) {
			row->lost += t->lost_cpu[r->ctx.cpu];
			t->lost_cpu[r->ctx.cpu] = 0;
		}
	}
	pthread_mutex_unlock(&t->mu);
	return row ? 0 : -ENOMEM;
}

/* A loss is counted to the event of the CPU's next record (a mark of unknown size: 1). */
static int top_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	struct top_sink *t = (struct top_sink *)s;
	int r = 0;

	pthread_mutex_lock(&t->mu);
	if (cpu >= t->nlost) {
		uint64_t *v = realloc(t->lost_cpu, (cpu + 1) * sizeof(*v));

		if (v) {
			memset(v + t->nlost, 0, (cpu + 1 - t->nlost) * sizeof(*v));
			t->lost_cpu = v;
			t->nlost = cpu + 1;
		}
	}
	if (cpu < t->nlost)
		t->lost_cpu[cpu] += n == UINT64_MAX ? 1 : n;
	else
		r = -ENOMEM;
	pthread_mutex_unlock(&t->mu);
	return r;
}

/* The daemon went away: counted once, said above the table (not a loss of one event's). */
static int top_gap(struct uet_sink *s, unsigned int ncpus, bool back)
{
	struct top_sink *t = (struct top_sink *)s;

	(void)ncpus;
	pthread_mutex_lock(&t->mu);
	t->gaps += back;
	pthread_mutex_unlock(&t->mu);
	return 0;
}

/* A format new or changed (its memory may be a former one's): no last row. */
static int top_format_seen(struct uet_sink *s, const struct uet_format *f)
{
	(void)f;
	((struct top_sink *)s)->last_f = NULL;
	return 0;
}

static int top_flush(struct uet_sink *s)
{
	(void)s;
	return 0;
}

static int top_end(struct uet_sink *s, bool ok)
{
	(void)ok;
	(void)s;
	return 0;	/* freed by top itself: the renderer reads it to the last */
}

static const struct uet_sink_ops top_ops = {
	.name = "top",
	.needs = UET_SINK_RECORDS,
	.output = UET_SINK_OUT_NONE,	/* the screen: the renderer thread's */
	.begin = top_begin,
	.format_seen = top_format_seen,
	.record = top_record,
	.lost = top_lost,
	.gap = top_gap,
	.flush = top_flush,
	.end = top_end,
};

/* ---- the table ------------------------------------------------------------------------ */

struct top_ui {
	struct top_sink *sink;
	enum group group;
	enum sortkey sort;
	double delay;		/* seconds between refreshes */
	bool tty, once;
	double secs;		/* the interval of the last table's rates */
	bool records;		/* --records: count records, not the daemon's counts */
	const char *what;	/* the tracefs, or the command */
	struct top_line *lines;
	size_t nlines, cap;
	volatile bool quit;	/* the reader ended: the renderer too */
	bool quit_key;		/* q pressed, --once done or the output gone: we ended the command */
	bool failed;		/* out of memory: the table could not be made */
	pthread_t th;
};

static int cmp_line(const void *a, const void *b, void *arg)
{
	const struct top_line *x = a, *y = b;
	enum sortkey k = *(const enum sortkey *)arg;
	double dx = k == S_BYTES ? x->bytes : k == S_LOST ? x->lost : x->events;
	double dy = k == S_BYTES ? y->bytes : k == S_LOST ? y->lost : y->events;

	if (k != S_NAME && dx != dy)
		return dx < dy ? 1 : -1;
	if (k != S_NAME && x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void group_name(const struct top_row *r, enum group g, char *buf, size_t len)
{
	if (g == G_EVENT)
		snprintf(buf, len, "%s", r->event);
	else if (g == G_PROVIDER)
		snprintf(buf, len, "%s", r->provider);
	else
		snprintf(buf, len, "%d %s", r->tgid, r->pcomm);
}

/*
 * One line of usereventsd_counts, "TGID SYSTEM:EVENT RECORDS BYTES LOST COMM"
 * (EVENT "-": losses whose event is not known), into its row: the counts
 * are the daemon's totals.  Lines of events no glob names are left out.
 */
static void counts_line(struct top_sink *t, char *line)
{
	unsigned long long rec, bytes, lost;
	char event[160], provider[96], *sys, *name, *comm, *end;
	struct ue_record_ctx ctx = { 0 };
	struct top_row *row;
	struct ueh_name n;
	long tgid;
	int off = 0;

	tgid = strtol(line, &end, 10);
	if (end == line || *end != ' ' || tgid < 0)
		return;
	sys = end + 1;
	name = strchr(sys, ' ');
	if (!name)
		return;
	*name = '\0';
	if (sscanf(name + 1, "%llu %llu %llu %n", &rec, &bytes, &lost, &off) != 3 || !off)
		return;
	comm = name + 1 + off;
	name = strchr(sys, ':');
	if (strcmp(sys, "-") == 0) {
		snprintf(event, sizeof(event), "(lost, event not known)");
		snprintf(provider, sizeof(provider), "-");
	} else if (name) {
		bool match = !t->nglobs;

		*name++ = '\0';
		for (size_t g = 0; g < t->nglobs && !match; g++)
			match = uet_glob_match(t->globs[g], sys, name);
		if (!match)
			return;
		snprintf(event, sizeof(event), "%s", name);
		if (ueh_parse_name(name, strlen(name), &n))
			snprintf(provider, sizeof(provider), "%.*s", (int)n.provider_len, name);
		else
			snprintf(provider, sizeof(provider), "%s", sys);
	} else {
		return;
	}
	ctx.pid = (int32_t)tgid;
	/* TGID 0: the processes beyond the daemon's table (counts.h). */
	ctx.comm = tgid ? comm : "(other processes)";
	row = row_of(t, event, provider, &ctx, (int32_t)tgid);
	if (!row)
		return;
	/*
	 * Fewer than before: the daemon let the line go and made it again, or
	 * it is another daemon (restarted, or an upgrade, which does not carry
	 * the counts): counted on from what there was.
	 */
	if (rec < row->devents || bytes < row->dbytes || lost < row->dlost) {
		row->bevents += row->devents;
		row->bbytes += row->dbytes;
		row->blost += row->dlost;
	}
	row->devents = rec;
	row->dbytes = bytes;
	row->dlost = lost;
	row->events = row->bevents + rec;
	row->bytes = row->bbytes + bytes;
	row->lost = row->blost + lost;
}

/* The daemon's counts start over (another daemon): every row counts on from what it had. */
static void rows_rebase(struct top_sink *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		struct top_row *row = &t->rows[i];

		row->bevents += row->devents;
		row->bbytes += row->dbytes;
		row->blost += row->dlost;
		row->devents = row->dbytes = row->dlost = 0;
	}
}

/*
 * usereventsd_counts read into the rows (the renderer's thread, before it
 * measures).  Another daemon counts from 0: a new mount there (a daemon
 * found again: top_wait() counted the gap), or the same mount's state gone
 * through an upgrade or a crash (usereventsd_stats; a crash under a keeper
 * is a gap too: what the dead daemon held is lost).
 */
static void counts_read(struct top_sink *t)
{
	long long up = uet_daemon_stat(t->tracefs, "upgrades");
	long long rs = uet_daemon_stat(t->tracefs, "restarts");
	char *text = uet_read(t->tracefs, "usereventsd_counts", NULL), *line, *save = NULL;
	bool moved, crashed;
	struct stat st;

	if (!text || stat(t->tracefs, &st) < 0) {
		free(text);
		return;
	}
	pthread_mutex_lock(&t->mu);
	moved = t->dev && st.st_dev != t->dev;
	crashed = !moved && t->restarts >= 0 && rs > t->restarts;
	if (moved || crashed || (t->upgrades >= 0 && up > t->upgrades))
		rows_rebase(t);
	t->gaps += crashed;
	t->dev = st.st_dev;
	t->upgrades = up;
	t->restarts = rs;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			counts_line(t, line);
	pthread_mutex_unlock(&t->mu);
	free(text);
}

/* The rates of every row since the last refresh, @secs ago. */
static void top_measure(struct top_ui *ui, double secs)
{
	struct top_sink *t = ui->sink;

	if (t->counts)
		counts_read(t);
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->nrows; i++) {
		struct top_row *row = &t->rows[i];

		row->revents = (double)(row->events - row->pevents) / secs;
		row->rbytes = (double)(row->bytes - row->pbytes) / secs;
		row->rlost = (double)(row->lost - row->plost) / secs;
		row->pevents = row->events;
		row->pbytes = row->bytes;
		row->plost = row->lost;
	}
	pthread_mutex_unlock(&t->mu);
}

/* The rows' rates grouped and sorted into ui->lines. */
static int top_group(struct top_ui *ui)
{
	struct top_sink *t = ui->sink;
	char name[200];
	size_t n = 0;
	int r = 0;

	pthread_mutex_lock(&t->mu);
	if (t->nrows > ui->cap) {
		struct top_line *v = realloc(ui->lines, t->nrows * sizeof(*v));

		if (!v)
			r = -ENOMEM;
		else
			ui->lines = v, ui->cap = t->nrows;
	}
	for (size_t i = 0; r == 0 && i < t->nrows; i++) {
		const struct top_row *row = &t->rows[i];
		struct top_line *l = NULL;

		group_name(row, ui->group, name, sizeof(name));
		for (size_t k = 0; k < n && !l; k++)
			if (strcmp(ui->lines[k].name, name) == 0)
				l = &ui->lines[k];
		if (!l) {
			l = &ui->lines[n++];
			memset(l, 0, sizeof(*l));
			snprintf(l->name, sizeof(l->name), "%s", name);
		}
		l->events += row->revents;
		l->bytes += row->rbytes;
		l->lost += row->rlost;
		l->total += row->events;
	}
	pthread_mutex_unlock(&t->mu);
	if (r < 0)
		return r;
	ui->nlines = n;
	if (n)
		qsort_r(ui->lines, n, sizeof(*ui->lines), cmp_line, &ui->sort);
	return 0;
}

/* 12345, 12.3K, 1.23M: a rate in 8 columns. */
static const char *human(double v, char *buf, size_t len)
{
	if (v < 100000)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e7)
		snprintf(buf, len, "%.1fK", v / 1e3);
	else
		snprintf(buf, len, "%.2fM", v / 1e6);
	return buf;
}

/*
 * How a table is rendered: on the alternate screen (escapes, the key line),
 * as a plain table a refresh (not a terminal: a blank line after it), or
 * the last one, left on the terminal's own screen at the end (plain).
 */
enum render { R_SCREEN, R_PLAIN, R_LAST };

/*
 * A line's name as the table shows it: by process, "PID COMM" with the
 * pid right-aligned in @pidw columns (under the header's PID).
 */
static const char *line_name(const struct top_ui *ui, const char *name, int pidw, char *buf,
			     size_t len)
{
	int n = (int)strcspn(name, " ");

	if (ui->group != G_PROCESS)
		return name;
	snprintf(buf, len, "%*.*s%s", pidw, n, name, name + n);
	return buf;
}

/* The table on stdout; -EPIPE or another error when it could not be written. */
static int top_render(struct top_ui *ui, double secs, enum render how)
{
	static const char *const head[G_N] = { "EVENT", "PROVIDER", "PID COMM" };
	static const char keys[] = "q quit  g group  s sort  e events  b bytes  l lost  n name";
	bool screen = how == R_SCREEN;
	double ev = 0, by = 0, lo = 0;
	unsigned long long total = 0;
	size_t rows = SIZE_MAX, shown;
	char a[32], b[32], c[32], name[216], hd[32];
	struct winsize ws;
	int width = 80, namew = 16, pidw = 3;
	unsigned int gaps;
	FILE *f = stdout;

	for (size_t i = 0; i < ui->nlines; i++) {
		ev += ui->lines[i].events;
		by += ui->lines[i].bytes;
		lo += ui->lines[i].lost;
		total += ui->lines[i].total;
	}
	if (ui->tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 5) {
		rows = (size_t)ws.ws_row - 5;
		width = ws.ws_col;
	}
	if (screen)
		fputs("\033[H\033[2J", f);
	pthread_mutex_lock(&ui->sink->mu);
	gaps = ui->sink->gaps;
	pthread_mutex_unlock(&ui->sink->mu);
	fprintf(f, "userevents top - %s - every %.1f s, by %s, sorted by %s", ui->what, secs,
		group_names[ui->group], sort_names[ui->sort]);
	/* What was written while no daemon served is in no count. */
	if (gaps)
		fprintf(f, " - the daemon went away %u time%s: not counted meanwhile", gaps,
			gaps == 1 ? "" : "s");
	fputc('\n', f);
	shown = ui->nlines < rows ? ui->nlines : rows;
	/* By process: the pids' column as wide as the widest shown, PID over it. */
	for (size_t i = 0; ui->group == G_PROCESS && i < shown; i++)
		if ((int)strcspn(ui->lines[i].name, " ") > pidw)
			pidw = (int)strcspn(ui->lines[i].name, " ");
	snprintf(hd, sizeof(hd), "%*s COMM", pidw, "PID");
	/* The names' column: the longest shown, within the terminal's width. */
	for (size_t i = 0; i < shown; i++) {
		int n = (int)strlen(line_name(ui, ui->lines[i].name, pidw, name, sizeof(name)));

		if (n > namew)
			namew = n;
	}
	if (ui->tty && namew > width - 46)
		namew = width - 46 > 10 ? width - 46 : 10;
	fprintf(f, "%s%-*.*s %10s %10s %8s %12s%s\n", screen ? "\033[7m" : "", namew, namew,
		ui->group == G_PROCESS ? hd : head[ui->group], "EVENTS/s", "BYTES/s", "LOST/s",
		"EVENTS", screen ? "\033[0m" : "");
	for (size_t i = 0; i < shown; i++) {
		const struct top_line *l = &ui->lines[i];

		fprintf(f, "%-*.*s %10s %10s %8s %12llu\n", namew, namew,
			line_name(ui, l->name, pidw, name, sizeof(name)),
			human(l->events, a, sizeof(a)), human(l->bytes, b, sizeof(b)),
			human(l->lost, c, sizeof(c)), l->total);
	}
	if (shown < ui->nlines)
		fprintf(f, "... %zu more\n", ui->nlines - shown);
	fprintf(f, "%s%-*.*s %10s %10s %8s %12llu%s\n", screen ? "\033[1m" : "", namew, namew,
		"total", human(ev, a, sizeof(a)), human(by, b, sizeof(b)), human(lo, c, sizeof(c)),
		total, screen ? "\033[0m" : "");
	/* The keys, as userevents(1) lists them, within the width (no line wrapped). */
	if (screen)
		fprintf(f, "%.*s", width > 1 ? width - 1 : 1, keys);
	else if (how == R_PLAIN)
		fputc('\n', f);
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

/*
 * The last table, left on the terminal's own screen once the alternate one
 * is gone (as top(1) leaves its last screen): the rates last shown, the
 * events counted to the end (CMD's last ones too, written since the last
 * refresh).  The renderer's thread has ended.
 */
static void top_last(struct top_ui *ui)
{
	if (ui->sink->counts)
		counts_read(ui->sink);
	if (top_group(ui) == 0)
		top_render(ui, ui->secs, R_LAST);
}

/* ---- the terminal ----------------------------------------------------------------------- */

static struct termios saved_tio;
static volatile sig_atomic_t tio_saved;

/* Every way out: the terminal as it was, the normal screen, the cursor. */
static void term_restore(void)
{
	if (!tio_saved)
		return;
	tio_saved = 0;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
}

static int term_raw(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &saved_tio) < 0)
		return -errno;
	t = saved_tio;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	t.c_cc[VSUSP] = _POSIX_VDISABLE;	/* no ^Z: stopped, we could not restore it */
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) < 0)
		return -errno;
	tio_saved = 1;
	atexit(term_restore);
	/* The alternate screen, the cursor hidden. */
	fputs("\033[?1049h\033[?25l", stdout);
	fflush(stdout);
	return 0;
}

/* A key: q quits (as a SIGTERM would), g and s go round the groupings and sortings. */
static bool top_key(struct top_ui *ui, char c)
{
	switch (c) {
	case 'q':
	case 'Q':
	case 3:		/* ^C read as a byte */
		ui->quit_key = true;
		kill(getpid(), SIGTERM);
		return true;
	case 'g':
		ui->group = (ui->group + 1) % G_N;
		return false;
	case 's':
		ui->sort = (ui->sort + 1) % S_N;
		return false;
	case 'e':
		ui->sort = S_EVENTS;
		return false;
	case 'b':
		ui->sort = S_BYTES;
		return false;
	case 'l':
		ui->sort = S_LOST;
		return false;
	case 'n':
		ui->sort = S_NAME;
		return false;
	}
	return false;
}

/* The renderer's thread: a refresh every delay, the keys between. */
static void *top_ui_main(void *arg)
{
	struct top_ui *ui = arg;
	/*
	 * Records count from the sink's start, which may be long before this
	 * thread's (a slow start, a private daemon): the first rates are over
	 * the time since, not one delay.
	 */
	uint64_t last = ui->records && ui->sink->start_now ? ui->sink->start_now : uet_now_ns();
	double secs = ui->delay;
	bool measured = false;

	ui->secs = secs;
	if (ui->tty)
		top_render(ui, secs, R_SCREEN);	/* the frame, at once */
	while (!ui->quit) {
		uint64_t now = uet_now_ns(), next = last + (uint64_t)(ui->delay * 1e9);
		int wait = now >= next ? 0 : (int)((next - now) / 1000000) + 1;
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		bool redraw = false;
		char c;

		if (wait > 100)
			wait = 100;	/* ui->quit looked at often */
		if (ui->tty && poll(&p, 1, wait) == 1 && read(STDIN_FILENO, &c, 1) == 1) {
			if (top_key(ui, c))
				break;
			redraw = measured;
		} else if (!ui->tty) {
			uet_sleep_ms(wait);
		}
		now = uet_now_ns();
		if (now >= next) {
			secs = (double)(now - last) / 1e9;
			top_measure(ui, secs);
			ui->secs = secs;
			last = now;
			measured = redraw = true;
		}
		if (redraw && (top_group(ui) < 0 ? (ui->failed = true) : top_render(ui, secs, ui->tty ? R_SCREEN : R_PLAIN) < 0)) {
			/*
			 * Out of memory, or the output gone (| head): the end.  The
			 * reader's thread is told as q tells it; this thread's
			 * SIGPIPE stays blocked and pending, as it blocks all.
			 */
			ui->quit_key = true;
			kill(getpid(), SIGTERM);
			break;
		}
		if (ui->once && measured) {
			ui->quit_key = true;
			kill(getpid(), SIGTERM);
			break;
		}
	}
	return NULL;
}

/* The counts of a daemon found again (a reattach's source): read, not looked at (a dead mount answers from its cache). */
static int counts_there(void *arg)
{
	char *text = uet_read(((struct top_sink *)arg)->tracefs, "usereventsd_counts", NULL);

	free(text);
	return text ? 0 : -ENOTCONN;
}

/*
 * Counting from usereventsd_counts, the reader's thread only keeps the
 * events enabled as they register and waits for the end: a signal, q, or
 * CMD's exit.  Its session tells when the daemon went away: one serving
 * again is looked for (@re), its counts counted on from ours.
 */
static int top_wait(struct top_sink *t, struct uet_autoenable *ae, struct uet_child *child,
		    struct uet_reattach *re)
{
	for (;;) {
		if (uet_daemon_gone(uet_autoenable_check(ae))) {
			if (uet_reattach(re, false, counts_there, t) < 0)
				return -ENOTCONN;
			pthread_mutex_lock(&t->mu);
			t->gaps++;
			pthread_mutex_unlock(&t->mu);
		}
		uet_autoenable_tick(ae);
		if (ae->failed || uet_signal)
			return 0;
		if (child && uet_child_poll(child))
			return 0;
		uet_sleep_ms(200);
	}
}

/* top's own options out of argv, the others into @rest for uet_opts_parse(). */
static int top_opts(struct top_ui *ui, int argc, char **argv, char **rest, int *nrest)
{
	static const char *const takes_arg[] = { "-e", "-f", "-p", "-b", "--event", "--filter",
						 "--provider", "--buffer-size", "--reattach" };
	int i;

	rest[(*nrest)++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char *end;
		bool took = false;

		if (strcmp(a, "--") == 0 || a[0] != '-')
			break;
		if (strcmp(a, "--once") == 0) {
			ui->once = true;
			continue;
		}
		if (strcmp(a, "--records") == 0) {
			ui->records = true;
			continue;
		}
		for (int k = 0; k < 3 && !took; k++) {
			static const char *const mine[] = { "-d", "--group", "--sort" };
			size_t ml = strlen(mine[k]);

			if (strncmp(a, mine[k], ml) != 0 || (a[ml] && a[ml] != '='))
				continue;
			took = true;
			val = a[ml] == '=' ? a + ml + 1 : i + 1 < argc ? argv[++i] : NULL;
			if (!val)
				return uet_usage_err("top", usage, "option '%s' needs a value", mine[k]);
			if (k == 0) {
				ui->delay = strtod(val, &end);
				if (end == val || *end || !(ui->delay >= 0.1 && ui->delay <= 3600))
					return uet_usage_err("top", usage,
							     "-d %s: not a time in seconds from 0.1 to 3600",
							     val);
				continue;
			}
			for (int v = 0; val && v < (k == 1 ? G_N : S_N); v++)
				if (strcmp(val, k == 1 ? group_names[v] : sort_names[v]) == 0)
					*(k == 1 ? (int *)&ui->group : (int *)&ui->sort) = v, val = NULL;
			if (val)
				return uet_usage_err("top", usage, "%s %s: not %s", mine[k], val,
						     k == 1 ? "event, provider or process" :
							      "events, bytes, lost or name");
		}
		if (took)
			continue;
		rest[(*nrest)++] = argv[i];
		for (size_t k = 0; k < sizeof(takes_arg) / sizeof(takes_arg[0]); k++)
			if (strcmp(a, takes_arg[k]) == 0 && i + 1 < argc)
				rest[(*nrest)++] = argv[++i];
	}
	for (; i < argc; i++)
		rest[(*nrest)++] = argv[i];
	rest[*nrest] = NULL;
	return -1;
}

int uet_cmd_top(const char *tracefs_opt, int argc, char **argv)
{
	struct top_ui ui = { .delay = 1, .group = G_EVENT, .sort = S_EVENTS };
	struct top_sink *ts;
	struct uet_autoenable ae = { 0 };
	struct uet_private *priv = NULL;
	struct uet_child child = { 0 };
	struct uet_sinks sinks = { 0 };
	struct uet_reattach re = { 0 };
	struct uet_opts o;
	char tracefs[4096], path[4200], said[256], **rest;
	unsigned int ncpus;
	int nrest = 0, e, exit_code;
	bool with_cmd, ui_on = false;
	sigset_t all, old;

	rest = calloc((size_t)argc + 1, sizeof(*rest));
	ts = uet_sink_make(sizeof(*ts), &top_ops, NULL, NULL);
	if (!rest || !ts) {
		free(rest);
		free(ts);
		return UET_EXIT_FAIL;
	}
	pthread_mutex_init(&ts->mu, NULL);
	ts->upgrades = ts->restarts = -1;	/* not known */
	e = top_opts(&ui, argc, argv, rest, &nrest);
	if (e < 0)
		e = uet_opts_parse(&o, nrest, rest,
				   UET_O_EVENT | UET_O_FILTER | UET_O_PROVIDER | UET_O_NO_PRELOAD |
					   UET_O_BUFFER | UET_O_REATTACH,
				   usage);
	if (e >= 0) {
		free(rest);
		free(ts);
		return e;
	}
	with_cmd = o.rest < nrest;
	uet_child_init(&child, "top", with_cmd ? rest + o.rest : NULL, o.no_preload);
	exit_code = with_cmd ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	uet_opts_all_user_events(&o);
	ui.sink = ts;
	/* --once: a table that stays, not a screen that goes. */
	ui.tty = !ui.once && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	ui.what = with_cmd ? rest[o.rest] : tracefs;
	uet_sinks_add(&sinks, &ts->s);
	uet_catch_signals();
	/* usereventsd's counts (no channel, top_wait()) want the arming at once. */
	e = uet_live_start("top", usage, tracefs_opt, &o, &child, &sinks, &ae, ui.records, &priv,
			   tracefs, sizeof(tracefs), &ncpus);
	if (e > 0 && (exit_code = e))
		goto out;
	/* usereventsd counts for us; a kernel does not (nor does --records). */
	snprintf(ts->tracefs, sizeof(ts->tracefs), "%s", tracefs);
	ts->globs = o.globs;
	ts->nglobs = o.nglobs;
	snprintf(path, sizeof(path), "%s/usereventsd_counts", tracefs);
	ts->counts = !ui.records && access(path, R_OK) == 0;
	if (ui.tty && term_raw() < 0)
		ui.tty = false;
	/* Signals are the reader's: they cut its waits short. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ui_on = pthread_create(&ui.th, NULL, top_ui_main, &ui) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	/* A private daemon for CMD is ours: none comes back for it. */
	re = (struct uet_reattach){ .tracefs = tracefs, .who = "top",
				    .wait_ms = priv ? 0 : o.reattach_ms, .ae = &ae };
	if (ts->counts)
		e = top_wait(ts, &ae, with_cmd ? &child : NULL, &re);
	else
		e = uet_stream_raw(tracefs, &o, &ae, &sinks, ncpus, with_cmd ? &child : NULL, NULL,
				   &re);
	if (e < 0 && with_cmd) {
		while (!uet_child_poll(&child))
			uet_sleep_ms(50);
	}
	ui.quit = true;
	if (ui_on)
		pthread_join(ui.th, NULL);
	term_restore();
	if (ui.tty && ui_on)
		top_last(&ui);
	/* The closing words, once the screen is the terminal's again (a crash under a keeper counted too). */
	re.gaps = ts->gaps;
	if (*uet_reattach_said(&re, said, sizeof(said)))
		uet_err("top: %s", said + 2);
	uet_autoenable_undo(&ae);
	/* q ended the command: not its failure. */
	exit_code = uet_live_status("top", &ae, &child, e, ui.quit_key);
	if (ui.failed) {
		uet_err("top: %s", strerror(ENOMEM));
		exit_code = with_cmd ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	}
out:
	term_restore();
	uet_live_end(&child, &sinks, &ae, priv);
	uet_opts_free(&o);
	free(rest);
	free(ts->rows);
	free(ts->ix);
	uet_tgids_free(ts->tgids);
	free(ts->lost_cpu);
	free(ui.lines);
	free(ts);
	return exit_code;
}
