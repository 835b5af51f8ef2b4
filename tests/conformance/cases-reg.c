// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: the cases of registration: the environment, name_args parsing, matching,
 * struct user_reg checks, unregistration, the enable word, deletion,
 * multi-format and persistent events, unknown ioctls.
 */
#include "conformance.h"

/* ---- section: environment -------------------------------------------------------- */

void sec_env(void)
{
	/* Only the user_events part of tracefs, the part usereventsd provides. */
	static const char *const files[] = {
		"README", "available_events", "buffer_size_kb", "dynamic_events", "events",
		"events/enable", "events/header_event", "events/header_page", "events/user_events",
		"events/user_events/enable", "events/user_events/filter", "options",
		"options/fields", "options/overwrite", "per_cpu", "per_cpu/cpu0",
		"per_cpu/cpu0/trace_pipe_raw", "set_event", "trace", "trace_pipe", "tracing_on",
		"user_events_data", "user_events_status",
	};

	begin("env");
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		show_stat("env", files[i]);
	show_file("env.empty", "user_events_status", NULL);
	show_file("env.empty", "dynamic_events", NULL);
	show_value("env", "tracing_on");
	show_value("env", "options/fields");
	show_value("env", "events/user_events/enable");
}

/* ---- section: parse ---------------------------------------------------------------- */

struct reg_case {
	const char *id;
	const char *name_args;
};

