// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the tracing commands share: options, the signals that end them,
 * events enabled as they get registered, the wait for native rings to
 * drain, drop counters.  The traced command is child.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "formats.h"
#include "launch.h"
#include "opts.h"
#include "sink.h"
#include "tracefs.h"
#include "util.h"

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

/*
 * The tracefs's events as they are now, for globs no scan matched: the last
 * scan may be up to a second old (armed in usereventsd), and a reader cut
 * short (| head) ends before the next one saw an event whose records it
 * showed.  Marks only: nothing is enabled.
 */
static void autoenable_match_now(struct uet_autoenable *a)
{
	struct uet_events evs;
	size_t g;

	for (g = 0; g < a->nglobs && a->matched[g]; g++)
		;
	if (g == a->nglobs || !a->tracefs || uet_events_load(a->tracefs, &evs) < 0)
		return;
	for (size_t i = 0; i < evs.n; i++)
		uet_autoenable_saw(a, evs.v[i].system, evs.v[i].name);
	uet_events_free(&evs);
}

size_t uet_autoenable_unmatched(struct uet_autoenable *a)
{
	size_t n = 0;

	/* CMD's daemon is gone with it: what its scans saw is all there is. */
	if (a->matched && !a->default_globs && !a->with_cmd)
		autoenable_match_now(a);

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
		   struct uet_autoenable *a, bool arm_in_reader, struct uet_private **priv,
		   char *tracefs, size_t len, unsigned int *ncpus)
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
				      .default_globs = o->default_globs,
				      .arm_in_reader = arm_in_reader && !cmd->argv };
	/* Armed before CMD starts: its first write is kept. */
	if ((!a->arm_in_reader && uet_autoenable_start(a, !cmd->argv) < 0) ||
	    (cmd->argv && uet_child_start(cmd, tracefs) < 0))
		return fail;
	return 0;
}

int uet_live_status(const char *who, struct uet_autoenable *a, struct uet_child *cmd,
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
