// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: arbitrary bytes as DIAG_IOCSREG name_args.  Besides
 * memory safety it checks what must hold for every accepted event: the
 * limited and unlimited parsers agree, offsets follow sizes, the kernel's
 * signedness rule, and an event finds its own canonical text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "canonical.h"
#include "target.h"

static void check_event(const struct ue_event *ev)
{
	uint32_t offset = UE_ENTRY_HDR_SIZE, validators = 0;

	for (uint32_t i = 0; i < ev->nfields; i++) {
		const struct ue_field *f = &ev->fields[i];

		CHECK(f->type && f->name && f->type[0]);
		CHECK(f->size != 0 && f->size <= INT32_MAX);
		CHECK(f->offset == offset);
		CHECK(f->is_signed == (f->type[0] != 'u'));
		CHECK(f->is_struct == (strncmp(f->type, "struct ", 7) == 0));
		CHECK(!strchr(f->type, ';') && !strchr(f->name, ';'));
		validators += !strncmp(f->type, "__data_loc ", 11) ||
			      !strncmp(f->type, "__rel_loc ", 10);
		offset += f->size;
	}
	CHECK(ev->min_size == (ev->nfields ? offset - UE_ENTRY_HDR_SIZE : 0));
	CHECK(ev->nvalidators == validators);
	CHECK(!strchr(ev->name, ' ') && !strchr(ev->name, ':'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ue_event *ev = NULL, *ev2 = NULL;
	char *text, *mutated, canon[UE_DYNEVENT_MAX_LINE];
	const char *args;
	size_t name_len;
	int ret, ret2;

	if (size > 2 * UE_DYNEVENT_MAX_LINE)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	ret = ue_event_parse(text, &ev);
	ret2 = ue_event_parse_dyn(text, &ev2);
	if (strlen(text) < UE_MAX_EVENT_DESC)
		CHECK(ret == ret2);
	else
		CHECK(ret == -EINVAL);
	CHECK(ret <= 0 && ret >= -4095);
	if (ret2) {
		free(text);
		return 0;
	}
	check_event(ev2);
	CHECK(ue_name_args_split(text, &name_len, &args) == 0);
	CHECK(strlen(ev2->name) == name_len);

	/* The registration's own text: the answer varies, it must not crash. */
	ue_event_match_args(ev2, args);
	if (canon_fields(ev2, canon, sizeof(canon)) >= 0)
		CHECK(ue_event_match_args(ev2, canon));

	/* One byte changed in the field part. */
	if (args && *args) {
		size_t n = strlen(args);

		mutated = strdup(args);
		if (mutated) {
			mutated[size % n] ^= (char)(1 + size % 255);
			ue_event_match_args(ev2, mutated);
			free(mutated);
		}
	}
	ue_event_free(ev);
	ue_event_free(ev2);
	free(text);
	return 0;
}
