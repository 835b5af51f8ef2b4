// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/trigger.c: writes to an event's trigger file, what they
 * parse to and the line the file then lists, against what the reference
 * kernel (Linux 6.12) accepted, refused and listed for the same writes.
 */
#include "harness.h"

#include <string.h>

#include "core.h"

#define U UE_TRIGGER_UNLIMITED

static const struct {
	const char *text;
	int err;
	enum ue_trigger_cmd cmd;
	bool remove;
	unsigned long count;
	const char *system, *event, *filter;
	int late_err;
	const char *listed;	/* the line the kernel listed, or NULL */
} cases[] = {
	/* Seen on the reference kernel (write => return, then the trigger file). */
	{ "traceoff", 0, UE_TRIGGER_TRACEOFF, false, U, NULL, NULL, NULL, 0, "traceoff:unlimited\n" },
	{ "traceon", 0, UE_TRIGGER_TRACEON, false, U, NULL, NULL, NULL, 0, "traceon:unlimited\n" },
	{ "traceoff:2", 0, UE_TRIGGER_TRACEOFF, false, 2, NULL, NULL, NULL, 0, "traceoff:count=2\n" },
	{ "traceoff:0", 0, UE_TRIGGER_TRACEOFF, false, 0, NULL, NULL, NULL, 0, "traceoff:count=0\n" },
	{ "traceoff if a == 3", 0, UE_TRIGGER_TRACEOFF, false, U, NULL, NULL, "a == 3", 0,
	  "traceoff:unlimited if a == 3\n" },
	{ "traceoff:1 if a > 1", 0, UE_TRIGGER_TRACEOFF, false, 1, NULL, NULL, "a > 1", 0,
	  "traceoff:count=1 if a > 1\n" },
	{ " traceoff", 0, UE_TRIGGER_TRACEOFF, false, U, NULL, NULL, NULL, 0, "traceoff:unlimited\n" },
	{ "traceoff\n", 0, UE_TRIGGER_TRACEOFF, false, U, NULL, NULL, NULL, 0, "traceoff:unlimited\n" },
	{ "enable_event:user_events:tb", 0, UE_TRIGGER_ENABLE_EVENT, false, U, "user_events", "tb",
	  NULL, 0, "enable_event:user_events:tb:unlimited\n" },
	{ "enable_event:user_events:tb:1", 0, UE_TRIGGER_ENABLE_EVENT, false, 1, "user_events",
	  "tb", NULL, 0, "enable_event:user_events:tb:count=1\n" },
	{ "disable_event:user_events:tb", 0, UE_TRIGGER_DISABLE_EVENT, false, U, "user_events",
	  "tb", NULL, 0, "disable_event:user_events:tb:unlimited\n" },
	{ "!traceoff", 0, UE_TRIGGER_TRACEOFF, true, U, NULL, NULL, NULL, 0, NULL },
	{ "!traceoff:x", 0, UE_TRIGGER_TRACEOFF, true, U, NULL, NULL, NULL, 0, NULL },
	{ "!traceoff if nosuch == 1", 0, UE_TRIGGER_TRACEOFF, true, U, NULL, NULL, NULL, 0, NULL },
	{ "!enable_event:user_events:tb", 0, UE_TRIGGER_ENABLE_EVENT, true, U, "user_events", "tb",
	  NULL, 0, NULL },
	{ "", 0, UE_TRIGGER_NONE, false, U, NULL, NULL, NULL, 0, NULL },
	{ "traceoff:x", -EINVAL },
	{ "enable_event:tb", -EINVAL },
	{ "!enable_event:tb", -EINVAL },
	{ "!!traceoff", -EINVAL },
	{ "! traceoff", -EINVAL },
	{ "!", -EINVAL },
	{ "bogus", -EINVAL },
	{ "!bogus", -EINVAL },
	/* Commands of the kernel this library does not run. */
	{ "snapshot", -EINVAL },
	{ "hist:keys=a", -EINVAL },
	{ "stacktrace", -EINVAL },
	/* From the kernel's source: the count as kstrtoul(s, 0), the "if" word. */
	{ "traceoff:0x10", 0, UE_TRIGGER_TRACEOFF, false, 16, NULL, NULL, NULL, 0,
	  "traceoff:count=16\n" },
	{ "traceoff 3", 0, UE_TRIGGER_TRACEOFF, false, 3, NULL, NULL, NULL, 0, "traceoff:count=3\n" },
	{ "traceoff:08", -EINVAL },
	{ "traceoff:99999999999999999999999", -ERANGE },
	{ "traceoff:2 junk", -EINVAL },
	{ "traceoff if", -EINVAL },
	{ "traceoff iff a == 1", -EINVAL },
	{ "enable_event", -EINVAL },
	{ "enable_event:user_events:tb:x", 0, UE_TRIGGER_ENABLE_EVENT, false, U, "user_events", "tb",
	  NULL, -EINVAL, NULL },
	{ "enable_event:user_events:tb:2 if a == 1", 0, UE_TRIGGER_ENABLE_EVENT, false, 2,
	  "user_events", "tb", "a == 1", 0, "enable_event:user_events:tb:count=2 if a == 1\n" },
	{ "enable_event:user_events:tb junk", -EINVAL },
};

