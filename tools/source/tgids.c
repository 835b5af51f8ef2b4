// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Which process a thread belongs to.  A record carries only its thread id
 * (common_pid); its process id (the thread group id) comes from the text of
 * the kernel's saved_tgids ("PID TGID\n" a line: a recording's, or a live
 * tracefs's) and, live, from /proc/TID/status ("Tgid:").  Each answer is
 * cached, an unknown one too, so a thread costs one look-up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgids.h"
#include "util.h"

struct tgid_slot {
	int32_t tid;		/* the key; slots with tid 0 are free (pid 0 is not cached) */
	int32_t tgid;		/* 0: not known */
};

struct uet_tgids {
	char *tracefs;		/* live: its saved_tgids read again when /proc has no answer */
	struct tgid_slot *v;
	size_t cap, n;		/* cap: a power of two */
	size_t known;		/* slots with a tgid */
	char *saved;		/* the last saved_tgids text read from the tracefs */
};

static size_t slot_of(const struct uet_tgids *t, int32_t tid)
{
	size_t k = ((uint32_t)tid * 2654435761u) & (t->cap - 1);

	while (t->v[k].tid && t->v[k].tid != tid)
		k = (k + 1) & (t->cap - 1);
	return k;
}

/* Note @tgid (0: unknown) for @tid; a known answer is not replaced by an unknown one. */
static int put(struct uet_tgids *t, int32_t tid, int32_t tgid)
{
	size_t k;

	if (tid <= 0)
		return 0;
	if (2 * (t->n + 1) > t->cap) {
		struct tgid_slot *old = t->v;
		size_t ocap = t->cap;

		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = calloc(t->cap, sizeof(*t->v));
		if (!t->v) {
			t->v = old;
			t->cap = ocap;
			return -ENOMEM;
		}
		for (size_t i = 0; i < ocap; i++)
			if (old[i].tid)
				t->v[slot_of(t, old[i].tid)] = old[i];
		free(old);
	}
	k = slot_of(t, tid);
	if (!t->v[k].tid) {
		t->v[k].tid = tid;
		t->n++;
	} else if (!tgid || t->v[k].tgid == tgid) {
		return 0;
	}
	t->known += !t->v[k].tgid && tgid;
	t->v[k].tgid = tgid;
	return 0;
}

struct uet_tgids *uet_tgids_new(const char *tracefs)
{
	struct uet_tgids *t = calloc(1, sizeof(*t));

	if (t && tracefs && !(t->tracefs = strdup(tracefs))) {
		free(t);
		t = NULL;
	}
	return t;
}

void uet_tgids_free(struct uet_tgids *t)
{
	if (!t)
		return;
	free(t->tracefs);
	free(t->v);
	free(t->saved);
	free(t);
}

int uet_tgids_parse(struct uet_tgids *t, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char line[32], *e1, *e2 = NULL;
		size_t n = (size_t)((nl ? nl : end) - p);
		long pid, tgid;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			pid = strtol(line, &e1, 10);
			tgid = e1 != line && *e1 == ' ' ? strtol(e1 + 1, &e2, 10) : 0;
			if (pid > 0 && pid <= INT32_MAX && tgid > 0 && tgid <= INT32_MAX &&
			    e2 && e2 != e1 + 1 && !*e2 && put(t, (int32_t)pid, (int32_t)tgid) < 0)
				return -ENOMEM;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* The "Tgid:" of /proc/TID/status, or 0. */
static int32_t proc_tgid(int32_t tid)
{
	char path[40], line[128];
	int32_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Tgid:", 5) == 0) {
			long v = strtol(line + 5, NULL, 10);

			tgid = v > 0 && v <= INT32_MAX ? (int32_t)v : 0;
			break;
		}
	fclose(f);
	return tgid;
}

/* Live: the tracefs's saved_tgids read again, when it changed since the last time. */
static void refresh(struct uet_tgids *t)
{
	size_t len;
	char *s = t->tracefs ? uet_read(t->tracefs, "saved_tgids", &len) : NULL;

	if (!s)
		return;
	if (t->saved && strcmp(s, t->saved) == 0) {
		free(s);
		return;
	}
	uet_tgids_parse(t, s, len);
	free(t->saved);
	t->saved = s;
}

int32_t uet_tgids_get(struct uet_tgids *t, int32_t tid)
{
	int32_t tgid;
	size_t k;

	if (!t || tid <= 0)
		return 0;
	if (t->cap) {
		k = slot_of(t, tid);
		if (t->v[k].tid)
			return t->v[k].tgid;
	}
	if (!t->tracefs)
		return 0;
	/*
	 * Live: the thread as it is now, else what the tracefs noted (a thread
	 * gone before its records were read: usereventsd notes every writer's;
	 * the kernel, with options/record-tgid set).
	 */
	tgid = proc_tgid(tid);
	if (!tgid) {
		refresh(t);
		k = t->cap ? slot_of(t, tid) : 0;
		if (t->cap && t->v[k].tid)
			return t->v[k].tgid;
	}
	put(t, tid, tgid);
	return tgid;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct tgid_slot *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

char *uet_tgids_text(struct uet_tgids *t, size_t *ret_len)
{
	struct tgid_slot *v = malloc((t->known ? t->known : 1) * sizeof(*v));
	size_t n = 0, len = 0;
	char *text;

	if (!v)
		return NULL;
	for (size_t i = 0; i < t->cap; i++)
		if (t->v[i].tid && t->v[i].tgid)
			v[n++] = t->v[i];
	qsort(v, n, sizeof(*v), cmp_slot);
	text = malloc(n * 24 + 1);
	if (text) {
		for (size_t i = 0; i < n; i++)
			len += (size_t)sprintf(text + len, "%d %d\n", (int)v[i].tid, (int)v[i].tgid);
		text[len] = '\0';
		*ret_len = len;
	}
	free(v);
	return text;
}

size_t uet_tgids_known(const struct uet_tgids *t)
{
	return t ? t->known : 0;
}