static const struct reg_case parse_cases[] = {
	/* every type the kernel knows */
	{ "parse.s8", "cfp_s8 s8 a" },
	{ "parse.u8", "cfp_u8 u8 a" },
	{ "parse.s16", "cfp_s16 s16 a" },
	{ "parse.u16", "cfp_u16 u16 a" },
	{ "parse.s32", "cfp_s32 s32 a" },
	{ "parse.u32", "cfp_u32 u32 a" },
	{ "parse.s64", "cfp_s64 s64 a" },
	{ "parse.u64", "cfp_u64 u64 a" },
	{ "parse.int", "cfp_int int a" },
	{ "parse.uint", "cfp_uint unsigned int a" },
	{ "parse.short", "cfp_short short a" },
	{ "parse.ushort", "cfp_ushort unsigned short a" },
	{ "parse.char", "cfp_char char a" },
	{ "parse.uchar", "cfp_uchar unsigned char a" },
	{ "parse.char4", "cfp_char4 char[4] a" },
	{ "parse.uchar4", "cfp_uchar4 unsigned char[4] a" },
	{ "parse.char-hex", "cfp_charx char[0x14] a" },
	{ "parse.uchar-hex", "cfp_ucharx unsigned char[0x14] a" },
	{ "parse.char-octal", "cfp_charo char[010] a" },
	{ "parse.char1", "cfp_char1 char[1] a" },
	{ "parse.char1024", "cfp_char1024 char[1024] a" },
	{ "parse.char1025", "cfp_char1025 char[1025] a" },
	{ "parse.char9999", "cfp_char9999 char[9999] a" },
	{ "parse.char0", "cfp_char0 char[0] a" },
	{ "parse.char-aa", "cfp_charaa char[aa] a" },
	{ "parse.char-longnum", "cfp_charln char[0x0000000000001] a" },
	{ "parse.char-7digits", "cfp_char7 char[0000020] a" },
	{ "parse.char-neg", "cfp_charneg char[-1] a" },
	{ "parse.char-empty", "cfp_charem char[] a" },
	{ "parse.char-nobracket", "cfp_charnb char[4 a" },
	{ "parse.char-space", "cfp_charsp char [4] a" },
	{ "parse.char-suffix", "cfp_charsf char[4]x a" },
	{ "parse.u8-array", "cfp_u8arr u8[4] a" },
	{ "parse.dloc-char", "cfp_dlc __data_loc char[] a" },
	{ "parse.dloc-uchar", "cfp_dluc __data_loc unsigned char[] a" },
	{ "parse.rloc-char", "cfp_rlc __rel_loc char[] a" },
	{ "parse.rloc-uchar", "cfp_rluc __rel_loc unsigned char[] a" },
	{ "parse.dloc-u8", "cfp_dlu8 __data_loc u8[] a" },
	{ "parse.rloc-u8", "cfp_rlu8 __rel_loc u8[] a" },
	{ "parse.dloc-u32", "cfp_dlu32 __data_loc u32[] a" },
	{ "parse.dloc-int", "cfp_dlint __data_loc int a" },
	{ "parse.dloc-char10", "cfp_dlc10 __data_loc char[10] a" },
	{ "parse.dloc-bare", "cfp_dlbare __data_loc a" },
	{ "parse.rloc-bare", "cfp_rlbare __rel_loc a" },
	{ "parse.dloc-unsigned-bare", "cfp_dlub __data_loc unsigned a" },
	{ "parse.struct20", "cfp_st20 struct foo bar 20" },
	{ "parse.struct1", "cfp_st1 struct foo bar 1" },
	{ "parse.struct0", "cfp_st0 struct foo bar 0" },
	{ "parse.struct-nosize", "cfp_stns struct foo bar" },
	{ "parse.struct-hexsize", "cfp_sthx struct foo bar 0x10" },
	{ "parse.struct-negsize", "cfp_stng struct foo bar -1" },
	{ "parse.struct-extra", "cfp_stex struct foo bar 4 5" },
	{ "parse.struct-dspace", "cfp_stds struct  foo bar 4" },
	{ "parse.struct-noname", "cfp_stnn struct foo" },
	{ "parse.struct-big", "cfp_stbig struct foo bar 65536" },
	/* rejected types */
	{ "parse.long", "cfp_long long a" },
	{ "parse.ulong", "cfp_ulong unsigned long a" },
	{ "parse.unknown", "cfp_unk foo a" },
	{ "parse.bool", "cfp_bool bool a" },
	{ "parse.upper", "cfp_upper U32 a" },
	{ "parse.unsigned-alone", "cfp_usa unsigned a" },
	{ "parse.unsigned-dspace", "cfp_usds unsigned  int a" },
	{ "parse.pointer", "cfp_ptr char * a" },
	/* field syntax */
	{ "parse.noname", "cfp_nn u32" },
	{ "parse.size-nonstruct", "cfp_szns u32 a 4" },
	{ "parse.size-char", "cfp_szch char a 20" },
	{ "parse.dspace", "cfp_dsp u32  a" },
	{ "parse.dspace-lead", "cfp_dspl  u32 a" },
	{ "parse.tspace", "cfp_tsp u32 a " },
	{ "parse.tsemi", "cfp_tsemi u32 a;" },
	{ "parse.tsemi-space", "cfp_tsemis u32 a; " },
	{ "parse.dsemi", "cfp_dsemi u32 a;;u32 b" },
	{ "parse.lsemi", "cfp_lsemi ;u32 a" },
	{ "parse.semi-only", "cfp_semio ;" },
	{ "parse.semi-space", "cfp_ssp u32 a; u32 b" },
	{ "parse.semi-spaces", "cfp_ssp2 u32 a;   u32 b" },
	{ "parse.space-semi", "cfp_sps u32 a ;u32 b" },
	{ "parse.tab-in-field", "cfp_tab u32\ta" },
	{ "parse.tab-after-name", "cfp_tabn\tu32 a" },
	{ "parse.newline", "cfp_nl u32 a\n" },
	{ "parse.dup-field", "cfp_dup u32 a;u32 a" },
	{ "parse.field-dash", "cfp_fdash u32 a-b" },
	{ "parse.field-brackets", "cfp_fbr u32 a[2]" },
	{ "parse.field-semi-type", "cfp_fst u32;a" },
	{ "parse.all-types",
	  "cfp_all s8 a;u8 b;s16 c;u16 d;s32 e;u32 f;s64 g;u64 h;int i;unsigned int j;short k;"
	  "unsigned short l;char m;unsigned char n;char[3] o;unsigned char[2] p;"
	  "__data_loc char[] q;__rel_loc char[] r;__data_loc u8[] s;struct x t 3" },
	{ "parse.readme",
	  "cfp_readme u32 a;s8 b;char[4] c;__rel_loc char[] s;u64 d;unsigned char e;"
	  "__data_loc u8[] arr;struct foo st 6" },
	/* names and flags */
	{ "parse.nofields", "cfp_nf" },
	{ "parse.name-space", "cfp_nsp " },
	{ "parse.name-spaces", "cfp_nsps    " },
	{ "parse.flag", "cfp_flag:flag u32 a" },
	{ "parse.flag-noargs", "cfp_flag2:BPF" },
	{ "parse.colon", "cfp_colon: u32 a" },
	{ "parse.colon-only", "cfp_colon2:" },
	{ "parse.name-dot", "cfp.dot u32 a" },
	{ "parse.name-dash", "cfp-dash u32 a" },
	{ "parse.name-slash", "cfp/slash u32 a" },
	{ "parse.name-star", "cfp_* u32 a" },
	{ "parse.name-utf8", "cfp_\xc3\xa9 u32 a" },
	{ "parse.name-space-inside", "cfp sp u32 a" },
	{ "parse.name-digit", "9cfp u32 a" },
	{ "parse.name-events", "enable u32 a" },
	{ "parse.spaces-only", "   " },
	{ "parse.empty", "" },
	{ "parse.leading-space", " cfp_lsp u32 a" },
};

/* name_args of exactly @total bytes: NAME, one u32 field with a long name. */
static void make_long_args(char *buf, size_t total, const char *name)
{
	size_t n = (size_t)snprintf(buf, total + 1, "%s u32 f", name);

	while (n < total)
		buf[n++] = 'x';
	buf[n] = '\0';
}

static void parse_one(const char *id, const char *name_args)
{
	struct ctx c;
	int r;

	ctx_open(&c);
	r = ctx_reg(&c, id, name_args, 0, NULL, NULL);
	if (!r)
		show_registered(id, name_args, 0);
	ctx_close(&c);
}

