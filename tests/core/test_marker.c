// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/marker.c: the records writes to trace_marker and
 * trace_marker_raw make and their trace lines, against what the reference
 * kernel (Linux 6.12) returned, printed in trace and stored in
 * trace_pipe_raw for the same writes.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"

#define PID 30
#define IP UINT64_C(0xffffffff810ba84e)

/* Renders from a copy of exactly @ent_size bytes, so ASan sees any overread. */
static int print_exact(const unsigned char *rec, size_t ent_size, bool msg_only, char *buf,
		       size_t len)
{
	unsigned char *copy = malloc(ent_size);
	int ret;

	memcpy(copy, rec, ent_size);
	ret = ue_render_print(copy, ent_size, msg_only, buf, len);
	free(copy);
	return ret;
}

static int raw_exact(const unsigned char *rec, size_t ent_size, char *buf, size_t len)
{
	unsigned char *copy = malloc(ent_size);
	int ret;

	memcpy(copy, rec, ent_size);
	ret = ue_render_raw_data(copy, ent_size, buf, len);
	free(copy);
	return ret;
}

/*
 * Writes to trace_marker on the reference kernel: what write() returned and
 * the event part of the trace line (the ring showed a 28-byte entry for
 * the short ones, i.e. a 25..28-byte record).
 */
static const struct {
	const char *text;
	size_t n;
	size_t taken;
	size_t rec_len;
	const char *line;
} print_cases[] = {
	{ "phase 2\n", 8, 8, 27, "tracing_mark_write: phase 2\n" },
	{ "abc", 3, 3, 27, "tracing_mark_write: abc\n" },
	{ "", 0, 0, 27, "tracing_mark_write: \n" },
	{ "a\0b", 3, 3, 27, "tracing_mark_write: a" },
	{ "abc\n\0", 5, 5, 27, "tracing_mark_write: abc\n" },
	{ "x\n\n", 3, 3, 27, "tracing_mark_write: x\n\n" },
	{ "\n", 1, 1, 27, "tracing_mark_write: \n" },
	{ "\0", 1, 1, 27, "tracing_mark_write: " },
	{ "a\tb\r\x7f\xff", 6, 6, 27, "tracing_mark_write: a\tb\r\x7f\xff\n" },
	{ "123456789", 9, 9, 27, "tracing_mark_write: 123456789\n" },
	{ "1234567890", 10, 10, 28, "tracing_mark_write: 1234567890\n" },
};

TEST(print_records)
{
	_Alignas(8) unsigned char rec[UE_MARKER_MAX_RECORD];
	char line[128];

	for (size_t i = 0; i < sizeof(print_cases) / sizeof(print_cases[0]); i++) {
		size_t taken = 12345, ent;
		struct ue_entry_hdr hdr;
		uint64_t ip;
		int len;

		memset(rec, 0xaa, sizeof(rec));
		len = ue_print_record(print_cases[i].text, print_cases[i].n, PID, IP, rec,
				      sizeof(rec), &taken);
		ASSERT_EQ(len, (int)print_cases[i].rec_len);
		EXPECT_EQ(taken, print_cases[i].taken);
		memcpy(&hdr, rec, sizeof(hdr));
		EXPECT_EQ(hdr.type, UE_TRACE_PRINT_ID);
		EXPECT_EQ(hdr.flags, 0);
		EXPECT_EQ(hdr.preempt_count, 0);
		EXPECT_EQ(hdr.pid, PID);
		memcpy(&ip, rec + 8, sizeof(ip));
		EXPECT_TRUE(ip == IP);
		EXPECT_EQ(memcmp(rec + UE_PRINT_BUF_OFFSET, print_cases[i].text, print_cases[i].n),
			  0);
		ent = ue_record_ent_size((size_t)len);
		/* Past the record the caller's bytes stay: the renderer gets a zero-padded copy. */
		EXPECT_EQ(rec[len], 0xaa);
		memset(rec + len, 0, ent - (size_t)len);
		EXPECT_EQ(print_exact(rec, ent, false, line, sizeof(line)),
			  (int)strlen(print_cases[i].line));
		EXPECT_STREQ(line, print_cases[i].line);
		EXPECT_EQ(print_exact(rec, ent, true, line, sizeof(line)),
			  (int)strlen(print_cases[i].line) - 20);
		EXPECT_STREQ(line, print_cases[i].line + 20);
	}
}

