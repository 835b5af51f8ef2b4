/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to core/otlp*.c: the writer's primitives (otlp.c). */
#ifndef UE_CORE_OTLP_INT_H
#define UE_CORE_OTLP_INT_H

#include "otlp.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

void uo__put(struct uo_w *w, const void *p, size_t n);
void uo__putc(struct uo_w *w, char c);
void uo__varint(struct uo_w *w, uint64_t v);
/* A field's tag: @f, or the open array's field. */
void uo__tag(struct uo_w *w, uint32_t f, unsigned wt);
/* JSON: the separator, and "name": outside arrays. */
void uo__key(struct uo_w *w, const char *name);

/*
 * @s as UTF-8, each invalid byte a U+FFFD, JSON-escaped with @json; written
 * with @write; the size it takes either way.
 */
size_t uo__text(struct uo_w *w, const uint8_t *s, size_t n, bool json, bool write);

/* Open an AnyValue message where it goes (uo_any_field(), or a kv's value). */
void uo__any_begin(struct uo_w *w);

#endif