void sec_parse(void)
{
	static char buf[2048];
	static const struct {
		const char *id;
		size_t len;
	} lens[] = {
		{ "parse.len255", 255 }, { "parse.len511", 511 },
		{ "parse.len512", 512 }, { "parse.len513", 513 },
	};
	static const struct {
		const char *id;
		size_t len;
	} names[] = {
		{ "parse.name255", 255 }, { "parse.name256", 256 }, { "parse.name511", 511 },
	};
	char many[600];
	size_t n;

	begin("parse");
	for (size_t i = 0; i < ARRAY_SIZE(parse_cases); i++)
		parse_one(parse_cases[i].id, parse_cases[i].name_args);

	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		char name[32];

		snprintf(name, sizeof(name), "cfp_l%zu", lens[i].len);
		make_long_args(buf, lens[i].len, name);
		parse_one(lens[i].id, buf);
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		memset(buf, 'n', names[i].len);
		memcpy(buf, "cfp_", 4);
		buf[names[i].len] = '\0';
		parse_one(names[i].id, buf);
	}

	/* 60 one-byte fields; 0 to 59 are "u8 fNN;" */
	n = (size_t)snprintf(many, sizeof(many), "cfp_many");
	for (int i = 0; i < 60; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%su8 f%02d", i ? ";" : " ", i);
	parse_one("parse.many-fields", many);
}

/* ---- section: match ---------------------------------------------------------------- */

static const struct {
	const char *id;
	const char *a, *b;
} match_cases[] = {
	{ "match.same", "cfm_a u32 a", "cfm_a u32 a" },
	{ "match.semi-space", "cfm_b u32 a;u32 b", "cfm_b u32 a; u32 b" },
	{ "match.semi-space-rev", "cfm_b2 u32 a; u32 b", "cfm_b2 u32 a;u32 b" },
	{ "match.tsemi", "cfm_c u32 a; u32 b", "cfm_c u32 a; u32 b;" },
	{ "match.dspace", "cfm_d u32 a", "cfm_d u32  a" },
	{ "match.lspace", "cfm_e u32 a", "cfm_e  u32 a" },
	{ "match.tspace", "cfm_e2 u32 a", "cfm_e2 u32 a " },
	{ "match.field-name", "cfm_f u32 a", "cfm_f u32 b" },
	{ "match.order", "cfm_g u32 a; u32 b", "cfm_g u32 b; u32 a" },
	{ "match.type", "cfm_h u64 a; u64 b", "cfm_h u32 a; u32 b" },
	{ "match.type-alias", "cfm_h2 int a", "cfm_h2 s32 a" },
	{ "match.struct", "cfm_i struct my_struct a 20", "cfm_i struct my_struct a 20" },
	{ "match.struct-field", "cfm_j struct my_struct a 20", "cfm_j struct my_struct b 20" },
	{ "match.struct-size", "cfm_k struct my_struct a 20", "cfm_k struct my_struct a 21" },
	{ "match.struct-name", "cfm_l struct my_struct a 20", "cfm_l struct other a 20" },
	{ "match.fewer", "cfm_m u32 a; u32 b", "cfm_m u32 a" },
	{ "match.more", "cfm_n u32 a", "cfm_n u32 a; u32 b" },
	{ "match.none-vs-field", "cfm_o", "cfm_o u32 a" },
	{ "match.field-vs-none", "cfm_p u32 a", "cfm_p" },
	{ "match.none-none", "cfm_q", "cfm_q" },
	{ "match.none-space", "cfm_r", "cfm_r " },
	{ "match.invalid-b", "cfm_s u32 a", "cfm_s u32" },
	{ "match.invalid-b-type", "cfm_s2 u32 a", "cfm_s2 long a" },
	{ "match.flag-b", "cfm_t u32 a", "cfm_t:x u32 a" },
	{ "match.unsigned-dspace", "cfm_u unsigned int a", "cfm_u unsigned  int a" },
	{ "match.space-before-semi", "cfm_v u32 a;u32 b", "cfm_v u32 a ;u32 b" },
	{ "match.char-hex", "cfm_w char[20] a", "cfm_w char[0x14] a" },
	{ "match.dsemi", "cfm_x u32 a;u32 b", "cfm_x u32 a;;u32 b" },
	{ "match.lsemi", "cfm_y u32 a", "cfm_y ;u32 a" },
	{ "match.tab", "cfm_z u32 a", "cfm_z u32\ta" },
	{ "match.dloc", "cfm_dl __data_loc char[] a", "cfm_dl __data_loc  char[] a" },
};

void sec_match(void)
{
	begin("match");
	for (size_t i = 0; i < ARRAY_SIZE(match_cases); i++) {
		char ida[96], idb[96];
		struct ctx c;

		snprintf(ida, sizeof(ida), "%s.a", match_cases[i].id);
		snprintf(idb, sizeof(idb), "%s.b", match_cases[i].id);
		ctx_open(&c);
		ctx_reg(&c, ida, match_cases[i].a, 0, NULL, NULL);
		ctx_reg(&c, idb, match_cases[i].b, 0, NULL, NULL);
		ctx_close(&c);
	}
}

/* ---- section: reg (struct user_reg checks) ------------------------------------------- */

