/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters, the matcher: a program from filter-parse.c run over a
 * record as Linux 6.12 evaluates it (numbers, CPU, comm, strings, globs),
 * without ever reading outside the record.
 */
#include <string.h>

#include "core.h"
#include "filter-int.h"

/* The kernel's TASK_COMM_LEN: the bytes of comm a "comm" predicate sees. */
#define COMM_LEN 16

/* Bytes [off, off + n) of a record of @len bytes, or NULL when they are not all inside. */
static const unsigned char *in_record(const unsigned char *rec, size_t len, uint64_t off,
				      uint64_t n)
{
	if (off > len || n > len - off)
		return NULL;
	return rec + off;
}

/* The kernel's glob_match_len(): *, ?, [...] (with ! and ranges), \ escapes. */
static bool glob_match(const char *pat, const unsigned char *str, const unsigned char *end)
{
	const char *back_pat = NULL;
	const unsigned char *back_str = NULL;

	for (;;) {
		unsigned char c = str >= end ? '\0' : *str;
		unsigned char d = (unsigned char)*pat++;

		str++;
		switch (d) {
		case '?':
			if (!c)
				return false;
			break;
		case '*':
			if (!*pat)
				return true;
			back_pat = pat;
			back_str = --str;
			break;
		case '[': {
			bool match = false, inverted = *pat == '!';
			const char *cls = pat + inverted;
			unsigned char a = (unsigned char)*cls++;

			if (!c)
				return false;
			do {
				unsigned char b = a;

				if (!a)
					goto literal;
				if (cls[0] == '-' && cls[1] != ']') {
					b = (unsigned char)cls[1];
					if (!b)
						goto literal;
					cls += 2;
				}
				match |= a <= c && c <= b;
			} while ((a = (unsigned char)*cls++) != ']');
			if (match == inverted)
				goto backtrack;
			pat = cls;
			break;
		}
		case '\\':
			d = (unsigned char)*pat++;
			/* fall through */
		default:
literal:
			if (c == d) {
				if (!d)
					return true;
				break;
			}
backtrack:
			if (!c || !back_pat)
				return false;
			pat = back_pat;
			str = ++back_str;
			break;
		}
	}
}

/*
 * A string of @len bytes the kernel reads with a bound (static arrays, the
 * length of a location word, the comm): all of it is in memory.
 */
static bool match_bounded(const struct pred *p, const unsigned char *s, size_t len)
{
	switch (p->match) {
	case MK_FULL:
		return len >= p->plen && strncmp((const char *)s, p->pattern, len) == 0;
	case MK_FRONT:
		return len >= p->plen && strncmp((const char *)s, p->pattern, p->plen) == 0;
	case MK_MIDDLE:
		/* The kernel's strnstr(): a memcmp at each offset, NULs included. */
		for (size_t i = 0; i + p->plen <= len; i++)
			if (!memcmp(s + i, p->pattern, p->plen))
				return true;
		return p->plen == 0;
	case MK_END:
		return len >= 1 && len - 1 >= p->plen &&
		       !memcmp(s + len - 1 - p->plen, p->pattern, p->plen);
	case MK_GLOB:
		return glob_match(p->pattern, s, s + len);
	}
	return false;
}

/*
 * A dynamic string whose location gives length 0: the kernel reads it up
 * to its NUL.  Returns -1 when that read would leave the record.
 */
static int match_unbounded(const struct pred *p, const unsigned char *rec, size_t len,
			   uint64_t off)
{
	const unsigned char *s = off < len ? rec + off : NULL;
	size_t avail = s ? len - off : 0;
	const unsigned char empty = '\0';

	switch (p->match) {
	case MK_END:
		return 0;
	case MK_GLOB:
		/* Read as the empty string: the kernel bounds it by its length, 0. */
		return glob_match(p->pattern, &empty, &empty);
	case MK_FULL:
		for (size_t i = 0;; i++) {
			if (i >= avail)
				return -1;
			if (s[i] != (unsigned char)p->pattern[i])
				return 0;
			if (!s[i])
				return 1;
		}
	case MK_FRONT:
		for (size_t i = 0; i < p->plen; i++) {
			if (i >= avail)
				return -1;
			if (s[i] != (unsigned char)p->pattern[i])
				return 0;
		}
		return 1;
	case MK_MIDDLE:
		if (!p->plen)
			return 1;
		if (!s || !memchr(s, 0, avail))
			return -1;
		return strstr((const char *)s, p->pattern) != NULL;
	}
	return 0;
}

