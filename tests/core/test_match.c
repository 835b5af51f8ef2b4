// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ue_event_match_args(): when a second registration of a name finds the
 * existing event and when it fails with EADDRINUSE.  Each pair is from the
 * kernel's self-tests (dyn_test.c "matching", ftrace_test.c) or was
 * registered twice on the reference kernel (first then second, same name).
 */
#include "harness.h"

#include "core.h"
#include "note.h"

struct match_case {
	const char *first, *second;
	bool match;
};

static const struct match_case cases[] = {
	/* dyn_test.c, TEST_F(user, matching) */
	{ "__test_event u32 a", "__test_event u32 a", true },
	{ "__test_event u32 a; u32 b", "__test_event u32 a; u32 b", true },
	{ "__test_event u32 a; u32 b", "__test_event u32 a; u32 b;", true },
	{ "__test_event u32 a", "__test_event u32 b", false },
	{ "__test_event u32 a; u32 b", "__test_event u32 b; u32 a", false },
	{ "__test_event u64 a; u64 b", "__test_event u32 a; u32 b", false },
	{ "__test_event struct my_struct a 20", "__test_event struct my_struct a 20", true },
	{ "__test_event struct my_struct a 20", "__test_event struct my_struct b 20", false },
	{ "__test_event struct my_struct a 20", "__test_event struct my_struct a 21", false },
	/* ftrace_test.c, TEST_F(user, register_events) */
	{ "__test_event u32 field1; u32 field2", "__test_event u32 field1; u32 field2", true },
	{ "__test_event u32 field1; u32 field2", "__test_event u32 field1;u32 field2", true },
	{ "__test_event u32 field1; u32 field2", "__test_event u32 field1;", false },
	/* seen on the reference kernel: white space and ';' spacing do not count */
	{ "m3", "m3", true },
	{ "m3", "m3 ", true },
	{ "m3", "m3  \t", true },
	{ "m4 u32 a;", "m4 u32 a", true },
	{ "m5 unsigned int a", "m5 unsigned  int a", true },
	{ "m5 unsigned int a", "m5 unsigned\tint\ta", true },
	{ "m5 unsigned int a", "m5 unsigned int a ", true },
	{ "m8 u32 ;u32 b", "m8 u32 ;u32 b", true },
	{ "m9 u32 a;u32 b", "m9 u32 a;\tu32 b", true },
	{ "m9 u32 a;u32 b", "m9   u32  a;   u32 b; ", true },
	{ "m14 u32 a;u32 b", "m14 u32 a;\xa0u32 b", true },
	{ "m15 u32 a;\xa0u32 b", "m15 u32 a;\xa0u32 b", true },
	{ "m17 u32 a", "m17 u32 a\xa0", true },
	/* seen on the reference kernel: text that differs, even for the same layout */
	{ "m1 ;u32 a", "m1 ;u32 a", false },
	{ "m2 ;", "m2 ;", false },
	{ "m3", "m3 ;", false },
	{ "m4 u32 a;", "m4 u32 a;;", false },
	{ "m4 u32 a;", "m4 u32 a ;", false },
	{ "m6 char[20] a", "m6 char[0x14] a", false },
	{ "m7 u32 ", "m7 u32 ", false },
	{ "m9 u32 a;u32 b", "m9 u32 a;u32 b;;", false },
	{ "m9 u32 a;u32 b", "m9 u32 a;u32 b;x", false },
	{ "m10 __data_loc  x", "m10 __data_loc  x", false },
	{ "m11 struct a b 5", "m11 struct a b 05", false },
	{ "m11 struct a b 5", "m11 struct a b +5", false },
	{ "m12 struct foo\tbar x 4", "m12 struct foo\tbar x 4", false },
	{ "m13 u32 a\n", "m13 u32 a", false },
	{ "m18 u32 a", "m18 u32 a;u32 b", false },
	{ "m20 unsigned int a;u32 b", "m20 unsigned int a u32 b", false },
	{ "m21 u32 a; u32 b", "m21 u32 a u32; b", false },
};

