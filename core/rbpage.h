/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/rbpage: the kernel's ring-buffer page format (what trace_pipe_raw
 * returns and trace.dat stores): a 16-byte page header (u64 timestamp, u64
 * commit with the missed-events flags) and compressed event headers.  Pure:
 * the daemon encodes pages, the userevents tool decodes them.
 */
#ifndef UE_CORE_RBPAGE_H
#define UE_CORE_RBPAGE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define UE_RB_PAGE_SIZE 4096
#define UE_RB_PAGE_HDR 16			/* timestamp, commit */
#define UE_RB_PAGE_DATA (UE_RB_PAGE_SIZE - UE_RB_PAGE_HDR)
/*
 * Largest page (the kernel's largest buffer_subbuf_size_kb we use: 64 KiB
 * sub-buffers, header_page data size 65520).  usereventsd hands readers
 * that ask for that much pages of this size, so records up to
 * UE_RB_PAGE_SIZE_MAX - UE_RB_PAGE_HDR - 8 bytes fit one.
 */
#define UE_RB_PAGE_SIZE_MAX 65536

/* Event header type_len values and flags of commit, as in the kernel. */
#define UE_RB_TYPE_DATA_MAX 28
#define UE_RB_TYPE_PADDING 29
#define UE_RB_TYPE_TIME_EXTEND 30
#define UE_RB_TYPE_TIME_STAMP 31
#define UE_RB_TS_SHIFT 27
#define UE_RB_MISSED_EVENTS (UINT64_C(1) << 31)
#define UE_RB_MISSED_STORED (UINT64_C(1) << 30)
#define UE_RB_SMALL_DATA_MAX (UE_RB_TYPE_DATA_MAX * 4)	/* larger data has a length word */
#define UE_RB_DELTA_MASK ((UINT32_C(1) << UE_RB_TS_SHIFT) - 1)

/* A page being filled. */
struct ue_rbpage {
	uint8_t *page;		/* @size bytes */
	size_t size;		/* UE_RB_PAGE_SIZE to UE_RB_PAGE_SIZE_MAX */
	size_t used;		/* data bytes after the header */
	uint64_t last_ts;
	unsigned int events;
	size_t reserve;		/* bytes ue_rbpage_add() leaves free at the end (0 after init) */
	size_t pending;		/* bytes of the event ue_rbpage_reserve() gave room for */
	uint64_t pending_ts;	/* and its timestamp */
};

/**
 * ue_rbpage_init - start an empty page
 * @p: the page state
 * @page: its bytes
 * @size: their count: UE_RB_PAGE_SIZE (the kernel's page), up to
 *        UE_RB_PAGE_SIZE_MAX (a larger sub-buffer); other values are taken as
 *        UE_RB_PAGE_SIZE
 */
void ue_rbpage_init(struct ue_rbpage *p, void *page, size_t size);

/**
 * ue_rbpage_add - append one event
 * @p: the page
 * @ts: its timestamp (ns); not below the previous event's
 * @data: its bytes (struct trace_entry + payload)
 * @len: their count, 1 to the page's data size - 8 (4072 in a 4096-byte page)
 *
 * Return: 0; -ENOSPC when it does not fit, @p->reserve bytes kept free
 * (nothing changes); -EINVAL.
 */
int ue_rbpage_add(struct ue_rbpage *p, uint64_t ts, const void *data, size_t len);

/* Every case of ue_rbpage_reserve(); the common one is inline. */
uint8_t *ue_rbpage_reserve_slow(struct ue_rbpage *p, uint64_t ts, size_t len, int *err);

/**
 * ue_rbpage_reserve - room for one event, to be written in place
 * @p: the page
 * @ts: its timestamp (ns); not below the previous event's
 * @len: its bytes, as for ue_rbpage_add()
 * @err: set when NULL is returned
 *
 * The event's header (and a time extend, when due) is written and the
 * padding after its @len bytes zeroed; the caller writes the @len bytes
 * at the address returned and then calls ue_rbpage_commit(), or does not
 * and the page stays as it was (what was written there is past its end).
 *
 * Return: where the event's bytes go; NULL with -ENOSPC (no room, nothing
 * changes) or -EINVAL in *@err.
 */
static inline uint8_t *ue_rbpage_reserve(struct ue_rbpage *p, uint64_t ts, size_t len, int *err)
{
	size_t a = (len + 3) & ~(size_t)3;
	uint64_t delta = ts - p->last_ts;

	/* An event after another, close in time, small, with room: no time extend, no length word. */
	if (p->events && ts >= p->last_ts && delta <= UE_RB_DELTA_MASK && len &&
	    len <= UE_RB_SMALL_DATA_MAX &&
	    p->used + 4 + a + p->reserve <= p->size - UE_RB_PAGE_HDR) {
		uint8_t *at = p->page + UE_RB_PAGE_HDR + p->used;
		uint32_t word = (uint32_t)(a / 4) | (uint32_t)delta << 5, zero = 0;

		memcpy(at, &word, 4);
		if (len & 3)
			memcpy(at + a, &zero, 4);
		p->pending = 4 + a;
		p->pending_ts = ts;
		return at + 4;
	}
	return ue_rbpage_reserve_slow(p, ts, len, err);
}