static uint64_t load(const unsigned char *a, uint32_t size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1: memcpy(&v8, a, 1); return v8;
	case 2: memcpy(&v16, a, 2); return v16;
	case 4: memcpy(&v32, a, 4); return v32;
	default: memcpy(&v64, a, 8); return v64;
	}
}

/* Sign-extends the low @size bytes of @v. */
static int64_t sext(uint64_t v, uint32_t size)
{
	unsigned int shift = 64 - 8 * size;

	return (int64_t)(v << shift) >> shift;
}

static int compare(const struct pred *p, uint64_t field)
{
	uint64_t mask = p->size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * p->size)) - 1;
	uint64_t uv = p->val & mask, uf = field & mask;
	int64_t sv = sext(uv, p->size), sf = sext(uf, p->size);

	switch (p->op) {
	case OP_EQ:
	case OP_NE:
		return (uf == uv) ^ p->not;
	case OP_LT: return p->is_signed ? sf < sv : uf < uv;
	case OP_LE: return p->is_signed ? sf <= sv : uf <= uv;
	case OP_GT: return p->is_signed ? sf > sv : uf > uv;
	case OP_GE: return p->is_signed ? sf >= sv : uf >= uv;
	case OP_BAND: return (uf & uv) != 0;
	default: return 0;
	}
}

static int compare_cpu(const struct pred *p, unsigned int ctx_cpu)
{
	int cpu = (int)ctx_cpu, v = (int)(uint32_t)p->val;

	switch (p->op) {
	case OP_EQ: return cpu == v;
	case OP_NE: return cpu != v;
	case OP_LT: return cpu < v;
	case OP_LE: return cpu <= v;
	case OP_GT: return cpu > v;
	case OP_GE: return cpu >= v;
	default: return 0;
	}
}

/* One predicate; what cannot be read inside the record yields 0 (see ue_filter_match()). */
static int eval(const struct pred *p, const unsigned char *rec, size_t len,
		const struct ue_filter_ctx *ctx)
{
	const unsigned char *a;
	uint64_t off;
	uint32_t loc, slen;
	int r;

	switch (p->kind) {
	case PK_NOP:
		return 0;
	case PK_NUM:
		a = in_record(rec, len, p->offset, p->size);
		return a ? compare(p, load(a, p->size)) : 0;
	case PK_CPU:
		return compare_cpu(p, ctx ? ctx->cpu : 0);
	case PK_COMM: {
		unsigned char comm[COMM_LEN] = { 0 };
		const char *c = ctx && ctx->comm ? ctx->comm : "";

		memcpy(comm, c, strnlen(c, COMM_LEN - 1));
		return match_bounded(p, comm, COMM_LEN) ^ p->not;
	}
	case PK_STATIC:
		a = in_record(rec, len, p->offset, p->size);
		return a ? match_bounded(p, a, p->size) ^ p->not : 0;
	case PK_DYN:
	case PK_RDYN:
		a = in_record(rec, len, p->offset, 4);
		if (!a)
			return 0;
		loc = (uint32_t)load(a, 4);
		slen = loc >> 16;
		off = (loc & 0xffff) + (p->kind == PK_RDYN ? p->offset + 4 : 0);
		if (!slen) {
			r = match_unbounded(p, rec, len, off);
			return r < 0 ? 0 : r ^ p->not;
		}
		a = in_record(rec, len, off, slen);
		return a ? match_bounded(p, a, slen) ^ p->not : 0;
	}
	return 0;
}

/**
 * ue_filter_match - whether a record passes a filter
 * @f: a filter from ue_filter_parse(); NULL passes everything
 * @record: the common header then the payload
 * @len: the record's length in bytes (nothing past it is read)
 * @ctx: the CPU and comm of the writer (NULL: CPU 0, comm "")
 *
 * Return: true when the record passes (see core.h for unreadable fields).
 */
bool ue_filter_match(const struct ue_filter *f, const void *record, size_t len,
		     const struct ue_filter_ctx *ctx)
{
	int i;

	if (!f)
		return true;
	if (!record)
		len = 0;
	for (i = 0; f->prog[i].pred; i++) {
		if (eval(f->prog[i].pred, record, len, ctx) == f->prog[i].when_to_branch)
			i = f->prog[i].target;
	}
	return f->prog[i].target;
}
