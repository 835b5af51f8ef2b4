// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/render.c: the trace lines the reference kernel printed for
 * the probe's records, the rules of its fields printer that only a
 * hand-built record reaches (sizes, <OVERFLOW>, negative lengths), the
 * context prefix, the ring buffer's reported size, and the JSON rendering.
 */
#include "harness.h"
#include "event_table.h"

/* Renders from a copy of exactly @ent_size bytes, so ASan sees any overread. */
static int render_exact(const struct ue_event *ev, const char *name, const unsigned char *rec,
			size_t ent_size, char *buf, size_t len)
{
	unsigned char *copy = malloc(ent_size ? ent_size : 1);
	int ret;

	memcpy(copy, rec, ent_size);
	ret = ue_render_fields(ev, name, copy, ent_size, buf, len);
	free(copy);
	return ret;
}

static int json_exact(const struct ue_event *ev, const char *system, const char *name,
		      const struct ue_record_ctx *ctx, const unsigned char *rec, size_t ent_size,
		      char *buf, size_t len)
{
	unsigned char *copy = malloc(ent_size ? ent_size : 1);
	int ret;

	memcpy(copy, rec, ent_size);
	ret = ue_render_json(ev, system, name, ctx, copy, ent_size, buf, len);
	/* The prepared keys (the tools' way) write the very same bytes. */
	if (ev && name) {
		struct ue_json_keys *keys = NULL;
		char *again = malloc(len ? len : 1);

		if (ue_json_keys_new(ev, system, name, &keys) == 0 && again) {
			int r2 = ue_render_json_keys(keys, ev, ctx, copy, ent_size, again, len);

			if (r2 != ret || (len && buf && strcmp(again, buf) != 0)) {
				fprintf(stderr, "# ue_render_json_keys differs: %d vs %d\n", r2, ret);
				ret = -EPROTO;
			}
		} else {
			ret = -ENOMEM;
		}
		ue_json_keys_free(keys);
		free(again);
	}
	free(copy);
	return ret;
}

/*
 * The probe's successful writes, in order, with the event part of the trace
 * line the reference kernel printed for each (records as in event_table.h;
 * the record is padded with zeros to ue_record_ent_size()).
 */
