// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the tracing commands share: options, the signals that end them,
 * events enabled as they get registered, the wait for native rings to
 * drain, drop counters.  The traced command is child.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sink.h"
#include "tool.h"

/* How long the native path's rings may take to drain after the command exits. */
#define SETTLE_MAX_MS 2000

volatile sig_atomic_t uet_signal;

int uet_color = -1;

static bool color_on(FILE *f)
{
	const char *no = getenv("NO_COLOR");

	if (uet_color >= 0)
		return uet_color;
	/* https://no-color.org: set and not empty, no colour. */
	return !(no && *no) && isatty(fileno(f));
}

const char *uet_bold(FILE *f)
{
	return color_on(f) ? "\033[1m" : "";
}

const char *uet_bold_end(FILE *f)
{
	return color_on(f) ? "\033[0m" : "";
}

static void on_signal(int sig)
{
	uet_signal = sig;
}

void uet_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	/* No SA_RESTART: a blocked read or poll returns EINTR and the loop looks. */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A reader that went away (| head): end as on SIGTERM, undoing what we set. */
	sigaction(SIGPIPE, &sa, NULL);
}

bool uet_output_gone(FILE *f)
{
	/* The write end of a pipe whose read end is closed polls as an error. */
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };

	return p.fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

void uet_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

