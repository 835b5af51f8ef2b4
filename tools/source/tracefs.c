// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracefs access for the userevents tool: finding a tracefs that serves
 * user_events (usereventsd's or the kernel's), reading and writing its
 * files, listing its user events (parsed from their format files, whose
 * text is kept for recordings), matching them against globs, and summing
 * the per-CPU buffer counters.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "format-parse.h"
#include "tracefs.h"
#include "util.h"

const char *const uet_systems[2] = { "user_events", "user_events_multi" };

clockid_t uet_trace_clockid(const char *tracefs)
{
	char *t = tracefs ? uet_read(tracefs, "trace_clock", NULL) : NULL, *b, *e;
	clockid_t c;

	b = t ? strchr(t, '[') : NULL;
	e = b ? strchr(b, ']') : NULL;
	if (e)
		*e = '\0';
	c = uet_clock_named(e ? b + 1 : NULL);
	free(t);
	return c;
}

int uet_tracefs_resolve(const char *opt, char *out, size_t len)
{
	if (uet_tracefs_find(opt, out, len) < 0) {
		uet_err("no tracefs with user_events found: start a daemon (usereventsd MOUNTPOINT), "
			"trace one program with a private one (" UET_PROG " run -- CMD), or name one "
			"(--tracefs DIR or USEREVENTS_TRACEFS)");
		return UET_EXIT_NO_TRACEFS;
	}
	/* Not one (--tracefs /tmp): every command says so alike. */
	return uet_tracefs_check(out) < 0 ? UET_EXIT_NO_TRACEFS : 0;
}

static bool has_data_file(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/user_events_data", dir);
	return access(p, F_OK) == 0;
}

/* The last (most recent) usereventsd mount of this mount namespace. */
static int find_daemon_mount(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int r = -ENOENT;

	if (!f)
		return -ENOENT;
	while (getline(&line, &cap, f) > 0) {
		struct ue_mount_entry m;

		if (ue_mountinfo_split(line, &m) < 0 || !ue_mount_is_usereventsd(&m))
			continue;
		ue_mountinfo_unescape(m.mount_point);
		/* A dead daemon's mount too: uet_tracefs_check() says so, and what to do. */
		if (strlen(m.mount_point) < len &&
		    (has_data_file(m.mount_point) || errno == ENOTCONN)) {
			strcpy(out, m.mount_point);
			r = 0;
		}
	}
	free(line);
	fclose(f);
	return r;
}

/* A FUSE mount whose daemon is gone: its error, and what to do. */
static int say_dead(const char *dir)
{
	uet_err("%s: %s: its usereventsd is gone; unmount it (fusermount3 -uz %s) and start "
		"usereventsd %s again, or trace one program with a private one (" UET_PROG
		" run -- CMD)", dir, strerror(ENOTCONN), dir, dir);
	return -ENOTCONN;
}

int uet_tracefs_check(const char *dir)
{
	struct statfs sfs;
	struct stat st;

	if (stat(dir, &st) < 0) {
		int e = -errno;

		if (e == -ENOTCONN)
			return say_dead(dir);
		uet_err("%s: %s", dir, strerror(-e));
		return e;
	}
	/* statfs reaches a FUSE daemon (a cached stat may not): a dead one answers ENOTCONN. */
	if (statfs(dir, &sfs) < 0 && errno == ENOTCONN)
		return say_dead(dir);
	if (!has_data_file(dir)) {
		int e = errno;

		/* Not ours to look into (a tracefs is root's): said so, not "not a tracefs". */
		if (e == EACCES || e == EPERM) {
			uet_err("%s/user_events_data: %s", dir, strerror(e));
			return -e;
		}
		uet_err("%s: not a tracefs with user_events (no user_events_data there)", dir);
		return -ENOENT;
	}
	return 0;
}

int uet_tracefs_find(const char *opt, char *out, size_t len)
{
	const char *env = getenv("USEREVENTS_TRACEFS");

	if (opt || (env && *env)) {
		const char *d = opt ? opt : env;

		if (strlen(d) >= len)
			return -ENAMETOOLONG;
		strcpy(out, d);
		return 0;
	}
	if (find_daemon_mount(out, len) == 0)
		return 0;
	if (has_data_file("/sys/kernel/tracing")) {
		snprintf(out, len, "/sys/kernel/tracing");
		return 0;
	}
	return -ENOENT;
}