static const struct {
	enum test_probe ev;
	int payload_delta;
	struct test_patch patches[6];
	const char *line;
} probe_lines[] = {
	{ FX, 0, { { 0 } },
	  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s=hello d=0x11f71fb04cb "
	  "(1234567890123) e='Z'(90) arr=0a,0b,0c st=<INVALID-SIZE>\n" },
	{ FX, 0, { { 17, TEST_LOC(24, 1), 0 } },
	  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s= d=0x11f71fb04cb "
	  "(1234567890123) e='Z'(90) arr=0a,0b,0c st=<INVALID-SIZE>\n" },
	{ FX, 3, { { 0 } },
	  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s=hello d=0x11f71fb04cb "
	  "(1234567890123) e='Z'(90) arr=0a,0b,0c st=<INVALID-SIZE>\n" },
	{ FX, 0, { { 12, 0, 1 + 0x7f }, { 29, 0, 1 + 0x80 } },
	  "fx: a=0xdeadbeef (-559038737) b=(127) c=abc s=hello d=0x11f71fb04cb "
	  "(1234567890123) e=(128) arr=0a,0b,0c st=<INVALID-SIZE>\n" },
	{ FX, 0, { { 12, 0, 1 + 0xa0 }, { 29, 0, 1 + 0x20 } },
	  "fx: a=0xdeadbeef (-559038737) b='\xa0'(160) c=abc s=hello d=0x11f71fb04cb "
	  "(1234567890123) e=' '(32) arr=0a,0b,0c st=<INVALID-SIZE>\n" },
	{ FX, 0, { { 12, 0, 1 + 'q' }, { 29, 0, 1 + 0 }, { 16, 0, 1 + 'd' } },
	  "fx: a=0xdeadbeef (-559038737) b='q'(113) c=abcd s=hello d=0x11f71fb04cb "
	  "(1234567890123) e=(0) arr=0a,0b,0c st=<INVALID-SIZE>\n" },
	{ FX, 0, { { 12, 0, 1 + 'q' }, { 29, 0, 1 + 0 }, { 13, 0, 1 + 0 }, { 16, 0, 1 + 'd' } },
	  "fx: a=0xdeadbeef (-559038737) b='q'(113) c= s=hello d=0x11f71fb04cb "
	  "(1234567890123) e=(0) arr=0a,0b,0c st=<INVALID-SIZE>\n" },
	{ FY, 0, { { 0 } },
	  "fy: s=hi r=ff,10 uc=abc h=0xfffe (65534) uh=0x8000 (32768) i=0xffffffff (-1) "
	  "ch=(127)\n" },
	{ FY, 0, { { 8, TEST_LOC(28, 0), 0 }, { 12, 0, 0 }, { 16, 0, 1 + 'x' }, { 17, 0, 1 + 0 },
		    { 27, 0, 1 + 0 } },
	  "fy: s= r= uc=x h=0xfffe (65534) uh=0x8000 (32768) i=0xffffffff (-1) ch=(0)\n" },
	{ FY, 0, { { 8, TEST_LOC(0, 0), 0 }, { 12, 0, 0 }, { 16, 0, 1 + 'x' }, { 17, 0, 1 + 0 },
		    { 27, 0, 1 + 0 } },
	  "fy: s= r= uc=x h=0xfffe (65534) uh=0x8000 (32768) i=0xffffffff (-1) ch=(0)\n" },
	{ FY, 0, { { 8, TEST_LOC(3, 1), 0 }, { 12, 0, 0 }, { 16, 0, 1 + 'x' }, { 17, 0, 1 + 0 },
		    { 27, 0, 1 + 0 } },
	  "fy: s= r= uc=x h=0xfffe (65534) uh=0x8000 (32768) i=0xffffffff (-1) ch=(0)\n" },
	{ FY, 0, { { 8, TEST_LOC(33, 0), 0 }, { 12, 0, 0 }, { 16, 0, 1 + 'x' }, { 17, 0, 1 + 0 },
		    { 27, 0, 1 + 0 }, { 32, 0, 1 + 0 } },
	  "fy: s= r= uc=x h=0xfffe (65534) uh=0x8000 (32768) i=0xffffffff (-1) ch=(0)\n" },
	{ FZ, 0, { { 0 } }, "fz:No fields found\n" },
	{ FZ, 5, { { 8, 0, 1 + 'a' }, { 9, 0, 1 + 'b' }, { 10, 0, 1 + 'c' }, { 11, 0, 1 + 'd' } },
	  "fz:No fields found\n" },
	{ FW, 0, { { 0 } },
	  "fw: m=<INVALID-TYPE> b4=0x4030201 (67305985) b8=0x8807060504030201 "
	  "(-8644934341102468607) b1='A'(65) b2=0x7fff (32767) hx=0123456789abcdef us=xyz "
	  "rus=pq\n" },
	{ FV, 0, { { 0 } },
	  "fv: q=11,22 s0= sh=0xfed4 (65236) ush=0xffff (65535) big=0xfffffffffffffffb (-5)\n" },
	{ FT, 0, { { 0 } }, "ft: c1=Q uc2=RS sc=wxyz\n" },
	{ FT, 0, { { 8, 0, 1 + 0 }, { 9, 0, 1 + 0 } }, "ft: c1= uc2= sc=wxyz\n" },
};

TEST(reference_kernel_lines)
{
	for (size_t i = 0; i < sizeof(probe_lines) / sizeof(probe_lines[0]); i++) {
		struct test_event te;
		unsigned char rec[256];
		size_t len;
		struct ue_event *ev = test_probe_event(&te, probe_lines[i].ev, rec, &len);
		char buf[512];

		test_apply(rec, probe_lines[i].patches, 6);
		len = (size_t)((long)len + probe_lines[i].payload_delta);
		ASSERT_EQ(test_validate(ev, rec, len), 0);
		ASSERT_EQ(render_exact(ev, ev->name, rec, ue_record_ent_size(len), buf,
				       sizeof(buf)),
			  strlen(probe_lines[i].line));
		EXPECT_STREQ(buf, probe_lines[i].line);
	}
}