struct reg_variant {
	const char *id;
	uint32_t size;		/* 0: sizeof(struct user_reg) */
	bool size_zero;		/* size really 0 */
	uint8_t enable_size;	/* 0: 4 */
	uint8_t bit;
	uint16_t flags;
	int addr_kind;		/* see reg_addr() */
	int addr_off;
	int name_kind;		/* 0 normal, 1 unmapped, 2 NULL, 3 no NUL within 512 */
	int tail;		/* for size > 32: 0 zero tail, 1 non-zero tail */
};

enum { ADDR_WORD, ADDR_UNMAPPED, ADDR_NULL, ADDR_KERNEL, ADDR_READONLY };

static const struct reg_variant reg_variants[] = {
	{ .id = "reg.ok" },
	{ .id = "reg.size-4097", .size = 4097 },
	{ .id = "reg.size-4096-zero-tail", .size = 4096 },
	{ .id = "reg.size-4096-nonzero-tail", .size = 4096, .tail = 1 },
	{ .id = "reg.size-40-zero-tail", .size = 40 },
	{ .id = "reg.size-40-nonzero-tail", .size = 40, .tail = 1 },
	{ .id = "reg.size-29-nonzero-tail", .size = 29, .tail = 1 },
	{ .id = "reg.size-32", .size = 32 },
	{ .id = "reg.size-28", .size = 28 },
	{ .id = "reg.size-27", .size = 27 },
	{ .id = "reg.size-24", .size = 24 },
	{ .id = "reg.size-4", .size = 4 },
	{ .id = "reg.size-0", .size_zero = true },
	{ .id = "reg.size-huge", .size = 0xffffffffu },
	{ .id = "reg.flags-persist", .flags = 1 },
	{ .id = "reg.flags-4", .flags = 4 },
	{ .id = "reg.flags-8", .flags = 8 },
	{ .id = "reg.flags-0x8000", .flags = 0x8000 },
	{ .id = "reg.enable_size-0", .enable_size = 0xff },
	{ .id = "reg.enable_size-1", .enable_size = 1 },
	{ .id = "reg.enable_size-2", .enable_size = 2 },
	{ .id = "reg.enable_size-3", .enable_size = 3 },
	{ .id = "reg.enable_size-5", .enable_size = 5 },
	{ .id = "reg.enable_size-8", .enable_size = 8 },
	{ .id = "reg.enable_size-9", .enable_size = 9 },
	{ .id = "reg.enable_size-16", .enable_size = 16 },
	{ .id = "reg.addr-misaligned-4", .addr_off = 2 },
	{ .id = "reg.addr-misaligned-4-by-1", .addr_off = 1 },
	{ .id = "reg.addr-misaligned-8", .enable_size = 8, .addr_off = 4 },
	{ .id = "reg.addr-4-in-upper-half", .addr_off = 4 },
	{ .id = "reg.bit-31-size-4", .bit = 31 },
	{ .id = "reg.bit-32-size-4", .bit = 32 },
	{ .id = "reg.bit-63-size-8", .enable_size = 8, .bit = 63 },
	{ .id = "reg.bit-64-size-8", .enable_size = 8, .bit = 64 },
	{ .id = "reg.bit-255-size-8", .enable_size = 8, .bit = 255 },
	{ .id = "reg.addr-unmapped", .addr_kind = ADDR_UNMAPPED },
	{ .id = "reg.addr-null", .addr_kind = ADDR_NULL },
	{ .id = "reg.addr-kernel", .addr_kind = ADDR_KERNEL },
	{ .id = "reg.addr-readonly", .addr_kind = ADDR_READONLY },
	{ .id = "reg.name-unmapped", .name_kind = 1 },
	{ .id = "reg.name-null", .name_kind = 2 },
	{ .id = "reg.name-no-nul", .name_kind = 3 },
	{ .id = "reg.bad-size-and-bad-flags", .size = 27, .flags = 4 },
	{ .id = "reg.bad-flags-and-bad-enable_size", .flags = 4, .enable_size = 3 },
	{ .id = "reg.bad-enable_size-and-misaligned", .enable_size = 3, .addr_off = 1 },
	{ .id = "reg.misaligned-and-bad-bit", .addr_off = 2, .bit = 40 },
	{ .id = "reg.bad-bit-and-bad-name", .bit = 40, .name_kind = 2 },
};

static uint64_t reg_addr(const struct reg_variant *v, uint64_t *word, void *ro)
{
	switch (v->addr_kind) {
	case ADDR_UNMAPPED:
		return (uint64_t)(uintptr_t)unmapped_page();
	case ADDR_NULL:
		return 0;
	case ADDR_KERNEL:
		return 0xffff888000000000ull;
	case ADDR_READONLY:
		return (uint64_t)(uintptr_t)ro;
	}
	return (uint64_t)(uintptr_t)word + (uint64_t)v->addr_off;
}

