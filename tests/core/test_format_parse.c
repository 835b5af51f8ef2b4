// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/format-parse.c: every format file the reference Linux 6.12
 * kernel printed in tests/conformance/refkernel.out parses into the event
 * core/ builds from the same name_args (same layout, kinds, renderings) and
 * prints back byte for byte; malformed texts are refused.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "format-parse.h"

/* Names a table case as a TAP comment, control bytes escaped. */
static void tnote(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tnote(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("# ");
	for (const char *s = buf; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	putchar('\n');
}

#define REFKERNEL_OUT "tests/conformance/refkernel.out"

/* One successful registration of the reference run and the format file it got. */
struct ref_case {
	char label[64];
	char name_args[4096];
	char *format;
	size_t format_len;
	/* The same text with the kernel's garbage array lengths ("~garbage-len" lines). */
	char *garbage;
	size_t garbage_len;
};

static void append(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s);

	*buf = realloc(*buf, *len + n + 2);
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[(*len)++] = '\n';
	(*buf)[*len] = '\0';
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The quoted name_args of a "reg" line: \xNN, \\ and \" undone. */
static bool unquote(const char *s, char *out, size_t len)
{
	size_t o = 0;

	if (*s++ != '"')
		return false;
	while (*s && *s != '"' && o + 1 < len) {
		if (s[0] == '\\' && s[1] == 'x') {
			unsigned int v;

			if (sscanf(s + 2, "%2x", &v) != 1)
				return false;
			out[o++] = (char)v;
			s += 4;
		} else if (s[0] == '\\' && s[1]) {
			out[o++] = s[1];
			s += 2;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return *s == '"';
}

/* Every "reg LABEL "NAME_ARGS" ... => 0" followed by its format text. */
static size_t load_cases(char *text, struct ref_case **ret)
{
	struct ref_case *v = NULL;
	size_t n = 0;
	char *line, *save = NULL, label[64] = "", name_args[4096] = "";
	bool in_format = false;
	size_t cap = 0, flen = 0, glen = 0;
	char *fbuf = NULL, *gbuf = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char l[64], *q;

		if (in_format) {
			const char *body = NULL;

			if (strncmp(line, "| ", 2) == 0 || strcmp(line, "|") == 0)
				body = line[1] ? line + 2 : "";
			else if (strncmp(line, "~| ", 3) == 0)
				body = line + 3;
			if (body) {
				append(&fbuf, &flen, body);
				append(&gbuf, &glen, body);
				continue;
			}
			if (strncmp(line, "~garbage-len ", 13) == 0 && (q = strchr(line + 13, ' '))) {
				/* Replaces the line before it in the kernel's other printing. */
				while (glen && gbuf[glen - 1] == '\n')
					glen--;
				while (glen && gbuf[glen - 1] != '\n')
					glen--;
				append(&gbuf, &glen, q + 1);
				continue;
			}
			in_format = false;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				v = realloc(v, cap * sizeof(*v));
			}
			snprintf(v[n].label, sizeof(v[n].label), "%s", label);
			snprintf(v[n].name_args, sizeof(v[n].name_args), "%s", name_args);
			v[n].format = fbuf;
			v[n].format_len = flen;
			v[n].garbage = gbuf;
			v[n].garbage_len = glen;
			n++;
			fbuf = NULL;
			gbuf = NULL;
			glen = 0;
			flen = 0;
			label[0] = '\0';
			continue;
		}
		if (strncmp(line, "reg ", 4) == 0 && (q = strchr(line + 4, ' ')) &&
		    strstr(line, "=> 0 ")) {
			snprintf(label, sizeof(label), "%.*s", (int)(q - line - 4), line + 4);
			if (!unquote(q + 1, name_args, sizeof(name_args)))
				label[0] = '\0';
		} else if (label[0] && sscanf(line, "text %63s events/", l) == 1 &&
			   strcmp(l, label) == 0 && strstr(line, "/format") && !strstr(line, "=>")) {
			in_format = true;
			flen = glen = 0;
			fbuf = calloc(1, 1);
			gbuf = calloc(1, 1);
		}
	}
	free(fbuf);
	free(gbuf);
	*ret = v;
	return n;
}

static void free_cases(struct ref_case *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].format);
		free(v[i].garbage);
	}
	free(v);
}