/* A whole line: context then fields, as the reference kernel printed the first record. */
TEST(reference_kernel_whole_line)
{
	static const char expected[] =
		"           <...>-30      [000] .....     2.090901: fx: a=0xdeadbeef (-559038737) "
		"b='\xfb'(251) c=abc s=hello d=0x11f71fb04cb (1234567890123) e='Z'(90) "
		"arr=0a,0b,0c st=<INVALID-SIZE>\n";
	struct ue_record_ctx ctx = { NULL, 30, 0, 2090901000ULL, "....." };
	struct test_event te;
	unsigned char rec[256];
	size_t len;
	struct ue_event *ev = test_probe_event(&te, FX, rec, &len);
	char buf[512];
	int n;

	n = ue_render_context(&ctx, buf, sizeof(buf));
	ASSERT_EQ(n, 51);
	n += render_exact(ev, "fx", rec, ue_record_ent_size(len), buf + n, sizeof(buf) - n);
	ASSERT_EQ(n, strlen(expected));
	EXPECT_STREQ(buf, expected);
}

/* One field of each size and value class, from the kernel's source. */
TEST(scalar_rules)
{
	static const struct {
		const char *type;
		uint32_t size;
		const char *bytes;
		const char *expected;
	} cases[] = {
		/* Latin-1 ctype: 0x20-0x7e and 0xa0-0xff print as 'c'. */
		{ "u8", 1, "\x00", "(0)" },
		{ "u8", 1, "\x1f", "(31)" },
		{ "char", 1, " ", "' '(32)" },
		{ "s8", 1, "~", "'~'(126)" },
		{ "s8", 1, "\x7f", "(127)" },
		{ "s8", 1, "\x80", "(128)" },
		{ "s8", 1, "\x9f", "(159)" },
		{ "s8", 1, "\xa0", "'\xa0'(160)" },
		{ "u8", 1, "\xff", "'\xff'(255)" },
		{ "struct b", 1, "A", "'A'(65)" },
		{ "s16", 2, "\x00\x00", "0x0 (0)" },
		{ "s16", 2, "\xff\xff", "0xffff (65535)" },
		{ "u32", 4, "\x00\x00\x00\x80", "0x80000000 (-2147483648)" },
		{ "int", 4, "\x01\x00\x00\x00", "0x1 (1)" },
		{ "u64", 8, "\x00\x00\x00\x00\x00\x00\x00\x80",
		  "0x8000000000000000 (-9223372036854775808)" },
		{ "s64", 8, "\xff\xff\xff\xff\xff\xff\xff\x7f",
		  "0x7fffffffffffffff (9223372036854775807)" },
		{ "struct s3", 3, "abc", "<INVALID-SIZE>" },
		{ "struct s5", 5, "abcde", "<INVALID-SIZE>" },
		{ "struct s16", 16, "0123456789abcdef", "<INVALID-SIZE>" },
		/* char arrays print up to their first NUL, or all of them. */
		{ "char[4]", 4, "ab\0d", "ab" },
		{ "char[4]", 4, "abcd", "abcd" },
		{ "unsigned char[1]", 1, "\x01", "\x01" },
		{ "char[3]", 3, "\xe9\n\x01", "\xe9\n\x01" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct field_spec spec = { cases[i].type, "v", cases[i].size };
		struct test_event te;
		struct ue_event *ev = test_event_build(&te, "e", &spec, 1);
		unsigned char rec[32] = { 0 };
		char buf[128], expected[128];

		memcpy(rec + 8, cases[i].bytes, cases[i].size);
		snprintf(expected, sizeof(expected), "e: v=%s\n", cases[i].expected);
		ASSERT_EQ(render_exact(ev, "e", rec, 8 + cases[i].size, buf, sizeof(buf)),
			  strlen(expected));
		EXPECT_STREQ(buf, expected);
	}
}

/* Locations compared against the reported size, not the written length. */
TEST(overflow_and_lengths)
{
	static const struct {
		const char *what;
		size_t ent_size;
		struct test_patch patches[3];
		const char *expected;
	} cases[] = {
		{ "fixed fields and locations past ent_size", 36, { { 0 } },
		  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s=<OVERFLOW> "
		  "d=0x11f71fb04cb (1234567890123) e='Z'(90) arr=<OVERFLOW> st=<OVERFLOW>\n" },
		{ "nothing fits", 0, { { 0 } },
		  "fx: a=<OVERFLOW> b=<OVERFLOW> c=<OVERFLOW> s=<OVERFLOW> d=<OVERFLOW> "
		  "e=<OVERFLOW> arr=<OVERFLOW> st=<OVERFLOW>\n" },
		{ "array in the padding", 52, { { 30, TEST_LOC(49, 3), 0 } },
		  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s=hello d=0x11f71fb04cb "
		  "(1234567890123) e='Z'(90) arr=00,00,00 st=<INVALID-SIZE>\n" },
		{ "array one past the padding", 52, { { 30, TEST_LOC(50, 3), 0 } },
		  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s=hello d=0x11f71fb04cb "
		  "(1234567890123) e='Z'(90) arr=<OVERFLOW> st=<INVALID-SIZE>\n" },
		{ "string stops at NUL and at its length", 52,
		  { { 17, TEST_LOC(19, 3), 0 }, { 30, TEST_LOC(40, 0), 0 } },
		  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s=hel d=0x11f71fb04cb "
		  "(1234567890123) e='Z'(90) arr= st=<INVALID-SIZE>\n" },
		/* Lengths of 0x8000 and more are negative ints to the kernel. */
		{ "negative lengths", 52,
		  { { 17, TEST_LOC(19, 0x8000), 0 }, { 30, TEST_LOC(46, 0xffff), 0 } },
		  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s=hello d=0x11f71fb04cb "
		  "(1234567890123) e='Z'(90) arr= st=<INVALID-SIZE>\n" },
		/* The kernel would print whatever follows the record up to a NUL. */
		{ "negative length, offset past the end", 52,
		  { { 17, TEST_LOC(0x1000, 0x8000), 0 }, { 30, TEST_LOC(0xffff, 0x8000), 0 } },
		  "fx: a=0xdeadbeef (-559038737) b='\xfb'(251) c=abc s= d=0x11f71fb04cb "
		  "(1234567890123) e='Z'(90) arr=<OVERFLOW> st=<INVALID-SIZE>\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct test_event te;
		unsigned char rec[256];
		size_t len;
		struct ue_event *ev = test_probe_event(&te, FX, rec, &len);
		char buf[512];
		int n;

		test_apply(rec, cases[i].patches, 3);
		n = render_exact(ev, "fx", rec, cases[i].ent_size, buf, sizeof(buf));
		if (n != (int)strlen(cases[i].expected) || strcmp(buf, cases[i].expected))
			printf("# %s\n", cases[i].what);
		EXPECT_STREQ(buf, cases[i].expected);
	}
}

/*
 * ring_buffer_event_length() for a record of N bytes on x86-64.  The
 * reference kernel's trace_pipe_raw showed the lengths marked "seen" for
 * user event records; the rest follow from kernel/trace/ring_buffer.c.
 */
TEST(ent_size)
{
	static const size_t seen[][2] = {
		{ 8, 12 }, { 9, 12 }, { 10, 12 }, { 11, 12 }, { 12, 12 }, { 13, 16 }, { 16, 16 },
		{ 17, 20 }, { 108, 108 }, { 109, 112 }, { 111, 112 }, { 112, 112 }, { 113, 116 },
		{ 116, 116 }, { 117, 120 }, { 120, 120 }, { 208, 208 }, { 1008, 1008 },
	};
	static const size_t derived[][2] = {
		{ 0, 4 }, { 1, 4 }, { 4, 4 }, { 5, 12 }, { 4000, 4000 }, { 4001, 4004 },
	};

	for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); i++)
		EXPECT_EQ(ue_record_ent_size(seen[i][0]), seen[i][1]);
	for (size_t i = 0; i < sizeof(derived) / sizeof(derived[0]); i++)
		EXPECT_EQ(ue_record_ent_size(derived[i][0]), derived[i][1]);
}

