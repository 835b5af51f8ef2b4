// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for armed patterns (core/arm.c).  Input: byte 0 picks a
 * glob or a provider spec, then the pattern's text up to a newline, then
 * an event name matched against it.  A pattern parsed keeps its text
 * NUL-terminated within UE_ARM_MAX_TEXT; a provider spec's fields are in
 * their ranges; an EventHeader name's provider is a proper prefix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl;
	size_t plen, nlen;
	struct ue_arm a;
	char *name;
	unsigned int level;
	uint64_t keyword;
	int r;

	if (size < 1 || size > 4096)
		return 0;
	nl = memchr(data + 1, '\n', size - 1);
	plen = nl ? (size_t)(nl - data - 1) : size - 1;
	r = ue_arm_parse(data[0] & 1 ? UE_ARM_PROVIDER : UE_ARM_GLOB, (const char *)data + 1, plen,
			 &a);
	CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		CHECK(memchr(a.text, '\0', sizeof(a.text)) != NULL);
		CHECK(strlen(a.text) == plen);
		CHECK(a.level <= 255);
	}
	nlen = nl ? size - plen - 2 : 0;
	name = malloc(nlen + 1);
	if (!name)
		return 0;
	memcpy(name, nl ? nl + 1 : data, nlen);
	name[nlen] = '\0';
	if (ue_eventheader_name(name, &plen, &level, &keyword) == 0) {
		CHECK(plen > 0 && plen < strlen(name) && name[plen] == '_');
		CHECK(level <= 255);
	}
	if (r == 0) {
		(void)ue_arm_match(&a, "user_events", name);
		(void)ue_arm_match(&a, "user_events_multi", name);
	}
	free(name);
	return 0;
}