uint64_t uet_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool uet_size_arg(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *e;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (*e == 'K' || *e == 'k')
		shift = 10;
	else if (*e == 'M' || *e == 'm')
		shift = 20;
	else if (*e == 'G' || *e == 'g')
		shift = 30;
	e += shift != 0;
	if (errno || *e || v == 0 || v > (UINT64_MAX >> 1) >> shift)
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

/* --duration: SECONDS (fractions allowed), or N followed by s, m or h; above 0, a year at most. */
static bool duration_arg(const char *s, uint64_t *ns)
{
	double v;
	char *e;

	if ((*s < '0' || *s > '9') && *s != '.')
		return false;
	v = strtod(s, &e);
	if (*e == 'm')
		v *= 60;
	else if (*e == 'h')
		v *= 3600;
	e += *e == 's' || *e == 'm' || *e == 'h';
	if (*e || !(v > 0) || v > 366 * 86400.0 || v * 1e9 < 1)
		return false;
	*ns = (uint64_t)(v * 1e9);
	return true;
}

/* --reattach: SECONDS (fractions allowed), 0 (end at once) to an hour. */
static bool reattach_arg(const char *s, unsigned int *ms)
{
	double v;
	char *e;

	if ((*s < '0' || *s > '9') && *s != '.')
		return false;
	v = strtod(s, &e);
	if (*e || !(v >= 0) || v * 1000 > UET_REATTACH_MAX_MS)
		return false;
	*ms = (unsigned int)(v * 1000 + 0.5);
	return true;
}

/*
 * Whether -f @filter parses for some event (ue_filter_check()); if not, a
 * usage error with the parser's text, caret and reason.
 */
static bool filter_syntax_ok(const char *cmd, const char *usage, const char *filter)
{
	char *msg = NULL;
	size_t n;
	int e = ue_filter_check(filter, strlen(filter), &msg);

	if (e == 0)
		return true;
	for (n = msg ? strlen(msg) : 0; n && msg[n - 1] == '\n';)
		msg[--n] = '\0';
	if (msg)
		uet_usage_err(cmd, usage, "-f: the filter does not parse:\n%s", msg);
	else
		uet_usage_err(cmd, usage, "-f: the filter does not parse: %s",
			      e == -EINVAL ? "4096 bytes or more" : strerror(-e));
	free(msg);
	return false;
}

int uet_opts_parse(struct uet_opts *o, int argc, char **argv, unsigned int allowed,
		   const char *usage)
{
	static const struct option lopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "fields", no_argument, NULL, 'F' },
		{ "json", no_argument, NULL, 'j' },
		{ "pid", required_argument, NULL, 'I' },
		{ "provider", required_argument, NULL, 'p' },
		{ "filter", required_argument, NULL, 'f' },
		{ "no-preload", no_argument, NULL, 'P' },
		{ "format", required_argument, NULL, 'T' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "blocking", optional_argument, NULL, 'B' },
		{ "no-blocking", no_argument, NULL, 'N' },
		{ "stat", no_argument, NULL, 'S' },
		{ "duration", required_argument, NULL, 'D' },
		{ "max-size", required_argument, NULL, 'M' },
		{ "wall-clock", no_argument, NULL, 'W' },
		{ "counter", required_argument, NULL, 'C' },
		{ "html", no_argument, NULL, 'H' },
		{ "reattach", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct {
		int c;
		unsigned int bit;
		const char *name;
	} bits[] = {
		{ 'e', UET_O_EVENT, "-e" },	  { 'o', UET_O_OUTPUT, "-o" },
		{ 'q', UET_O_QUIET, "-q" },	  { 'F', UET_O_FIELDS, "--fields" },
		{ 'j', UET_O_JSON, "--json" }, { 'I', UET_O_PID, "--pid" },
		{ 'p', UET_O_PROVIDER, "-p" },
		{ 'f', UET_O_FILTER, "-f" },	  { 'h', 0, "-h" },
		{ 'P', UET_O_NO_PRELOAD, "--no-preload" },
		{ 'T', UET_O_FORMAT | UET_O_FILEFMT, "--format" },
		{ 'b', UET_O_BUFFER, "-b" },	  { 'B', UET_O_BUFFER, "--blocking" },
		{ 'N', UET_O_BUFFER, "--no-blocking" },
		{ 'S', UET_O_STAT, "--stat" },
		{ 'D', UET_O_LIMIT, "--duration" }, { 'M', UET_O_LIMIT, "--max-size" },
		{ 'W', UET_O_WALL, "--wall-clock" },
		{ 'C', UET_O_COUNTER, "--counter" },
		{ 'H', UET_O_HTML, "--html" },
		{ 'R', UET_O_REATTACH, "--reattach" },
	};
	struct ue_arm spec;
	bool after_p = false;
	unsigned long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->reattach_ms = UET_REATTACH_MS;
	o->globs = calloc((size_t)argc + 1, sizeof(*o->globs));
	o->filters = calloc((size_t)argc + 1, sizeof(*o->filters));
	o->counters = calloc((size_t)argc + 1, sizeof(*o->counters));
	if (!o->globs || !o->filters || !o->counters) {
		uet_opts_free(o);
		return UET_EXIT_FAIL;
	}
	/* 0, not 1: getopt starts over (main's parse came first). */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:o:qFjp:f:b:h", lopts, NULL)) != -1) {
		const char *name = NULL;
		bool ok = false;
		char *end;

		for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
			if (bits[i].c == c) {
				ok = !bits[i].bit || (allowed & bits[i].bit);
				name = bits[i].name;
			}
		}
		if (!ok) {
			uet_opts_free(o);
			if (name)
				return uet_usage_err(argv[0], usage, "option %s does not apply",
						     name);
			return uet_usage_getopt(argv[0], usage, c, argv);
		}
		switch (c) {
		case 'e':
			if (!optarg[0]) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "-e '': an empty GLOB names no event ('*' names all)");
			}
			o->globs[o->nglobs++] = optarg;
			after_p = false;
			break;
		case 'p':
			if (ue_arm_parse(UE_ARM_PROVIDER, optarg, strlen(optarg), &spec) < 0) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "-p %s: not PROVIDER[:LEVEL[:KEYWORDS]] "
						     "(LEVEL 0..255, KEYWORDS hex)", optarg);
			}
			/* Among the globs, tagged (uet_glob_match()): freed with them. */
			if (asprintf(&o->globs[o->nglobs], UET_PROVIDER_TAG "%s", optarg) < 0) {
				uet_opts_free(o);
				return UET_EXIT_FAIL;
			}
			o->nglobs++;
			after_p = true;
			break;
		case 'f':
			if (after_p) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "-f %s: applies to an -e GLOB, not to -p", optarg);
			}
			/* As trace-cmd's -f: the filter of the events of the -e before it. */
			if (!o->nglobs || o->filters[o->nglobs - 1]) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage, "-f %s: %s", optarg,
						     o->nglobs ? "a second filter for the same -e"
							       : "needs an -e GLOB before it");
			}
			/* Its syntax now: refused later, a short-lived CMD would take the reason along. */
			if (!filter_syntax_ok(argv[0], usage, optarg)) {
				uet_opts_free(o);
				return UET_EXIT_USAGE;
			}
			o->filters[o->nglobs - 1] = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'P':
			o->no_preload = true;
			break;
		case 'T':
			if (allowed & UET_O_FILEFMT) {
				/* record: the file's format, trace-cmd's or perf's. */
				if (o->format || (strcmp(optarg, "trace.dat") && strcmp(optarg, "perf"))) {
					uet_opts_free(o);
					return uet_usage_err(argv[0], usage, o->format ?
							     "--format given twice" :
							     "--format %s: not trace.dat or perf", optarg);
				}
				o->format = optarg;
				o->format_opt = true;
				break;
			}
			/* fall through */
		case 'F':
		case 'j':
		case 'S':
		case 'H':
			/* Each names an output format (sink.h); one of them. */
			if (o->format) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage, "%s exclude each other",
						     allowed & UET_O_HTML ?
						     "--fields, --json, --html, --format and --stat" :
						     allowed & UET_O_STAT ?
						     "--fields, --json, --format and --stat" :
						     "--fields, --json and --format");
			}
			o->format = c == 'F' ? "fields" : c == 'j' ? "json" : c == 'S' ? "stat" :
				    c == 'H' ? "html" : optarg;
			o->format_opt = c == 'T' || c == 'H';
			if (c == 'T' && strcmp(optarg, "text") && strcmp(optarg, "fields") &&
			    strcmp(optarg, "json") && strcmp(optarg, "perf-decode") &&
			    strcmp(optarg, "chrome") && strcmp(optarg, "html")) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "--format %s: not text, fields, json, perf-decode, chrome or html",
						     optarg);
			}
			break;
		case 'C':
			if (!strchr(optarg, '.') || optarg[0] == '.') {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage, "--counter %s: not EVENT.FIELD", optarg);
			}
			o->counters[o->ncounters++] = optarg;
			break;
		case 'I':
			errno = 0;
			o->pid = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->pid < 0 || o->pid > INT32_MAX) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage, "--pid %s: not a pid", optarg);
			}
			o->have_pid = true;
			break;
		case 'b':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || v < UET_BUFFER_MIN_KIB ||
			    v > UET_BUFFER_MAX_KIB) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "-b %s: not a size in KiB from %u to %u", optarg,
						     UET_BUFFER_MIN_KIB, UET_BUFFER_MAX_KIB);
			}
			o->buffer_kib = (unsigned int)v;
			break;
		case 'B':
			v = UET_BLOCK_DEFAULT_MS;
			if (optarg) {
				errno = 0;
				v = strtoul(optarg, &end, 10);
				if (errno || end == optarg || *end || !v || v > UET_BLOCK_MAX_MS) {
					uet_opts_free(o);
					return uet_usage_err(argv[0], usage,
							     "--blocking=%s: not a time in ms from 1 to %u",
							     optarg, UET_BLOCK_MAX_MS);
				}
			}
			o->block_ms = (unsigned int)v;
			o->block_set = true;
			break;
		case 'N':
			o->block_ms = 0;
			o->block_set = true;
			break;
		case 'W':
			o->wall_clock = true;
			break;
		case 'D':
			if (!duration_arg(optarg, &o->duration_ns)) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "--duration %s: not a time above 0 (SECONDS, "
						     "or N with s, m or h)", optarg);
			}
			break;
		case 'M':
			if (!uet_size_arg(optarg, &o->max_size) || o->max_size < UET_MAX_SIZE_MIN) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "--max-size %s: not a size of 1M or more "
						     "(N, NK, NM or NG)", optarg);
			}
			break;
		case 'R':
			if (!reattach_arg(optarg, &o->reattach_ms)) {
				uet_opts_free(o);
				return uet_usage_err(argv[0], usage,
						     "--reattach %s: not a time in seconds from 0 to %u",
						     optarg, UET_REATTACH_MAX_MS / 1000);
			}
			break;
		case 'h':
			printf("usage: " UET_PROG " %s\n", usage);
			uet_opts_free(o);
			return UET_EXIT_OK;
		}
	}
	if (!o->format)
		o->format = "text";
	/* The trace lines keep the trace's clock, as the kernel's trace does. */
	if (o->wall_clock && strcmp(o->format, "json") != 0) {
		uet_opts_free(o);
		return uet_usage_err(argv[0], usage, "--wall-clock applies to --json");
	}
	o->rest = optind;
	return -1;
}

