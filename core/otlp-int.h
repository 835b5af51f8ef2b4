/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to core/otlp*.c: the writer's primitives (otlp.c). */
#ifndef UE_CORE_OTLP_INT_H
#define UE_CORE_OTLP_INT_H

#include <string.h>

#include "otlp.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

/*
 * Room left: what the buffer holds beyond what is written and what the open
 * messages' lengths may still take (uo_begin()).
 */
static inline size_t uo__room(const struct uo_w *w)
{
	return w->cap - w->len - w->slack;
}

static inline void uo__put(struct uo_w *w, const void *p, size_t n)
{
	if (w->overflow || n > uo__room(w)) {
		w->overflow = true;
		return;
	}
	memcpy(w->p + w->len, p, n);
	w->len += n;
}

static inline void uo__putc(struct uo_w *w, char c)
{
	if (w->overflow || !uo__room(w)) {
		w->overflow = true;
		return;
	}
	w->p[w->len++] = (uint8_t)c;
}

static inline void uo__varint(struct uo_w *w, uint64_t v)
{
	uint8_t b[10], *o = b;
	size_t n = 0;

	/* With room for the longest, in place: no copy. */
	if (!w->overflow && uo__room(w) >= sizeof(b))
		o = w->p + w->len;
	while (v >= 0x80) {
		o[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	o[n++] = (uint8_t)v;
	if (o == b)
		uo__put(w, b, n);
	else
		w->len += n;
}
/* A field's tag: @f, or the open array's field (the innermost frame is one). */
static inline void uo__tag(struct uo_w *w, uint32_t f, unsigned wt)
{
	if (w->depth && w->st[w->depth - 1].array)
		f = w->st[w->depth - 1].field;
	uo__varint(w, ((uint64_t)f << 3) | wt);
}

/* JSON: the separator, and "name": outside arrays. */
static inline void uo__key(struct uo_w *w, const char *name)
{
	bool in_array = w->depth && w->st[w->depth - 1].array;

	if (w->depth) {
		if (!w->st[w->depth - 1].first)
			uo__putc(w, ',');
		w->st[w->depth - 1].first = false;
	}
	if (!in_array) {
		uo__putc(w, '"');
		uo__put(w, name, strlen(name));
		uo__put(w, "\":", 2);
	}
}

/*
 * @s as UTF-8, each invalid byte a U+FFFD, JSON-escaped with @json; written
 * with @write; the size it takes either way.
 */
size_t uo__text(struct uo_w *w, const uint8_t *s, size_t n, bool json, bool write);

/* Open an AnyValue message where it goes (uo_any_field(), or a kv's value). */
void uo__any_begin(struct uo_w *w);

#endif