TEST(context)
{
	static const struct {
		struct ue_record_ctx ctx;
		const char *expected;
	} cases[] = {
		{ { NULL, 30, 0, 2090901000ULL, "....." },
		  "           <...>-30      [000] .....     2.090901: " },
		/* Microseconds round to nearest. */
		{ { NULL, 30, 0, 2090900500ULL, "....." },
		  "           <...>-30      [000] .....     2.090901: " },
		{ { NULL, 30, 0, 2090900499ULL, "....." },
		  "           <...>-30      [000] .....     2.090900: " },
		{ { "bash", 1234567, 1, 0, "d.h1." },
		  "            bash-1234567 [001] d.h1.     0.000000: " },
		{ { "a_fifteen_chars", 12345678, 12, 123456789012345678ULL, "....." },
		  " a_fifteen_chars-12345678 [012] ..... 123456789.012346: " },
		{ { "sixteen_chars_xx", 5, 1234, 999999999500ULL, "....." },
		  " sixteen_chars_x-5       [1234] .....  1000.000000: " },
		/* pid 0 is the idle task whatever the name. */
		{ { "swapper", 0, 0, 1000, "....." },
		  "          <idle>-0       [000] .....     0.000001: " },
		{ { "x", -1, 0, 1000, "....." },
		  "           <XXX>--1      [000] .....     0.000001: " },
		/* Without the irq-info option there are no latency flags (seen). */
		{ { "probe2", 30, 0, 1832068000ULL, NULL },
		  "          probe2-30      [000]      1.832068: " },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[128];

		ASSERT_EQ(ue_render_context(&cases[i].ctx, buf, sizeof(buf)),
			  strlen(cases[i].expected));
		EXPECT_STREQ(buf, cases[i].expected);
	}
}

