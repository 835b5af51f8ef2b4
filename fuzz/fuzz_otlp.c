// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for core/otlp.c and otlp-any.c.  Input: byte 0 picks
 * the mode (bit 0: JSON output, bit 1: a JSON response), byte 1 the buffer
 * size; the rest is read as an Export*ServiceResponse (partial_success),
 * written as a string attribute (UTF-8 repaired) and, as JSON text, walked
 * as an object's members and written as AnyValues.  The writer works in a
 * buffer of exactly its size (ASan catches a write past it); its result is
 * its length or -E2BIG / -EBADMSG, and what it reports never exceeds the cap.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "target.h"

static int member(void *arg, const struct uo_member *m)
{
	struct uo_w *w = arg;

	CHECK(m->name_len < 1u << 20 && m->value_len >= 1);
	uo_kv_begin(w, m->name, m->name_len);
	uo_any_json(w, m->value, m->value_len);
	uo_kv_end(w);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool json, json_resp;
	size_t cap;
	uint8_t *buf;
	struct uo_w w;
	int64_t rej;
	char msg[64];
	long n;

	if (size < 2)
		return 0;
	json = data[0] & 1;
	json_resp = data[0] & 2;
	cap = (size_t)data[1] * 16;
	data += 2;
	size -= 2;
	if (uo_partial_success(data, size, json_resp, &rej, msg, sizeof(msg)) == 0)
		CHECK(strlen(msg) < sizeof(msg));
	buf = malloc(cap ? cap : 1);
	if (!buf)
		return 0;
	uo_init(&w, buf, cap, json);
	uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
	uo_kv_str(&w, "s", data, size);
	uo_json_members((const char *)data, size, member, &w);
	uo_array_end(&w);
	n = uo_finish(&w);
	CHECK(n == -E2BIG || n == -EINVAL || (n >= 0 && (size_t)n <= cap));
	free(buf);
	return 0;
}
