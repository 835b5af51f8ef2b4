// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for event filters: arbitrary bytes written to the filter
 * file of one of a few events (every field class: sized integers, odd-sized
 * structs, static, __data_loc and __rel_loc strings, arrays, cpumask, names
 * that shadow generic and common fields), then evaluated on an arbitrary
 * record held in a buffer of exactly its size, so ASan catches any read
 * past it.
 * Input: byte 0 picks the event and the writer's CPU, byte 1 the comm,
 * bytes 2-3 the length of the filter text (little endian, up to 4999),
 * then the text, then the record (common header included).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "target.h"

static const char *const events[] = {
	"fa u32 a;s8 b;char[8] c;__data_loc char[] s;__rel_loc char[] r;u64 d;s16 h;u16 uh;"
	"s64 sd;struct foo st 3;unsigned char uc",
	"fb u32 cpu;u32 common_pid;u32 x;u32 x;u32 COMM;u32 a.b;u8 COMMON_PID",
	"fc __data_loc cpumask_t m;__data_loc u8[] arr;__rel_loc unsigned char[] rus;"
	"struct char[4] sc 4;char[1] c1;int i;__data_loc char s0;struct big b 70000",
	"fd",
};

static bool kspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/* The text the kernel keeps: up to the first NUL, trailing white space cut. */
static size_t kept_len(const char *text, size_t len)
{
	len = strnlen(text, len);
	while (len && kspace((unsigned char)text[len - 1]))
		len--;
	return len;
}

static void match_all(const struct ue_filter *f, const uint8_t *rec, size_t len,
		      const struct ue_filter_ctx *ctx)
{
	unsigned char *copy = malloc(len ? len : 1);
	bool first;

	if (!copy)
		return;
	memcpy(copy, rec, len);
	first = ue_filter_match(f, copy, len, ctx);
	/* Pure: the same answer again, and the record untouched. */
	CHECK(ue_filter_match(f, copy, len, ctx) == first);
	CHECK(!len || !memcmp(copy, rec, len));
	(void)ue_filter_match(f, copy, len / 2, ctx);
	(void)ue_filter_match(f, copy, len, NULL);
	(void)ue_filter_match(f, NULL, 0, ctx);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const comms[] = { "probe", "", "abcdefghijklmnopqrstu", "a*b?[c]" };
	struct ue_filter_ctx ctx;
	struct ue_event *ev;
	struct ue_filter *f;
	const char *text;
	size_t tlen, klen;
	char *shown;
	int err;

	if (size < 4)
		return 0;
	if (ue_event_parse(events[data[0] % 4], &ev))
		return 0;
	ctx.cpu = data[0] >> 2;
	ctx.comm = data[1] & 4 ? NULL : comms[data[1] % 4];
	tlen = (size_t)(data[2] | data[3] << 8) % 5000;
	data += 4;
	size -= 4;
	if (tlen > size)
		tlen = size;
	text = (const char *)data;

	err = ue_filter_parse(ev, text, tlen, &f, &shown);
	klen = tlen < UE_FILTER_MAX_WRITE ? kept_len(text, tlen) : 0;
	if (!err) {
		if (f) {
			/* The kept string is shown as written. */
			CHECK(shown && strlen(shown) == klen && !memcmp(shown, text, klen));
		} else {
			CHECK(!shown);
		}
	} else {
		CHECK(!f);
		CHECK(err == -EINVAL || err == -EPERM || err == -ENOENT || err == -ESRCH ||
		      err == -ENOMEM);
		if (shown) {
			/* The kept text, then the caret and reason or the bare errno line. */
			size_t n = strlen(shown);

			CHECK(n > klen && !memcmp(shown, text, klen) && shown[klen] == '\n');
			CHECK(shown[n - 1] == '\n');
			CHECK(strstr(shown + klen, "\nparse_error: ") ||
			      !strcmp(shown + klen, "\nError: (0)\n"));
		} else {
			CHECK(err == -ENOMEM || (err == -EINVAL && tlen >= UE_FILTER_MAX_WRITE));
		}
	}
	match_all(f, data + tlen, size - tlen, &ctx);
	/* The syntax check: never stricter than the event, always a reason with a text. */
	{
		char *msg = NULL;
		int c = ue_filter_check(text, tlen, &msg);

		/* (What it refuses the event refuses too, maybe for an earlier reason.) */
		CHECK(err || !c || c == -ENOMEM);
		CHECK(!msg == !c || (c && !shown));
		CHECK(!msg || strstr(msg, "\nparse_error: "));
		free(msg);
	}
	ue_filter_free(f);
	free(shown);
	ue_event_free(ev);
	return 0;
}