static const struct ue_record_ctx json_ctx = { NULL, 30, 1, 2090901000ULL, "....." };

/* JSON numbers are written without printf: the same digits as printf, at every magnitude. */
TEST(json_numbers_as_printf)
{
	static const uint64_t edges[] = { 0, 9, 10, 99, 100, 999999999, 1000000000, 1000000001,
					  4294967295u, 4294967296u, 999999999999999999u,
					  1000000000000000000u, 10000000000000000000u, UINT64_MAX };
	struct ue_event *ev;
	unsigned char rec[24] = { 0 };
	char buf[512], want[512];

	ASSERT_EQ(ue_event_parse("nums u64 u;s64 s", &ev), 0);
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]) * 3; i++) {
		uint64_t u = i < 14 ? edges[i] : edges[i % 14] * 7 + i;
		int64_t sv = (int64_t)u;
		struct ue_record_ctx ctx = { "c", (int32_t)(u & 0x7fffffff) * (i & 1 ? -1 : 1),
					     (unsigned int)u, u, "....." };

		memcpy(rec + 8, &u, 8);
		memcpy(rec + 16, &sv, 8);
		snprintf(want, sizeof(want),
			 "{\"ts\":%llu,\"cpu\":%u,\"pid\":%d,\"comm\":\"c\",\"system\":\"s\","
			 "\"event\":\"nums\",\"fields\":{\"u\":%llu,\"s\":%lld}}",
			 (unsigned long long)u, ctx.cpu, ctx.pid, (unsigned long long)u, (long long)sv);
		ASSERT_GE(json_exact(ev, "s", "nums", &ctx, rec, sizeof(rec), buf, sizeof(buf)), 0);
		EXPECT_STREQ(buf, want);
	}
	ue_event_free(ev);
}

