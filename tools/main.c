// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents: the tracer's command line.  Dispatches the commands, finds
 * the tracefs (usereventsd's or the kernel's), and implements list,
 * enable/disable and stats; the others have a file each.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "otlp-export.h"
#include "tracefs.h"
#include "util.h"

static void usage(FILE *out)
{
	fputs("usage: " UET_PROG " [--tracefs DIR] [--color WHEN] COMMAND [ARGS]\n"
	      "\n"
	      "Traces Linux user_events, from usereventsd or from the kernel.\n"
	      "\n"
	      "Commands:\n"
	      "  list [-n | --json] [GLOB...] events, their fields, enabled state, users,\n"
	      "                               filter and triggers\n"
	      "  enable GLOB...               enable the events GLOB names\n"
	      "  disable GLOB...              disable them\n"
	      "  stream [-e GLOB [-f FILTER]]... [-p SPEC]...\n"
	      "         [--fields | --json [--wall-clock] | --format=FMT]\n"
	      "                               print records as they come, like trace_pipe,\n"
	      "                               or one JSON object per record\n"
	      "  stats [--json] [--interval SECONDS [--count N]]\n"
	      "                               buffer and event counters, or their rates\n"
	      "  run [-e GLOB [-f FILTER]]... [-p SPEC]... [-o FILE] [-q] -- CMD [ARGS]\n"
	      "                               run CMD against a private usereventsd, show its\n"
	      "                               events live (or write them to FILE) and a\n"
	      "                               summary at its exit\n"
	      "  record [-o FILE] [--format=trace.dat|perf] [-e GLOB [-f FILTER]]...\n"
	      "         [-p SPEC]... [--duration SECONDS] [--max-size SIZE] [-q]\n"
	      "         [-- CMD [ARGS]]\n"
	      "                               record to a trace-cmd trace.dat (v7; default\n"
	      "                               ./trace.dat) or a perf.data (--format=perf)\n"
	      "                               until SIGINT, a limit, or CMD's exit (CMD:\n"
	      "                               against a private usereventsd unless a tracefs\n"
	      "                               is given)\n"
	      "  report [-e GLOB]... [-p SPEC]... [--pid N] [--fields | --json [--wall-clock] |\n"
	      "         --html | --format=FMT | --stat] [--counter EVENT.FIELD]... [FILE]\n"
	      "                               print a trace.dat's (default ./trace.dat) or\n"
	      "                               a perf.data's user events as trace does\n"
	      "                               (zstd-compressed files too), as JSON, as one\n"
	      "                               HTML page, as Chrome's trace events, or counts\n"
	      "  export --otlp URL [-e GLOB [-f FILTER]]... [-p SPEC]... [--protocol P]\n"
	      "         [--gzip] [--header K=V]... [-q] [-- CMD [ARGS]]\n"
	      "                               send records to an OpenTelemetry collector\n"
	      "                               (OTLP/HTTP logs), until SIGINT/SIGTERM or CMD's\n"
	      "                               exit (CMD: against a private usereventsd)\n"
	      "  top [-e GLOB [-f FILTER]]... [-p SPEC]... [-d SECONDS] [--once] [--records]\n"
	      "      [--group event|provider|process] [--sort events|bytes|lost|name]\n"
	      "      [-- CMD [ARGS]]\n"
	      "                               live events/s, bytes/s, lost/s per event,\n"
	      "                               provider or process (q quits; g, s, e, b, l\n"
	      "                               and n regroup and sort)\n"
	      "\n"
	      "GLOB is NAME or SYSTEM:NAME with shell wildcards (user_events:*).\n"
	      "SPEC is PROVIDER[:LEVEL[:KEYWORDS]]: the EventHeader events\n"
	      "PROVIDER_L<level>K<keyword>... of level <= LEVEL and keyword & KEYWORDS.\n"
	      "On usereventsd, -e and -p are armed: an event is enabled as it registers.\n"
	      "FILTER is the events' filter while traced (their filter file), e.g.\n"
	      "'len > 64 && comm ~ \"web*\"'.\n"
	      "FMT is text, fields, json, perf-decode, chrome or html.\n"
	      "A command's --help, and userevents(1), give all its options (buffer,\n"
	      "blocking, export's batches and queue).\n"
	      "The tracefs is --tracefs, else $USEREVENTS_TRACEFS, else a usereventsd\n"
	      "mount, else /sys/kernel/tracing when it has user_events_data.\n"
	      "--color WHEN: auto (default: on a terminal, unless NO_COLOR is set),\n"
	      "always or never.\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 usage, 3 no tracefs, 4 an -e GLOB\n"
	      "matched no event, 5 export dropped records; run, record and export -- CMD\n"
	      "return CMD's status (128+N:\n"
	      "killed by signal N; 125: userevents failed; 126/127: CMD could not be\n"
	      "executed / found).  See userevents(1).\n",
	      out);
}

