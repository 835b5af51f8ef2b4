// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Whether a second description names the same fields as an event: the
 * kernel compares text, word by word, after splitting on white space, so
 * "u32 a;u32 b" finds "u32 a; u32 b" but char[0x14] never finds char[20].
 * Linear in the length of both descriptions; allocates nothing.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

bool ue_words_next(struct ue_words *w, const char **ret_word, size_t *ret_len)
{
	const char *p = ue_kskip_spaces(w->pos), *start = p;

	while (*p && !ue_kspace(*p))
		if (*p++ == ';' && w->split_semis)
			break;
	w->pos = p;
	*ret_word = start;
	*ret_len = (size_t)(p - start);
	return p != start;
}

/* The text a field must equal, in pieces, consumed from the front. */
struct expected {
	const char *piece[5];
	size_t len[5];
	unsigned int n, i;
	size_t off;
};

static void expect_add(struct expected *e, const char *s, size_t len)
{
	e->piece[e->n] = s;
	e->len[e->n++] = len;
}

static bool expect_eat(struct expected *e, const char *s, size_t n)
{
	while (n) {
		size_t avail, k;

		if (e->i == e->n)
			return false;
		avail = e->len[e->i] - e->off;
		k = n < avail ? n : avail;
		if (memcmp(e->piece[e->i] + e->off, s, k) != 0)
			return false;
		s += k;
		n -= k;
		e->off += k;
		if (e->off == e->len[e->i]) {
			e->i++;
			e->off = 0;
		}
	}
	return true;
}

static bool expect_done(const struct expected *e)
{
	for (unsigned int i = e->i; i < e->n; i++)
		if (e->len[i] > (i == e->i ? e->off : 0))
			return false;
	return true;
}

/*
 * The words that describe one field run up to and including the first word
 * with a ';'; joined by single spaces they must read "TYPE NAME", plus
 * " SIZE" for a struct and ";" when such a word ended them.
 */
static bool field_match(const struct ue_field *f, struct ue_words *w)
{
	struct ue_words ahead = *w;
	struct expected e = { .n = 0 };
	const char *word;
	size_t len, count = 0;
	bool semi = false;
	char size[16];

	while (ue_words_next(&ahead, &word, &len)) {
		count++;
		if (memchr(word, ';', len)) {
			semi = true;
			break;
		}
	}
	if (!count)
		return false;

	expect_add(&e, f->type, strlen(f->type));
	expect_add(&e, " ", 1);
	expect_add(&e, f->name, strlen(f->name));
	if (strncmp(f->type, "struct ", 7) == 0) {
		int n = snprintf(size, sizeof(size), " %d", (int)f->size);

		expect_add(&e, size, (size_t)n);
	}
	if (semi)
		expect_add(&e, ";", 1);

	for (size_t i = 0; i < count; i++) {
		ue_words_next(w, &word, &len);
		if ((i && !expect_eat(&e, " ", 1)) || !expect_eat(&e, word, len))
			return false;
	}
	return expect_done(&e);
}

bool ue_fields_match_words(const struct ue_event *event, struct ue_words *w)
{
	struct ue_words probe = *w;
	const char *word;
	size_t len;

	if (!ue_words_next(&probe, &word, &len))
		return event->nfields == 0;
	for (uint32_t i = 0; i < event->nfields; i++)
		if (!field_match(&event->fields[i], w))
			return false;
	return !ue_words_next(w, &word, &len);
}

bool ue_event_match_args(const struct ue_event *event, const char *args)
{
	struct ue_words w = { .pos = args ? args : "", .split_semis = true };

	if (!event)
		return false;
	return ue_fields_match_words(event, &w);
}