void sec_reg(void)
{
	static unsigned char area[8192] __attribute__((aligned(8)));
	static char noterm[600];
	void *ro = mmap(NULL, (size_t)page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	begin("reg");
	memset(noterm, 'r', sizeof(noterm));
	for (size_t i = 0; i < ARRAY_SIZE(reg_variants); i++) {
		const struct reg_variant *v = &reg_variants[i];
		struct user_reg *reg = (struct user_reg *)area;
		uint64_t *w = take_word();
		const char *name_args = "cfr_ev u32 a";
		const char *shown = name_args;
		struct ctx c;
		int r;

		memset(area, 0, sizeof(area));
		reg->size = v->size_zero ? 0 : v->size ? v->size : sizeof(*reg);
		reg->enable_size = v->enable_size == 0xff ? 0 : v->enable_size ? v->enable_size : 4;
		reg->enable_bit = v->bit;
		reg->flags = v->flags;
		reg->enable_addr = reg_addr(v, w, ro);
		reg->name_args = (uint64_t)(uintptr_t)name_args;
		if (v->name_kind == 1) {
			reg->name_args = (uint64_t)(uintptr_t)unmapped_page();
			shown = NULL;
		} else if (v->name_kind == 2) {
			reg->name_args = 0;
			shown = NULL;
		} else if (v->name_kind == 3) {
			reg->name_args = (uint64_t)(uintptr_t)noterm;
			shown = NULL;
		}
		if (v->tail)
			area[reg->size - 1] = 1;

		ctx_open(&c);
		r = ioc(c.fd, DIAG_IOCSREG, area);
		if (!r)
			ctx_enabler(&c, c.fd, reg->enable_addr, reg->enable_bit);
		ctx_track(&c, name_args);
		print_reg(v->id, shown, v->flags, r, reg->write_index);
		if (!r)
			printf("word %s 0x%016" PRIx64 "\n", v->id, *w);
		ctx_close(&c);
	}

	{
		/* The ioctl argument itself unreadable. */
		struct ctx c;

		ctx_open(&c);
		printf("ioctl reg.arg-null => %s\n", res(ioc(c.fd, DIAG_IOCSREG, NULL)));
		printf("ioctl reg.arg-unmapped => %s\n",
		       res(ioc(c.fd, DIAG_IOCSREG, unmapped_page())));
		ctx_close(&c);
	}

	{
		/* Same address and bit twice, on one file and on two. */
		struct ctx c;
		uint64_t *w = take_word();
		struct user_reg reg = { .size = sizeof(reg), .enable_size = 4,
					.enable_addr = (uint64_t)(uintptr_t)w };
		int fd2;

		ctx_open(&c);
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup1 u32 a";
		print_reg("reg.addr-twice.first", "cfr_dup1 u32 a", 0, ioc(c.fd, DIAG_IOCSREG, &reg),
			  reg.write_index);
		ctx_enabler(&c, c.fd, reg.enable_addr, 0);
		ctx_track(&c, "cfr_dup1");
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup2 u32 a";
		ctx_track(&c, "cfr_dup2");
		print_reg("reg.addr-twice.other-event", "cfr_dup2 u32 a", 0,
			  ioc(c.fd, DIAG_IOCSREG, &reg), reg.write_index);
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup1 u32 a";
		print_reg("reg.addr-twice.same-event", "cfr_dup1 u32 a", 0,
			  ioc(c.fd, DIAG_IOCSREG, &reg), reg.write_index);
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup3 long a";
		ctx_track(&c, "cfr_dup3");
		print_reg("reg.addr-twice.bad-args", "cfr_dup3 long a", 0,
			  ioc(c.fd, DIAG_IOCSREG, &reg), reg.write_index);
		fd2 = open_data();
		reg.name_args = (uint64_t)(uintptr_t)"cfr_dup2 u32 a";
		print_reg("reg.addr-twice.other-file", "cfr_dup2 u32 a", 0,
			  ioc(fd2, DIAG_IOCSREG, &reg), reg.write_index);
		reg.enable_bit = 1;
		print_reg("reg.addr-twice.other-bit", "cfr_dup2 u32 a", 0,
			  ioc(fd2, DIAG_IOCSREG, &reg), reg.write_index);
		ctx_enabler(&c, fd2, reg.enable_addr, 1);
		reg.enable_size = 8;
		reg.enable_bit = 1;
		print_reg("reg.addr-twice.other-size", "cfr_dup2 u32 a", 0,
			  ioc(fd2, DIAG_IOCSREG, &reg), reg.write_index);
		unreg(fd2, reg.enable_addr, 1);
		close(fd2);
		ctx_close(&c);
	}

	{
		/* write_index: per file, one per event, the same event again gives the same index. */
		struct ctx c;
		int fd2;
		uint64_t *w;
		struct user_reg reg = { .size = sizeof(reg), .enable_size = 4 };

		ctx_open(&c);
		ctx_reg(&c, "reg.index.first", "cfr_i1 u32 a", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.second", "cfr_i2 u32 a", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.first-again", "cfr_i1 u32 a", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.first-again-spaces", "cfr_i1  u32 a;", 0, NULL, NULL);
		ctx_reg(&c, "reg.index.third", "cfr_i3", 0, NULL, NULL);
		fd2 = open_data();
		w = take_word();
		reg.enable_addr = (uint64_t)(uintptr_t)w;
		reg.name_args = (uint64_t)(uintptr_t)"cfr_i2 u32 a";
		print_reg("reg.index.other-file", "cfr_i2 u32 a", 0, ioc(fd2, DIAG_IOCSREG, &reg),
			  reg.write_index);
		unreg(fd2, reg.enable_addr, 0);
		close(fd2);
		ctx_close(&c);
	}
	munmap(ro, (size_t)page_size);
}

/* ---- section: unreg ---------------------------------------------------------------- */

void sec_unreg(void)
{
	static unsigned char area[8192] __attribute__((aligned(8)));
	struct user_unreg *u = (struct user_unreg *)area;
	struct ctx c;
	uint64_t *w;
	uint32_t idx;
	static const struct {
		const char *id;
		uint32_t size;
		int tail;
		uint8_t res1;
		uint16_t res2;
		int addr;	/* 0 registered, 1 unknown */
		uint8_t bit;
	} cases[] = {
		{ "unreg.size-4097", 4097, 0, 0, 0, 0, 0 },
		{ "unreg.size-15", 15, 0, 0, 0, 0, 0 },
		{ "unreg.size-0", 0, 0, 0, 0, 0, 0 },
		{ "unreg.size-24-nonzero-tail", 24, 1, 0, 0, 0, 0 },
		{ "unreg.reserved", 16, 0, 1, 0, 0, 0 },
		{ "unreg.reserved2", 16, 0, 0, 1, 0, 0 },
		{ "unreg.unknown-addr", 16, 0, 0, 0, 1, 0 },
		{ "unreg.unknown-bit", 16, 0, 0, 0, 0, 5 },
		{ "unreg.size-4096-zero-tail", 4096, 0, 0, 0, 0, 0 },
		{ "unreg.again", 16, 0, 0, 0, 0, 0 },
	};

	begin("unreg");
	ctx_open(&c);
	ctx_reg(&c, "unreg.setup", "cfu_ev u32 a", 0, &idx, &w);
	enable_event("user_events", "cfu_ev", "1");
	printf("word unreg.enabled 0x%016" PRIx64 "\n", *w);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(area, 0, sizeof(area));
		u->size = cases[i].size;
		u->__reserved = cases[i].res1;
		u->__reserved2 = cases[i].res2;
		u->disable_bit = cases[i].bit;
		u->disable_addr = cases[i].addr ? (uint64_t)(uintptr_t)&words[63]
						 : (uint64_t)(uintptr_t)w;
		if (cases[i].tail)
			area[cases[i].size - 1] = 1;
		printf("unreg %s => %s\n", cases[i].id, res(ioc(c.fd, DIAG_IOCSUNREG, area)));
		printf("word %s 0x%016" PRIx64 "\n", cases[i].id, *w);
	}
	printf("unreg unreg.arg-null => %s\n", res(ioc(c.fd, DIAG_IOCSUNREG, NULL)));
	/* After unregistering, the file still holds the event: writes work. */
	do_write("wr.after-unreg", c.fd, (int32_t)idx, "u32:7", HOW_WRITEV);
	enable_event("user_events", "cfu_ev", "0");
	c.nen = 0;
	ctx_close(&c);
}

/* ---- section: enable (the enable word) ------------------------------------------------ */

void sec_enable(void)
{
	static const struct {
		const char *id;
		uint8_t size, bit;
		int off;
		uint64_t fill;
	} cases[] = {
		{ "enable.size4-bit0", 4, 0, 0, 0xa5a5a5a5a5a5a5a4ull },
		{ "enable.size4-bit31", 4, 31, 0, 0x5a5a5a5a5a5a5a5aull },
		{ "enable.size4-upper-bit31", 4, 31, 4, 0x0123456701234567ull },
		{ "enable.size8-bit0", 8, 0, 0, 0xfffffffffffffffeull },
		{ "enable.size8-bit63", 8, 63, 0, 0x7fffffffffffffffull },
		{ "enable.size8-bit33", 8, 33, 0, 0 },
	};
	struct ctx c;
	uint32_t idx;

	begin("enable");
	ctx_open(&c);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t *w = take_word();
		struct user_reg reg = {
			.size = sizeof(reg), .enable_size = cases[i].size, .enable_bit = cases[i].bit,
			.enable_addr = (uint64_t)(uintptr_t)w + (uint64_t)cases[i].off,
			.name_args = (uint64_t)(uintptr_t)"cfe_ev u32 a",
		};
		int r;

		*w = cases[i].fill;
		r = ioc(c.fd, DIAG_IOCSREG, &reg);
		print_reg(cases[i].id, "cfe_ev u32 a", 0, r, reg.write_index);
		ctx_track(&c, "cfe_ev");
		if (!r)
			ctx_enabler(&c, c.fd, reg.enable_addr, cases[i].bit);
		printf("word %s.registered 0x%016" PRIx64 "\n", cases[i].id, *w);
		fwrite_show(cases[i].id, "events/user_events/cfe_ev/enable", "1", O_WRONLY);
		printf("word %s.enabled 0x%016" PRIx64 "\n", cases[i].id, *w);
		show_value(cases[i].id, "events/user_events/cfe_ev/enable");
		show_file(cases[i].id, "user_events_status", NULL);
		fwrite_show(cases[i].id, "events/user_events/cfe_ev/enable", "0", O_WRONLY);
		printf("word %s.disabled 0x%016" PRIx64 "\n", cases[i].id, *w);
		show_value(cases[i].id, "events/user_events/cfe_ev/enable");
	}

	/* Registering an enabled event sets the bit at once; unregistering clears it. */
	fwrite_show("enable.before-reg", "events/user_events/cfe_ev/enable", "1", O_WRONLY);
	{
		uint64_t *w;

		ctx_reg(&c, "enable.reg-while-enabled", "cfe_ev u32 a", 0, &idx, &w);
		printf("word enable.reg-while-enabled 0x%016" PRIx64 "\n", *w);
		printf("unreg enable.unreg-while-enabled => %s\n",
		       res(unreg(c.fd, (uint64_t)(uintptr_t)w, 0)));
		printf("word enable.unreg-while-enabled 0x%016" PRIx64 "\n", *w);
	}
	/* Enable values other than 0 and 1. */
	{
		static const char *const vals[] = {
			"2", "-1", "", "1x", "0\n", " 1", "01", "1\n\n", "on",
		};

		for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
			char id[32];

			snprintf(id, sizeof(id), "enable.value-%zu", i);
			fwrite_show(id, "events/user_events/cfe_ev/enable", vals[i], O_WRONLY);
			show_value(id, "events/user_events/cfe_ev/enable");
		}
	}
	enable_event("user_events", "cfe_ev", "0");
	ctx_close(&c);

	/* events/user_events/enable and events/enable: 0, 1 and X. */
	ctx_open(&c);
	ctx_reg(&c, "enable.sys.a", "cfe_a u32 a", 0, NULL, NULL);
	ctx_reg(&c, "enable.sys.b", "cfe_b u32 a", 0, NULL, NULL);
	show_value("enable.sys-none", "events/user_events/enable");
	enable_event("user_events", "cfe_a", "1");
	show_value("enable.sys-one", "events/user_events/enable");
	show_value("enable.sys-one", "events/enable");
	show_file("enable.sys-one", "set_event", NULL);
	show_file("enable.sys-one", "user_events_status", NULL);
	enable_event("user_events", "cfe_b", "1");
	show_value("enable.sys-both", "events/user_events/enable");
	fwrite_show("enable.sys-off", "events/user_events/enable", "0", O_WRONLY);
	show_value("enable.sys-off", "events/user_events/enable");
	show_value("enable.sys-off", "events/user_events/cfe_a/enable");
	fwrite_show("enable.sys-on", "events/user_events/enable", "1", O_WRONLY);
	show_value("enable.sys-on", "events/user_events/cfe_b/enable");
	show_file("enable.sys-on", "set_event", NULL);
	fwrite_show("enable.sys-off2", "events/user_events/enable", "0", O_WRONLY);
	/* set_event: "system:event" enables, "!system:event" disables. */
	fwrite_show("enable.set_event-add", "set_event", "user_events:cfe_a", O_WRONLY | O_APPEND);
	show_value("enable.set_event-add", "events/user_events/cfe_a/enable");
	show_file("enable.set_event-add", "set_event", NULL);
	fwrite_show("enable.set_event-remove", "set_event", "!user_events:cfe_a", O_WRONLY | O_APPEND);
	show_value("enable.set_event-remove", "events/user_events/cfe_a/enable");
	fwrite_show("enable.set_event-system", "set_event", "user_events:*", O_WRONLY | O_APPEND);
	show_value("enable.set_event-system", "events/user_events/enable");
	fwrite_show("enable.set_event-trunc", "set_event", "", O_WRONLY | O_TRUNC);
	show_value("enable.set_event-trunc", "events/user_events/enable");
	ctx_close(&c);
}