TEST(json_probe_records)
{
	static const struct {
		enum test_probe ev;
		const char *fields;
	} cases[] = {
		{ FX, "{\"a\":3735928559,\"b\":-5,\"c\":\"abc\",\"s\":\"hello\","
		      "\"d\":1234567890123,"
		      "\"e\":90,\"arr\":[10,11,12],\"st\":\"010203040506\"}" },
		{ FY, "{\"s\":\"hi\",\"r\":[255,16],\"uc\":\"abc\",\"h\":-2,\"uh\":32768,\"i\":-1,"
		      "\"ch\":127}" },
		{ FZ, "{}" },
		{ FW, "{\"m\":[170,187],\"b4\":\"01020304\",\"b8\":\"0102030405060788\","
		      "\"b1\":\"41\",\"b2\":\"ff7f\",\"hx\":\"0123456789abcdef\",\"us\":\"xyz\","
		      "\"rus\":\"pq\"}" },
		{ FV, "{\"q\":[17,34],\"s0\":\"\",\"sh\":-300,\"ush\":65535,\"big\":-5}" },
		{ FT, "{\"c1\":\"Q\",\"uc2\":\"RS\",\"sc\":\"wxyz\"}" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct test_event te;
		unsigned char rec[256];
		size_t len;
		struct ue_event *ev = test_probe_event(&te, cases[i].ev, rec, &len);
		char buf[1024], expected[1024];

		snprintf(expected, sizeof(expected),
			 "{\"ts\":2090901000,\"cpu\":1,\"pid\":30,\"comm\":null,"
			 "\"system\":\"user_events\",\"event\":\"%s\",\"fields\":%s}",
			 ev->name, cases[i].fields);
		ASSERT_EQ(json_exact(ev, "user_events", ev->name, &json_ctx, rec,
				     ue_record_ent_size(len), buf, sizeof(buf)),
			  strlen(expected));
		EXPECT_STREQ(buf, expected);
	}
}

/* OpenTelemetry's otlp_metrics: the buffer as base64, every padding; others as arrays. */
TEST(json_otlp_base64)
{
	static const struct {
		size_t n;
		const char *b64;
	} cases[] = { { 0, "\"\"" }, { 1, "\"Cg==\"" }, { 2, "\"CgM=\"" }, { 3, "\"CgNh\"" },
		      { 5, "\"CgNhYmM=\"" }, { 6, "\"CgNhYmP/\"" } };
	static const unsigned char data[] = { 0x0a, 0x03, 'a', 'b', 'c', 0xff };
	struct ue_event *ev = NULL, *other = NULL;

	ASSERT_EQ(ue_event_parse("otlp_metrics u32 protocol;char[8] version;__rel_loc u8[] buffer",
				 &ev), 0);
	ASSERT_EQ(ue_event_parse("otlp_other u32 protocol;char[8] version;__rel_loc u8[] buffer",
				 &other), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char rec[64] = { 0 };
		char buf[256], want[256];
		size_t len;

		memcpy(rec + 12, "v1", 2);
		/* buffer's __rel_loc at payload offset 12 (record 20): data right after it */
		rec[20] = 0, rec[21] = 0, rec[22] = (unsigned char)cases[i].n, rec[23] = 0;
		memcpy(rec + 24, data, cases[i].n);
		len = 24 + cases[i].n;
		snprintf(want, sizeof(want), "{\"system\":\"user_events\",\"event\":\"otlp_metrics\","
			 "\"fields\":{\"protocol\":0,\"version\":\"v1\",\"buffer\":%s}}", cases[i].b64);
		ASSERT_GE(json_exact(ev, "user_events", "otlp_metrics", NULL, rec, len, buf,
				     sizeof(buf)), 0);
		EXPECT_STREQ(buf, want);
	}
	{
		unsigned char rec[64] = { 0 };
		char buf[256];

		rec[22] = 2;
		memcpy(rec + 24, data, 2);
		ASSERT_GE(json_exact(other, "user_events", "otlp_other", NULL, rec, 26, buf,
				     sizeof(buf)), 0);
		EXPECT_TRUE(strstr(buf, "\"buffer\":[10,3]") != NULL);
		/* Out of the record: null, as any location. */
		rec[22] = 40;
		ASSERT_GE(json_exact(ev, "user_events", "otlp_metrics", NULL, rec, 26, buf,
				     sizeof(buf)), 0);
		EXPECT_TRUE(strstr(buf, "\"buffer\":null") != NULL);
	}
	ue_event_free(ev);
	ue_event_free(other);
}

TEST(json_escaping)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "plain", 5, "\"plain\"" },
		{ "\"\\/", 3, "\"\\\"\\\\/\"" },
		{ "\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"" },
		{ "\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"" },
		/* Well-formed UTF-8 stays. */
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
		  "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		/* Anything else is one \u00XX per byte. */
		{ "\xc3(", 2, "\"\\u00c3(\"" },
		{ "\xc0\xaf", 2, "\"\\u00c0\\u00af\"" },
		{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"" },
		{ "\xf4\x90\x80\x80", 4, "\"\\u00f4\\u0090\\u0080\\u0080\"" },
		{ "\xe0\x80\xaf", 3, "\"\\u00e0\\u0080\\u00af\"" },
		{ "\xfb", 1, "\"\\u00fb\"" },
		{ "a\xe2\x82", 3, "\"a\\u00e2\\u0082\"" },
	};
	static const struct field_spec spec[] = { { "__data_loc char[]", "s", 4 } };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct test_event te;
		struct ue_event *ev = TEST_EVENT(&te, "e", spec);
		unsigned char rec[64] = { 0 };
		char buf[256], expected[256];

		test_put_u32(rec + 8, TEST_LOC(12, cases[i].len + 1));
		memcpy(rec + 12, cases[i].in, cases[i].len);
		snprintf(expected, sizeof(expected),
			 "{\"system\":\"user_events\",\"event\":\"e\",\"fields\":{\"s\":%s}}",
			 cases[i].out);
		ASSERT_EQ(test_validate(ev, rec, 13 + cases[i].len), 0);
		ASSERT_EQ(json_exact(ev, "user_events", "e", NULL, rec, 13 + cases[i].len, buf,
				     sizeof(buf)),
			  strlen(expected));
		EXPECT_STREQ(buf, expected);
	}
}