static int cmp_event(const void *a, const void *b)
{
	const struct uet_event *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

static int load_one(const char *tracefs, const char *sys, const char *name, struct uet_event *ev)
{
	char rel[512];
	char *text;
	size_t len;
	int r;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->system, sizeof(ev->system), "%s", sys);
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	text = uet_read(tracefs, rel, &len);
	if (!text)
		return -errno;
	r = ue_format_parse(text, len, &ev->desc, &ev->id);
	if (r < 0) {
		free(text);
		return r;
	}
	ev->format = text;
	ev->format_len = len;
	snprintf(rel, sizeof(rel), "events/%s/%s/enable", sys, name);
	text = uet_read(tracefs, rel, NULL);
	ev->enabled = text ? (text[0] == '1') : -1;
	free(text);
	return 0;
}

int uet_events_load(const char *tracefs, struct uet_events *ret)
{
	struct uet_events evs = { 0 };
	size_t cap = 0;

	for (size_t s = 0; s < 2; s++) {
		char p[4096];
		struct dirent *de;
		DIR *d;

		snprintf(p, sizeof(p), "%s/events/%s", tracefs, uet_systems[s]);
		d = opendir(p);
		if (!d) {
			if (errno == ENOENT)
				continue;
			uet_events_free(&evs);
			return -errno;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' || strcmp(de->d_name, "enable") == 0 ||
			    strcmp(de->d_name, "filter") == 0)
				continue;
			if (evs.n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct uet_event *nv = realloc(evs.v, ncap * sizeof(*nv));

				if (!nv) {
					closedir(d);
					uet_events_free(&evs);
					return -ENOMEM;
				}
				evs.v = nv;
				cap = ncap;
			}
			/* Deleted between readdir and open: not an event any more. */
			if (load_one(tracefs, uet_systems[s], de->d_name, &evs.v[evs.n]) == 0)
				evs.n++;
		}
		closedir(d);
	}
	if (evs.n)
		qsort(evs.v, evs.n, sizeof(*evs.v), cmp_event);
	*ret = evs;
	return 0;
}

void uet_events_free(struct uet_events *evs)
{
	for (size_t i = 0; i < evs->n; i++) {
		ue_event_free(evs->v[i].desc);
		free(evs->v[i].format);
	}
	free(evs->v);
	evs->v = NULL;
	evs->n = 0;
}

struct uet_event *uet_events_find_id(struct uet_events *evs, unsigned int id)
{
	for (size_t i = 0; i < evs->n; i++)
		if (evs->v[i].id == id)
			return &evs->v[i];
	return NULL;
}

bool uet_glob_match(const char *glob, const char *system, const char *name)
{
	struct ue_arm spec;

	/* A -p PROVIDER[:LEVEL[:KEYWORDS]] among the -e GLOBs (uet_opts_parse()). */
	if (glob[0] == UET_PROVIDER_TAG[0])
		return ue_arm_parse(UE_ARM_PROVIDER, glob + 1, strlen(glob + 1), &spec) == 0 &&
		       ue_arm_match(&spec, system, name);
	return ue_glob_match(glob, system, name);
}

int uet_set_enable(const char *tracefs, struct uet_events *evs, const char *glob, bool on)
{
	int count = 0;

	for (size_t i = 0; i < evs->n; i++) {
		struct uet_event *ev = &evs->v[i];
		char rel[512];
		int r;

		if (!uet_glob_match(glob, ev->system, ev->name))
			continue;
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", ev->system, ev->name);
		r = uet_write(tracefs, rel, on ? "1" : "0");
		/* Deleted since we listed it: nothing to enable any more. */
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			uet_err("%s %s:%s: %s", on ? "enable" : "disable", ev->system, ev->name,
				strerror(-r));
			return r;
		}
		ev->enabled = on;
		count++;
	}
	return count;
}

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

/* How long the native path's rings may take to drain after the command exits. */
#define SETTLE_MAX_MS 2000

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
