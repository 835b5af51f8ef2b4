/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test helpers for the format, validate and render tests: builds struct
 * ue_event values by hand from field tables (type, name, size), laid out as
 * the kernel lays them out, and the events registered on the reference
 * kernel by the probe those tests' expectations come from.
 */
#ifndef UE_TEST_EVENT_TABLE_H
#define UE_TEST_EVENT_TABLE_H

#include <stdint.h>
#include <string.h>

#include "core.h"

struct field_spec {
	const char *type;	/* as registered: "u32", "__rel_loc char[]", "struct foo" */
	const char *name;
	uint32_t size;
};

#define TEST_MAX_FIELDS 32

struct test_event {
	struct ue_event ev;
	struct ue_field fields[TEST_MAX_FIELDS];
};

/* Fields one after another from offset 8, no padding, as the kernel places them. */
static inline struct ue_event *test_event_build(struct test_event *te, const char *name,
						const struct field_spec *spec, size_t n)
{
	uint32_t offset = UE_ENTRY_HDR_SIZE;

	memset(te, 0, sizeof(*te));
	te->ev.name = name;
	te->ev.fields = te->fields;
	te->ev.nfields = (uint32_t)n;
	for (size_t i = 0; i < n && i < TEST_MAX_FIELDS; i++) {
		struct ue_field *f = &te->fields[i];

		f->type = spec[i].type;
		f->name = spec[i].name;
		f->offset = offset;
		f->size = spec[i].size;
		f->is_signed = spec[i].type[0] != 'u';
		f->is_struct = strncmp(spec[i].type, "struct ", 7) == 0;
		f->kind = ue_field_kind_of(spec[i].type, spec[i].size);
		if (strncmp(f->type, "__data_loc ", 11) == 0 ||
		    strncmp(f->type, "__rel_loc ", 10) == 0)
			te->ev.nvalidators++;
		offset += f->size;
	}
	te->ev.min_size = offset - UE_ENTRY_HDR_SIZE;
	return &te->ev;
}

#define TEST_EVENT(te, name, spec) \
	test_event_build((te), (name), (spec), sizeof(spec) / sizeof((spec)[0]))

/*
 * The events of the reference-kernel probe (ids 397-402 there):
 *   fx u32 a;s8 b;char[4] c;__rel_loc char[] s;u64 d;unsigned char e;
 *      __data_loc u8[] arr;struct foo st 6
 *   fy __data_loc char[] s;__rel_loc u8[] r;unsigned char[3] uc;s16 h;u16 uh;int i;char ch
 *   fz (no fields)
 *   fw __data_loc cpumask_t m;struct bar b4 4;struct baz b8 8;struct one b1 1;struct two b2 2;
 *      char[0x10] hx;__data_loc unsigned char[] us;__rel_loc unsigned char[] rus
 *   fv struct __data_loc_x q 4;__data_loc char s0;short sh;unsigned short ush;s64 big
 *   ft char[1] c1;unsigned char[2] uc2;struct char[4] sc 4
 */
static const struct field_spec fx_spec[] = {
	{ "u32", "a", 4 }, { "s8", "b", 1 }, { "char[4]", "c", 4 },
	{ "__rel_loc char[]", "s", 4 }, { "u64", "d", 8 }, { "unsigned char", "e", 1 },
	{ "__data_loc u8[]", "arr", 4 }, { "struct foo", "st", 6 },
};
static const struct field_spec fy_spec[] = {
	{ "__data_loc char[]", "s", 4 }, { "__rel_loc u8[]", "r", 4 },
	{ "unsigned char[3]", "uc", 3 }, { "s16", "h", 2 }, { "u16", "uh", 2 },
	{ "int", "i", 4 }, { "char", "ch", 1 },
};
static const struct field_spec fw_spec[] = {
	{ "__data_loc cpumask_t", "m", 4 }, { "struct bar", "b4", 4 }, { "struct baz", "b8", 8 },
	{ "struct one", "b1", 1 }, { "struct two", "b2", 2 }, { "char[0x10]", "hx", 16 },
	{ "__data_loc unsigned char[]", "us", 4 }, { "__rel_loc unsigned char[]", "rus", 4 },
};
static const struct field_spec fv_spec[] = {
	{ "struct __data_loc_x", "q", 4 }, { "__data_loc char", "s0", 4 }, { "short", "sh", 2 },
	{ "unsigned short", "ush", 2 }, { "s64", "big", 8 },
};
static const struct field_spec ft_spec[] = {
	{ "char[1]", "c1", 1 }, { "unsigned char[2]", "uc2", 2 }, { "struct char[4]", "sc", 4 },
};