/* The "# Used by ..." part of NAME's user_events_status line, or "". */
static const char *used_by(const char *status, const char *name, char *buf, size_t len)
{
	const char *s = status;
	size_t n = strlen(name);

	buf[0] = '\0';
	while (s && *s) {
		const char *e = strchr(s, '\n');

		if (!e)
			e = s + strlen(s);
		if ((size_t)(e - s) >= n && memcmp(s, name, n) == 0 &&
		    (s[n] == '\n' || s[n] == ' ' || s[n] == '\0')) {
			const char *u = s + n;

			if (strncmp(u, " # Used by ", 11) == 0) {
				u += 11;
				snprintf(buf, len, "%.*s", (int)(e - u), u);
			}
			break;
		}
		s = *e ? e + 1 : e;
	}
	return buf;
}

/*
 * The event's filter and triggers, when it has any: "\tfilter: EXPR" and one
 * "\ttrigger: LINE" per trigger (the file's "#" lines say none is set).
 */
static void show_filter_triggers(const char *tracefs, const struct uet_event *ev)
{
	char rel[600], *text, *line, *save = NULL;

	snprintf(rel, sizeof(rel), "events/%s/%s/filter", ev->system, ev->name);
	text = uet_read(tracefs, rel, NULL);
	if (text) {
		text[strcspn(text, "\n")] = '\0';
		if (*text && strcmp(text, "none") != 0)
			printf("\tfilter: %s\n", text);
		free(text);
	}
	snprintf(rel, sizeof(rel), "events/%s/%s/trigger", ev->system, ev->name);
	text = uet_read(tracefs, rel, NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			printf("\ttrigger: %s\n", line);
	free(text);
}

static bool any_match(char **globs, int n, const struct uet_event *ev)
{
	if (n == 0)
		return true;
	for (int i = 0; i < n; i++)
		if (uet_glob_match(globs[i], ev->system, ev->name))
			return true;
	return false;
}

static const char list_usage[] = "list [-n|--names | --json] [GLOB...]";

/* @s as a JSON string: names and types are ASCII, but nothing stops a quote in one. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* One event of list --json: one line, one object (docs/man/userevents.1, LIST JSON). */
static void list_json(const struct uet_event *ev, const char *users)
{
	fputs("{\"system\":", stdout);
	json_str(ev->system);
	fputs(",\"name\":", stdout);
	json_str(ev->name);
	printf(",\"id\":%u,\"enabled\":%s,\"used_by\":[", ev->id,
	       ev->enabled < 0 ? "null" : ev->enabled ? "true" : "false");
	for (const char *u = users; *u;) {
		size_t n = strcspn(u, " ");
		char one[128];

		if (n) {
			snprintf(one, sizeof(one), "%.*s", (int)n, u);
			if (u != users)
				putchar(',');
			json_str(one);
		}
		u += n;
		u += strspn(u, " ");
	}
	fputs("],\"fields\":[", stdout);
	for (uint32_t f = 0; f < ev->desc->nfields; f++) {
		const struct ue_field *fl = &ev->desc->fields[f];

		fputs(f ? ",{\"name\":" : "{\"name\":", stdout);
		json_str(fl->name);
		fputs(",\"type\":", stdout);
		json_str(fl->type);
		printf(",\"offset\":%u,\"size\":%u,\"signed\":%s}", fl->offset, fl->size,
		       fl->is_signed ? "true" : "false");
	}
	fputs("]}\n", stdout);
}

/* "no event matches 'A' or 'B'": the globs given, as given. */
static void say_no_match(const char *who, char **globs, int n, const char *more)
{
	fprintf(stderr, UET_PROG ": %s: no event matches ", who);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "%s'%s'", i ? " or " : "", globs[i]);
	fprintf(stderr, "%s\n", more);
}