/** ue_rbpage_commit - the event of the last ue_rbpage_reserve() is written: it is in the page */
static inline void ue_rbpage_commit(struct ue_rbpage *p)
{
	p->used += p->pending;
	p->last_ts = p->pending_ts;
	p->events++;
	p->pending = 0;
}

/**
 * ue_rbpage_finish - write the header and zero the tail
 * @p: the page
 * @missed: events lost before this page (0: none; UINT64_MAX: some, count
 *          unknown); stored after the data when room
 *
 * Return: the page's size, as given to ue_rbpage_init().
 */
size_t ue_rbpage_finish(struct ue_rbpage *p, uint64_t missed);

/* Reading a page. */
struct ue_rbpage_iter {
	const uint8_t *data;
	size_t size;		/* data bytes per commit */
	size_t pos;
	uint64_t ts;
	uint64_t missed;	/* from the header; UINT64_MAX: some, count unknown */
};

/**
 * ue_rbpage_iter_init - start reading a page
 * @it: the iterator
 * @page: the page's bytes
 * @len: their count (at least UE_RB_PAGE_HDR)
 *
 * Return: 0; -EINVAL on a malformed header.
 */
int ue_rbpage_iter_init(struct ue_rbpage_iter *it, const void *page, size_t len);

/**
 * ue_rbpage_next - the next data event of a page
 * @it: the iterator
 * @ts: its timestamp
 * @data: its bytes (rounded up to 4 by the format)
 * @len: their count
 *
 * Return: 1 and an event; 0 at the end; -EINVAL on a malformed page.
 */
static inline uint32_t ue_rb_get32(const uint8_t *at)
{
	uint32_t v;

	memcpy(&v, at, 4);
	return v;
}

/* Inline: the loop of every page reader (record's count, its perf.data sink). */
static inline int ue_rbpage_next(struct ue_rbpage_iter *it, uint64_t *ts, const void **data, size_t *len)
{
	while (it->pos + 4 <= it->size) {
		uint32_t h = ue_rb_get32(it->data + it->pos);
		unsigned int type = h & 31;
		uint32_t delta = h >> 5;
		size_t left = it->size - it->pos;
		uint32_t w;

		if (type == 0 || type > UE_RB_TYPE_DATA_MAX) {
			if (left < 8)
				return -EINVAL;
			w = ue_rb_get32(it->data + it->pos + 4);
		}
		switch (type) {
		case UE_RB_TYPE_PADDING:
			/* A zero delta padding ends the page's data. */
			if (!delta)
				return 0;
			it->ts += delta;
			if (w < 4 || w > left)
				return -EINVAL;
			it->pos += w;
			continue;
		case UE_RB_TYPE_TIME_EXTEND:
			it->ts += ((uint64_t)w << UE_RB_TS_SHIFT) + delta;
			it->pos += 8;
			continue;
		case UE_RB_TYPE_TIME_STAMP:
			it->ts = ((uint64_t)w << UE_RB_TS_SHIFT) | delta;
			it->pos += 8;
			continue;
		case 0:
			if (w < 4 || w - 4 > left - 8)
				return -EINVAL;
			it->ts += delta;
			*data = it->data + it->pos + 8;
			*len = w - 4;
			it->pos += 4 + ((w + 3) & ~(uint32_t)3);
			break;
		default:
			if ((size_t)type * 4 > left - 4)
				return -EINVAL;
			it->ts += delta;
			*data = it->data + it->pos + 4;
			*len = (size_t)type * 4;
			it->pos += 4 + (size_t)type * 4;
			break;
		}
		*ts = it->ts;
		return 1;
	}
	return 0;
}

/**
 * ue_rbpage_count - the data events of a page, counted
 * @page: the page's bytes
 * @len: their count
 * @ret_missed: the header's loss mark (0, a count, or UINT64_MAX: some)
 *
 * What a loop of ue_rbpage_next() would count, without their times and
 * bytes (the count a recorder keeps of every page it writes).
 *
 * Return: the count (up to a malformed event, where a reader stops too);
 * -EINVAL on a malformed header.
 */
int ue_rbpage_count(const void *page, size_t len, uint64_t *ret_missed);

#endif /* UE_CORE_RBPAGE_H */