TEST(json_names_context_and_nulls)
{
	static const char expected_names[] =
		"{\"ts\":0,\"cpu\":0,\"pid\":7,\"comm\":\"a\\\"b\\n\",\"system\":null,"
		"\"event\":\"ev\\\\1\",\"fields\":{\"a\":3735928559,\"b\":-5,\"c\":\"abc\","
		"\"s\":null,\"d\":1234567890123,\"e\":90,\"arr\":null,\"st\":null}}";
	static const char expected_neg[] =
		"{\"system\":\"user_events\",\"event\":\"fx\",\"fields\":{\"a\":3735928559,"
		"\"b\":-5,\"c\":\"abc\",\"s\":null,\"d\":1234567890123,\"e\":90,\"arr\":null,"
		"\"st\":\"010203040506\"}}";
	struct ue_record_ctx ctx = { "a\"b\n", 7, 0, 0, "....." };
	struct test_event te;
	unsigned char rec[256];
	size_t len;
	struct ue_event *ev = test_probe_event(&te, FX, rec, &len);
	char buf[1024];

	/* Cut before "hello": s, arr and st are outside, as with <OVERFLOW>. */
	ASSERT_EQ(json_exact(ev, NULL, "ev\\1", &ctx, rec, 36, buf, sizeof(buf)),
		  strlen(expected_names));
	EXPECT_STREQ(buf, expected_names);

	/* Negative lengths are null too (the text shows what the kernel would). */
	test_put_u32(rec + 17, TEST_LOC(19, 0x8000));
	test_put_u32(rec + 30, TEST_LOC(46, 0xffff));
	ASSERT_EQ(json_exact(ev, "user_events", "fx", NULL, rec, ue_record_ent_size(len), buf,
			     sizeof(buf)),
		  strlen(expected_neg));
	EXPECT_STREQ(buf, expected_neg);
}