void uet_opts_all_user_events(struct uet_opts *o)
{
	static char all[] = "user_events*:*";

	if (!o->nglobs) {
		o->globs[o->nglobs++] = all;
		o->default_globs = true;
	}
}

const char *uet_glob_shown(const char *glob)
{
	static char buf[UE_ARM_MAX_TEXT + 4];

	if (glob[0] != UET_PROVIDER_TAG[0])
		return glob;
	snprintf(buf, sizeof(buf), "-p %s", glob + 1);
	return buf;
}

void uet_opts_free(struct uet_opts *o)
{
	for (size_t i = 0; o->globs && i < o->nglobs; i++)
		if (o->globs[i][0] == UET_PROVIDER_TAG[0])
			free(o->globs[i]);
	free(o->globs);
	free(o->filters);
	free(o->counters);
	o->counters = NULL;
	o->filters = NULL;
	o->globs = NULL;
	o->nglobs = 0;
}

/* One counter of usereventsd_stats ("key: N" lines); -1 when there is none. */
long long uet_daemon_stat(const char *tracefs, const char *key)
{
	char *text = uet_read(tracefs, "usereventsd_stats", NULL), *p;
	size_t n = strlen(key);
	long long v = -1;

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, n) == 0 && p[n] == ':') {
			v = strtoll(p + n + 1, NULL, 10);
			break;
		}
	}
	free(text);
	return v;
}

