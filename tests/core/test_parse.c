// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ue_event_parse(), ue_event_parse_dyn() and ue_name_args_split() against
 * what Linux 6.12 accepts and refuses.  Every expectation was read in
 * kernel/trace/trace_events_user.c and seen on the reference kernel
 * (DIAG_IOCSREG and dynamic_events probes), or comes from the kernel's own
 * self-tests (ftrace_test.c, dyn_test.c).
 */
#include "harness.h"

#include "core.h"
#include "note.h"

/* One field after "e ": its type, name, size, signedness and kind. */
struct field_case {
	const char *field;
	const char *type;
	const char *name;
	uint32_t size;
	bool is_signed;
	bool is_struct;
	enum ue_field_kind kind;
	bool validated;
};

static const struct field_case field_cases[] = {
	{ "s64 a", "s64", "a", 8, true, false, UE_FIELD_INT, false },
	{ "u64 a", "u64", "a", 8, false, false, UE_FIELD_INT, false },
	{ "s32 a", "s32", "a", 4, true, false, UE_FIELD_INT, false },
	{ "u32 a", "u32", "a", 4, false, false, UE_FIELD_INT, false },
	{ "int a", "int", "a", 4, true, false, UE_FIELD_INT, false },
	{ "unsigned int a", "unsigned int", "a", 4, false, false, UE_FIELD_INT, false },
	{ "s16 a", "s16", "a", 2, true, false, UE_FIELD_INT, false },
	{ "u16 a", "u16", "a", 2, false, false, UE_FIELD_INT, false },
	{ "short a", "short", "a", 2, true, false, UE_FIELD_INT, false },
	{ "unsigned short a", "unsigned short", "a", 2, false, false, UE_FIELD_INT, false },
	{ "s8 a", "s8", "a", 1, true, false, UE_FIELD_INT, false },
	{ "u8 a", "u8", "a", 1, false, false, UE_FIELD_INT, false },
	{ "char a", "char", "a", 1, true, false, UE_FIELD_INT, false },
	{ "unsigned char a", "unsigned char", "a", 1, false, false, UE_FIELD_INT, false },
	/* char[N]: N in base 0 from at most 7 characters after '[', text after ']' ignored */
	{ "char[20] a", "char[20]", "a", 20, true, false, UE_FIELD_STATIC_STRING, false },
	{ "unsigned char[20] a", "unsigned char[20]", "a", 20, false, false,
	  UE_FIELD_STATIC_STRING, false },
	{ "char[0x14] a", "char[0x14]", "a", 20, true, false, UE_FIELD_STATIC_STRING, false },
	{ "unsigned char[0x14] a", "unsigned char[0x14]", "a", 20, false, false,
	  UE_FIELD_STATIC_STRING, false },
	{ "char[0X1f] a", "char[0X1f]", "a", 31, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[024] a", "char[024]", "a", 20, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[+5] a", "char[+5]", "a", 5, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[1] a", "char[1]", "a", 1, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[1024] a", "char[1024]", "a", 1024, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[0x0014] a", "char[0x0014]", "a", 20, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[20\n] a", "char[20\n]", "a", 20, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[20]xyz a", "char[20]xyz", "a", 20, true, false, UE_FIELD_STATIC_STRING, false },
	{ "char[20]abcd a", "char[20]abcd", "a", 20, true, false, UE_FIELD_STATIC_STRING, false },
	{ "unsigned char[5] a", "unsigned char[5]", "a", 5, false, false, UE_FIELD_STATIC_STRING,
	  false },
	/* dynamic locations: always 4 bytes, signed by the type[0] rule */
	{ "__data_loc char[] a", "__data_loc char[]", "a", 4, true, false, UE_FIELD_DYN_STRING,
	  true },
	{ "__data_loc unsigned char[] a", "__data_loc unsigned char[]", "a", 4, true, false,
	  UE_FIELD_DYN_STRING, true },
	{ "__rel_loc char[] a", "__rel_loc char[]", "a", 4, true, false, UE_FIELD_RDYN_STRING,
	  true },
	{ "__rel_loc unsigned char[] a", "__rel_loc unsigned char[]", "a", 4, true, false,
	  UE_FIELD_RDYN_STRING, true },
	{ "__data_loc int[] n", "__data_loc int[]", "n", 4, true, false, UE_FIELD_DATA_LOC, true },
	{ "__data_loc u8[] arr", "__data_loc u8[]", "arr", 4, true, false, UE_FIELD_DATA_LOC,
	  true },
	{ "__rel_loc int[] n", "__rel_loc int[]", "n", 4, true, false, UE_FIELD_REL_LOC, true },
	{ "__rel_loc foo bar", "__rel_loc foo", "bar", 4, true, false, UE_FIELD_REL_LOC, true },
	{ "__data_loc cpumask_t[] m", "__data_loc cpumask_t[]", "m", 4, true, false,
	  UE_FIELD_CPUMASK, true },
	/* printed as a __data_loc array (seen: "a=66,77"), validated as a __rel_loc */
	{ "__rel_loc x__data_loc[] a", "__rel_loc x__data_loc[]", "a", 4, true, false,
	  UE_FIELD_DATA_LOC, true },
	/* a double space makes the type "__data_loc " itself */
	{ "__data_loc  x", "__data_loc ", "x", 4, true, false, UE_FIELD_DATA_LOC, true },
	/* struct NAME field SIZE: decimal, '+' and one trailing newline allowed */
	{ "struct custom a 20", "struct custom", "a", 20, true, true, UE_FIELD_INT, false },
	{ "struct a b +5", "struct a", "b", 5, true, true, UE_FIELD_INT, false },
	{ "struct a b 5\n", "struct a", "b", 5, true, true, UE_FIELD_INT, false },
	{ "struct a b 010", "struct a", "b", 10, true, true, UE_FIELD_INT, false },
	{ "struct a b 2147483647", "struct a", "b", 2147483647u, true, true, UE_FIELD_INT, false },
	{ "struct foo\tbar x 4", "struct foo\tbar", "x", 4, true, true, UE_FIELD_INT, false },
	{ "struct unsigned a 4", "struct unsigned", "a", 4, true, true, UE_FIELD_INT, false },
	/* the kind is a substring test on the type text (seen: c=abcde, s=<OVERFLOW>) */
	{ "struct char[3] c 5", "struct char[3]", "c", 5, true, true, UE_FIELD_STATIC_STRING,
	  false },
	{ "struct x__data_loc s 4", "struct x__data_loc", "s", 4, true, true, UE_FIELD_DATA_LOC,
	  false },
	{ "struct y__data_loc t 8", "struct y__data_loc", "t", 8, true, true, UE_FIELD_INT, false },
	{ "struct z__rel_loc r 4", "struct z__rel_loc", "r", 4, true, true, UE_FIELD_REL_LOC,
	  false },
	/* names are whatever follows the type, even empty or with a newline */
	{ "u32 ", "u32", "", 4, false, false, UE_FIELD_INT, false },
	{ "u32 a\n", "u32", "a\n", 4, false, false, UE_FIELD_INT, false },
	{ "u32 a\xa0", "u32", "a\xa0", 4, false, false, UE_FIELD_INT, false },
};

TEST(every_accepted_type)
{
	for (size_t i = 0; i < sizeof(field_cases) / sizeof(field_cases[0]); i++) {
		const struct field_case *c = &field_cases[i];
		struct ue_event *ev = NULL;
		char name_args[128];
		const struct ue_field *f;

		snprintf(name_args, sizeof(name_args), "e %s", c->field);
		note(name_args);
		ASSERT_EQ(ue_event_parse(name_args, &ev), 0);
		EXPECT_STREQ(ev->name, "e");
		ASSERT_EQ(ev->nfields, 1);
		f = &ev->fields[0];
		EXPECT_STREQ(f->type, c->type);
		EXPECT_STREQ(f->name, c->name);
		EXPECT_EQ(f->offset, UE_ENTRY_HDR_SIZE);
		EXPECT_EQ(f->size, c->size);
		EXPECT_EQ(f->is_signed, c->is_signed);
		EXPECT_EQ(f->is_struct, c->is_struct);
		EXPECT_EQ(f->kind, c->kind);
		EXPECT_EQ(ev->min_size, c->size);
		EXPECT_EQ(ev->nvalidators, c->validated ? 1 : 0);
		ue_event_free(ev);
	}
}

struct reject_case {
	const char *name_args;
	int err;
};

static const struct reject_case reject_cases[] = {
	/* text flags: none exist, even an empty one */
	{ "e:", EINVAL },
	{ "e: u32 a", EINVAL },
	{ "e:x u32 a", EINVAL },
	/* unknown types, case-sensitive */
	{ "e long a", EINVAL },
	{ "e unsigned long a", EINVAL },
	{ "e Char a", EINVAL },
	{ "e u128 a", EINVAL },
	{ "e __rel_loc", EINVAL },
	/* missing name, extra word, words split on single spaces */
	{ "e u32", EINVAL },
	{ "e u32 a b", EINVAL },
	{ "e u32 a ", EINVAL },
	{ "e u32  a", EINVAL },
	{ "e u32 a;u32", EINVAL },
	{ "e u32 a;u32 b c", EINVAL },
	{ "e unsigned int", EINVAL },
	{ "e unsigned  int a", EINVAL },
	{ "e unsigned x", EINVAL },
	{ "e __data_loc x", EINVAL },
	{ "e char a 20", EINVAL },
	/* char[N] */
	{ "e char[] a", EINVAL },
	{ "e char[0] a", EINVAL },
	{ "e char[1025] a", EINVAL },
	{ "e char[9999] a", EINVAL },
	{ "e char[08] a", EINVAL },
	{ "e char[aa] a", EINVAL },
	{ "e char[-1] a", EINVAL },
	{ "e char[0x] a", EINVAL },
	{ "e char[0x0] a", EINVAL },
	{ "e char[ a", EINVAL },
	{ "e char[[20] a", EINVAL },
	{ "e char[1024 a", EINVAL },
	{ "e char[0x00014] a", EINVAL },
	{ "e char[0x0000000000001] a", EINVAL },
	{ "e char[20]abcde a", EINVAL },
	/* struct sizes: decimal only, non-zero, present, alone */
	{ "e struct custom a", EINVAL },
	{ "e struct a", EINVAL },
	{ "e struct a b 0", EINVAL },
	{ "e struct a b 0x10", EINVAL },
	{ "e struct a b -1", EINVAL },
	{ "e struct a b 5 6", EINVAL },
	{ "e struct a b 4294967296", EINVAL },
	{ "e struct a b 99999999999999999999999", EINVAL },
	/* a size of 2^32 - k comes back from the kernel as -k */
	{ "e struct a b 4294967295", EPERM },
	{ "e struct a b 4294967283", EACCES },
	{ "e struct a b 4294967284", ENOMEM },
	{ "e struct a b 4294967274", EINVAL },
	{ "e struct a b 4294963201", 4095 },
	/* the kernel returns these as non-errno values (-4096, INT_MIN): EINVAL here */
	{ "e struct a b 4294963200", EINVAL },
	{ "e struct a b 2147483648", EINVAL },
};

TEST(every_rejection)
{
	for (size_t i = 0; i < sizeof(reject_cases) / sizeof(reject_cases[0]); i++) {
		struct ue_event *ev = (struct ue_event *)&ev;

		note(reject_cases[i].name_args);
		EXPECT_ERRNO(ue_event_parse(reject_cases[i].name_args, &ev), reject_cases[i].err);
		EXPECT_ERRNO(ue_event_parse_dyn(reject_cases[i].name_args, &ev),
			     reject_cases[i].err);
		/* untouched on failure */
		EXPECT_TRUE(ev == (struct ue_event *)&ev);
	}
}

TEST(null_arguments)
{
	struct ue_event *ev;

	EXPECT_ERRNO(ue_event_parse(NULL, &ev), EINVAL);
	EXPECT_ERRNO(ue_event_parse("e", NULL), EINVAL);
	EXPECT_ERRNO(ue_event_parse_dyn(NULL, &ev), EINVAL);
	ue_event_free(NULL);
}

/* Offsets add up from the common header; min_size is the payload part. */
TEST(layout)
{
	static const struct {
		const char *name_args;
		uint32_t nfields, min_size, nvalidators;
		uint32_t offsets[16];
	} cases[] = {
		{ "t1 u64 a;s64 b;u32 c;s32 d;int e;unsigned int f;u16 g;s16 h;short i;"
		  "unsigned short j;u8 k;s8 l;char m;unsigned char n",
		  14, 44, 0, { 8, 16, 24, 28, 32, 36, 40, 42, 44, 46, 48, 49, 50, 51 } },
		{ "fx u32 a;s8 b;char[4] c;__rel_loc char[] s;u64 d;unsigned char e;"
		  "__data_loc u8[] arr;struct foo st 6",
		  8, 32, 2, { 8, 12, 13, 17, 21, 29, 30, 34 } },
		{ "t2 char[20] a;unsigned char[20] b;char[0x14] c;unsigned char[0x14] d;"
		  "char[0X1f] e;char[024] f;char[+5] g",
		  7, 136, 0, { 8, 28, 48, 68, 88, 119, 139 } },
		/* an int in the kernel: the next offset wraps past 2^31 (format: 2147483655) */
		{ "w1 struct a b 2147483647;u32 c", 2, 2147483651u, 0, { 8, 2147483655u } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_event *ev;

		note(cases[i].name_args);
		ASSERT_EQ(ue_event_parse(cases[i].name_args, &ev), 0);
		EXPECT_EQ(ev->nfields, cases[i].nfields);
		EXPECT_EQ(ev->min_size, cases[i].min_size);
		EXPECT_EQ(ev->nvalidators, cases[i].nvalidators);
		for (uint32_t j = 0; j < ev->nfields && j < 16; j++)
			EXPECT_EQ(ev->fields[j].offset, cases[i].offsets[j]);
		ue_event_free(ev);
	}
}

/* Empty fields are skipped, and so are spaces at the start of a field. */
TEST(field_separators)
{
	static const struct {
		const char *name_args;
		uint32_t nfields;
		const char *names[3];
	} cases[] = {
		{ "e", 0, { NULL } },
		{ "e ", 0, { NULL } },
		{ "e ;", 0, { NULL } },
		{ "e ;;; ;", 0, { NULL } },
		{ "e u32 a;", 1, { "a" } },
		{ "e ;u32 a", 1, { "a" } },
		{ "e  u32 a", 1, { "a" } },
		{ "e u32 a;  ", 1, { "a" } },
		{ "e u32 a;;;u32 b", 2, { "a", "b" } },
		{ "e u32 a; u32 b", 2, { "a", "b" } },
		{ "e u32 a;\t u32 b", 2, { "a", "b" } },
		{ "e u32 a;\xa0u32 b", 2, { "a", "b" } },
		{ "e u32 a;\n\v\f\ru32 b", 2, { "a", "b" } },
		{ "e u32 ;u32 b", 2, { "", "b" } },
		{ "e u32 a;u32 a", 2, { "a", "a" } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_event *ev;

		note(cases[i].name_args);
		ASSERT_EQ(ue_event_parse(cases[i].name_args, &ev), 0);
		EXPECT_STREQ(ev->name, "e");
		EXPECT_EQ(ev->nfields, cases[i].nfields);
		for (uint32_t j = 0; j < ev->nfields && j < 3; j++)
			EXPECT_STREQ(ev->fields[j].name, cases[i].names[j]);
		ue_event_free(ev);
	}
}

/* The kernel checks no characters in event names (all registered there). */
TEST(event_names)
{
	static const struct {
		const char *name_args, *name;
	} cases[] = {
		{ " u32 a", "" },
		{ "a/b u32 x", "a/b" },
		{ ". u32 x", "." },
		{ ".. u32 x", ".." },
		{ "a.b u32 x", "a.b" },
		{ "a\tb u32 x", "a\tb" },
		{ "a\xa0" "b u32 x", "a\xa0" "b" },
		{ "\xc3\xa9t\xc3\xa9 u32 x", "\xc3\xa9t\xc3\xa9" },
		{ "n4\nq u32 a", "n4\nq" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_event *ev;

		ASSERT_EQ(ue_event_parse(cases[i].name_args, &ev), 0);
		EXPECT_STREQ(ev->name, cases[i].name);
		EXPECT_EQ(ev->nfields, 1);
		ue_event_free(ev);
	}
}

/* strndup_user(name_args, 512): 511 characters and the NUL fit, 512 do not. */
TEST(length_limit)
{
	char buf[600];
	struct ue_event *ev;

	memset(buf, 'y', sizeof(buf));
	buf[511] = '\0';
	ASSERT_EQ(ue_event_parse(buf, &ev), 0);
	EXPECT_EQ(strlen(ev->name), 511);
	ue_event_free(ev);

	buf[511] = 'y';
	buf[512] = '\0';
	EXPECT_ERRNO(ue_event_parse(buf, &ev), EINVAL);
	/* dynamic_events has no such limit */
	ASSERT_EQ(ue_event_parse_dyn(buf, &ev), 0);
	ue_event_free(ev);

	/* a 511-character name_args ending in a long field name */
	memcpy(buf, "L1 u8 ", 6);
	memset(buf + 6, 'x', 505);
	buf[511] = '\0';
	ASSERT_EQ(ue_event_parse(buf, &ev), 0);
	EXPECT_EQ(strlen(ev->fields[0].name), 505);
	ue_event_free(ev);
}

/*
 * The field count is bounded by the text: 4 characters a field at least
 * ("u8 ;", empty name), so 127 through DIAG_IOCSREG and about 1000 through
 * a dynamic_events line (the kernel accepted a 1000-field "u:" line).
 */
TEST(field_count_bound)
{
	static char buf[UE_DYNEVENT_MAX_LINE];
	struct ue_event *ev;
	size_t n = 2;

	memcpy(buf, "e ", 2);
	while (n + 4 <= UE_MAX_EVENT_DESC - 1) {
		memcpy(buf + n, "u8 ;", 4);
		n += 4;
	}
	buf[n] = '\0';
	ASSERT_EQ(ue_event_parse(buf, &ev), 0);
	EXPECT_EQ(ev->nfields, 127);
	EXPECT_EQ(ev->min_size, 127);
	EXPECT_EQ(ev->fields[126].offset, 8 + 126);
	ue_event_free(ev);

	while (n + 4 <= UE_DYNEVENT_MAX_LINE - 1 - 2) {
		memcpy(buf + n, "u8 ;", 4);
		n += 4;
	}
	buf[n] = '\0';
	EXPECT_ERRNO(ue_event_parse(buf, &ev), EINVAL);
	ASSERT_EQ(ue_event_parse_dyn(buf, &ev), 0);
	EXPECT_EQ(ev->nfields, 1022);
	EXPECT_TRUE(ue_event_match_args(ev, buf + 2));
	ue_event_free(ev);
}

/* Every print_fmt case of the kernel's ftrace_test.c must parse. */
TEST(ftrace_test_print_fmt_inputs)
{
	static const struct {
		const char *name_args, *type;
		enum ue_field_kind kind;
	} cases[] = {
		{ "__test_event __rel_loc char[] data", "__rel_loc char[]", UE_FIELD_RDYN_STRING },
		{ "__test_event __data_loc char[] data", "__data_loc char[]", UE_FIELD_DYN_STRING },
		{ "__test_event s64 data", "s64", UE_FIELD_INT },
		{ "__test_event u64 data", "u64", UE_FIELD_INT },
		{ "__test_event s32 data", "s32", UE_FIELD_INT },
		{ "__test_event u32 data", "u32", UE_FIELD_INT },
		{ "__test_event int data", "int", UE_FIELD_INT },
		{ "__test_event unsigned int data", "unsigned int", UE_FIELD_INT },
		{ "__test_event s16 data", "s16", UE_FIELD_INT },
		{ "__test_event u16 data", "u16", UE_FIELD_INT },
		{ "__test_event short data", "short", UE_FIELD_INT },
		{ "__test_event unsigned short data", "unsigned short", UE_FIELD_INT },
		{ "__test_event s8 data", "s8", UE_FIELD_INT },
		{ "__test_event u8 data", "u8", UE_FIELD_INT },
		{ "__test_event char data", "char", UE_FIELD_INT },
		{ "__test_event unsigned char data", "unsigned char", UE_FIELD_INT },
		{ "__test_event char[4] data", "char[4]", UE_FIELD_STATIC_STRING },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_event *ev;

		ASSERT_EQ(ue_event_parse(cases[i].name_args, &ev), 0);
		EXPECT_STREQ(ev->name, "__test_event");
		ASSERT_EQ(ev->nfields, 1);
		EXPECT_STREQ(ev->fields[0].type, cases[i].type);
		EXPECT_STREQ(ev->fields[0].name, "data");
		EXPECT_EQ(ev->fields[0].kind, cases[i].kind);
		ue_event_free(ev);
	}
	/* its other registrations */
	{
		static const char *const others[] = {
			"__test_event u32 field1; u32 field2", "__test_event u32 field1;u32 field2",
			"__test_event u32 field1;", "__test_event", "__test_event u64 anon",
		};
		static const uint32_t nfields[] = { 2, 2, 1, 0, 1 };

		for (size_t i = 0; i < 5; i++) {
			struct ue_event *ev;

			ASSERT_EQ(ue_event_parse(others[i], &ev), 0);
			EXPECT_EQ(ev->nfields, nfields[i]);
			ue_event_free(ev);
		}
	}
}

/*
 * dyn_test.c's basic_types, loc_types and size_types: each value must parse
 * the same way as DIAG_IOCSREG name_args (after "u:") and as a
 * dynamic_events line.
 */
TEST(dyn_test_types)
{
	static const struct {
		const char *value;
		bool ok;
	} cases[] = {
		{ "u:__test_event u64 a", true },
		{ "u:__test_event u32 a", true },
		{ "u:__test_event u16 a", true },
		{ "u:__test_event u8 a", true },
		{ "u:__test_event char a", true },
		{ "u:__test_event unsigned char a", true },
		{ "u:__test_event int a", true },
		{ "u:__test_event unsigned int a", true },
		{ "u:__test_event short a", true },
		{ "u:__test_event unsigned short a", true },
		{ "u:__test_event char[20] a", true },
		{ "u:__test_event unsigned char[20] a", true },
		{ "u:__test_event char[0x14] a", true },
		{ "u:__test_event unsigned char[0x14] a", true },
		{ "u:__test_event char[aa] a", false },
		{ "u:__test_event char[9999] a", false },
		{ "u:__test_event char[0x0000000000001] a", false },
		{ "u:__test_event __data_loc char[] a", true },
		{ "u:__test_event __data_loc unsigned char[] a", true },
		{ "u:__test_event __rel_loc char[] a", true },
		{ "u:__test_event __rel_loc unsigned char[] a", true },
		{ "u:__test_event struct custom a 20", true },
		{ "u:__test_event struct custom a", false },
		{ "u:__test_event char a 20", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static struct ue_dynevent_cmd cmd;
		struct ue_event *ev = NULL;
		int abi, dyn;

		note(cases[i].value);
		abi = ue_event_parse(cases[i].value + 2, &ev);
		ue_event_free(abi ? NULL : ev);
		ASSERT_EQ(ue_dynevent_parse(cases[i].value, &cmd), 0);
		ASSERT_EQ(cmd.op, UE_DYNEVENT_CREATE);
		dyn = ue_event_parse_dyn(cmd.name_args, &ev);
		ue_event_free(dyn ? NULL : ev);
		EXPECT_EQ(abi, dyn);
		EXPECT_EQ(abi, cases[i].ok ? 0 : -EINVAL);
	}
}

TEST(name_args_split)
{
	static const struct {
		const char *name_args;
		int ret;
		size_t name_len;
		const char *args;
	} cases[] = {
		{ "e", 0, 1, NULL },
		{ "e ", 0, 1, "" },
		{ "e u32 a", 0, 1, "u32 a" },
		{ "e  u32 a", 0, 1, " u32 a" },
		{ " u32 a", 0, 0, "u32 a" },
		{ "", 0, 0, NULL },
		{ "e\tu32 a", 0, 5, "a" },
		{ "e u32 a:b", 0, 1, "u32 a:b" },
		{ "e:", -EINVAL, 0, NULL },
		{ "e:x u32 a", -EINVAL, 0, NULL },
		{ ":", -EINVAL, 0, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args = "untouched";
		size_t len = 999;

		note(cases[i].name_args);
		ASSERT_EQ(ue_name_args_split(cases[i].name_args, &len, &args), cases[i].ret);
		if (cases[i].ret) {
			EXPECT_EQ(len, 999);
			EXPECT_STREQ(args, "untouched");
			continue;
		}
		EXPECT_EQ(len, cases[i].name_len);
		if (cases[i].args)
			EXPECT_STREQ(args, cases[i].args);
		else
			EXPECT_TRUE(args == NULL);
	}
}

UE_TEST_MAIN()