TEST(every_kernel_format_file_parses_to_the_registered_event)
{
	char *text = slurp(REFKERNEL_OUT);
	struct ref_case *cases;
	size_t n, checked = 0, garbage = 0;

	ASSERT_TRUE(text != NULL);
	n = load_cases(text, &cases);
	/* The reference run registers dozens of events; an empty list is a parser bug. */
	ASSERT_GE(n, 40);
	for (size_t i = 0; i < n; i++) {
		struct ue_event *want = NULL, *got = NULL;
		unsigned int id = 0;
		char *back;
		int len;

		if (ue_event_parse(cases[i].name_args, &want) < 0)
			continue;	/* a multi-format or odd case the core reads otherwise */
		tnote("case %s: \"%s\"", cases[i].label, cases[i].name_args);
		ASSERT_EQ(ue_format_parse(cases[i].format, cases[i].format_len, &got, &id), 0);
		EXPECT_EQ(got->nfields, want->nfields);
		EXPECT_EQ(got->min_size, want->min_size);
		EXPECT_EQ(got->nvalidators, want->nvalidators);
		for (uint32_t f = 0; f < want->nfields && f < got->nfields; f++) {
			const struct ue_field *a = &got->fields[f], *b = &want->fields[f];

			EXPECT_STREQ(a->name, b->name);
			EXPECT_EQ(a->offset, b->offset);
			EXPECT_EQ(a->size, b->size);
			EXPECT_EQ(a->is_signed, b->is_signed);
			EXPECT_EQ(a->is_struct, b->is_struct);
			EXPECT_EQ(a->kind, b->kind);
		}
		/* Printed back, the parsed event is the kernel's text again. */
		len = ue_format_file(got, got->name, id, NULL, 0);
		ASSERT_GE(len, 0);
		back = malloc((size_t)len + 1);
		ue_format_file(got, got->name, id, back, (size_t)len + 1);
		EXPECT_STREQ(back, cases[i].format);
		free(back);
		ue_event_free(got);
		/* The kernel's other printing of fixed arrays reads the same. */
		if (strcmp(cases[i].garbage, cases[i].format) != 0) {
			ASSERT_EQ(ue_format_parse(cases[i].garbage, cases[i].garbage_len, &got, &id), 0);
			ASSERT_EQ(got->nfields, want->nfields);
			for (uint32_t f = 0; f < want->nfields; f++) {
				EXPECT_STREQ(got->fields[f].name, want->fields[f].name);
				EXPECT_EQ(got->fields[f].kind, want->fields[f].kind);
				EXPECT_EQ(got->fields[f].size, want->fields[f].size);
			}
			ue_event_free(got);
			garbage++;
		}
		ue_event_free(want);
		checked++;
	}
	EXPECT_GE(checked, 40);
	/* The reference run saw garbage lengths: they must have been checked. */
	EXPECT_GE(garbage, 1);
	free_cases(cases, n);
	free(text);
}

/* Records render the same through the parsed event as through the registered one. */
TEST(records_render_alike)
{
	static const char *const name_args[] = {
		"r1 u32 a; s64 b; char[8] c",
		"r2 __data_loc char[] s; u8 x",
		"r3 __rel_loc char[] s; unsigned char[4] arr",
		"r4 struct foo st 6; s16 z",
		"r5 char[0x10] hexsize; __data_loc u8[] bytes",
	};

	for (size_t i = 0; i < sizeof(name_args) / sizeof(name_args[0]); i++) {
		struct ue_event *want = NULL, *got = NULL;
		unsigned char rec[128];
		char fmt[4096], a[1024], b[1024];
		int len;

		tnote("name_args \"%s\"", name_args[i]);
		ASSERT_EQ(ue_event_parse(name_args[i], &want), 0);
		len = ue_format_file(want, want->name, 500 + (unsigned int)i, fmt, sizeof(fmt));
		ASSERT_GE(len, 0);
		ASSERT_EQ(ue_format_parse(fmt, (size_t)len, &got, NULL), 0);
		/* A record of recognisable bytes, its locations pointing at its tail. */
		for (size_t k = 0; k < sizeof(rec); k++)
			rec[k] = (unsigned char)(0x41 + k % 26);
		for (uint32_t f = 0; f < want->nfields; f++) {
			const struct ue_field *fl = &want->fields[f];

			if (fl->kind == UE_FIELD_DYN_STRING || fl->kind == UE_FIELD_DATA_LOC) {
				uint32_t loc = (3u << 16) | 100u;

				memcpy(rec + fl->offset, &loc, 4);
			} else if (fl->kind == UE_FIELD_RDYN_STRING || fl->kind == UE_FIELD_REL_LOC) {
				uint32_t loc = (3u << 16) | (100u - fl->offset - 4);

				memcpy(rec + fl->offset, &loc, 4);
			}
		}
		rec[102] = '\0';
		EXPECT_EQ(ue_render_fields(got, "r", rec, sizeof(rec), a, sizeof(a)),
			  ue_render_fields(want, "r", rec, sizeof(rec), b, sizeof(b)));
		EXPECT_STREQ(a, b);
		ue_event_free(got);
		ue_event_free(want);
	}
}

