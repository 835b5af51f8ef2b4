// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the EventHeader decoder (core/eventheader.c).
 * Input: a tracepoint name, a NUL, then the event (from its eventheader
 * struct on).  The event is copied into a heap block of exactly its size,
 * so that a read past it is caught by ASan; every writer is run to size and
 * then to fill, and the two lengths must agree; a short buffer must hold a
 * NUL-terminated prefix; JSON output must balance its brackets outside
 * strings.  The seed corpus is tests/eventheader's events, one a file.
 */
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "target.h"

static void balanced(const char *s, size_t n)
{
	int depth = 0;
	bool str = false;

	for (size_t i = 0; i < n; i++) {
		if (str) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				str = false;
			continue;
		}
		if (s[i] == '"')
			str = true;
		else if (s[i] == '{' || s[i] == '[')
			depth++;
		else if (s[i] == '}' || s[i] == ']')
			CHECK(--depth >= 0);
	}
	CHECK(!str && depth == 0);
}

static void run(const struct ueh_event *e, unsigned flags)
{
	int need = ueh_json_fields(e, flags, NULL, 0), got;
	char small[7];
	char *buf;

	if (need < 0)
		return;
	buf = malloc((size_t)need + 1);
	CHECK(buf);
	got = ueh_json_fields(e, flags, buf, (size_t)need + 1);
	CHECK(got == need && strlen(buf) == (size_t)need);
	if (!(flags & UEH_J_TEXT))
		balanced(buf, (size_t)need);
	CHECK(ueh_json_fields(e, flags, small, sizeof(small)) == need);
	CHECK(strlen(small) == ((size_t)need < sizeof(small) ? (size_t)need : sizeof(small) - 1));
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size < 300 ? size : 300);
	struct ueh_event e;
	size_t nlen, elen;
	uint8_t *ev;
	char meta[512];

	if (!nul)
		return 0;
	nlen = (size_t)(nul - data);
	elen = size - nlen - 1;
	ev = malloc(elen ? elen : 1);
	CHECK(ev);
	memcpy(ev, nul + 1, elen);
	if (ueh_start(&e, (const char *)data, nlen, ev, elen) == 0) {
		CHECK(e.data + e.data_len == ev + elen);
		CHECK(e.name + e.name_len <= (const char *)ev + elen);
		run(&e, UEH_J_TAGS);
		run(&e, UEH_J_TEXT);
		CHECK(ueh_json_meta(&e, meta, sizeof(meta)) < (int)sizeof(meta));
		balanced(meta, strlen(meta));
	}
	free(ev);
	return 0;
}
