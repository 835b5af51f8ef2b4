// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents export --otlp URL: records from every CPU's trace_pipe_raw
 * (stream's reader) to the OTLP sink (sink-otlp.c), against the running
 * daemon until a signal, or against a private one for the time of CMD as
 * run does (the exports' stats files are otlp-send.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands.h"
#include "launch.h"
#include "opts.h"
#include "otlp-export.h"
#include "sink.h"
#include "util.h"

static const char usage[] =
	"export --otlp URL [-e GLOB [-f FILTER]]... [-p PROVIDER[:LEVEL[:KEYWORDS]]]...\n"
	"        [--protocol http/protobuf|http/json] [--gzip] [--header K=V]...\n"
	"        [--batch-records N] [--batch-bytes N] [--batch-delay MS] [--queue-bytes N]\n"
	"        [--drop oldest|newest] [--timeout MS] [--retry-timeout MS] [--flush-timeout MS]\n"
	"        [-b KiB] [--blocking[=MS] | --no-blocking] [--reattach SECONDS] [-q] [--no-preload]\n"
	"        [-- CMD [ARGS]]";

/* A size: N, NK, NM or NG; false when it is not one or out of [1, 1G]. */
static bool size_arg(const char *s, size_t *out)
{
	uint64_t v;

	if (!uet_size_arg(s, &v) || v > (1ull << 30))
		return false;
	*out = (size_t)v;
	return true;
}

static bool ms_arg(const char *s, unsigned *out)
{
	char *e;
	unsigned long v = strtoul(s, &e, 10);

	if (e == s || *e || v > 3600000)
		return false;
	*out = (unsigned)v;
	return true;
}

/* What a value of export's option @name must be, for the message that refuses one. */
static const char *value_want(const char *name)
{
	static const struct {
		const char *name, *want;
	} w[] = {
		{ "otlp", "not an http:// or https:// URL" },
		{ "header", "not KEY=VALUE (at most 32, no ':' in KEY, no line break)" },
		{ "protocol", "not http/protobuf or http/json" },
		{ "batch-records", "not a count from 1 to 1000000" },
		{ "batch-bytes", "not a size from 4096 to 1G (N, NK, NM or NG)" },
		{ "queue-bytes", "not a size from 1 to 1G (N, NK, NM or NG)" },
		{ "drop", "not oldest or newest" },
		{ "timeout", "not a time in ms from 1 to 3600000" },
	};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (strcmp(name, w[i].name) == 0)
			return w[i].want;
	return "not a time in ms from 0 to 3600000";
}

/* Export's own options, taken out of argv; the rest (in @rest) for uet_opts_parse(). */
static int parse_export_opts(struct uet_otlp_opts *x, int argc, char **argv, char **rest,
			     int *nrest, char (*hdr)[1024])
{
	static const char *const takes_arg[] = { "-e", "-f", "-p", "--event", "--filter",
						 "--provider", "--reattach" };
	int i;

	rest[(*nrest)++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *val = NULL;
		char name[32];
		size_t nl;
		bool ok = true;

		if (strcmp(a, "--") == 0 || a[0] != '-')
			break;
		if (strncmp(a, "--", 2) != 0) {
			rest[(*nrest)++] = argv[i];
			for (size_t k = 0; k < 3; k++)
				if (strcmp(a, takes_arg[k]) == 0 && i + 1 < argc)
					rest[(*nrest)++] = argv[++i];
			continue;
		}
		eq = strchr(a, '=');
		nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		snprintf(name, sizeof(name), "%.*s", (int)(nl < 31 ? nl : 31), a + 2);
		if (strcmp(name, "gzip") == 0) {
			x->gzip = true;
			continue;
		}
		if (strcmp(name, "otlp") && strcmp(name, "header") && strcmp(name, "protocol") &&
		    strcmp(name, "batch-records") && strcmp(name, "batch-bytes") &&
		    strcmp(name, "batch-delay") && strcmp(name, "queue-bytes") &&
		    strcmp(name, "drop") && strcmp(name, "timeout") &&
		    strcmp(name, "retry-timeout") && strcmp(name, "flush-timeout")) {
			rest[(*nrest)++] = argv[i];
			for (size_t k = 3; k < 7; k++)
				if (strcmp(a, takes_arg[k]) == 0 && i + 1 < argc)
					rest[(*nrest)++] = argv[++i];
			continue;
		}
		val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!val) {
			return uet_usage_err("export", usage, "option '--%s' needs a value", name);
		}
		if (strcmp(name, "otlp") == 0) {
			/* Checked here: a typo would only show at the first request. */
			ok = (strncasecmp(val, "http://", 7) == 0 && val[7]) ||
			     (strncasecmp(val, "https://", 8) == 0 && val[8]);
			x->url = val;
		} else if (strcmp(name, "header") == 0) {
			const char *k = strchr(val, '=');

			ok = k && k != val && x->nheaders < UET_OTLP_HEADERS_MAX &&
			     strcspn(val, "\r\n:") >= (size_t)(k - val) && !strpbrk(k, "\r\n");
			if (ok) {
				snprintf(hdr[x->nheaders], sizeof(hdr[0]), "%.*s: %s",
					 (int)(k - val), val, k + 1);
				x->headers[x->nheaders] = hdr[x->nheaders];
				x->nheaders++;
			}
		} else if (strcmp(name, "protocol") == 0) {
			ok = strcmp(val, "http/protobuf") == 0 || strcmp(val, "http/json") == 0;
			x->json = strcmp(val, "http/json") == 0;
		} else if (strcmp(name, "batch-records") == 0) {
			size_t n = 0;

			ok = size_arg(val, &n) && n <= 1000000;
			x->batch_records = (unsigned)n;
		} else if (strcmp(name, "batch-bytes") == 0) {
			ok = size_arg(val, &x->batch_bytes) && x->batch_bytes >= 4096;
		} else if (strcmp(name, "queue-bytes") == 0) {
			ok = size_arg(val, &x->queue_bytes);
		} else if (strcmp(name, "batch-delay") == 0) {
			ok = ms_arg(val, &x->batch_delay_ms);
		} else if (strcmp(name, "drop") == 0) {
			ok = strcmp(val, "oldest") == 0 || strcmp(val, "newest") == 0;
			x->drop_newest = strcmp(val, "newest") == 0;
		} else if (strcmp(name, "timeout") == 0) {
			ok = ms_arg(val, &x->timeout_ms) && x->timeout_ms > 0;
		} else if (strcmp(name, "retry-timeout") == 0) {
			ok = ms_arg(val, &x->retry_ms);
		} else {
			ok = ms_arg(val, &x->flush_ms);
		}
		if (!ok) {
			return uet_usage_err("export", usage, "--%s %s: %s", name, val,
					     value_want(name));
		}
	}
	for (; i < argc; i++)
		rest[(*nrest)++] = argv[i];
	rest[*nrest] = NULL;
	if (x->queue_bytes < x->batch_bytes) {
		return uet_usage_err("export", usage,
				     "--queue-bytes must hold one batch (--batch-bytes)");
	}
	return -1;
}

int uet_cmd_export(const char *tracefs_opt, int argc, char **argv)
{
	static char hdr[UET_OTLP_HEADERS_MAX][1024];
	struct uet_autoenable ae = { 0 };
	struct uet_private *priv = NULL;
	struct uet_child child = { 0 };
	struct uet_otlp_stats st = { 0 };
	struct uet_sinks sinks = { 0 };
	struct uet_otlp_opts x;
	struct uet_reattach re;
	struct uet_opts o;
	char tracefs[4096], **rest;
	unsigned int ncpus;
	int nrest = 0, e, exit_code;
	bool with_cmd;

	uet_otlp_opts_default(&x);
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: " UET_PROG " %s\n", usage);
		return UET_EXIT_OK;
	}
	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest)
		return UET_EXIT_FAIL;
	e = parse_export_opts(&x, argc, argv, rest, &nrest, hdr);
	if (e >= 0) {
		free(rest);
		return e;
	}
	e = uet_opts_parse(&o, nrest, rest,
			   UET_O_EVENT | UET_O_FILTER | UET_O_PROVIDER | UET_O_QUIET |
				   UET_O_NO_PRELOAD | UET_O_BUFFER | UET_O_REATTACH,
			   usage);
	if (e >= 0) {
		free(rest);
		return e;
	}
	/* After the other options: a misspelt --otlp is named as unknown first. */
	if (!x.url) {
		uet_opts_free(&o);
		free(rest);
		return uet_usage_err("export", usage, "no --otlp URL");
	}
	with_cmd = o.rest < nrest;
	uet_child_init(&child, "export", with_cmd ? rest + o.rest : NULL, o.no_preload);
	exit_code = with_cmd ? UET_EXIT_RUN_FAIL : UET_EXIT_FAIL;
	x.quiet = o.quiet;
	x.result = &st;
	uet_opts_all_user_events(&o);
	if (uet_sinks_add(&sinks, uet_sink_otlp_new(&x)) < 0)
		goto out;
	uet_catch_signals();
	e = uet_live_start("export", usage, tracefs_opt, &o, &child, &sinks, &ae, true, &priv,
			   tracefs, sizeof(tracefs), &ncpus);
	if (e > 0 && (exit_code = e))
		goto out;
	/* A private daemon for CMD is ours: none comes back for it. */
	re = (struct uet_reattach){ .tracefs = tracefs, .who = "export",
				    .wait_ms = priv ? 0 : o.reattach_ms, .ae = &ae };
	e = uet_stream_raw(tracefs, &o, &ae, &sinks, ncpus, with_cmd ? &child : NULL, NULL, &re);
	if (e < 0 && with_cmd) {
		/* The reading broke: the command is still ours to wait for. */
		while (!uet_child_poll(&child))
			uet_sleep_ms(50);
	}
	uet_autoenable_undo(&ae);
	/* The flush: what is queued goes, for --flush-timeout at most. */
	if (uet_sinks_end(&sinks, e == 0) < 0 && e == 0)
		e = -EIO;
	exit_code = uet_live_status("export", &ae, &child, e, false);
	if (exit_code == 0 && uet_otlp_dropped(&st))
		exit_code = UET_EXIT_DROPPED;
out:
	uet_live_end(&child, &sinks, &ae, priv);
	uet_opts_free(&o);
	free(rest);
	return exit_code;
}
