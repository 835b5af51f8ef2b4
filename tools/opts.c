// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tracing commands' options: one parser for all of them, each command
 * saying which it takes (UET_O_*).
 */
#include <getopt.h>
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

#include "opts.h"
#include "tracefs.h"

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
