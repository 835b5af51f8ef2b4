// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/format-print.c: print fmt (every case of the kernel self-test
 * ftrace_test.c), whole format files, dynamic_events and user_events_status
 * lines, byte for byte as the reference kernel printed them.
 */
#include "harness.h"
#include "event_table.h"

/* tools/testing/selftests/user_events/ftrace_test.c, TEST_F(user, print_fmt). */
static const struct {
	struct field_spec field;
	const char *expected;
} selftest_print_fmt[] = {
	{ { "__rel_loc char[]", "data", 4 }, "print fmt: \"data=%s\", __get_rel_str(data)" },
	{ { "__data_loc char[]", "data", 4 }, "print fmt: \"data=%s\", __get_str(data)" },
	{ { "s64", "data", 8 }, "print fmt: \"data=%lld\", REC->data" },
	{ { "u64", "data", 8 }, "print fmt: \"data=%llu\", REC->data" },
	{ { "s32", "data", 4 }, "print fmt: \"data=%d\", REC->data" },
	{ { "u32", "data", 4 }, "print fmt: \"data=%u\", REC->data" },
	{ { "int", "data", 4 }, "print fmt: \"data=%d\", REC->data" },
	{ { "unsigned int", "data", 4 }, "print fmt: \"data=%u\", REC->data" },
	{ { "s16", "data", 2 }, "print fmt: \"data=%d\", REC->data" },
	{ { "u16", "data", 2 }, "print fmt: \"data=%u\", REC->data" },
	{ { "short", "data", 2 }, "print fmt: \"data=%d\", REC->data" },
	{ { "unsigned short", "data", 2 }, "print fmt: \"data=%u\", REC->data" },
	{ { "s8", "data", 1 }, "print fmt: \"data=%d\", REC->data" },
	{ { "u8", "data", 1 }, "print fmt: \"data=%u\", REC->data" },
	{ { "char", "data", 1 }, "print fmt: \"data=%d\", REC->data" },
	{ { "unsigned char", "data", 1 }, "print fmt: \"data=%u\", REC->data" },
	{ { "char[4]", "data", 4 }, "print fmt: \"data=%s\", REC->data" },
};

TEST(print_fmt_selftest_table)
{
	for (size_t i = 0; i < sizeof(selftest_print_fmt) / sizeof(selftest_print_fmt[0]); i++) {
		struct test_event te;
		struct ue_event *ev = test_event_build(&te, "__test_event",
						       &selftest_print_fmt[i].field, 1);
		char buf[256];
		int n;

		memcpy(buf, "print fmt: ", 11);
		n = ue_format_print_fmt(ev, buf + 11, sizeof(buf) - 11);
		ASSERT_EQ(n, strlen(selftest_print_fmt[i].expected) - 11);
		EXPECT_STREQ(buf, selftest_print_fmt[i].expected);
	}
}

/* Format files as the reference kernel printed them (see event_table.h). */
static const char fx_format[] =
	"name: fx\n"
	"ID: 397\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:s8 b;\toffset:12;\tsize:1;\tsigned:1;\n"
	"\tfield:char c[];\toffset:13;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc char s[];\toffset:17;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 d;\toffset:21;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned char e;\toffset:29;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc u8[] arr;\toffset:30;\tsize:4;\tsigned:1;\n"
	"\tfield:struct foo st;\toffset:34;\tsize:6;\tsigned:1;\n"
	"\n"
	"print fmt: \"a=%u b=%d c=%s s=%s d=%llu e=%u arr=%llu st=%llu\","
	" REC->a, REC->b, REC->c, __get_rel_str(s), REC->d, REC->e, REC->arr, REC->st\n"
	;
static const char fy_format[] =
	"name: fy\n"
	"ID: 398\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc u8 r[];\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned char uc[];\toffset:16;\tsize:3;\tsigned:0;\n"
	"\tfield:s16 h;\toffset:19;\tsize:2;\tsigned:1;\n"
	"\tfield:u16 uh;\toffset:21;\tsize:2;\tsigned:0;\n"
	"\tfield:int i;\toffset:23;\tsize:4;\tsigned:1;\n"
	"\tfield:char ch;\toffset:27;\tsize:1;\tsigned:1;\n"
	"\n"
	"print fmt: \"s=%s r=%llu uc=%s h=%d uh=%u i=%d ch=%d\","
	" __get_str(s), REC->r, REC->uc, REC->h, REC->uh, REC->i, REC->ch\n"
	;
static const char fz_format[] =
	"name: fz\n"
	"ID: 399\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\n"
	"print fmt: \"\"\n"
	;