/* Integers of a size the fields printer rejects are hex strings, like structs. */
TEST(json_odd_sizes)
{
	static const struct field_spec spec[] = {
		{ "struct three", "t", 3 }, { "u32", "u", 4 }, { "struct eight", "e", 8 },
	};
	static const char expected[] =
		"{\"system\":\"s\",\"event\":\"o\",\"fields\":{\"t\":\"abcdef\",\"u\":4294967295,"
		"\"e\":\"0000000000000080\"}}";
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "o", spec);
	unsigned char rec[32] = { 0 };
	char buf[256];

	memcpy(rec + 8, "\xab\xcd\xef\xff\xff\xff\xff", 7);
	rec[22] = 0x80;
	ASSERT_EQ(json_exact(ev, "s", "o", NULL, rec, 23, buf, sizeof(buf)), strlen(expected));
	EXPECT_STREQ(buf, expected);
}

struct render_arg {
	const struct ue_event *ev;
	const unsigned char *rec;
	size_t ent_size;
};

static int render_fields_fn(const void *p, char *buf, size_t len)
{
	const struct render_arg *a = p;

	return ue_render_fields(a->ev, "fx", a->rec, a->ent_size, buf, len);
}

static int render_json_fn(const void *p, char *buf, size_t len)
{
	const struct render_arg *a = p;

	return ue_render_json(a->ev, "user_events", "fx", &json_ctx, a->rec, a->ent_size, buf, len);
}

static int render_context_fn(const void *p, char *buf, size_t len)
{
	(void)p;
	return ue_render_context(&json_ctx, buf, len);
}

TEST(snprintf_contract)
{
	struct test_event te;
	unsigned char rec[256];
	size_t len;
	struct ue_event *ev = test_probe_event(&te, FX, rec, &len);
	struct render_arg arg = { ev, rec, ue_record_ent_size(len) };
	char full[1024];

	ASSERT_GE(ue_render_fields(ev, "fx", rec, arg.ent_size, full, sizeof(full)), 1);
	EXPECT_EQ(check_snprintf_contract(render_fields_fn, &arg, full), 0);
	ASSERT_GE(ue_render_json(ev, "user_events", "fx", &json_ctx, rec, arg.ent_size, full,
				 sizeof(full)),
		  1);
	EXPECT_EQ(check_snprintf_contract(render_json_fn, &arg, full), 0);
	ASSERT_GE(ue_render_context(&json_ctx, full, sizeof(full)), 1);
	EXPECT_EQ(check_snprintf_contract(render_context_fn, NULL, full), 0);
}

TEST(invalid_arguments)
{
	struct test_event te;
	struct ue_event *ev = TEST_EVENT(&te, "fx", fx_spec);
	unsigned char rec[64] = { 0 };
	char buf[64];

	EXPECT_ERRNO(ue_render_fields(NULL, "fx", rec, sizeof(rec), buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(ue_render_fields(ev, NULL, rec, sizeof(rec), buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(ue_render_fields(ev, "fx", NULL, sizeof(rec), buf, sizeof(buf)), EINVAL);
	EXPECT_ERRNO(ue_render_json(NULL, "s", "fx", NULL, rec, sizeof(rec), buf, sizeof(buf)),
		     EINVAL);
	EXPECT_ERRNO(ue_render_json(ev, "s", NULL, NULL, rec, sizeof(rec), buf, sizeof(buf)),
		     EINVAL);
	EXPECT_ERRNO(ue_render_context(NULL, buf, sizeof(buf)), EINVAL);
	te.fields[0].type = NULL;
	EXPECT_ERRNO(ue_render_fields(ev, "fx", rec, sizeof(rec), buf, sizeof(buf)), EINVAL);
}

UE_TEST_MAIN()
