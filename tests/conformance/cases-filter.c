// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: the cases of event filters.
 */
#include "conformance.h"

/* ---- section: filter ------------------------------------------------------------ */

/*
 * The event of the filter cases: every kind of field a filter treats
 * differently (widths and signedness, static, __data_loc and __rel_loc
 * strings, a struct, a non-string dynamic array).
 */
#define FILTER_EV "cff_ev u32 a;s32 b;u8 c;s8 d;u16 e;s16 f;u64 g;s64 h;char[8] s;" \
		  "__data_loc char[] dl;__rel_loc char[] rl;struct foo st 6;__data_loc u8[] arr"

/* The numbers, as they lie in the payload. */
struct __attribute__((packed)) cff_num {
	uint32_t a;
	int32_t b;
	uint8_t c;
	int8_t d;
	uint16_t e;
	int16_t f;
	uint64_t g;
	int64_t h;
};

struct __attribute__((packed)) cff_payload {
	struct cff_num n;
	char s[8];
	uint32_t dl, rl;
	uint8_t st[6];
	uint32_t arr;
	char dyn[96];
};

static const struct cff_rec {
	struct cff_num n;
	const char *s, *dl, *rl;
	uint8_t st0, narr;
} cff_recs[] = {
	{ { 1, -1, 0, -128, 0xffff, -2, 1ull << 40, -5 }, "hello", "foo", "barbaz", 1, 2 },
	{ { 2, 5, 255, 127, 1, 300, 0, 5 }, "help", "foobar", "", 0, 0 },
	{ { 0x10, -100, 7, 0, 2, -300, UINT64_MAX, INT64_MIN }, "hello123", "xfoo", "bar", 0, 1 },
	{ { 0xffffffff, 0, 1, 1, 3, 0, 7, 0 }, "", "", "BAR", 0, 0 },
	{ { 3, 3, 3, 3, 3, 3, 3, 3 }, "a*b", "f?o", "[x]", 3, 3 },
};

/* Payload bytes of a record: strings with their NUL, as programs write them. */
static size_t cff_build(const struct cff_rec *r, struct cff_payload *p)
{
	size_t dyn = 0, n;

	memset(p, 0, sizeof(*p));
	p->n = r->n;
	memcpy(p->s, r->s, strlen(r->s) < 8 ? strlen(r->s) + 1 : 8);
	p->st[0] = r->st0;
	/* __data_loc: offset from the record's start (8 bytes of common header). */
	n = strlen(r->dl) + 1;
	p->dl = (uint32_t)(n << 16 | (8 + offsetof(struct cff_payload, dyn) + dyn));
	memcpy(p->dyn + dyn, r->dl, n);
	dyn += n;
	/* __rel_loc: offset from the end of the field. */
	n = strlen(r->rl) + 1;
	p->rl = (uint32_t)(n << 16 | (offsetof(struct cff_payload, dyn) + dyn -
				     offsetof(struct cff_payload, rl) - 4));
	memcpy(p->dyn + dyn, r->rl, n);
	dyn += n;
	p->arr = (uint32_t)((uint32_t)r->narr << 16 | (8 + offsetof(struct cff_payload, dyn) + dyn));
	for (uint8_t i = 0; i < r->narr; i++)
		p->dyn[dyn++] = (char)(i + 1);
	return offsetof(struct cff_payload, dyn) + dyn;
}

/* Every record written; the trace shows the ones the filter let through. */
static void cff_write_all(const char *id, int fd, uint32_t idx)
{
	clear_trace();
	for (size_t i = 0; i < ARRAY_SIZE(cff_recs); i++) {
		struct cff_payload p;
		size_t len = cff_build(&cff_recs[i], &p);
		ssize_t r = write_event(fd, (int32_t)idx, &p, len, HOW_WRITEV);

		if (r < 0)
			printf("write %s.%zu => %s\n", id, i, res(r));
	}
	show_trace_lines(id);
}

