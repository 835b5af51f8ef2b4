// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The formats of binary records (record, report, stream --json, export,
 * top), kept by type id: a recording needs the format of an event that is
 * gone by the time it is written, and a type id is reused at once by the
 * next event registered (uet_formats_lookup()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventheader.h"
#include "format-parse.h"
#include "formats.h"
#include "rbpage.h"
#include "tracefs.h"
#include "util.h"

/* FNV-1a of a format's text. */
static uint64_t text_hash(const char *text, size_t len)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)text[i]) * UINT64_C(0x100000001b3);
	return h;
}

/*
 * Two open-addressing indexes of f->v, by the hash of the text and by id
 * (a slot holds an index + 1; 0 is empty), so that adding and finding stay
 * constant-time with thousands of formats (a trace.dat may hold 65536).
 * The text index keeps the entry of a format that was replaced: it fails
 * the comparison, and the next rebuild drops it.
 */
static size_t ix_home(uint64_t key, size_t cap)
{
	return (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);
}

static void ix_put(size_t *t, size_t cap, uint64_t key, size_t i)
{
	size_t s = ix_home(key, cap);

	while (t[s])
		s = (s + 1) & (cap - 1);
	t[s] = i + 1;
}

/* Room in the indexes for one more entry; 0 or -ENOMEM (nothing changed). */
static int ix_reserve(struct uet_formats *f)
{
	size_t cap = 64, *by_text, *by_id;

	if ((f->ix_used + 1) * 2 <= f->ix_cap)
		return 0;
	while (cap < 4 * (f->n + 1))
		cap *= 2;
	by_text = calloc(cap, sizeof(*by_text));
	by_id = calloc(cap, sizeof(*by_id));
	if (!by_text || !by_id) {
		free(by_text);
		free(by_id);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->n; i++) {
		ix_put(by_text, cap, f->v[i].hash, i);
		ix_put(by_id, cap, f->v[i].id, i);
	}
	free(f->by_text);
	free(f->by_id);
	f->by_text = by_text;
	f->by_id = by_id;
	f->ix_cap = cap;
	f->ix_used = f->n;
	return 0;
}

static bool kept(const struct uet_formats *f, const char *system, const char *text, size_t len,
		 uint64_t hash)
{
	for (size_t s = f->ix_cap ? ix_home(hash, f->ix_cap) : 0; f->ix_cap && f->by_text[s];
	     s = (s + 1) & (f->ix_cap - 1)) {
		const struct uet_format *k = &f->v[f->by_text[s] - 1];

		if (k->hash == hash && k->len == len && memcmp(k->text, text, len) == 0 &&
		    strcmp(k->system, system) == 0)
			return true;
	}
	return false;
}

static struct uet_format *find_id(const struct uet_formats *f, unsigned int id)
{
	for (size_t s = f->ix_cap ? ix_home(id, f->ix_cap) : 0; f->ix_cap && f->by_id[s];
	     s = (s + 1) & (f->ix_cap - 1))
		if (f->v[f->by_id[s] - 1].id == id)
			return &f->v[f->by_id[s] - 1];
	return NULL;
}

int uet_formats_add(struct uet_formats *f, const char *system, const char *text, size_t len)
{
	struct uet_format nf = { 0 }, *slot;
	uint64_t hash = text_hash(text, len);
	int r;

	if (strlen(system) >= sizeof(nf.system))
		return -EINVAL;
	/* Called on every scan of the tracefs: a text already kept costs no parse. */
	if (kept(f, system, text, len, hash))
		return 0;
	r = ue_format_parse(text, len, &nf.desc, &nf.id);
	if (r < 0)
		return r;
	/* Found: the type now belongs to another event. */
	slot = find_id(f, nf.id);
	nf.text = malloc(len + 1);
	r = nf.text ? ix_reserve(f) : -ENOMEM;
	if (r == 0 && !slot && f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;
		struct uet_format *nv = realloc(f->v, cap * sizeof(*nv));

		if (nv) {
			f->v = nv;
			f->cap = cap;
		} else {
			r = -ENOMEM;
		}
	}
	if (r < 0) {
		free(nf.text);
		ue_event_free(nf.desc);
		return r;
	}
	memcpy(nf.text, text, len);
	nf.text[len] = '\0';
	nf.len = len;
	nf.hash = hash;
	snprintf(nf.system, sizeof(nf.system), "%s", system);
	/* Asked of every record it renders: decided once. */
	nf.eventheader = strcmp(nf.system, "user_events") == 0 && ueh_is_format(nf.desc);
	if (ue_json_keys_new(nf.desc, nf.system, nf.desc->name, &nf.json) < 0)
		nf.json = NULL;
	if (!slot) {
		slot = &f->v[f->n++];
		ix_put(f->by_id, f->ix_cap, nf.id, (size_t)(slot - f->v));
	} else {
		free(slot->text);
		ue_event_free(slot->desc);
		ue_json_keys_free(slot->json);
	}
	*slot = nf;
	ix_put(f->by_text, f->ix_cap, hash, (size_t)(slot - f->v));
	f->ix_used++;
	return f->on_new ? f->on_new(f->on_new_arg, slot) : 0;
}

int uet_formats_add_events(struct uet_formats *f, const struct uet_events *evs)
{
	for (size_t i = 0; i < evs->n; i++) {
		const struct uet_event *ev = &evs->v[i];
		int r;

		if (!ev->format)
			continue;
		r = uet_formats_add(f, ev->system, ev->format, ev->format_len);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

const struct uet_format *uet_formats_find(const struct uet_formats *f, unsigned int id)
{
	return find_id(f, id);
}

/* Whether events/SYSTEM/NAME/id of @k's event still says its type. */
static bool still_its(const char *tracefs, const struct uet_format *k)
{
	char rel[512], *text, *end;
	unsigned long v;
	bool same;

	snprintf(rel, sizeof(rel), "events/%s/%s/id", k->system, k->desc->name);
	text = uet_read(tracefs, rel, NULL);
	if (!text)
		return false;
	errno = 0;
	v = strtoul(text, &end, 10);
	same = !errno && end != text && (*end == '\n' || !*end) && v == k->id;
	free(text);
	return same;
}

const struct uet_format *uet_formats_lookup(struct uet_formats *f, const char *tracefs,
					    unsigned int id, struct uet_batch *b)
{
	struct uet_format *k = find_id(f, id);
	struct uet_events evs;

	if (k && k->checked == b->n)
		return k;
	if (k && still_its(tracefs, k)) {
		k->checked = b->n;
		return k;
	}
	/* Not known, or the type now another event's (or none's). */
	if (b->rescanned)
		return NULL;
	b->rescanned = true;
	if (uet_events_load(tracefs, &evs) < 0)
		return NULL;
	uet_formats_add_events(f, &evs);
	uet_events_free(&evs);
	k = find_id(f, id);
	if (!k || !still_its(tracefs, k))
		return NULL;
	k->checked = b->n;
	return k;
}

void uet_formats_free(struct uet_formats *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].text);
		ue_event_free(f->v[i].desc);
		ue_json_keys_free(f->v[i].json);
	}
	free(f->v);
	free(f->by_text);
	free(f->by_id);
	*f = (struct uet_formats){ 0 };
}