int uet_cmd_list(const char *tracefs_opt, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "names", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct uet_events evs;
	bool names = false, json = false;
	char *status, tracefs[4096];
	int c, r, shown = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:nh", lopts, NULL)) != -1) {
		if (c == 'n' || c == 'j') {
			if (names || json)
				return uet_usage_err("list", list_usage,
						     "--names and --json exclude each other");
			names = c == 'n';
			json = c == 'j';
		} else if (c == 'h') {
			printf("usage: " UET_PROG " %s\n", list_usage);
			return UET_EXIT_OK;
		} else {
			return uet_usage_getopt("list", list_usage, c, argv);
		}
	}
	r = uet_tracefs_resolve(tracefs_opt, tracefs, sizeof(tracefs));
	if (r)
		return r;
	r = uet_events_load(tracefs, &evs);
	if (r < 0) {
		uet_err("list: %s/events: %s", tracefs, strerror(-r));
		return UET_EXIT_FAIL;
	}
	status = uet_read(tracefs, "user_events_status", NULL);
	for (size_t i = 0; i < evs.n; i++) {
		const struct uet_event *ev = &evs.v[i];
		char users[128];

		if (!any_match(argv + optind, argc - optind, ev))
			continue;
		shown++;
		if (names) {
			printf("%s:%s\n", ev->system, ev->name);
			continue;
		}
		used_by(status, ev->name, users, sizeof(users));
		if (json) {
			list_json(ev, users);
			continue;
		}
		printf("%s:%s id=%u enabled=%s used-by=%s\n", ev->system, ev->name, ev->id,
		       ev->enabled < 0 ? "?" : ev->enabled ? "1" : "0", users[0] ? users : "-");
		for (uint32_t f = 0; f < ev->desc->nfields; f++) {
			const struct ue_field *fl = &ev->desc->fields[f];

			printf("\t%s %s\toffset:%u size:%u signed:%d\n", fl->type, fl->name,
			       fl->offset, fl->size, fl->is_signed ? 1 : 0);
		}
		show_filter_triggers(tracefs, ev);
	}
	free(status);
	uet_events_free(&evs);
	if (!shown && optind < argc) {
		say_no_match("list", argv + optind, argc - optind, "");
		return UET_EXIT_NO_MATCH;
	}
	return UET_EXIT_OK;
}

int uet_cmd_enable(const char *tracefs_opt, int argc, char **argv, bool on)
{
	struct uet_events evs;
	char tracefs[4096];
	int total = 0, r;

	if (argc < 2)
		return uet_usage_err(argv[0], on ? "enable GLOB..." : "disable GLOB...", "no GLOB");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		printf("usage: " UET_PROG " %s GLOB...\n", argv[0]);
		return UET_EXIT_OK;
	}
	if (argv[1][0] == '-')
		return uet_usage_err(argv[0], on ? "enable GLOB..." : "disable GLOB...",
				     "unknown option '%s'", argv[1]);
	r = uet_tracefs_resolve(tracefs_opt, tracefs, sizeof(tracefs));
	if (r)
		return r;
	r = uet_events_load(tracefs, &evs);
	if (r < 0) {
		uet_err("%s: %s/events: %s", argv[0], tracefs, strerror(-r));
		return UET_EXIT_FAIL;
	}
	for (int i = 1; i < argc; i++) {
		r = uet_set_enable(tracefs, &evs, argv[i], on);
		if (r < 0) {
			uet_events_free(&evs);
			return UET_EXIT_FAIL;
		}
		total += r;
	}
	uet_events_free(&evs);
	if (!total) {
		say_no_match(argv[0], argv + 1, argc - 1, " (see " UET_PROG " list)");
		return UET_EXIT_NO_MATCH;
	}
	return UET_EXIT_OK;
}


static const char stats_usage[] = "stats [--json] [--interval SECONDS [--count N]]";

/* One counter of stats: "KEY: N" a line, or --json's '"KEY":N' (the object opened before). */
static void stat_put(bool json, const char *key, long long v)
{
	if (json)
		printf(",\"%s\":%lld", key, v);
	else
		printf("%s: %lld\n", key, v);
}

/*
 * The counters of stats that only grow, the ones --interval gives rates of:
 * the buffer's (summed over the CPUs), then usereventsd's writes by path.
 */
enum { RATE_READ, RATE_OVERRUN, RATE_DROPPED, RATE_FUSE, RATE_NATIVE, RATE_INTERPOSED, NRATES };
static const char *const rate_keys[NRATES] = { "read", "overrun", "dropped", "writes_fuse",
					       "records_native", "records_interposed" };