void uet_settle(const char *tracefs)
{
	/*
	 * Records a program left in its native rings reach the trace buffer
	 * a little after it exits: wait until the daemon has moved them all.
	 * The kernel's tracefs has no such file and nothing to wait for.
	 */
	for (int waited = 0; waited < SETTLE_MAX_MS; waited += 5) {
		if (uet_daemon_stat(tracefs, "native_pending_bytes") <= 0)
			return;
		uet_sleep_ms(5);
	}
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

static void drops_read(const char *tracefs, struct uet_drops_at *d)
{
	long long ring_full = uet_daemon_stat(tracefs, "native_dropped_ring_full");

	d->have = uet_buf_stats_read(tracefs, &d->st) == 0;
	d->ring_full = ring_full > 0 ? (unsigned long long)ring_full : 0;
}

void uet_drops_begin(struct uet_drops *d, const char *tracefs)
{
	memset(d, 0, sizeof(*d));
	drops_read(tracefs, &d->base);
}

unsigned long long uet_drops_now(struct uet_drops *d, const char *tracefs)
{
	struct uet_drops_at now;

	drops_read(tracefs, &now);
	if (!now.have)
		return d->overrun + d->discarded + d->ring_full;
	/* Counters that went down were reset (a buffer resize): count from there. */
	d->overrun = now.st.overrun >= d->base.st.overrun ? now.st.overrun - d->base.st.overrun
							   : now.st.overrun;
	d->discarded = now.st.dropped >= d->base.st.dropped ? now.st.dropped - d->base.st.dropped
							    : now.st.dropped;
	d->ring_full = now.ring_full >= d->base.ring_full ? now.ring_full - d->base.ring_full
							  : now.ring_full;
	d->have = true;
	return d->overrun + d->discarded + d->ring_full;
}

static bool autoenable_has(const struct uet_autoenable *a, const char *key)
{
	for (size_t i = 0; i < a->ndone; i++)
		if (strcmp(a->done[i], key) == 0)
			return true;
	return false;
}

/* Remember @key as enabled by us; false when out of memory. */
static bool autoenable_add(struct uet_autoenable *a, const char *key, bool filtered)
{
	char(*nd)[300] = realloc(a->done, (a->ndone + 1) * sizeof(*nd));
	bool *nf;

	if (!nd)
		return false;
	a->done = nd;
	nf = realloc(a->filtered, (a->ndone + 1) * sizeof(*nf));
	if (!nf)
		return false;
	a->filtered = nf;
	snprintf(a->done[a->ndone], sizeof(a->done[0]), "%s", key);
	a->filtered[a->ndone++] = filtered;
	return true;
}

/* What a refused filter means, for a person, when the filter file does not say. */
static const char *filter_why(int e)
{
	switch (-e) {
	case ESRCH:
		/* The kernel's parser returns it for an unterminated string, among others. */
		return "the filter does not parse: check its quotes and parentheses";
	case EINVAL:
		return "the filter does not parse";
	case ENOENT:
		return "no such field";
	default:
		return NULL;
	}
}

/* usereventsd_session of @a's tracefs, opened the first time; -1 when there is none. */
static int autoenable_session(struct uet_autoenable *a)
{
	char p[4096];

	if (!a->session_tried) {
		snprintf(p, sizeof(p), "%s/usereventsd_session", a->tracefs);
		/* Read too: the refusals of armed filters (autoenable_refused()). */
		a->session = open(p, O_RDWR | O_CLOEXEC);
		if (a->session < 0)
			a->session = open(p, O_WRONLY | O_CLOEXEC);
		a->session_tried = true;
	}
	return a->session;
}

/*
 * "@cmd @key[ @arg]" through the session, else @val to events/@key/@file.
 * Return: 0 or -errno.
 */
static int autoenable_set(struct uet_autoenable *a, const char *cmd, const char *key,
			  const char *file, const char *val)
{
	int fd = autoenable_session(a);
	char *line = NULL, rel[320];
	ssize_t n;
	int len;

	if (fd < 0) {
		snprintf(rel, sizeof(rel), "events/%s/%s", key, file);
		return uet_write(a->tracefs, rel, val);
	}
	len = asprintf(&line, "%s %s%s%s", cmd, key, strcmp(cmd, "filter") ? "" : " ",
		       strcmp(cmd, "filter") ? "" : val);
	if (len < 0)
		return -ENOMEM;
	n = write(fd, line, (size_t)len);
	free(line);
	return n < 0 ? -errno : 0;
}

/*
 * Say that events/@key refused its filter: with @shown, the text its filter
 * file then showed (the kernel's caret and "parse_error: ...", not its
 * errno: ESRCH...), else @e's meaning and @filter (NULL: not known).
 */
static void filter_refused_say(const struct uet_autoenable *a, const char *key, int e,
			       char *shown, const char *filter)
{
	const char *hint = filter_why(e);
	size_t n;

	for (n = shown ? strlen(shown) : 0; n && (shown[n - 1] == '\n' || shown[n - 1] == ' ');)
		shown[--n] = '\0';
	if (shown && strstr(shown, "parse_error"))
		uet_err("%s: filter of %s refused:\n%s", a->who, key, shown);
	else
		uet_err("%s: filter of %s refused: %s%s%s", a->who, key,
			hint ? hint : strerror(-e), filter ? "\n  filter: " : "",
			filter ? filter : "");
}

/*
 * Set @filter on the event at events/@key before it is enabled.  A filter
 * the tracefs refuses is reported with the text the filter file then shows
 * and fails the command: it stops rather than trace nothing.
 */
static int autoenable_filter(struct uet_autoenable *a, const char *key, const char *filter)
{
	char rel[320], *shown;
	int e;

	e = autoenable_set(a, "filter", key, "filter", filter);
	if (e == 0)
		return 0;
	snprintf(rel, sizeof(rel), "events/%s/filter", key);
	shown = uet_read(a->tracefs, rel, NULL);
	filter_refused_say(a, key, e, shown, filter);
	free(shown);
	return e;
}

/*
 * An armed filter usereventsd refused for an event as it registered: the
 * session's "refused SYSTEM/NAME ERRNO COUNT" line and the filter file's
 * text then (lines after a tab), read even when the event is gone (a
 * short-lived CMD).  Said as autoenable_filter() says it; -errno, or 0.
 */
static int autoenable_refused(struct uet_autoenable *a)
{
	char key[300], *buf = NULL, *p, *nl, *out, *t;
	size_t len = 0, cap = 0;
	int err = 0;

	/* All of it: the line comes after the session's enables, which may be many. */
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb = cap < (1u << 20) ? realloc(buf, cap ? 2 * cap : 8192) : NULL;

			if (!nb)
				break;
			buf = nb;
			cap = cap ? 2 * cap : 8192;
		}
		n = pread(a->session, buf + len, cap - 1 - len, (off_t)len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (!buf)
		return 0;
	buf[len] = '\0';
	p = strncmp(buf, "refused ", 8) == 0 ? buf : strstr(buf, "\nrefused ");
	if (!p) {
		free(buf);
		return 0;
	}
	p += *p == '\n' ? 9 : 8;
	if (sscanf(p, "%299s %d", key, &err) != 2 || err <= 0)
		err = EINVAL;
	/* The text: the lines after it that start with a tab, without the tab. */
	nl = p + strcspn(p, "\n");
	out = *nl ? nl + 1 : nl;
	for (t = out; *t == '\t';) {
		size_t ll = strcspn(t + 1, "\n");

		memmove(out, t + 1, ll);
		out[ll] = '\n';
		t += 1 + ll + (t[1 + ll] == '\n');
		out += ll + 1;
	}
	*out = '\0';
	filter_refused_say(a, key, -err, *nl && nl[1] ? nl + 1 : NULL, NULL);
	free(buf);
	return -err;
}

/* Remember @ev's name: a glob that matched none is answered with the events that were. */
static void autoenable_seen(struct uet_autoenable *a, const struct uet_event *ev)
{
	char name[300], *p;
	size_t n;

	if (strncmp(ev->system, "user_events", 11) != 0)
		return;
	n = (size_t)snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
	/* Each name once: a whole ", "-separated item. */
	for (p = a->seen; p && (p = strstr(p, name)); p += n)
		if ((p == a->seen || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return;
	if (n >= sizeof(name) || a->nseen + n + 2 > 4096)
		return;
	p = realloc(a->seen, a->nseen + n + 3);
	if (!p)
		return;
	a->seen = p;
	a->nseen += (size_t)sprintf(p + a->nseen, "%s%s", a->nseen ? ", " : "", name);
}

void uet_autoenable_tick(void *arg)
{
	struct uet_autoenable *a = arg;
	struct uet_events evs;

	/* First: an event that refused an armed filter may be gone already. */
	if (!a->failed && a->armed_filter)
		a->failed = autoenable_refused(a);
	if (a->failed || uet_events_load(a->tracefs, &evs) < 0)
		return;
	if (a->formats)
		uet_formats_add_events(a->formats, &evs);
	for (size_t i = 0; i < evs.n; i++) {
		struct uet_event *ev = &evs.v[i];
		const char *filter = NULL;
		char key[300];
		bool match = false;

		for (size_t g = 0; g < a->nglobs; g++) {
			if (!uet_glob_match(a->globs[g], ev->system, ev->name))
				continue;
			if (a->matched)
				a->matched[g] = true;
			if (!match && a->filters)
				filter = a->filters[g];
			match = true;
		}
		if (a->with_cmd)
			autoenable_seen(a, ev);
		snprintf(key, sizeof(key), "%s/%s", ev->system, ev->name);
		if (!match || autoenable_has(a, key))
			continue;
		/*
		 * On already: the file cannot say whose it is.  The session can:
		 * it shares an enable another tool's session holds (undone after
		 * the last of them), and leaves one made by hand alone.
		 */
		if (ev->enabled == 1 && autoenable_session(a) < 0)
			continue;
		if (filter && ev->enabled != 1) {
			int e = autoenable_filter(a, key, filter);

			if (e < 0) {
				/* Remembered: the end clears the filter file's error. */
				autoenable_add(a, key, true);
				a->failed = e;
				break;
			}
		}
		if (autoenable_set(a, "enable", key, "enable", "1") == 0 &&
		    !autoenable_add(a, key, filter != NULL))
			break;
	}
	uet_events_free(&evs);
}

/* Each glob and -p spec as an armed pattern of the session; how many were taken. */
static size_t autoenable_arm(struct uet_autoenable *a)
{
	int fd = autoenable_session(a);
	size_t armed = 0;

	for (size_t g = 0; fd >= 0 && g < a->nglobs; g++) {
		const char *glob = a->globs[g], *filter = a->filters ? a->filters[g] : NULL;
		bool provider = glob[0] == UET_PROVIDER_TAG[0];
		char *line = NULL;
		int len;

		len = asprintf(&line, "%s %s%s%s", provider ? "arm-provider" : "arm",
			       glob + (provider ? 1 : 0), filter ? " " : "", filter ? filter : "");
		if (len < 0)
			break;
		/* Refused (a limit, a glob it cannot take): the ticks still enable, later. */
		if (write(fd, line, (size_t)len) == len) {
			armed++;
			a->armed_filter |= filter != NULL;
		} else
			uet_err("%s: warning: '%s' not armed (%s): events it names are enabled "
				"only once seen", a->who, uet_glob_shown(glob), strerror(errno));
		free(line);
	}
	return armed;
}

int uet_autoenable_start(struct uet_autoenable *a, bool warn)
{
	a->matched = calloc(a->nglobs + 1, sizeof(*a->matched));
	if (!a->matched)
		return -ENOMEM;
	a->with_cmd = !warn;
	autoenable_arm(a);
	uet_autoenable_tick(a);
	for (size_t g = 0; warn && !a->failed && !a->default_globs && g < a->nglobs; g++)
		if (!a->matched[g])
			uet_err("%s: warning: no event matches '%s' yet (waiting for one)", a->who,
				uet_glob_shown(a->globs[g]));
	return a->failed;
}

void uet_autoenable_saw(struct uet_autoenable *a, const char *system, const char *name)
{
	for (size_t g = 0; a->matched && g < a->nglobs; g++)
		if (uet_glob_match(a->globs[g], system, name))
			a->matched[g] = true;
}

size_t uet_autoenable_unmatched(const struct uet_autoenable *a)
{
	size_t n = 0;

	for (size_t g = 0; a->matched && !a->default_globs && g < a->nglobs; g++) {
		if (a->matched[g])
			continue;
		/*
		 * CMD's daemon is gone with it: the events its scans saw, not "see
		 * list" (one that came and went between two scans is not among them).
		 */
		if (a->with_cmd)
			uet_err("%s: no event matched '%s'; %s%s", a->who,
				uet_glob_shown(a->globs[g]),
				a->nseen ? "the events seen: " : "no other event was seen either",
				a->nseen ? a->seen : "");
		else
			uet_err("%s: no event matched '%s' (see " UET_PROG " list)", a->who,
				uet_glob_shown(a->globs[g]));
		n++;
	}
	return n;
}

void uet_autoenable_say_failed(const struct uet_autoenable *a, const struct uet_child *cmd,
			       const char *more)
{
	if (cmd && cmd->done && !cmd->ended)
		uet_err("%s: the command ran to its end untraced: its events cannot be traced as asked%s",
			a->who, more);
	else
		uet_err("%s: stopped%s: it cannot be traced as asked%s", a->who,
			cmd ? " the command" : "", more);
}

void uet_autoenable_undo(struct uet_autoenable *a)
{
	for (size_t i = 0; i < a->ndone; i++) {
		/* The session's "disable" undoes its enable and its filter alike. */
		if (autoenable_set(a, "disable", a->done[i], "enable", "0") == 0 &&
		    a->session >= 0)
			continue;
		if (a->filtered[i])
			autoenable_set(a, "disable", a->done[i], "filter", "0");
	}
	if (a->session_tried && a->session >= 0)
		close(a->session);
	a->session = -1;
	a->session_tried = false;
	free(a->done);
	free(a->filtered);
	a->done = NULL;
	a->filtered = NULL;
	a->ndone = 0;
}

int uet_autoenable_rearm(struct uet_autoenable *a)
{
	int old = a->session_tried ? a->session : -1;

	/* What we enabled was the former daemon's: nothing to undo on the new one. */
	free(a->done);
	free(a->filtered);
	a->done = NULL;
	a->filtered = NULL;
	a->ndone = 0;
	a->session = -1;
	a->session_tried = false;
	a->armed_filter = false;
	autoenable_arm(a);
	uet_autoenable_tick(a);
	if (old >= 0)
		close(old);
	return a->failed;
}

int uet_autoenable_check(struct uet_autoenable *a)
{
	char c;

	if (!a->session_tried || a->session < 0)
		return 0;
	return pread(a->session, &c, 1, 0) < 0 ? -errno : 0;
}

void uet_autoenable_free(struct uet_autoenable *a)
{
	uet_autoenable_undo(a);
	free(a->matched);
	a->matched = NULL;
	free(a->seen);
	a->seen = NULL;
	a->nseen = 0;
}

int uet_live_start(const char *who, const char *usage, const char *tracefs_opt,
		   const struct uet_opts *o, struct uet_child *cmd, struct uet_sinks *sinks,
		   struct uet_autoenable *a, struct uet_private **priv, char *tracefs, size_t len,
		   unsigned int *ncpus)
{
	int fail = cmd->argv ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	struct uet_buf_stats bs;
	int e;

	if (cmd->argv && tracefs_opt)
		return uet_usage_err(who, usage, "--tracefs does not apply with CMD: "
						 "it runs against its own usereventsd");
	if (cmd->argv) {
		if (uet_private_start(who, priv, tracefs, len, cmd) < 0)
			return fail;
	} else if ((e = uet_tracefs_resolve(tracefs_opt, tracefs, len))) {
		return e;
	}
	e = uet_buf_stats_read(tracefs, &bs);
	if (e < 0 || !bs.ncpus) {
		uet_err("%s: %s/per_cpu: %s", who, tracefs, strerror(e < 0 ? -e : ENOENT));
		return fail;
	}
	*ncpus = bs.ncpus;
	if (uet_sinks_begin(sinks, &(struct uet_sink_env){ who, tracefs, bs.ncpus }) < 0)
		return fail;
	*a = (struct uet_autoenable){ .tracefs = tracefs, .who = who, .globs = o->globs,
				      .filters = o->filters, .nglobs = o->nglobs,
				      .default_globs = o->default_globs };
	/* Armed before CMD starts: its first write is kept. */
	if (uet_autoenable_start(a, !cmd->argv) < 0 ||
	    (cmd->argv && uet_child_start(cmd, tracefs) < 0))
		return fail;
	return 0;
}

int uet_live_status(const char *who, const struct uet_autoenable *a, struct uet_child *cmd,
		    int e, bool ours)
{
	int code;

	if (a->failed) {
		uet_child_end(cmd);
		uet_autoenable_say_failed(a, cmd->argv ? cmd : NULL, "");
		return cmd->argv ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	}
	code = cmd->argv && !ours ? uet_child_exit_code(cmd, who) : UET_EXIT_OK;
	if (e < 0 && code == 0)
		return cmd->argv ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	/* Said whatever CMD's exit; its status is kept when it failed. */
	if (uet_autoenable_unmatched(a) && code == 0)
		return UET_EXIT_NO_MATCH;
	return code;
}

void uet_live_end(struct uet_child *cmd, struct uet_sinks *sinks, struct uet_autoenable *a,
		  struct uet_private *priv)
{
	uet_child_end(cmd);
	uet_sinks_end(sinks, false);
	uet_autoenable_free(a);
	uet_private_stop(priv);
}