/* ---- section: del ---------------------------------------------------------------- */

void sec_del(void)
{
	struct ctx c;
	char longname[600];
	int r = 0;

	begin("del");
	printf("del del.unknown => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_nosuch")));
	printf("del del.empty => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "")));
	printf("del del.arg-null => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, NULL)));
	memset(longname, 'd', sizeof(longname));
	printf("del del.no-nul => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, longname)));

	ctx_open(&c);
	ctx_reg(&c, "del.busy.reg", "cfd_busy u32 a", 0, NULL, NULL);
	printf("del del.busy => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_busy")));
	printf("del del.busy-same-fd => %s\n", res(ioc(c.fd, DIAG_IOCSDEL, "cfd_busy")));
	printf("del del.with-fields => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_busy u32 a")));
	ctx_close(&c);

	/* A persistent event outlives its file; once unreferenced DIAG_IOCSDEL removes it. */
	ctx_open(&c);
	ctx_reg(&c, "del.persist.reg", "cfd_pers u32 a", USER_EVENT_REG_PERSIST, NULL, NULL);
	printf("del del.persist-open => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_pers")));
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	/* the enabler's reference is dropped after an RCU grace period */
	for (int i = 0; i < 3000; i++) {
		r = ioc(ctl_fd, DIAG_IOCSDEL, "cfd_pers");
		if (r != -EBUSY)
			break;
		usleep(1000);
	}
	printf("del del.persist-closed => %s\n", res(r));
	printf("del del.persist-again => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_pers")));
	show_file("del.persist-gone", "user_events_status", NULL);

	/* A non-persistent event goes away by itself once its last reference is dropped. */
	ctx_open(&c);
	ctx_reg(&c, "del.auto.reg", "cfd_auto u32 a", 0, NULL, NULL);
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	for (int i = 0; i < 3000; i++) {
		struct stat st;

		if (stat(tpath("events/user_events/cfd_auto"), &st))
			break;
		usleep(1000);
	}
	show_stat("del.auto-gone", "events/user_events/cfd_auto");
	printf("del del.auto-gone => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfd_auto")));
}