static inline void test_put_u16(unsigned char *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void test_put_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void test_put_u64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* A dynamic location: length in the high 16 bits, offset in the low 16. */
#define TEST_LOC(offset, len) ((uint32_t)(len) << 16 | (uint32_t)(offset))

/*
 * Records as the probe wrote them (the kernel added the 8-byte header:
 * common_type = the event id, flags 0, preempt_count 0, common_pid).
 * Each returns the record length.
 */
static inline size_t test_header(unsigned char *rec, uint16_t type, int32_t pid)
{
	test_put_u16(rec, type);
	rec[2] = 0;
	rec[3] = 0;
	memcpy(rec + 4, &pid, sizeof(pid));
	return UE_ENTRY_HDR_SIZE;
}

/* fx: a@8 b@12 c@13 s@17 d@21 e@29 arr@30 st@34, "hello" at 40, 0a 0b 0c at 46. */
static inline size_t test_fx_record(unsigned char *rec)
{
	test_header(rec, 397, 30);
	test_put_u32(rec + 8, 0xdeadbeef);
	rec[12] = 0xfb;
	memcpy(rec + 13, "abc", 4);
	test_put_u32(rec + 17, TEST_LOC(40 - (17 + 4), 6));
	test_put_u64(rec + 21, 1234567890123ULL);
	rec[29] = 'Z';
	test_put_u32(rec + 30, TEST_LOC(46, 3));
	memcpy(rec + 34, "\1\2\3\4\5\6", 6);
	memcpy(rec + 40, "hello", 6);
	memcpy(rec + 46, "\x0a\x0b\x0c", 3);
	return 49;
}

/* fy: s@8 r@12 uc@16 h@19 uh@21 i@23 ch@27, "hi" at 28, ff 10 at 31. */
static inline size_t test_fy_record(unsigned char *rec)
{
	test_header(rec, 398, 30);
	test_put_u32(rec + 8, TEST_LOC(28, 3));
	test_put_u32(rec + 12, TEST_LOC(31 - (12 + 4), 2));
	memcpy(rec + 16, "abc", 3);
	test_put_u16(rec + 19, 0xfffe);
	test_put_u16(rec + 21, 0x8000);
	test_put_u32(rec + 23, 0xffffffff);
	rec[27] = 0x7f;
	memcpy(rec + 28, "hi", 3);
	rec[31] = 0xff;
	rec[32] = 0x10;
	return 33;
}

/* fw: m@8 b4@12 b8@16 b1@24 b2@25 hx@27 us@43 rus@47, then aa bb, "xyz", "pq". */
static inline size_t test_fw_record(unsigned char *rec)
{
	test_header(rec, 400, 30);
	test_put_u32(rec + 8, TEST_LOC(51, 2));
	memcpy(rec + 12, "\x01\x02\x03\x04", 4);
	memcpy(rec + 16, "\x01\x02\x03\x04\x05\x06\x07\x88", 8);
	rec[24] = 'A';
	rec[25] = 0xff;
	rec[26] = 0x7f;
	memcpy(rec + 27, "0123456789abcdef", 16);
	test_put_u32(rec + 43, TEST_LOC(53, 4));
	test_put_u32(rec + 47, TEST_LOC(57 - (47 + 4), 3));
	memcpy(rec + 51, "\xaa\xbb", 2);
	memcpy(rec + 53, "xyz", 4);
	memcpy(rec + 57, "pq", 3);
	return 60;
}

/* fv: q@8 s0@12 sh@16 ush@18 big@20, then 11 22 00. */
static inline size_t test_fv_record(unsigned char *rec)
{
	test_header(rec, 401, 30);
	test_put_u32(rec + 8, TEST_LOC(28, 2));
	test_put_u32(rec + 12, TEST_LOC(30, 1));
	test_put_u16(rec + 16, (uint16_t)-300);
	test_put_u16(rec + 18, 65535);
	test_put_u64(rec + 20, (uint64_t)-5);
	memcpy(rec + 28, "\x11\x22\x00", 3);
	return 31;
}

/* ft: c1@8 uc2@9 sc@11. */
static inline size_t test_ft_record(unsigned char *rec)
{
	test_header(rec, 402, 30);
	memcpy(rec + 8, "QRSwxyz", 7);
	return 15;
}

enum test_probe { FX, FY, FZ, FW, FV, FT };

/* The probe's event @ev and its base record in @rec (256 bytes); *@len its length. */
static inline struct ue_event *test_probe_event(struct test_event *te, enum test_probe ev,
						unsigned char *rec, size_t *len)
{
	memset(rec, 0, 256);
	switch (ev) {
	case FX:
		*len = test_fx_record(rec);
		return TEST_EVENT(te, "fx", fx_spec);
	case FY:
		*len = test_fy_record(rec);
		return TEST_EVENT(te, "fy", fy_spec);
	case FZ:
		*len = test_header(rec, 399, 30);
		return test_event_build(te, "fz", NULL, 0);
	case FW:
		*len = test_fw_record(rec);
		return TEST_EVENT(te, "fw", fw_spec);
	case FV:
		*len = test_fv_record(rec);
		return TEST_EVENT(te, "fv", fv_spec);
	case FT:
		*len = test_ft_record(rec);
		return TEST_EVENT(te, "ft", ft_spec);
	}
	return NULL;
}

/* A change to a base record: a u32 (a location) or one byte. */
struct test_patch {
	uint32_t at;	/* record offset; 0 ends the list */
	uint32_t loc;	/* written as a u32 when @byte is 0 */
	int byte;	/* 1 + the byte value to write instead */
};

static inline void test_apply(unsigned char *rec, const struct test_patch *p, size_t n)
{
	for (size_t i = 0; i < n && p[i].at; i++) {
		if (p[i].byte)
			rec[p[i].at] = (unsigned char)(p[i].byte - 1);
		else
			test_put_u32(rec + p[i].at, p[i].loc);
	}
}

/*
 * The validator as a writer uses it: ue_check_new() of @ev, then
 * ue_check_record() of the record; -ENOMEM when the check cannot be made.
 */
static inline int test_validate(const struct ue_event *ev, const void *rec, size_t len)
{
	struct ue_check *c;
	int ret = ue_check_new(ev, &c);

	if (ret < 0)
		return ret;
	ret = ue_check_record(c, rec, len);
	ue_check_free(c);
	return ret;
}

/*
 * Checks the snprintf contract of a renderer: called with (NULL, 0) and with
 * every buffer size up to the full length + 1, it must return the full
 * length and store exactly the prefix that fits, NUL-terminated.  @render
 * wraps the call; returns 0 or the first failing size + 1.
 */
typedef int (*test_render_fn)(const void *arg, char *buf, size_t len);

static inline size_t check_snprintf_contract(test_render_fn render, const void *arg,
					    const char *full)
{
	size_t n = strlen(full);
	char buf[4096];

	if (n + 2 > sizeof(buf) || render(arg, NULL, 0) != (int)n)
		return 1;
	for (size_t len = 1; len <= n + 1; len++) {
		size_t keep = len - 1 < n ? len - 1 : n;

		memset(buf, 'X', sizeof(buf));
		if (render(arg, buf, len) != (int)n)
			return len + 1;
		if (memcmp(buf, full, keep) != 0 || buf[keep] != '\0' || buf[len] != 'X')
			return len + 1;
	}
	return 0;
}

#endif /* UE_TEST_EVENT_TABLE_H */