TEST(match_table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct match_case *c = &cases[i];
		struct ue_event *ev;
		const char *args;
		size_t len;

		note(c->second);
		ASSERT_EQ(ue_event_parse(c->first, &ev), 0);
		ASSERT_EQ(ue_name_args_split(c->second, &len, &args), 0);
		ASSERT_EQ(len, strlen(ev->name));
		ASSERT_EQ(memcmp(c->second, ev->name, len), 0);
		EXPECT_EQ(ue_event_match_args(ev, args), c->match);
		ue_event_free(ev);
	}
}

/* Whatever the spacing, an event that parses finds itself, but for the odd texts above. */
TEST(parsed_event_finds_its_own_text)
{
	static const char *const texts[] = {
		"t1 u64 a;s64 b;u32 c;s32 d;int e;unsigned int f;u16 g;s16 h;short i;"
		"unsigned short j;u8 k;s8 l;char m;unsigned char n",
		"fx u32 a;s8 b;char[4] c;__rel_loc char[] s;u64 d;unsigned char e;"
		"__data_loc u8[] arr;struct foo st 6",
		"e __data_loc unsigned char[] a; __rel_loc unsigned char[] b",
		"e char[0x14] a",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct ue_event *ev;
		const char *args;
		size_t len;

		note(texts[i]);
		ASSERT_EQ(ue_event_parse(texts[i], &ev), 0);
		ASSERT_EQ(ue_name_args_split(texts[i], &len, &args), 0);
		EXPECT_TRUE(ue_event_match_args(ev, args));
		ue_event_free(ev);
	}
}

/* No field part (args NULL) is the same as an empty or blank one. */
TEST(no_fields)
{
	struct ue_event *empty, *one;

	ASSERT_EQ(ue_event_parse("e", &empty), 0);
	ASSERT_EQ(ue_event_parse("e u32 a", &one), 0);
	EXPECT_TRUE(ue_event_match_args(empty, NULL));
	EXPECT_TRUE(ue_event_match_args(empty, ""));
	EXPECT_TRUE(ue_event_match_args(empty, " \t"));
	EXPECT_FALSE(ue_event_match_args(empty, ";"));
	EXPECT_FALSE(ue_event_match_args(empty, "u32 a"));
	EXPECT_FALSE(ue_event_match_args(one, NULL));
	EXPECT_FALSE(ue_event_match_args(one, ""));
	EXPECT_FALSE(ue_event_match_args(NULL, "u32 a"));
	ue_event_free(empty);
	ue_event_free(one);
}

/* Every field must be used, in order, and every word too. */
TEST(field_by_field)
{
	struct ue_event *ev;

	ASSERT_EQ(ue_event_parse("e u32 a;char[4] b;struct s c 3", &ev), 0);
	EXPECT_TRUE(ue_event_match_args(ev, "u32 a;char[4] b;struct s c 3"));
	EXPECT_TRUE(ue_event_match_args(ev, "u32 a; char[4] b; struct s c 3;"));
	EXPECT_TRUE(ue_event_match_args(ev, "u32\ta;char[4]\nb;struct\vs\fc\r3"));
	EXPECT_FALSE(ue_event_match_args(ev, "u32 a;char[4] b"));
	EXPECT_FALSE(ue_event_match_args(ev, "u32 a;char[4] b;struct s c 3;u8 d"));
	EXPECT_FALSE(ue_event_match_args(ev, "u32 a;char[4] b;struct s c"));
	EXPECT_FALSE(ue_event_match_args(ev, "u32 a;char[4] b;struct t c 3"));
	EXPECT_FALSE(ue_event_match_args(ev, "u32 a;char[5] b;struct s c 3"));
	EXPECT_FALSE(ue_event_match_args(ev, "u32 a;char[4] x;struct s c 3"));
	EXPECT_FALSE(ue_event_match_args(ev, "s32 a;char[4] b;struct s c 3"));
	EXPECT_FALSE(ue_event_match_args(ev, "char[4] b;u32 a;struct s c 3"));
	/* the words of two fields run together without their ';' */
	EXPECT_FALSE(ue_event_match_args(ev, "u32 a char[4] b;struct s c 3"));
	ue_event_free(ev);
}

UE_TEST_MAIN()