/* ---- section: multi and persist --------------------------------------------------------- */

void sec_multi(void)
{
	struct ctx c;
	int fd2;

	begin("multi");
	ctx_open(&c);
	ctx_reg(&c, "multi.first", "cfmf u32 a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	show_registered("multi.first", "cfmf u32 a", USER_EVENT_REG_MULTI_FORMAT);
	ctx_reg(&c, "multi.same", "cfmf u32 a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.same-spaces", "cfmf  u32 a;", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.other-format", "cfmf u64 a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.no-fields", "cfmf", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.single", "cfmf u16 a", 0, NULL, NULL);
	ctx_reg(&c, "multi.single-other", "cfmf u32 a", 0, NULL, NULL);
	ctx_reg(&c, "multi.bad-fields", "cfmf long a", USER_EVENT_REG_MULTI_FORMAT, NULL, NULL);
	ctx_reg(&c, "multi.persist", "cfmf s8 a",
		USER_EVENT_REG_MULTI_FORMAT | USER_EVENT_REG_PERSIST, NULL, NULL);
	show_multi_texts("multi.all", NULL, "cfmf");
	show_dir("multi.all", "events/user_events_multi");
	show_stat("multi.all", "events/user_events_multi/enable");
	show_stat("multi.all", "events/user_events/cfmf");
	fd2 = open_data();
	{
		uint64_t *w = take_word();
		struct user_reg reg = { .size = sizeof(reg), .enable_size = 4,
					.enable_addr = (uint64_t)(uintptr_t)w,
					.flags = USER_EVENT_REG_MULTI_FORMAT,
					.name_args = (uint64_t)(uintptr_t)"cfmf u64 a" };

		print_reg("multi.other-file", "cfmf u64 a", reg.flags, ioc(fd2, DIAG_IOCSREG, &reg),
			  reg.write_index);
		unreg(fd2, reg.enable_addr, 0);
	}
	close(fd2);
	printf("del multi.del-busy => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cfmf")));
	ctx_close(&c);
	show_file("multi.after", "user_events_status", NULL);
	show_dir("multi.after", "events/user_events_multi");

	/* PERSIST: the event stays after close and is found again by a later registration. */
	begin("persist");
	ctx_open(&c);
	ctx_reg(&c, "persist.first", "cfps u32 a", USER_EVENT_REG_PERSIST, NULL, NULL);
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	usleep(50000);
	show_file("persist.closed", "user_events_status", NULL);
	show_file("persist.closed", "dynamic_events", NULL);
	ctx_open(&c);
	ctx_reg(&c, "persist.again-no-flag", "cfps u32 a", 0, NULL, NULL);
	ctx_reg(&c, "persist.other-fields", "cfps u64 a", 0, NULL, NULL);
	ctx_reg(&c, "persist.other-fields-persist", "cfps u64 a", USER_EVENT_REG_PERSIST, NULL, NULL);
	ctx_close(&c);
	show_file("persist.deleted", "user_events_status", NULL);
}

