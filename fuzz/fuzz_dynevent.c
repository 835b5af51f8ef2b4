// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: arbitrary bytes as one dynamic_events line.  Created
 * events are parsed and must be deleted by the "-:NAME FIELDS" line written
 * from their canonical text; delete lines are matched against a few events.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "canonical.h"
#include "target.h"

static const char *const known[] = {
	"e", "e u32 a", "e u32 a;u32 b", "e struct s a 4", "e __rel_loc char[] s;u8 x",
};

static struct ue_dynevent_cmd cmd, del;
static char line[UE_DYNEVENT_MAX_LINE + 16];

static void delete_own_text(const struct ue_event *ev)
{
	char canon[UE_DYNEVENT_MAX_LINE];
	int n;

	/* "-:NAME": the name must survive as one word with no '/' or '#'. */
	if (!ev->name[0] || strpbrk(ev->name, "/#"))
		return;
	for (const char *p = ev->name; *p; p++)
		if (canon_space(*p))
			return;
	if (canon_fields(ev, canon, sizeof(canon)) < 0)
		return;
	n = snprintf(line, sizeof(line), "-:%s%s%s", ev->name, ev->nfields ? " " : "", canon);
	if (n < 0 || n >= UE_DYNEVENT_MAX_LINE)
		return;
	CHECK(ue_dynevent_parse(line, &del) == 0);
	CHECK(del.op == UE_DYNEVENT_DELETE);
	CHECK(ue_dynevent_match(&del, ev));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ue_event *ev;
	const char *args;
	size_t name_len;
	char *text;
	int ret;

	if (size > 2 * UE_DYNEVENT_MAX_LINE)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';

	ret = ue_dynevent_parse(text, &cmd);
	CHECK(ret == 0 || ret == -EINVAL || ret == -ECANCELED || ret == -ENOENT);
	if (ret) {
		free(text);
		return 0;
	}
	CHECK(strlen(cmd.name_args) <= strlen(text));
	if (cmd.op == UE_DYNEVENT_CREATE) {
		CHECK(!cmd.has_system && !cmd.system[0] && !strchr(cmd.name_args, '#'));
		if (ue_name_args_split(cmd.name_args, &name_len, &args) == 0 &&
		    ue_event_parse_dyn(cmd.name_args, &ev) == 0) {
			ue_event_match_args(ev, args);
			delete_own_text(ev);
			CHECK(!ue_dynevent_match(&cmd, ev));
			ue_event_free(ev);
		}
	} else {
		CHECK(cmd.op == UE_DYNEVENT_DELETE);
		CHECK(strlen(cmd.system) < sizeof(cmd.system));
		CHECK(cmd.has_system || !cmd.system[0]);
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
			if (ue_event_parse(known[i], &ev) == 0) {
				ue_dynevent_match(&cmd, ev);
				ue_event_free(ev);
			}
		}
		/* the delete's own words, read as an event */
		if (ue_event_parse_dyn(cmd.name_args, &ev) == 0) {
			ue_dynevent_match(&cmd, ev);
			ue_event_free(ev);
		}
	}
	free(text);
	return 0;
}
