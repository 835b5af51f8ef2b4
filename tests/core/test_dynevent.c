// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ue_dynevent_parse() and ue_dynevent_match(): lines written to
 * dynamic_events.  Expectations are the kernel's (trace_dynevent.c,
 * user_event_create(), user_event_match()) as written on the reference
 * kernel, which printed the errno or the deletion for each line.
 */
#include "harness.h"

#include "core.h"
#include "note.h"

struct line_case {
	const char *line;
	int ret;
	enum ue_dynevent_op op;
	bool has_system;
	const char *system;
	const char *name_args;
};

static const struct line_case line_cases[] = {
	/* create: "u:" then the name_args, spaces after the prefix skipped */
	{ "u:e u32 a", 0, UE_DYNEVENT_CREATE, false, "", "e u32 a" },
	{ "u:", 0, UE_DYNEVENT_CREATE, false, "", "" },
	{ "u:  d1 u32 a", 0, UE_DYNEVENT_CREATE, false, "", "d1 u32 a" },
	{ "u:\t\xa0" "d1 u32 a", 0, UE_DYNEVENT_CREATE, false, "", "d1 u32 a" },
	{ "u:d4 u32 a# comment", 0, UE_DYNEVENT_CREATE, false, "", "d4 u32 a" },
	/* kept as written: the parser refuses these later (EINVAL on the kernel) */
	{ "u:d3 u32 a # comment", 0, UE_DYNEVENT_CREATE, false, "", "d3 u32 a " },
	{ "u:d5:x u32 a", 0, UE_DYNEVENT_CREATE, false, "", "d5:x u32 a" },
	{ "u:d7\tu32 a", 0, UE_DYNEVENT_CREATE, false, "", "d7\tu32 a" },
	/* other providers' lines */
	{ " u:d2 u32 a", -ECANCELED },
	{ "U:d6 u32 a", -ECANCELED },
	{ "u", -ECANCELED },
	{ "p:kp do_sys_open", -ECANCELED },
	{ "e u32 a", -ECANCELED },
	/* nothing to do */
	{ "", -ENOENT },
	{ "#comment", -ENOENT },
	{ "  \t", -ENOENT },
	{ "  # u:e u32 a", -ENOENT },
	/* delete: "-:" or "!anything:", then [SYSTEM/]NAME and field words */
	{ "-:e1", 0, UE_DYNEVENT_DELETE, false, "", "e1" },
	{ "-:e3 u32 a;u32 b", 0, UE_DYNEVENT_DELETE, false, "", "e3 u32 a;u32 b" },
	{ "-:e4 u32 a;\tu32 b", 0, UE_DYNEVENT_DELETE, false, "", "e4 u32 a; u32 b" },
	{ "-:e9  u32\t\ta ", 0, UE_DYNEVENT_DELETE, false, "", "e9 u32 a" },
	{ "-:u:e5 u32 a", 0, UE_DYNEVENT_DELETE, false, "", "u:e5 u32 a" },
	{ "!u:e5 u32 a", 0, UE_DYNEVENT_DELETE, false, "", "e5 u32 a" },
	{ "!:e6 u32 a", 0, UE_DYNEVENT_DELETE, false, "", "e6 u32 a" },
	{ "!x:e12 u32 a", 0, UE_DYNEVENT_DELETE, false, "", "e12 u32 a" },
	{ "!u:e10 u32 a # comment", 0, UE_DYNEVENT_DELETE, false, "", "e10 u32 a" },
	{ "-:user_events/e7 u32 a", 0, UE_DYNEVENT_DELETE, true, "user_events", "e7 u32 a" },
	{ "-:user_events_multi/e8", 0, UE_DYNEVENT_DELETE, true, "user_events_multi", "e8" },
	{ "-:/e8 u32 a", 0, UE_DYNEVENT_DELETE, true, "", "e8 u32 a" },
	{ "-:user_events/", 0, UE_DYNEVENT_DELETE, true, "user_events", "" },
	{ "-:x/y/e11 u32 a", 0, UE_DYNEVENT_DELETE, true, "x", "y/e11 u32 a" },
	{ "!u:user_events/e11 u32 a", 0, UE_DYNEVENT_DELETE, true, "user_events", "e11 u32 a" },
	{ "-:" "s123456789012345678901234567890123456789012345678901234567890123456789/e",
	  0, UE_DYNEVENT_DELETE, true,
	  "s12345678901234567890123456789012345678901234567890123456789012", "e" },
	/* malformed deletes */
	{ "-:", -EINVAL },
	{ "-", -EINVAL },
	{ "!", -EINVAL },
	{ "- :e9 u32 a", -EINVAL },
	{ "-x:e9 u32 a", -EINVAL },
	{ "!e6 u32 a", -EINVAL },
	{ "-:# comment", -EINVAL },
	{ "!u: e", -EINVAL },
};

TEST(line_table)
{
	for (size_t i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
		const struct line_case *c = &line_cases[i];
		static struct ue_dynevent_cmd cmd;

		note(c->line);
		memset(&cmd, 0x5a, sizeof(cmd));
		ASSERT_EQ(ue_dynevent_parse(c->line, &cmd), c->ret);
		if (c->ret) {
			/* untouched on failure */
			EXPECT_EQ(((unsigned char *)&cmd)[0], 0x5a);
			EXPECT_EQ((unsigned char)cmd.name_args[0], 0x5a);
			continue;
		}
		EXPECT_EQ(cmd.op, c->op);
		EXPECT_EQ(cmd.has_system, c->has_system);
		EXPECT_STREQ(cmd.system, c->system);
		EXPECT_STREQ(cmd.name_args, c->name_args);
	}
}