/* ---- section: ioctl ---------------------------------------------------------------- */

void sec_ioctl(void)
{
	struct user_reg reg = { .size = sizeof(reg) };
	int fd;

	begin("ioctl");
	fd = open_data();
	printf("ioctl ioctl.nr-3 => %s\n", res(ioc(fd, _IO(DIAG_IOC_MAGIC, 3), &reg)));
	printf("ioctl ioctl.zero => %s\n", res(ioc(fd, 0, &reg)));
	printf("ioctl ioctl.reg-struct-size => %s\n",
	       res(ioc(fd, _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg), &reg)));
	printf("ioctl ioctl.reg-no-dir => %s\n", res(ioc(fd, _IO(DIAG_IOC_MAGIC, 0), &reg)));
	printf("ioctl ioctl.other-magic => %s\n", res(ioc(fd, _IOWR('+', 0, struct user_reg *), &reg)));
	printf("ioctl ioctl.fionread => %s\n", res(ioc(fd, FIONREAD, &reg)));
	{
		char b[16];

		printf("read ioctl.read-data => %s\n", res(read(fd, b, sizeof(b)) < 0 ? -errno : 0));
	}
	close(fd);
	fd = open(tpath("user_events_status"), O_RDONLY | O_CLOEXEC);
	printf("ioctl ioctl.on-status => %s\n", res(ioc(fd, DIAG_IOCSREG, &reg)));
	close(fd);
}