static void check_str(const char *got, const char *want)
{
	if (!want)
		ASSERT_TRUE(got == NULL);
	else
		ASSERT_STREQ(got ? got : "(null)", want);
}

TEST(parse_and_list)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_trigger_req req;
		char line[256];
		int r;

		r = ue_trigger_parse(cases[i].text, strlen(cases[i].text), &req);
		ASSERT_EQ(r, cases[i].err);
		if (r == 0) {
			ASSERT_EQ(req.cmd, cases[i].cmd);
			ASSERT_EQ(req.remove, cases[i].remove);
			ASSERT_EQ(req.count, cases[i].count);
			check_str(req.system, cases[i].system);
			check_str(req.event, cases[i].event);
			check_str(req.filter, cases[i].filter);
			ASSERT_EQ(req.late_err, cases[i].late_err);
		}
		if (cases[i].listed) {
			r = ue_trigger_print(req.cmd, req.system, req.event, req.count, req.filter,
					     line, sizeof(line));
			ASSERT_EQ(r, (int)strlen(cases[i].listed));
			ASSERT_STREQ(line, cases[i].listed);
		}
		ue_trigger_req_free(&req);
	}
}

TEST(write_limits)
{
	static char big[UE_TRIGGER_MAX_WRITE + 1];
	struct ue_trigger_req req;

	memset(big, ' ', sizeof(big));
	memcpy(big, "traceoff", 8);
	ASSERT_ERRNO(ue_trigger_parse(big, UE_TRIGGER_MAX_WRITE, &req), EINVAL);
	ue_trigger_req_free(&req);
	ASSERT_EQ(ue_trigger_parse(big, UE_TRIGGER_MAX_WRITE - 1, &req), 0);
	ASSERT_EQ(req.cmd, UE_TRIGGER_TRACEOFF);
	ue_trigger_req_free(&req);
	/* The text ends at a NUL, as the kernel's string. */
	ASSERT_EQ(ue_trigger_parse("traceon\0junk", 12, &req), 0);
	ASSERT_EQ(req.cmd, UE_TRIGGER_TRACEON);
	ASSERT_TRUE(req.filter == NULL);
	ue_trigger_req_free(&req);
}

TEST(kinds)
{
	ASSERT_TRUE(ue_trigger_same_kind(UE_TRIGGER_TRACEON, UE_TRIGGER_TRACEOFF));
	ASSERT_TRUE(ue_trigger_same_kind(UE_TRIGGER_DISABLE_EVENT, UE_TRIGGER_ENABLE_EVENT));
	ASSERT_FALSE(ue_trigger_same_kind(UE_TRIGGER_TRACEON, UE_TRIGGER_ENABLE_EVENT));
	ASSERT_FALSE(ue_trigger_same_kind(UE_TRIGGER_NONE, UE_TRIGGER_NONE));
	ASSERT_ERRNO(ue_trigger_print(UE_TRIGGER_NONE, NULL, NULL, U, NULL, NULL, 0), EINVAL);
}

UE_TEST_MAIN()
