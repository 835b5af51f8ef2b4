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

#include "otlp.h"
#include "tool.h"

static void usage(FILE *out)
{
	fputs("usage: " UET_PROG " [--tracefs DIR] [--color WHEN] COMMAND [ARGS]\n"
	      "\n"
	      "Traces Linux user_events, from usereventsd or from the kernel.\n"
	      "\n"
	      "Commands:\n"
	      "  list [-n] [GLOB...]          events, their fields, enabled state, users,\n"
	      "                               filter and triggers\n"
	      "  enable GLOB...               enable the events GLOB names\n"
	      "  disable GLOB...              disable them\n"
	      "  stream [-e GLOB [-f FILTER]]... [-p SPEC]... [--fields | --json]\n"
	      "                               print records as they come, like trace_pipe,\n"
	      "                               or one JSON object per record\n"
	      "  stats                        buffer and event counters\n"
	      "  run [-e GLOB [-f FILTER]]... [-p SPEC]... [-o FILE] [-q] -- CMD [ARGS]\n"
	      "                               run CMD against a private usereventsd, show its\n"
	      "                               events live and a summary at its exit\n"
	      "  record -o FILE [-e GLOB [-f FILTER]]... [-p SPEC]... [-q] [-- CMD [ARGS]]\n"
	      "                               record to a trace-cmd trace.dat (v7) until\n"
	      "                               SIGINT, or until CMD's exit (CMD: against a\n"
	      "                               private usereventsd unless a tracefs is given)\n"
	      "  report [-e GLOB]... [--pid N] [--fields | --json] FILE\n"
	      "                               print a trace.dat's user events as trace does\n"
	      "                               (zstd-compressed files too), or as JSON\n"
	      "  export --otlp URL [-e GLOB [-f FILTER]]... [-p SPEC]... [--protocol P]\n"
	      "         [--gzip] [--header K=V]... [-- CMD [ARGS]]\n"
	      "                               send records to an OpenTelemetry collector\n"
	      "                               (OTLP/HTTP logs), until SIGINT/SIGTERM or CMD's\n"
	      "                               exit (CMD: against a private usereventsd)\n"
	      "  top [-e GLOB]... [-p SPEC]... [-d SECONDS] [--once] [-- CMD [ARGS]]\n"
	      "                               live events/s, bytes/s, lost/s per event,\n"
	      "                               provider or process (q quits)\n"
	      "\n"
	      "GLOB is NAME or SYSTEM:NAME with shell wildcards (user_events:*).\n"
	      "SPEC is PROVIDER[:LEVEL[:KEYWORDS]]: the EventHeader events\n"
	      "PROVIDER_L<level>K<keyword>... of level <= LEVEL and keyword & KEYWORDS.\n"
	      "On usereventsd, -e and -p are armed: an event is enabled as it registers.\n"
	      "FILTER is the events' filter while traced (their filter file), e.g.\n"
	      "'len > 64 && comm ~ \"web*\"'.\n"
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

int uet_cmd_list(const char *tracefs, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "names", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct uet_events evs;
	bool names = false, json = false;
	char *status;
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
		uet_err("list: no event matches");
		return UET_EXIT_NO_MATCH;
	}
	return UET_EXIT_OK;
}

int uet_cmd_enable(const char *tracefs, int argc, char **argv, bool on)
{
	struct uet_events evs;
	int total = 0, r;

	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fprintf(argc < 2 ? stderr : stdout, "usage: " UET_PROG " %s GLOB...\n", argv[0]);
		return argc < 2 ? UET_EXIT_USAGE : UET_EXIT_OK;
	}
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
		uet_err("%s: no event matches", argv[0]);
		return UET_EXIT_NO_MATCH;
	}
	return UET_EXIT_OK;
}


static const char stats_usage[] = "stats [--json]";

/* One counter of stats: "KEY: N" a line, or --json's '"KEY":N' (the object opened before). */
static void stat_put(bool json, const char *key, long long v)
{
	if (json)
		printf(",\"%s\":%lld", key, v);
	else
		printf("%s: %lld\n", key, v);
}