static const char fw_format[] =
	"name: fw\n"
	"ID: 400\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc cpumask_t m;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:struct bar b4;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:struct baz b8;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:struct one b1;\toffset:24;\tsize:1;\tsigned:1;\n"
	"\tfield:struct two b2;\toffset:25;\tsize:2;\tsigned:1;\n"
	"\tfield:char hx[];\toffset:27;\tsize:16;\tsigned:1;\n"
	"\tfield:__data_loc unsigned char[] us;\toffset:43;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc unsigned char rus[];\toffset:47;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"m=%llu b4=%llu b8=%llu b1=%llu b2=%llu hx=%s us=%s rus=%s\","
	" REC->m, REC->b4, REC->b8, REC->b1, REC->b2, REC->hx, __get_str(us), __get_rel_str(rus)\n"
	;
static const char fv_format[] =
	"name: fv\n"
	"ID: 401\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:struct __data_loc_x q;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char s0;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:short sh;\toffset:16;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned short ush;\toffset:18;\tsize:2;\tsigned:0;\n"
	"\tfield:s64 big;\toffset:20;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"q=%llu s0=%llu sh=%d ush=%u big=%lld\","
	" REC->q, __get_str(s0), REC->sh, REC->ush, REC->big\n"
	;
static const char ft_format[] =
	"name: ft\n"
	"ID: 402\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char c1[];\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield:unsigned char uc2[];\toffset:9;\tsize:2;\tsigned:0;\n"
	"\tfield:struct char sc[];\toffset:11;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"c1=%s uc2=%s sc=%s\", REC->c1, REC->uc2, REC->sc\n"
	;

static const struct {
	const char *name;
	const struct field_spec *spec;
	size_t nfields;
	unsigned int id;
	const char *format;
	const char *dynevent;
} probe_events[] = {
	{ "fx", fx_spec, 8, 397, fx_format,
	  "u:fx u32 a; s8 b; char[4] c; __rel_loc char[] s; u64 d; unsigned char e; "
	  "__data_loc u8[] arr; struct foo st 6\n" },
	{ "fy", fy_spec, 7, 398, fy_format,
	  "u:fy __data_loc char[] s; __rel_loc u8[] r; unsigned char[3] uc; s16 h; u16 uh; int i; "
	  "char ch\n" },
	{ "fz", NULL, 0, 399, fz_format, "u:fz\n" },
	{ "fw", fw_spec, 8, 400, fw_format,
	  "u:fw __data_loc cpumask_t m; struct bar b4 4; struct baz b8 8; struct one b1 1; "
	  "struct two b2 2; char[0x10] hx; __data_loc unsigned char[] us; "
	  "__rel_loc unsigned char[] rus\n" },
	{ "fv", fv_spec, 5, 401, fv_format,
	  "u:fv struct __data_loc_x q 4; __data_loc char s0; short sh; unsigned short ush; "
	  "s64 big\n" },
	/*
	 * For ft the kernel printed "char c1[6517504]" and "unsigned char
	 * uc2[543388448]": it prints a length it never initialises for user
	 * events.  Where that memory was zero (fx's "char c[]" above) it
	 * printed "[]", which is what we always print (docs/compat.md).
	 */
	{ "ft", ft_spec, 3, 402, ft_format,
	  "u:ft char[1] c1; unsigned char[2] uc2; struct char[4] sc 4\n" },
};

TEST(format_file_probe_events)
{
	for (size_t i = 0; i < sizeof(probe_events) / sizeof(probe_events[0]); i++) {
		struct test_event te;
		struct ue_event *ev = test_event_build(&te, probe_events[i].name,
						       probe_events[i].spec,
						       probe_events[i].nfields);
		char buf[2048];
		int n = ue_format_file(ev, probe_events[i].name, probe_events[i].id, buf,
				       sizeof(buf));

		ASSERT_EQ(n, strlen(probe_events[i].format));
		EXPECT_STREQ(buf, probe_events[i].format);
	}
}

TEST(print_fmt_is_the_format_file_tail)
{
	for (size_t i = 0; i < sizeof(probe_events) / sizeof(probe_events[0]); i++) {
		struct test_event te;
		struct ue_event *ev = test_event_build(&te, probe_events[i].name,
						       probe_events[i].spec,
						       probe_events[i].nfields);
		const char *tail = strstr(probe_events[i].format, "\nprint fmt: ") + 12;
		char buf[1024];
		int n = ue_format_print_fmt(ev, buf, sizeof(buf));

		ASSERT_EQ(n + 1, strlen(tail));
		EXPECT_EQ(memcmp(buf, tail, n), 0);
	}
}