/* Their values now (-1: not on this tracefs); -errno when the buffer's cannot be read. */
static int stats_counters(const char *tracefs, long long v[NRATES], struct uet_buf_stats *st)
{
	int r = uet_buf_stats_read(tracefs, st);

	if (r < 0)
		return r;
	v[RATE_READ] = (long long)st->read;
	v[RATE_OVERRUN] = (long long)st->overrun;
	v[RATE_DROPPED] = (long long)st->dropped;
	v[RATE_FUSE] = v[RATE_NATIVE] = v[RATE_INTERPOSED] = -1;
	/* usereventsd's own: the writes of user_events_data by the path they took. */
	if ((v[RATE_FUSE] = uet_daemon_stat(tracefs, "fuse_writes")) >= 0) {
		long long native = uet_daemon_stat(tracefs, "native_records"),
			  pre = uet_daemon_stat(tracefs, "native_records_interposed");

		v[RATE_INTERPOSED] = pre > 0 ? pre : 0;
		v[RATE_NATIVE] = native - v[RATE_INTERPOSED];
	}
	return 0;
}

/*
 * stats --interval: every @ns, the counters' increase per second since the
 * last line (a header of KEY/s first; --json: an object a line), @count
 * lines (0: until a signal).
 */
static int stats_rates(const char *tracefs, bool json, uint64_t ns, unsigned long count)
{
	long long v[NRATES], prev[NRATES];
	struct uet_buf_stats st;
	uint64_t t, t_prev;
	int r = stats_counters(tracefs, prev, &st);

	if (r < 0) {
		uet_err("stats: %s/per_cpu: %s", tracefs, strerror(-r));
		return UET_EXIT_FAIL;
	}
	uet_catch_signals();
	t_prev = uet_now_ns();
	if (!json) {
		for (int k = 0; k < NRATES; k++)
			if (prev[k] >= 0)
				printf("%*s/s", k ? 20 : 10, rate_keys[k]);
		putchar('\n');
	}
	for (unsigned long n = 0; !count || n < count; n++) {
		/* Slept in steps: a signal ends it within 100 ms. */
		while (!uet_signal && (t = uet_now_ns()) - t_prev < ns)
			uet_sleep_ms((long)((ns - (t - t_prev)) / 1000000 < 100
					    ? (ns - (t - t_prev)) / 1000000 + 1 : 100));
		if (uet_signal)
			break;
		t = uet_now_ns();
		if (stats_counters(tracefs, v, &st) < 0)
			return UET_EXIT_FAIL;
		if (json)
			printf("{\"interval\":%.3f", (double)(t - t_prev) / 1e9);
		for (int k = 0; k < NRATES; k++) {
			/* A counter that went down was reset (a buffer resize): from 0. */
			double d = (double)(v[k] >= prev[k] ? v[k] - prev[k] : v[k]) * 1e9 /
				   (double)(t - t_prev);

			if (v[k] < 0)
				continue;
			if (json)
				printf(",\"%s\":%.0f", rate_keys[k], d);
			else
				printf("%*.0f", k ? 22 : 12, d);
			prev[k] = v[k];
		}
		puts(json ? "}" : "");
		if (fflush(stdout) == EOF || ferror(stdout))
			return UET_EXIT_FAIL;
		t_prev = t;
	}
	/* Ended by a signal (^C, a reader gone: | head) or the count: no failure. */
	return UET_EXIT_OK;
}