int uet_cmd_stats(const char *tracefs, int argc, char **argv)
{
	struct uet_buf_stats st;
	struct uet_events evs;
	size_t enabled = 0;
	bool json = false;
	char *status, *p;
	int r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			printf("usage: " UET_PROG " %s\n", stats_usage);
			return UET_EXIT_OK;
		}
		if (strcmp(argv[i], "--json") == 0 && !json) {
			json = true;
			continue;
		}
		return uet_usage_err("stats", stats_usage, argv[i][0] == '-' ?
				     "unknown option '%s'" : "unexpected argument '%s'", argv[i]);
	}
	r = uet_events_load(tracefs, &evs);
	if (r < 0) {
		uet_err("stats: %s/events: %s", tracefs, strerror(-r));
		return UET_EXIT_FAIL;
	}
	for (size_t i = 0; i < evs.n; i++)
		enabled += evs.v[i].enabled == 1;
	r = uet_buf_stats_read(tracefs, &st);
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
	stat_put(json, "overrun", (long long)st.overrun);
	stat_put(json, "bytes", (long long)st.bytes);
	stat_put(json, "dropped", (long long)st.dropped);
	stat_put(json, "read", (long long)st.read);
	/* usereventsd's own: the writes of user_events_data by the path they took. */
	if (uet_daemon_stat(tracefs, "fuse_writes") >= 0) {
		long long native = uet_daemon_stat(tracefs, "native_records"),
			  pre = uet_daemon_stat(tracefs, "native_records_interposed");

		stat_put(json, "writes_fuse", uet_daemon_stat(tracefs, "fuse_writes"));
		stat_put(json, "records_native", native - (pre > 0 ? pre : 0));
		stat_put(json, "records_interposed", pre > 0 ? pre : 0);
	}
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
	const char *opt_tracefs = NULL, *cmd;
	char tracefs[4096];
	int c;

	while ((c = getopt_long(argc, argv, "+t:hV", lopts, NULL)) != -1) {
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
				uet_err("--color %s: auto, always or never", optarg);
				return UET_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return UET_EXIT_OK;
		case 'V':
			puts(UET_PROG " " UE_VERSION);
			return UET_EXIT_OK;
		default:
			usage(stderr);
			return UET_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return UET_EXIT_USAGE;
	}
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
		uet_err("unknown command '%s' (see " UET_PROG " --help)", cmd);
		return UET_EXIT_USAGE;
	}
	/* Help, and enable's usage, need no tracefs: the command prints them first. */
	if ((argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) ||
	    (argc < 2 && (strcmp(cmd, "enable") == 0 || strcmp(cmd, "disable") == 0))) {
		if (strcmp(cmd, "list") == 0)
			return uet_cmd_list("", argc, argv);
		if (strcmp(cmd, "enable") == 0 || strcmp(cmd, "disable") == 0)
			return uet_cmd_enable("", argc, argv, true);
		if (strcmp(cmd, "stream") == 0)
			return uet_cmd_stream("", argc, argv);
		return uet_cmd_stats("", argc, argv);
	}
	if (uet_tracefs_find(opt_tracefs, tracefs, sizeof(tracefs)) < 0) {
		uet_err("no tracefs with user_events found (use --tracefs DIR or USEREVENTS_TRACEFS)");
		return UET_EXIT_NO_TRACEFS;
	}
	/* Not one (--tracefs /tmp): every command says so alike. */
	if (uet_tracefs_check(tracefs) < 0)
		return UET_EXIT_NO_TRACEFS;
	if (strcmp(cmd, "list") == 0)
		return uet_cmd_list(tracefs, argc, argv);
	if (strcmp(cmd, "enable") == 0)
		return uet_cmd_enable(tracefs, argc, argv, true);
	if (strcmp(cmd, "disable") == 0)
		return uet_cmd_enable(tracefs, argc, argv, false);
	if (strcmp(cmd, "stream") == 0)
		return uet_cmd_stream(tracefs, argc, argv);
	return uet_cmd_stats(tracefs, argc, argv);
}
