// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rbpage: encoding and decoding of the kernel's ring-buffer pages (x86-64
 * layout: 8-byte commit, 4-byte alignment).  An event is a 32-bit header
 * (type_len:5, time_delta:27), a length word when the data passes 112 bytes,
 * then the data; deltas too large for 27 bits get a time-extend event first.
 */
#include <errno.h>
#include <string.h>

#include "rbpage.h"

#define SMALL_DATA_MAX UE_RB_SMALL_DATA_MAX
#define DELTA_MASK UE_RB_DELTA_MASK

static void put32(uint8_t *at, uint32_t v)
{
	memcpy(at, &v, 4);
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* Bytes an event of @len data bytes takes, header and length word included. */
static size_t event_size(size_t len)
{
	return 4 + (len > SMALL_DATA_MAX ? 4 : 0) + align4(len);
}

void ue_rbpage_init(struct ue_rbpage *p, void *page, size_t size)
{
	if (size < UE_RB_PAGE_SIZE || size > UE_RB_PAGE_SIZE_MAX)
		size = UE_RB_PAGE_SIZE;
	p->page = page;
	p->size = size;
	p->used = 0;
	p->last_ts = 0;
	p->events = 0;
	p->reserve = 0;
	p->pending = 0;
	p->pending_ts = 0;
}

uint8_t *ue_rbpage_reserve_slow(struct ue_rbpage *p, uint64_t ts, size_t len, int *err)
{
	uint8_t *at = p->page + UE_RB_PAGE_HDR + p->used;
	size_t room = p->size - UE_RB_PAGE_HDR;
	uint64_t delta = 0;
	size_t need;

	if (!len || len > room - 8) {
		*err = -EINVAL;
		return NULL;
	}
	if (p->events) {
		if (ts < p->last_ts) {
			*err = -EINVAL;
			return NULL;
		}
		delta = ts - p->last_ts;
	}
	need = event_size(len) + (delta > DELTA_MASK ? 8 : 0);
	if (p->used + need + p->reserve > room) {
		*err = -ENOSPC;
		return NULL;
	}
	if (!p->events)
		memcpy(p->page, &ts, 8);
	if (delta > DELTA_MASK) {
		put32(at, UE_RB_TYPE_TIME_EXTEND | (uint32_t)(delta & DELTA_MASK) << 5);
		put32(at + 4, (uint32_t)(delta >> UE_RB_TS_SHIFT));
		at += 8;
		delta = 0;
	}
	if (len > SMALL_DATA_MAX) {
		put32(at, (uint32_t)delta << 5);
		put32(at + 4, (uint32_t)(align4(len) + 4));
		at += 8;
	} else {
		put32(at, (uint32_t)(align4(len) / 4) | (uint32_t)delta << 5);
		at += 4;
	}
	/* The padding to 4 bytes zeroed first: the caller's @len bytes go over the rest of the word. */
	if (len & 3)
		put32(at + align4(len) - 4, 0);
	p->pending = need;
	p->pending_ts = ts;
	return at;
}

int ue_rbpage_add(struct ue_rbpage *p, uint64_t ts, const void *data, size_t len)
{
	int err = 0;
	uint8_t *at = ue_rbpage_reserve(p, ts, len, &err);

	if (!at)
		return err;
	memcpy(at, data, len);
	ue_rbpage_commit(p);
	return 0;
}

size_t ue_rbpage_finish(struct ue_rbpage *p, uint64_t missed)
{
	uint64_t commit = p->used;
	size_t room = p->size - UE_RB_PAGE_HDR;
	size_t end = p->used;

	if (!p->events)
		memset(p->page, 0, 8);
	if (missed) {
		commit |= UE_RB_MISSED_EVENTS;
		/* UINT64_MAX: some, count unknown (the flag alone, as the kernel's readers take it). */
		if (missed != UINT64_MAX && room - end >= 8) {
			memcpy(p->page + UE_RB_PAGE_HDR + end, &missed, 8);
			commit |= UE_RB_MISSED_STORED;
			end += 8;
		}
	}
	memcpy(p->page + 8, &commit, 8);
	memset(p->page + UE_RB_PAGE_HDR + end, 0, room - end);
	return p->size;
}

int ue_rbpage_iter_init(struct ue_rbpage_iter *it, const void *page, size_t len)
{
	const uint8_t *b = page;
	uint64_t commit;

	if (len < UE_RB_PAGE_HDR)
		return -EINVAL;
	memcpy(&it->ts, b, 8);
	memcpy(&commit, b + 8, 8);
	it->data = b + UE_RB_PAGE_HDR;
	it->size = (size_t)(commit & ~(UE_RB_MISSED_EVENTS | UE_RB_MISSED_STORED));
	it->pos = 0;
	it->missed = 0;
	if (it->size > len - UE_RB_PAGE_HDR)
		return -EINVAL;
	if (commit & UE_RB_MISSED_EVENTS) {
		it->missed = UINT64_MAX;
		if ((commit & UE_RB_MISSED_STORED) && len - UE_RB_PAGE_HDR - it->size >= 8)
			memcpy(&it->missed, it->data + it->size, 8);
	}
	return 0;
}

int ue_rbpage_count(const void *page, size_t len, uint64_t *ret_missed)
{
	struct ue_rbpage_iter it;
	const void *data;
	size_t dlen;
	uint64_t ts;
	int n = 0, r;

	if (ue_rbpage_iter_init(&it, page, len) < 0)
		return -EINVAL;
	*ret_missed = it.missed;
	for (;;) {
		/* The common event: a small data one (its length in its type), stepped over. */
		size_t pos = it.pos, end = it.size;

		while (pos + 4 <= end) {
			unsigned int type = ue_rb_get32(it.data + pos) & 31;

			if (type == 0 || type > UE_RB_TYPE_DATA_MAX || (size_t)type * 4 > end - pos - 4)
				break;
			pos += 4 + (size_t)type * 4;
			n++;
		}
		/* Their times are not kept: the count needs none. */
		it.pos = pos;
		/* Any other, or the end: as the reader takes it. */
		/* A malformed rest ends the page, as for its reader: what came before counts. */
		r = ue_rbpage_next(&it, &ts, &data, &dlen);
		if (r <= 0)
			return n;
		n++;
	}
}