/* The bytes trace_pipe_raw carried for "phase 2\n" and "hi" (padding aside). */
TEST(print_record_bytes)
{
	static const unsigned char phase2[] = {
		0x05, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x4e, 0xa8, 0x0b, 0x81,
		0xff, 0xff, 0xff, 0xff, 0x70, 0x68, 0x61, 0x73, 0x65, 0x20, 0x32, 0x0a,
		0x00, 0x00, 0x00,
	};
	static const unsigned char hi[] = {
		0x05, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x4e, 0xa8, 0x0b, 0x81,
		0xff, 0xff, 0xff, 0xff, 0x68, 0x69, 0x0a, 0x00,
	};
	_Alignas(8) unsigned char rec[UE_MARKER_MAX_RECORD];
	size_t taken;

	ASSERT_EQ(ue_print_record("phase 2\n", 8, PID, IP, rec, sizeof(rec), &taken),
		  (int)sizeof(phase2));
	EXPECT_EQ(memcmp(rec, phase2, sizeof(phase2)), 0);
	ASSERT_EQ(ue_print_record("hi", 2, PID, IP, rec, sizeof(rec), &taken), 27);
	EXPECT_EQ(memcmp(rec, hi, sizeof(hi)), 0);
	/* The kernel left older ring bytes after the NUL; ours are zero. */
	for (size_t i = sizeof(hi); i < 27; i++)
		EXPECT_EQ(rec[i], 0);
}

/* Large writes: 4096 bytes at most, then what fits a ring page (4054 bytes). */
TEST(print_sizes)
{
	static const struct {
		size_t n, taken, rec_len;
	} sizes[] = {
		{ 4000, 4000, 4018 }, { 4053, 4053, 4071 }, { 4054, 4054, 4072 },
		{ 4055, 4054, 4072 }, { 4056, 4054, 4072 }, { 4072, 4054, 4072 },
		{ 4095, 4054, 4072 }, { 4096, 4054, 4072 }, { 4097, 4054, 4072 },
		{ 5000, 4054, 4072 }, { 8192, 4054, 4072 },
	};
	_Alignas(8) unsigned char rec[UE_MARKER_MAX_RECORD];
	static char text[8192];
	char *line = malloc(8192);

	ASSERT_TRUE(line != NULL);
	memset(text, 'x', sizeof(text));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t taken = 0;
		int len = ue_print_record(text, sizes[i].n, PID, IP, rec, sizeof(rec), &taken);

		ASSERT_EQ(len, (int)sizes[i].rec_len);
		EXPECT_EQ(taken, sizes[i].taken);
		EXPECT_EQ(rec[UE_PRINT_BUF_OFFSET + taken], '\n');
		EXPECT_EQ(rec[UE_PRINT_BUF_OFFSET + taken + 1], '\0');
		/* The line: the name, every x taken and the newline. */
		EXPECT_EQ(ue_render_print(rec, (size_t)len, false, line, 8192),
			  (int)(20 + taken + 1));
		EXPECT_EQ(strspn(line + 20, "x"), taken);
	}
	free(line);
}

TEST(print_bad_arguments)
{
	unsigned char rec[UE_MARKER_MAX_RECORD];
	size_t taken = 7;

	EXPECT_ERRNO(ue_print_record(NULL, 1, PID, IP, rec, sizeof(rec), &taken), EINVAL);
	EXPECT_ERRNO(ue_print_record("a", 1, PID, IP, NULL, sizeof(rec), &taken), EINVAL);
	EXPECT_ERRNO(ue_print_record("a", 1, PID, IP, rec, sizeof(rec) - 1, &taken), EINVAL);
	EXPECT_ERRNO(ue_print_record("a", 1, PID, IP, rec, sizeof(rec), NULL), EINVAL);
	EXPECT_EQ(taken, 7);
	EXPECT_EQ(ue_print_record(NULL, 0, PID, IP, rec, sizeof(rec), &taken), 27);
	EXPECT_ERRNO(ue_render_print(NULL, 16, false, NULL, 0), EINVAL);
	EXPECT_ERRNO(ue_render_print(rec, 15, false, NULL, 0), EINVAL);
}