TEST(format_file_multi_format_name_and_large_id)
{
	static const struct field_spec spec[] = { { "u64", "v", 8 } };
	static const char expected[] =
		"name: multi.1f\n"
		"ID: 65535\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:u64 v;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\n"
		"print fmt: \"v=%llu\", REC->v\n";
	struct test_event te;
	char buf[1024];

	ASSERT_EQ(ue_format_file(TEST_EVENT(&te, "multi", spec), "multi.1f", 65535, buf,
				 sizeof(buf)),
		  strlen(expected));
	EXPECT_STREQ(buf, expected);
}

TEST(dynevent_lines)
{
	for (size_t i = 0; i < sizeof(probe_events) / sizeof(probe_events[0]); i++) {
		struct test_event te;
		struct ue_event *ev = test_event_build(&te, probe_events[i].name,
						       probe_events[i].spec,
						       probe_events[i].nfields);
		char buf[512];

		ASSERT_EQ(ue_format_dynevent_line(ev, buf, sizeof(buf)),
			  strlen(probe_events[i].dynevent));
		EXPECT_STREQ(buf, probe_events[i].dynevent);
	}
}

TEST(status_lines)
{
	static const struct {
		const char *name;
		unsigned int status;
		const char *expected;
	} cases[] = {
		{ "fx", 0, "fx\n" },
		{ "fx", UE_STATUS_FTRACE, "fx # Used by ftrace\n" },
		{ "fx", UE_STATUS_PERF, "fx # Used by perf\n" },
		{ "fx", UE_STATUS_OTHER, "fx # Used by other\n" },
		{ "m.2a", UE_STATUS_FTRACE | UE_STATUS_PERF | UE_STATUS_OTHER,
		  "m.2a # Used by ftrace perf other\n" },
		/* A bit the kernel names nothing for still makes the event "used". */
		{ "fx", 0x04, "fx # Used by\n" },
		/* The kernel keeps the status in a char. */
		{ "fx", 0x100, "fx\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];

		ASSERT_EQ(ue_format_status_line(cases[i].name, cases[i].status, buf, sizeof(buf)),
			  strlen(cases[i].expected));
		EXPECT_STREQ(buf, cases[i].expected);
	}
}

static int render_format_file(const void *arg, char *buf, size_t len)
{
	return ue_format_file(arg, "fx", 397, buf, len);
}

static int render_print_fmt(const void *arg, char *buf, size_t len)
{
	return ue_format_print_fmt(arg, buf, len);
}

static int render_dynevent(const void *arg, char *buf, size_t len)
{
	return ue_format_dynevent_line(arg, buf, len);
}

static int render_status(const void *arg, char *buf, size_t len)
{
	(void)arg;
	return ue_format_status_line("fx", UE_STATUS_FTRACE | UE_STATUS_PERF, buf, len);
}

TEST(snprintf_contract)
{
	static const struct {
		test_render_fn fn;
		const char *full;
	} cases[] = {
		{ render_format_file, fx_format },
		{ render_print_fmt, "\"a=%u b=%d c=%s s=%s d=%llu e=%u arr=%llu st=%llu\", REC->a, "
				    "REC->b, REC->c, __get_rel_str(s), REC->d, REC->e, REC->arr, "
				    "REC->st" },
		{ render_dynevent, "u:fx u32 a; s8 b; char[4] c; __rel_loc char[] s; u64 d; "
				   "unsigned char e; __data_loc u8[] arr; struct foo st 6\n" },
		{ render_status, "fx # Used by ftrace perf\n" },
	};
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "fx", fx_spec);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_EQ(check_snprintf_contract(cases[i].fn, ev, cases[i].full), 0);
}

TEST(invalid_arguments)
{
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "fx", fx_spec);
	char buf[16];

	EXPECT_ERRNO(ue_format_print_fmt(NULL, buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(ue_format_file(NULL, "fx", 1, buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(ue_format_file(ev, NULL, 1, buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(ue_format_dynevent_line(NULL, buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(ue_format_status_line(NULL, 0, buf, sizeof(buf)), EINVAL);
	te.fields[2].name = NULL;
	EXPECT_ERRNO(ue_format_print_fmt(ev, buf, sizeof(buf)), EINVAL);
	te.fields[2].name = "c";
	te.ev.fields = NULL;
	EXPECT_ERRNO(ue_format_dynevent_line(ev, buf, sizeof(buf)), EINVAL);
}

UE_TEST_MAIN()