TEST(malformed_texts_are_refused)
{
	static const struct {
		const char *what;
		const char *text;
	} bad[] = {
		{ "empty", "" },
		{ "no ID", "name: x\nformat:\n\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n" },
		{ "no name", "ID: 5\nformat:\n\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n" },
		{ "no format line", "name: x\nID: 5\n" },
		{ "ID not a number", "name: x\nID: five\nformat:\n" },
		{ "negative ID", "name: x\nID: -1\nformat:\n" },
		{ "field without name", "name: x\nID: 5\nformat:\n\tfield:u32;\toffset:8;\tsize:4;\tsigned:0;\n" },
		{ "no offset", "name: x\nID: 5\nformat:\n\tfield:u32 a;\tsize:4;\tsigned:0;\n" },
		{ "offset not a number", "name: x\nID: 5\nformat:\n\tfield:u32 a;\toffset:x;\tsize:4;\tsigned:0;\n" },
		{ "signed 2", "name: x\nID: 5\nformat:\n\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:2;\n" },
		{ "offset too big", "name: x\nID: 5\nformat:\n\tfield:u32 a;\toffset:4294967296;\tsize:4;\tsigned:0;\n" },
		{ "stray line", "name: x\nID: 5\nformat:\nhello\n" },
		{ "only a type", "name: x\nID: 5\nformat:\n\tfield:char[];\toffset:8;\tsize:4;\tsigned:0;\n" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ue_event *ev = (struct ue_event *)&bad;

		tnote("%s", bad[i].what);
		EXPECT_ERRNO(ue_format_parse(bad[i].text, strlen(bad[i].text), &ev, NULL), EINVAL);
		/* Untouched on failure. */
		EXPECT_TRUE(ev == (struct ue_event *)&bad);
	}
}

TEST(event_without_fields_and_array_names)
{
	static const char text[] =
		"name: sched_foo\nID: 42\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:char comm[];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:pid_t pid[3];\toffset:24;\tsize:4;\tsigned:1;\n\n"
		"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";
	static const char empty[] = "name: e\nID: 7\nformat:\n"
				    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
				    "print fmt: \"\"\n";
	struct ue_event *ev;
	unsigned int id;

	ASSERT_EQ(ue_format_parse(text, sizeof(text) - 1, &ev, &id), 0);
	EXPECT_EQ(id, 42);
	EXPECT_STREQ(ev->name, "sched_foo");
	ASSERT_EQ(ev->nfields, 2);
	EXPECT_STREQ(ev->fields[0].type, "char[16]");
	EXPECT_STREQ(ev->fields[0].name, "comm");
	EXPECT_EQ(ev->fields[0].kind, UE_FIELD_STATIC_STRING);
	EXPECT_STREQ(ev->fields[1].type, "pid_t");
	EXPECT_STREQ(ev->fields[1].name, "pid[3]");
	EXPECT_EQ(ev->min_size, 20);
	ue_event_free(ev);

	ASSERT_EQ(ue_format_parse(empty, sizeof(empty) - 1, &ev, &id), 0);
	EXPECT_EQ(ev->nfields, 0);
	EXPECT_EQ(ev->min_size, 0);
	EXPECT_EQ(id, 7);
	ue_event_free(ev);
}

UE_TEST_MAIN()