void sec_filter(void)
{
	static const char *const filters[] = {
		/* numbers, by width and sign */
		"a == 1", "a==1", "a != 1", "a < 3", "a <= 3", "a > 2", "a >= 0x10", "a == 010",
		"a == 4294967295", "a == -1", "a == 4294967296", "a & 0x12", "a & 0",
		"b < 0", "b == -1", "b > -50", "b == 0x80000000", "b == 2147483648", "b <= -2147483648",
		"c == 255", "c > 200", "c == 256", "c == -1", "d < 0", "d == -128", "d == 128",
		"d == 255", "e == 0xffff", "e & 1", "f < -100", "f >= 300",
		"g == 1099511627776", "g > 0", "g == 0xffffffffffffffff", "g == -1",
		"g == 18446744073709551616", "h < 0", "h == -9223372036854775808", "h > 4",
		"a == 1x", "a == x1", "a == 0x", "a == +1", "a == 1.5", "a == 0b1",
		/* combinations */
		"a == 1 && b == -1", "a == 1 || a == 2", "!(a == 1)", "!a == 1", "! a == 1",
		"(a == 1 || a == 2) && b > 0", "a == 1 && (b == 5 || c == 7)", "((a == 1))",
		"a > 1 && a < 4 || g == 0", "a == 1 || a == 2 && b == 5", "!(a == 1 || a == 2)",
		"!!(a == 1)", "(a == 1) || (c == 7) || (d == 1)",
		/* strings */
		"s == \"hello\"", "s == hello", "s == 'hello'", "s ~ \"hel*\"", "s ~ \"*lo\"",
		"s ~ \"*el*\"", "s ~ \"h?llo\"", "s ~ \"[h]ello\"", "s ~ \"[!h]*\"", "s != \"hello\"",
		"s == \"hello123\"", "s == \"hello1234\"", "s == \"\"", "s == \"a*b\"", "s ~ \"a*b\"",
		"s ~ \"*\"", "s ~ \"**\"", "s == hel*", "s ~ hel*",
		"dl == \"foo\"", "dl ~ \"foo*\"", "dl ~ \"*foo\"", "dl == \"f?o\"", "dl ~ \"f?o\"",
		"dl != foo", "dl == \"\"",
		"rl == bar", "rl ~ \"*a*\"", "rl == \"\"", "rl ~ \"[a-z]*\"", "rl ~ \"\\[x]\"",
		"s == \"he\\\"llo\"", "s == \"hello\" && dl == \"foo\"",
		/* "hello123" fills s[8]: the byte after it is dl's location, 0x42 'B' */
		"s ~ \"hello123B*\"", "s ~ \"hello123?\"", "s ~ \"hello123[B]\"", "s ~ \"*3B\"",
		"s ~ \"*123B*\"", "s == \"hello123B\"",
		/* the common and generic fields */
		"common_pid > 0", "common_pid == 0", "common_type > 0", "common_flags == 0",
		"common_preempt_count == 0", "CPU >= 0", "cpu < 4096", "CPU > 4096",
		"COMM ~ \"conf*\"", "comm == \"conformance\"", "comm ~ \"x*\"", "COMM == 1", "CPU == \"x\"",
		/* fields a filter does not compare as strings or numbers */
		"st == 0", "st != 0", "arr == 0", "arr > 0", "arr == \"x\"",
		/* refused */
		" ", "a", "a ==", "== 1", "a == 1 &&", "&& a == 1", "a === 1", "a = 1", "a ~ 1",
		"a ~ \"1\"", "s < \"x\"", "s & 1", "s > 1", "a == \"x\"", "a == x", "nosuch == 1",
		"(a == 1", "a == 1)", "((a == 1)", "a == 1 && s == \"unterminated", "s == 'x",
		"a == 99999999999999999999", "a == 1 ||| a == 2", "a == 1 &&& a == 2", "!", "()",
		"a == 1 b == 2", "a == 1 & b == 2", "a == 1 | b == 2", "a == 1 && || b == 2",
		"a == 1 && ()", "1 == a", "a == 1 == 1", "a != != 1", "a <> 1", "a =< 1", "!a",
		"a == 1 && !", "a == {1}", "CPU & 1", "comm < \"x\"",
		/* clearing, spaces and newlines */
		"a == 1\n", "  a == 1  ", "\ta\t==\t1\t", "a == 1\nb == 2", "0", " 0 ", "0\n", "00",
		"a == 0x0000000000000001",
	};
	char longstr[400], manypreds[8192];
	struct ctx c;
	uint32_t idx;

	begin("filter");
	ctx_open(&c);
	if (ctx_reg(&c, "filter.ev", FILTER_EV, 0, &idx, NULL) < 0) {
		ctx_close(&c);
		return;
	}
	show_file("filter.initial", "events/user_events/cff_ev/filter", NULL);
	enable_event("user_events", "cff_ev", "1");
	cff_write_all("filter.none", c.fd, idx);
	for (size_t i = 0; i < ARRAY_SIZE(filters); i++) {
		char id[32];

		snprintf(id, sizeof(id), "filter.%zu", i);
		fwrite_show(id, "events/user_events/cff_ev/filter", filters[i], O_WRONLY | O_TRUNC);
		show_file(id, "events/user_events/cff_ev/filter", NULL);
		cff_write_all(id, c.fd, idx);
	}

	/*
	 * A zero-length write: the kernel refuses it and shows "Error: (0)";
	 * FUSE sends usereventsd no request (docs/compat.md).
	 */
	fwrite_show("filter.zero-length", "events/user_events/cff_ev/filter", "",
		    O_WRONLY | O_TRUNC);

	/* An operand of 300 characters, and one filter of many terms. */
	memset(longstr, 'x', sizeof(longstr));
	memcpy(longstr, "s == \"", 6);
	snprintf(longstr + 306, sizeof(longstr) - 306, "\"");
	fwrite_show("filter.long-operand", "events/user_events/cff_ev/filter", longstr,
		    O_WRONLY | O_TRUNC);
	show_file("filter.long-operand", "events/user_events/cff_ev/filter", NULL);
	manypreds[0] = '\0';
	for (int i = 0; i < 300; i++)
		snprintf(manypreds + strlen(manypreds), sizeof(manypreds) - strlen(manypreds),
			 "%sa == %d", i ? "||" : "", i);
	fwrite_show("filter.many-terms", "events/user_events/cff_ev/filter", manypreds,
		    O_WRONLY | O_TRUNC);
	cff_write_all("filter.many-terms", c.fd, idx);
	/* A write of a page or more. */
	memset(manypreds, ' ', 5000);
	snprintf(manypreds + 5000, sizeof(manypreds) - 5000, "a == 1");
	fwrite_show("filter.page", "events/user_events/cff_ev/filter", manypreds,
		    O_WRONLY | O_TRUNC);
	show_file("filter.page", "events/user_events/cff_ev/filter", NULL);

	/* A filter set while the event is disabled holds once it is enabled. */
	fwrite_show("filter.set-disabled", "events/user_events/cff_ev/filter", "a == 2",
		    O_WRONLY | O_TRUNC);
	enable_event("user_events", "cff_ev", "0");
	fwrite_show("filter.set-disabled", "events/user_events/cff_ev/filter", "a == 3",
		    O_WRONLY | O_TRUNC);
	enable_event("user_events", "cff_ev", "1");
	cff_write_all("filter.set-disabled", c.fd, idx);
	fwrite_show("filter.clear", "events/user_events/cff_ev/filter", "0", O_WRONLY | O_TRUNC);
	show_file("filter.clear", "events/user_events/cff_ev/filter", NULL);

	/* The system's filter: set on every event that has the fields. */
	ctx_reg(&c, "filter.two", "cff_two u32 a", 0, NULL, NULL);
	ctx_reg(&c, "filter.three", "cff_three u64 z", 0, NULL, NULL);
	{
		static const char *const sys[] = {
			"a == 3", "z == 1", "a == 3 && z == 1", "nosuch == 1", "a ==", "0",
		};
		static const char *const evs[] = { "cff_ev", "cff_two", "cff_three" };

		for (size_t i = 0; i < ARRAY_SIZE(sys); i++) {
			char id[32];

			snprintf(id, sizeof(id), "filter.sys.%zu", i);
			fwrite_show(id, "events/user_events/filter", sys[i], O_WRONLY | O_TRUNC);
			show_file(id, "events/user_events/filter", NULL);
			for (size_t j = 0; j < ARRAY_SIZE(evs); j++) {
				char rel[128];

				snprintf(rel, sizeof(rel), "events/user_events/%s/filter", evs[j]);
				show_file(id, rel, NULL);
			}
			cff_write_all(id, c.fd, idx);
		}
	}

	/* A filter outlives a close and goes with the event. */
	fwrite_show("filter.before-del", "events/user_events/cff_ev/filter", "a == 1",
		    O_WRONLY | O_TRUNC);
	enable_event("user_events", "cff_ev", "0");
	ctx_close(&c);
	ctx_open(&c);
	if (ctx_reg(&c, "filter.again", FILTER_EV, 0, &idx, NULL) == 0)
		show_file("filter.again", "events/user_events/cff_ev/filter", NULL);
	ctx_close(&c);
}