int uet_cmd_stats(const char *tracefs_opt, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct uet_buf_stats st;
	struct uet_events evs;
	size_t enabled = 0;
	bool json = false;
	char *status, *p, *end, tracefs[4096];
	long long v[NRATES];
	unsigned long count = 0;
	double secs = 0;
	int r, c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", lopts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'i') {
			secs = strtod(optarg, &end);
			if (end == optarg || *end || !(secs >= 0.1) || secs > 86400)
				return uet_usage_err("stats", stats_usage,
						     "--interval %s: not a time in seconds from 0.1 to 86400",
						     optarg);
		} else if (c == 'c') {
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !count || optarg[0] == '-')
				return uet_usage_err("stats", stats_usage,
						     "--count %s: not a count above 0", optarg);
		} else if (c == 'h') {
			printf("usage: " UET_PROG " %s\n", stats_usage);
			return UET_EXIT_OK;
		} else {
			return uet_usage_getopt("stats", stats_usage, c, argv);
		}
	}
	if (optind < argc)
		return uet_usage_err("stats", stats_usage, "unexpected argument '%s'", argv[optind]);
	if (count && !secs)
		return uet_usage_err("stats", stats_usage, "--count needs --interval");
	r = uet_tracefs_resolve(tracefs_opt, tracefs, sizeof(tracefs));
	if (r)
		return r;
	if (secs)
		return stats_rates(tracefs, json, (uint64_t)(secs * 1e9), count);
	r = uet_events_load(tracefs, &evs);
	if (r < 0) {
		uet_err("stats: %s/events: %s", tracefs, strerror(-r));
		return UET_EXIT_FAIL;
	}
	for (size_t i = 0; i < evs.n; i++)
		enabled += evs.v[i].enabled == 1;
	r = stats_counters(tracefs, v, &st);
	if (r < 0) {
		uet_err("stats: %s/per_cpu: %s", tracefs, strerror(-r));
		uet_events_free(&evs);
		return UET_EXIT_FAIL;
	}
	if (json) {
		fputs("{\"tracefs\":", stdout);
		json_str(tracefs);
	} else {
		printf("tracefs: %s\n", tracefs);
	}
	stat_put(json, "events", (long long)evs.n);
	stat_put(json, "enabled", (long long)enabled);
	status = uet_read(tracefs, "user_events_status", NULL);
	if (status && (p = strstr(status, "\nActive: ")))
		stat_put(json, "active", (long long)strtoul(p + 9, NULL, 10));
	if (status && (p = strstr(status, "\nBusy: ")))
		stat_put(json, "busy", (long long)strtoul(p + 7, NULL, 10));
	free(status);
	stat_put(json, "cpus", st.ncpus);
	stat_put(json, "entries", (long long)st.entries);
	stat_put(json, "overrun", v[RATE_OVERRUN]);
	stat_put(json, "bytes", (long long)st.bytes);
	stat_put(json, "dropped", v[RATE_DROPPED]);
	stat_put(json, "read", v[RATE_READ]);
	for (int k = RATE_FUSE; k < NRATES; k++)
		if (v[k] >= 0)
			stat_put(json, rate_keys[k], v[k]);
	/* The exports reading this tracefs (their stats files). */
	uet_export_stats_print(tracefs, json);
	if (json)
		puts("}");
	uet_events_free(&evs);
	return UET_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "tracefs", required_argument, NULL, 't' },
		{ "color", required_argument, NULL, 'C' },
		{ "colour", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	static const char main_usage[] = "[--tracefs DIR] [--color WHEN] COMMAND [ARGS]";
	const char *opt_tracefs = NULL, *cmd;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:t:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
			opt_tracefs = optarg;
			break;
		case 'C':
			if (strcmp(optarg, "auto") == 0) {
				uet_color = -1;
			} else if (strcmp(optarg, "always") == 0) {
				uet_color = 1;
			} else if (strcmp(optarg, "never") == 0) {
				uet_color = 0;
			} else {
				return uet_usage_err(NULL, main_usage,
						     "--color %s: not auto, always or never", optarg);
			}
			break;
		case 'h':
			usage(stdout);
			return UET_EXIT_OK;
		case 'V':
			puts(UET_PROG " " UE_VERSION);
			return UET_EXIT_OK;
		default:
			return uet_usage_getopt(NULL, main_usage, c, argv);
		}
	}
	if (optind >= argc)
		return uet_usage_err(NULL, main_usage, "no command (see " UET_PROG " --help)");
	cmd = argv[optind];
	argc -= optind;
	argv += optind;
	if (strcmp(cmd, "help") == 0) {
		usage(stdout);
		return UET_EXIT_OK;
	}
	if (strcmp(cmd, "run") == 0)
		return uet_cmd_run(opt_tracefs, argc, argv);
	if (strcmp(cmd, "record") == 0)
		return uet_cmd_record(opt_tracefs, argc, argv);
	if (strcmp(cmd, "report") == 0)
		return uet_cmd_report(argc, argv);
	if (strcmp(cmd, "export") == 0)
		return uet_cmd_export(opt_tracefs, argc, argv);
	if (strcmp(cmd, "top") == 0)
		return uet_cmd_top(opt_tracefs, argc, argv);
	if (strcmp(cmd, "list") && strcmp(cmd, "enable") && strcmp(cmd, "disable") &&
	    strcmp(cmd, "stream") && strcmp(cmd, "stats")) {
		return uet_usage_err(NULL, main_usage, "unknown command '%s' (see " UET_PROG " --help)",
				     cmd);
	}
	/* Each command takes its command line first, then finds the tracefs (usage errors first). */
	if (strcmp(cmd, "list") == 0)
		return uet_cmd_list(opt_tracefs, argc, argv);
	if (strcmp(cmd, "enable") == 0)
		return uet_cmd_enable(opt_tracefs, argc, argv, true);
	if (strcmp(cmd, "disable") == 0)
		return uet_cmd_enable(opt_tracefs, argc, argv, false);
	if (strcmp(cmd, "stream") == 0)
		return uet_cmd_stream(opt_tracefs, argc, argv);
	return uet_cmd_stats(opt_tracefs, argc, argv);
}