/* A record whose text has no NUL: the line stops at the record's end. */
TEST(print_unterminated)
{
	unsigned char rec[20];
	char line[64];

	memset(rec, 'z', sizeof(rec));
	EXPECT_EQ(print_exact(rec, sizeof(rec), false, line, sizeof(line)), 24);
	EXPECT_STREQ(line, "tracing_mark_write: zzzz");
	EXPECT_EQ(print_exact(rec, 16, false, line, sizeof(line)), 20);
	EXPECT_STREQ(line, "tracing_mark_write: ");
	/* Sizing alone, then a short buffer, as snprintf. */
	EXPECT_EQ(ue_render_print(rec, sizeof(rec), false, NULL, 0), 24);
	EXPECT_EQ(ue_render_print(rec, sizeof(rec), false, line, 8), 24);
	EXPECT_STREQ(line, "tracing");
}

/*
 * Writes to trace_marker_raw on the reference kernel: the result and, for
 * the ones that record, the trace line (16 bytes after the id: the entry
 * is 28 bytes; where the kernel showed older ring bytes, ours are zero).
 */
static const struct {
	const char *data;
	size_t n;
	int rec_len;
	const char *line;
} raw_cases[] = {
	{ "\1\2\3", 3, -EINVAL, NULL },
	{ "", 0, -EINVAL, NULL },
	{ "\x34\x12\0\0", 4, 25,
	  "# 1234 buf: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n" },
	{ "\x34\x12\0\0\xaa", 5, 25,
	  "# 1234 buf: aa 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n" },
	{ "\x78\x56\x34\x12" "abcdefghi", 13, 25,
	  "# 12345678 buf: 61 62 63 64 65 66 67 68 69 00 00 00 00 00 00 00\n" },
	{ "\x78\x56\x34\x12" "abcdefghijkl", 16, 28,
	  "# 12345678 buf: 61 62 63 64 65 66 67 68 69 6a 6b 6c 00 00 00 00\n" },
};

TEST(raw_data_records)
{
	_Alignas(8) unsigned char rec[UE_MARKER_MAX_RECORD];
	char line[256];

	for (size_t i = 0; i < sizeof(raw_cases) / sizeof(raw_cases[0]); i++) {
		int len = ue_raw_data_record(raw_cases[i].data, raw_cases[i].n, PID, rec,
					     sizeof(rec));
		struct ue_entry_hdr hdr;
		size_t ent;

		ASSERT_EQ(len, raw_cases[i].rec_len);
		if (len < 0)
			continue;
		memcpy(&hdr, rec, sizeof(hdr));
		EXPECT_EQ(hdr.type, UE_TRACE_RAW_DATA_ID);
		EXPECT_EQ(hdr.pid, PID);
		EXPECT_EQ(memcmp(rec + 8, raw_cases[i].data, raw_cases[i].n), 0);
		ent = ue_record_ent_size((size_t)len);
		EXPECT_EQ(ent, 28);
		memset(rec + len, 0, ent - (size_t)len);
		EXPECT_EQ(raw_exact(rec, ent, line, sizeof(line)), (int)strlen(raw_cases[i].line));
		EXPECT_STREQ(line, raw_cases[i].line);
	}
}

/* 4058 bytes recorded, 4062 and more refused (EINVAL): 4060 is the most. */
TEST(raw_data_sizes)
{
	static const struct {
		size_t n;
		int rec_len;
	} sizes[] = {
		{ 4050, 4062 }, { 4054, 4066 }, { 4058, 4070 }, { 4060, 4072 },
		{ 4061, -EINVAL }, { 4062, -EINVAL }, { 4070, -EINVAL }, { 4096, -EINVAL },
	};
	_Alignas(8) unsigned char rec[UE_MARKER_MAX_RECORD];
	static char data[4096];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		EXPECT_EQ(ue_raw_data_record(data, sizes[i].n, PID, rec, sizeof(rec)),
			  sizes[i].rec_len);
	EXPECT_ERRNO(ue_raw_data_record(NULL, 4, PID, rec, sizeof(rec)), EINVAL);
	EXPECT_ERRNO(ue_raw_data_record(data, 4, PID, rec, sizeof(rec) - 1), EINVAL);
	EXPECT_ERRNO(ue_render_raw_data(rec, 11, NULL, 0), EINVAL);
	/* A record of its fixed part alone: the id and no byte. */
	memcpy(rec + 8, "\xef\xbe\xad\xde", 4);
	EXPECT_EQ(raw_exact(rec, 12, (char *)data, sizeof(data)), 16);
	EXPECT_STREQ(data, "# deadbeef buf:\n");
}

UE_TEST_MAIN()