/* The kernel's command splitter takes lines of up to 4095 characters. */
TEST(line_length)
{
	static char line[UE_DYNEVENT_MAX_LINE + 1];
	static struct ue_dynevent_cmd cmd;
	struct ue_event *ev;

	memset(line, 'x', sizeof(line));
	memcpy(line, "u:L4095 u8 ", 11);
	line[UE_DYNEVENT_MAX_LINE - 1] = '\0';
	ASSERT_EQ(ue_dynevent_parse(line, &cmd), 0);
	EXPECT_EQ(strlen(cmd.name_args), UE_DYNEVENT_MAX_LINE - 1 - 2);
	ASSERT_EQ(ue_event_parse_dyn(cmd.name_args, &ev), 0);
	EXPECT_EQ(strlen(ev->fields[0].name), UE_DYNEVENT_MAX_LINE - 1 - 11);
	ue_event_free(ev);

	line[UE_DYNEVENT_MAX_LINE - 1] = 'x';
	line[UE_DYNEVENT_MAX_LINE] = '\0';
	EXPECT_ERRNO(ue_dynevent_parse(line, &cmd), EINVAL);
	EXPECT_ERRNO(ue_dynevent_parse(NULL, &cmd), EINVAL);
	EXPECT_ERRNO(ue_dynevent_parse("u:e", NULL), EINVAL);
}

/* Which delete lines removed which events on the reference kernel. */
struct delete_case {
	const char *create, *delete;
	bool deleted;
};

static const struct delete_case delete_cases[] = {
	/* no field words: only events without fields (ENOENT for e1) */
	{ "u:e1 u32 a", "-:e1", false },
	{ "u:e2", "-:e2", true },
	{ "u:e13 ", "-:e13", true },
	/* "a;b" is one word here: no ';' split as at registration */
	{ "u:e3 u32 a;u32 b", "-:e3 u32 a;u32 b", false },
	{ "u:e3 u32 a;u32 b", "-:e3 u32 a; u32 b", true },
	{ "u:e4 u32 a;u32 b", "-:e4 u32 a;\tu32 b", true },
	{ "u:e9 u32 a", "-:e9  u32\t\ta ", true },
	{ "u:e10 u32 a", "-:e10 u32 a;", true },
	{ "u:e10 u32 a", "!u:e10 u32 a # comment", true },
	{ "u:e11 u32 a", "-:e11 u32 a extra", false },
	/* names and systems */
	{ "u:e5 u32 a", "-:u:e5 u32 a", false },
	{ "u:e5 u32 a", "!u:e5 u32 a", true },
	{ "u:e6 u32 a", "!:e6 u32 a", true },
	{ "u:e12 u32 a", "!x:e12 u32 a", true },
	{ "u:e7 u32 a", "-:user_events/e7 u32 a", true },
	{ "u:e8 u32 a", "-:/e8 u32 a", false },
	{ "u:e8 u32 a", "-:user_events_multi/e8 u32 a", true },
	{ "u:", "-:user_events/", true },
	{ "u:e11 u32 a", "-:e11:x u32 a", false },
	{ "u:e11 u32 a", "-:x/y/e11 u32 a", false },
	{ "u:e11 u32 a", "-:user_events/e11/ u32 a", false },
	{ "u:e11 u32 a", "!u:user_events/e11 u32 a", true },
	{ "u:e11 u32 a", "-:nonexist", false },
	{ "u:e11 u32 a", "-:user_events/nonexist", false },
};

TEST(delete_table)
{
	for (size_t i = 0; i < sizeof(delete_cases) / sizeof(delete_cases[0]); i++) {
		const struct delete_case *c = &delete_cases[i];
		static struct ue_dynevent_cmd create, del;
		struct ue_event *ev;

		note(c->delete);
		ASSERT_EQ(ue_dynevent_parse(c->create, &create), 0);
		ASSERT_EQ(create.op, UE_DYNEVENT_CREATE);
		ASSERT_EQ(ue_event_parse_dyn(create.name_args, &ev), 0);
		ASSERT_EQ(ue_dynevent_parse(c->delete, &del), 0);
		ASSERT_EQ(del.op, UE_DYNEVENT_DELETE);
		EXPECT_EQ(ue_dynevent_match(&del, ev), c->deleted);
		/* a create command deletes nothing */
		EXPECT_FALSE(ue_dynevent_match(&create, ev));
		ue_event_free(ev);
	}
	EXPECT_FALSE(ue_dynevent_match(NULL, NULL));
}

/*
 * What the kernel did with these "u:" lines (dynamic_events write result),
 * through ue_dynevent_parse(), ue_name_args_split() and ue_event_parse_dyn().
 */
TEST(create_lines_end_to_end)
{
	static const struct {
		const char *line;
		int ret;
	} cases[] = {
		{ "u:", 0 },
		{ "u:  d1 u32 a", 0 },
		{ "u:d3 u32 a # comment", -EINVAL },
		{ "u:d4 u32 a# comment", 0 },
		{ "u:d5:x u32 a", -EINVAL },
		{ "u:d7\tu32 a", -EINVAL },
		{ "u:__test_event u64 a", 0 },
		{ "u:__test_event char[0x0000000000001] a", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct ue_dynevent_cmd cmd;
		struct ue_event *ev = NULL;
		const char *args;
		size_t len;
		int ret;

		note(cases[i].line);
		ASSERT_EQ(ue_dynevent_parse(cases[i].line, &cmd), 0);
		ret = ue_name_args_split(cmd.name_args, &len, &args);
		if (!ret)
			ret = ue_event_parse_dyn(cmd.name_args, &ev);
		EXPECT_EQ(ret, cases[i].ret);
		ue_event_free(ret ? NULL : ev);
	}
}

UE_TEST_MAIN()
