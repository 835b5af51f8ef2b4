// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: the cases of writes: payloads and their trace lines, the write path
 * (index, transport), dynamic_events, user_events_status.
 */
#include "conformance.h"

/* ---- section: pay (payloads and trace lines) --------------------------------------------- */

struct pay_case {
	const char *id;
	const char *spec;
};

struct pay_group {
	const char *id;
	const char *name_args;
	uint16_t flags;
	const struct pay_case *cases;
};

static const struct pay_case pay_ints[] = {
	{ "zero", "z44" },
	{ "ones", "ff ff ffff ffff ffffffff ffffffff ffffffffffffffff ffffffffffffffff "
		  "ffffffff ffffffff ffff ffff ff ff" },
	{ "min", "80 80 u16:0x8000 u16:0x8000 u32:0x80000000 u32:0x80000000 "
		 "u64:0x8000000000000000 u64:0x8000000000000000 u32:0x80000000 u32:0x80000000 "
		 "u16:0x8000 u16:0x8000 80 80" },
	{ "max", "7f 7f u16:0x7fff u16:0x7fff u32:0x7fffffff u32:0x7fffffff "
		 "u64:0x7fffffffffffffff u64:0x7fffffffffffffff u32:0x7fffffff u32:0x7fffffff "
		 "u16:0x7fff u16:0x7fff 7f 7f" },
	{ "mixed", "01 02 u16:3 u16:-4 u32:-5 u32:6 u64:-7 u64:8 u32:-9 u32:10 u16:-11 u16:12 "
		   "\"A\" \"b\"" },
	{ "mixed.write", "01 02 u16:3 u16:-4 u32:-5 u32:6 u64:-7 u64:8 u32:-9 u32:10 u16:-11 "
			 "u16:12 \"A\" \"b\"" },
	{ "short", "z43" },
	{ "long", "z44 01 02 03 04" },
	{ "empty", "" },
	{ NULL, NULL },
};

static const struct pay_case pay_char[] = {
	{ "00", "00" }, { "01", "01" }, { "09", "09" }, { "0a", "0a" }, { "1f", "1f" },
	{ "20", "20" }, { "22", "22" }, { "27", "27" }, { "41", "41" }, { "5c", "5c" },
	{ "7e", "7e" }, { "7f", "7f" }, { "80", "80" }, { "9f", "9f" }, { "a0", "a0" },
	{ "a1", "a1" }, { "c0", "c0" }, { "d7", "d7" }, { "df", "df" }, { "f7", "f7" },
	{ "fb", "fb" }, { "ff", "ff" }, { "two-bytes", "41 42" },
	{ NULL, NULL },
};

static const struct pay_case pay_sstr[] = {
	{ "full", "\"abcd\" \"xyz\" \"q\"" },
	{ "nul", "\"ab\" 00 00 \"x\" 00 00 00" },
	{ "embedded-nul", "\"a\" 00 \"cd\" 00 \"yz\" 00" },
	{ "nonprint", "01 ff 7f 0a 80 09 00 1b" },
	{ "short", "\"abcd\" \"xyz\"" },
	{ NULL, NULL },
};

static const struct pay_case pay_dloc[] = {
	{ "good", "loc:12:6 \"hello\" 00" },
	{ "empty", "loc:12:1 00" },
	{ "len0", "loc:12:0" },
	{ "len0-off0", "loc:0:0" },
	{ "nonul", "loc:12:5 \"hello\"" },
	{ "oob", "loc:12:10 \"hello\" 00" },
	{ "oob-by-one", "loc:12:7 \"hello\" 00" },
	{ "trailing", "loc:12:6 \"hello\" 00 \"zz\"" },
	{ "skip", "loc:14:4 \"xx\" \"abc\" 00" },
	{ "embedded-nul", "loc:12:6 \"ab\" 00 \"cd\" 00" },
	{ "nonprint", "loc:12:4 01 ff 0a 00" },
	{ "offset-past", "loc:0x100:1 00" },
	{ "len-max", "loc:12:0xffff \"x\" 00" },
	{ "into-loc", "loc:8:4" },
	{ "into-loc-nonul", "loc:8:3" },
	{ "short", "0c 00" },
	{ NULL, NULL },
};

static const struct pay_case pay_dloc2[] = {
	{ "good", "loc:20:3 u32:7 loc:23:4 \"hi\" 00 \"abc\" 00" },
	{ "second-nonul", "loc:20:3 u32:7 loc:23:3 \"hi\" 00 \"abc\"" },
	{ "first-oob", "loc:20:30 u32:7 loc:23:4 \"hi\" 00 \"abc\" 00" },
	{ "same-data", "loc:20:3 u32:7 loc:20:3 \"hi\" 00" },
	{ "reversed", "loc:24:3 u32:7 loc:20:4 \"abc\" 00 \"hi\" 00" },
	{ NULL, NULL },
};

static const struct pay_case pay_rloc[] = {
	{ "good", "loc:0:6 \"hello\" 00" },
	{ "empty", "loc:0:1 00" },
	{ "len0", "loc:0:0" },
	{ "nonul", "loc:0:5 \"hello\"" },
	{ "oob", "loc:0:10 \"hello\" 00" },
	{ "skip", "loc:2:4 \"xx\" \"abc\" 00" },
	{ "offset-past", "loc:0x100:1 00" },
	{ "as-data-loc", "loc:12:6 \"hello\" 00" },
	{ NULL, NULL },
};

static const struct pay_case pay_dlu8[] = {
	{ "three", "loc:12:3 0a 0b 0c" },
	{ "empty", "loc:12:0" },
	{ "oob", "loc:12:4 0a" },
	{ "no-nul-needed", "loc:12:2 ff ff" },
	{ "into-loc", "loc:8:4" },
	{ NULL, NULL },
};

static const struct pay_case pay_dluc[] = {
	{ "good", "loc:12:4 \"abc\" 00" },
	{ "nonul", "loc:12:3 \"abc\"" },
	{ NULL, NULL },
};

static const struct pay_case pay_rlu8[] = {
	{ "three", "loc:0:3 0a 0b 0c" },
	{ "skip", "loc:1:2 ff 01 02" },
	{ "empty", "loc:0:0" },
	{ "oob", "loc:0:2 01" },
	{ NULL, NULL },
};

static const struct pay_case pay_dlu32[] = {
	{ "two", "loc:12:8 u32:1 u32:0xdeadbeef" },
	{ "odd-len", "loc:12:3 01 02 03" },
	{ NULL, NULL },
};

static const struct pay_case pay_struct[] = {
	{ "vals", "\"Z\" u16:0xfffe 01 02 03 u32:0x80000001 u64:0xfedcba9876543210 z20" },
	{ "nonprint", "ff u16:1 z3 u32:1 u64:1 z20" },
	{ NULL, NULL },
};

static const struct pay_case pay_readme[] = {
	{ "example", "u32:0xdeadbeef fb \"abc\" 00 loc:19:6 u64:1234567890123 \"Z\" loc:46:3 z6 "
		     "\"hello\" 00 0a 0b 0c" },
	{ NULL, NULL },
};

static const struct pay_case pay_nofield[] = {
	{ "empty", "" },
	{ "extra", "01 02 03" },
	{ NULL, NULL },
};

static const struct pay_case pay_min[] = {
	{ "short0", "" },
	{ "short7", "z7" },
	{ "exact", "u32:1 u32:2" },
	{ "long", "u32:1 u32:2 u32:3" },
	{ NULL, NULL },
};

static const struct pay_case pay_multi[] = {
	{ "v", "u32:42" },
	{ NULL, NULL },
};

static const struct pay_case pay_c4[] = {
	{ "abc", "\"abc\" 00" },
	{ "abcd", "\"abcd\"" },
	{ "a-nul-bc", "\"a\" 00 \"bc\"" },
	{ NULL, NULL },
};

static const struct pay_group pay_groups[] = {
	{ "pay.ints",
	  "cfw_ints s8 a;u8 b;s16 c;u16 d;s32 e;u32 f;s64 g;u64 h;int i;unsigned int j;short k;"
	  "unsigned short l;char m;unsigned char n", 0, pay_ints },
	{ "pay.char", "cfw_char char c", 0, pay_char },
	{ "pay.uchar", "cfw_uchar unsigned char c", 0, pay_char },
	{ "pay.c4", "cfw_c4 char[4] s", 0, pay_c4 },
	{ "pay.sstr", "cfw_sstr char[4] a;unsigned char[3] b;char[1] c", 0, pay_sstr },
	{ "pay.dloc", "cfw_dloc __data_loc char[] s", 0, pay_dloc },
	{ "pay.dloc2", "cfw_dloc2 __data_loc char[] a;u32 n;__data_loc char[] b", 0, pay_dloc2 },
	{ "pay.rloc", "cfw_rloc __rel_loc char[] s", 0, pay_rloc },
	{ "pay.dlu8", "cfw_dlu8 __data_loc u8[] arr", 0, pay_dlu8 },
	{ "pay.dluc", "cfw_dluc __data_loc unsigned char[] s", 0, pay_dluc },
	{ "pay.rlu8", "cfw_rlu8 __rel_loc u8[] arr", 0, pay_rlu8 },
	{ "pay.dlu32", "cfw_dlu32 __data_loc u32[] arr", 0, pay_dlu32 },
	{ "pay.dlint", "cfw_dlint __data_loc int v", 0, pay_dlu8 },
	{ "pay.struct",
	  "cfw_struct struct s1 a 1;struct s2 b 2;struct s3 c 3;struct s4 d 4;struct s8 e 8;"
	  "struct s20 f 20", 0, pay_struct },
	{ "pay.readme",
	  "cfw_readme u32 a;s8 b;char[4] c;__rel_loc char[] s;u64 d;unsigned char e;"
	  "__data_loc u8[] arr;struct foo st 6", 0, pay_readme },
	{ "pay.nofield", "cfw_nofield", 0, pay_nofield },
	{ "pay.min", "cfw_min u32 a;u32 b", 0, pay_min },
	{ "pay.multi", "cfw_multi u32 a", USER_EVENT_REG_MULTI_FORMAT, pay_multi },
};

/* The event directory of the event registered last with @name_args. */
static void tp_of(const char *name_args, uint16_t flags, char *system, char *tp_name, size_t len)
{
	char name[600];

	name_of(name_args, name, sizeof(name));
	strcpy(system, "user_events");
	snprintf(tp_name, len, "%s", name);
	if (flags & USER_EVENT_REG_MULTI_FORMAT) {
		char **names;
		int n = list_dir("events/user_events_multi", &names);
		size_t nl = strlen(name);

		strcpy(system, "user_events_multi");
		for (int i = 0; i < n; i++)
			if (!strncmp(names[i], name, nl) && names[i][nl] == '.')
				snprintf(tp_name, len, "%s", names[i]);
		if (n > 0)
			free_list(names, n);
	}
}

static void run_pay_group(const struct pay_group *g)
{
	char system[64], tp_name[600], id[128];
	struct ctx c;
	uint32_t idx;

	ctx_open(&c);
	if (ctx_reg(&c, g->id, g->name_args, g->flags, &idx, NULL)) {
		ctx_close(&c);
		return;
	}
	show_registered(g->id, g->name_args, g->flags);
	tp_of(g->name_args, g->flags, system, tp_name, sizeof(tp_name));
	enable_event(system, tp_name, "1");
	for (const struct pay_case *pc = g->cases; pc->id; pc++) {
		snprintf(id, sizeof(id), "%s/%s", g->id, pc->id);
		do_write(id, c.fd, (int32_t)idx, pc->spec,
			 strstr(pc->id, ".write") ? HOW_WRITE : HOW_WRITEV);
	}
	enable_event(system, tp_name, "0");
	ctx_close(&c);
}

/* Every byte value through a one-byte field: 4 events of 64 u8 fields. */
static void run_ctype(void)
{
	for (int ev = 0; ev < 4; ev++) {
		char name_args[512], id[64], spec[64 * 3 + 1], tp[32];
		struct ctx c;
		uint32_t idx;
		size_t n;

		snprintf(tp, sizeof(tp), "cfw_ctype%d", ev);
		n = (size_t)snprintf(name_args, sizeof(name_args), "%s", tp);
		for (int i = 0; i < 64; i++)
			n += (size_t)snprintf(name_args + n, sizeof(name_args) - n, "%su8 c%02x",
					      i ? ";" : " ", ev * 64 + i);
		for (int i = 0; i < 64; i++)
			snprintf(spec + 3 * i, 4, "%02x ", ev * 64 + i);
		snprintf(id, sizeof(id), "pay.ctype%d", ev);
		ctx_open(&c);
		if (!ctx_reg(&c, id, name_args, 0, &idx, NULL)) {
			show_registered(id, name_args, 0);
			enable_event("user_events", tp, "1");
			snprintf(id, sizeof(id), "pay.ctype%d/all", ev);
			do_write(id, c.fd, (int32_t)idx, spec, HOW_WRITEV);
			enable_event("user_events", tp, "0");
		}
		ctx_close(&c);
	}
}

/* The same records shown with options/fields off and on. */
static void run_fields_option(void)
{
	struct ctx c;
	uint32_t idx;

	ctx_open(&c);
	if (!ctx_reg(&c, "pay.fields", "cfw_fields u32 a;char[4] s;__data_loc char[] d", 0, &idx,
		     NULL)) {
		show_registered("pay.fields", "cfw_fields u32 a;char[4] s;__data_loc char[] d", 0);
		enable_event("user_events", "cfw_fields", "1");
		show_value("pay.fields/off", "options/fields");
		do_write("pay.fields/off", c.fd, (int32_t)idx, "u32:5 \"abc\" 00 loc:20:3 \"hi\" 00",
			 HOW_WRITEV);
		fwrite_show("pay.fields/set", "options/fields", "1", O_WRONLY);
		show_value("pay.fields/on", "options/fields");
		do_write("pay.fields/on", c.fd, (int32_t)idx, "u32:5 \"abc\" 00 loc:20:3 \"hi\" 00",
			 HOW_WRITEV);
		show_value("pay.fields/on", "trace_options");
		fwrite_show("pay.fields/unset", "options/fields", "0", O_WRONLY);
		show_value("pay.fields/restored", "options/fields");
		enable_event("user_events", "cfw_fields", "0");
	}
	ctx_close(&c);
}

void sec_pay(void)
{
	begin("pay");
	for (size_t i = 0; i < ARRAY_SIZE(pay_groups); i++)
		run_pay_group(&pay_groups[i]);
	run_ctype();
	run_fields_option();
}

/* ---- section: wr (the write path: index, transport) --------------------------------- */

void sec_wr(void)
{
	struct ctx c;
	uint32_t idx;
	int fd2;

	begin("wr");
	ctx_open(&c);
	ctx_reg(&c, "wr.event", "cfx_wr u32 a", 0, &idx, NULL);
	ctx_reg(&c, "wr.event2", "cfx_wr2 u32 b", 0, NULL, NULL);
	do_write("wr.disabled", c.fd, (int32_t)idx, "u32:1", HOW_WRITEV);
	do_write("wr.disabled-bad-index", c.fd, 9, "u32:1", HOW_WRITEV);
	do_write("wr.disabled-short", c.fd, (int32_t)idx, "01", HOW_WRITEV);
	enable_event("user_events", "cfx_wr", "1");
	do_write("wr.enabled", c.fd, (int32_t)idx, "u32:1", HOW_WRITEV);
	do_write("wr.enabled.write", c.fd, (int32_t)idx, "u32:1", HOW_WRITE);
	show_file("wr.trace-file", "trace", vary_trace_file);
	clear_trace();
	show_file("wr.trace-empty", "trace", vary_trace_header);
	do_write("wr.index-2", c.fd, 2, "u32:1", HOW_WRITEV);
	do_write("wr.index-7", c.fd, 7, "u32:1", HOW_WRITEV);
	do_write("wr.index-max", c.fd, 0x7fffffff, "u32:1", HOW_WRITEV);
	do_write("wr.index-neg", c.fd, -1, "u32:1", HOW_WRITEV);
	do_write("wr.index-min", c.fd, INT32_MIN, "u32:1", HOW_WRITEV);
	do_write("wr.index-1-disabled-event", c.fd, 1, "u32:1", HOW_WRITEV);

	{
		/* Transport shapes of one and the same record. */
		uint32_t v = 0x11223344;
		unsigned char raw[8];
		struct iovec iov[8];
		ssize_t r;
		int32_t i32 = (int32_t)idx;

		memcpy(raw, &i32, 4);
		memcpy(raw + 4, &v, 4);

		clear_trace();
		r = write(c.fd, raw, 2);
		printf("write wr.short-index-2 %s => %s\n", "-", res(r < 0 ? -errno : r));
		show_trace_lines("wr.short-index-2");

		clear_trace();
		r = write(c.fd, raw, 0);
		printf("write wr.zero-length %s => %s\n", "-", res(r < 0 ? -errno : r));
		show_trace_lines("wr.zero-length");

		clear_trace();
		r = write(c.fd, raw, 4);
		printf("write wr.index-only %s => %s\n", "-", res(r < 0 ? -errno : r));
		show_trace_lines("wr.index-only");

		clear_trace();
		iov[0] = (struct iovec){ raw, 2 };
		iov[1] = (struct iovec){ raw + 2, 6 };
		r = writev(c.fd, iov, 2);
		printf("write wr.split-index 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.split-index");

		clear_trace();
		for (int i = 0; i < 8; i++)
			iov[i] = (struct iovec){ raw + i, 1 };
		r = writev(c.fd, iov, 8);
		printf("write wr.byte-iovs 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.byte-iovs");

		clear_trace();
		iov[0] = (struct iovec){ raw, 4 };
		iov[1] = (struct iovec){ NULL, 0 };
		iov[2] = (struct iovec){ raw + 4, 4 };
		r = writev(c.fd, iov, 3);
		printf("write wr.empty-iov 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.empty-iov");

		clear_trace();
		iov[0] = (struct iovec){ raw, 4 };
		iov[1] = (struct iovec){ unmapped_page(), 4 };
		r = writev(c.fd, iov, 2);
		printf("write wr.unmapped-payload - => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.unmapped-payload");

		clear_trace();
		r = pwrite(c.fd, raw, 8, 0);
		printf("write wr.pwrite-0 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.pwrite-0");

		clear_trace();
		r = pwrite(c.fd, raw, 8, 1);
		printf("write wr.pwrite-1 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.pwrite-1");

		clear_trace();
		iov[0] = (struct iovec){ raw, 8 };
		r = pwritev(c.fd, iov, 1, 4);
		printf("write wr.pwritev-4 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.pwritev-4");

		printf("lseek wr.lseek => %s\n",
		       res(lseek(c.fd, 10, SEEK_SET) < 0 ? -errno : 0));
		clear_trace();
		r = write(c.fd, raw, 8);
		printf("write wr.after-lseek 44332211 => %s\n", res(r < 0 ? -errno : r));
		show_trace_lines("wr.after-lseek");
	}

	{
		/*
		 * Payload sizes: the kernel records up to 4064 bytes and takes a
		 * longer write without recording it.  usereventsd records up to
		 * 65504 (docs/compat.md, "record size": wr.size-4065 and
		 * wr.size-65504 differ on purpose) and answers as the kernel beyond.
		 */
		static const size_t sizes[] = { 4064, 4065, 65504, 65505, 131072, 1 << 20 };
		static unsigned char payload[4 + (1 << 20)];
		int32_t i32 = (int32_t)idx;
		uint32_t v = 0x55;
		ssize_t r;

		memcpy(payload, &i32, 4);
		memcpy(payload + 4, &v, 4);
		for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
			struct iovec iov[2] = { { payload, 4 }, { payload + 4, sizes[k] } };
			char id[32];

			snprintf(id, sizeof(id), "wr.size-%zu", sizes[k]);
			clear_trace();
			r = writev(c.fd, iov, 2);
			printf("write %s 55000000... => %s\n", id, res(r < 0 ? -errno : r));
			show_trace_lines(id);
		}
	}

	/* write_index belongs to the file it was returned on. */
	fd2 = open_data();
	do_write("wr.other-file", fd2, (int32_t)idx, "u32:1", HOW_WRITEV);
	close(fd2);

	/* tracing_on 0: the event stays enabled, the write succeeds, nothing is recorded. */
	fwrite_show("wr.tracing-off", "tracing_on", "0", O_WRONLY);
	do_write("wr.tracing-off", c.fd, (int32_t)idx, "u32:2", HOW_WRITEV);
	fwrite_show("wr.tracing-on", "tracing_on", "1", O_WRONLY);
	do_write("wr.tracing-on", c.fd, (int32_t)idx, "u32:3", HOW_WRITEV);

	enable_event("user_events", "cfx_wr", "0");
	do_write("wr.disabled-again", c.fd, (int32_t)idx, "u32:1", HOW_WRITEV);
	{
		/* Disabled, a write of any size is EBADF. */
		static unsigned char payload[4 + 65505];
		int32_t i32 = (int32_t)idx;
		ssize_t r;

		memcpy(payload, &i32, 4);
		r = write(c.fd, payload, sizeof(payload));
		printf("write wr.disabled-size-65505 - => %s\n", res(r < 0 ? -errno : r));
	}
	ctx_close(&c);
}

/* ---- section: dyn (dynamic_events) ------------------------------------------------------ */

static void dyn(const char *id, const char *line)
{
	ssize_t r = put_file("dynamic_events", line, O_WRONLY | O_APPEND);

	printf("dyn %s ", id);
	put_quoted(line);
	printf(" => %s\n", res(r));
}

void sec_dyn(void)
{
	static const char *const left[] = {
		"cfy_a", "cfy_b", "cfy_c", "cfy_d", "cfy_e", "cfy_h", "cfy_t", "cfy_s", "cfy_st",
		"cfy_m1", "cfy_m2", "cfy_m3", "cfy_m5", "cfy_busy", "cfy_long", "",
	};
	static char longline[5000];
	struct ctx c;
	size_t n;

	begin("dyn");
	dyn("dyn.create.a", "u:cfy_a u32 a");
	show_file("dyn.create.a", "dynamic_events", NULL);
	show_file("dyn.create.a", "user_events_status", NULL);
	show_event_texts("dyn.create.a", "cfy_a u32 a", "user_events", "cfy_a");
	dyn("dyn.create.a-again", "u:cfy_a u32 a");
	dyn("dyn.create.a-semi", "u:cfy_a u32 a;");
	dyn("dynreg.a-other-fields", "u:cfy_a u64 a");
	dyn("dyn.create.space-after-prefix", "u: cfy_b u32 a");
	dyn("dyn.create.nofields", "u:cfy_c");
	dyn("dyn.create.newline", "u:cfy_d u32 a; u32 b\n");
	dyn("dyn.create.comment", "u:cfy_e u32 a # a comment");
	dyn("dyn.create.flag", "u:cfy_f:flag u32 a");
	dyn("dyn.create.bad-type", "u:cfy_g long a");
	dyn("dyn.create.dspace", "u:cfy_h u32  a");
	dyn("dyn.create.tab-after-prefix", "u:\tcfy_t u32 a");
	dyn("dyn.create.empty-name", "u:");
	dyn("dyn.create.semi-nospace", "u:cfy_s u32 a;u32 b");
	dyn("dyn.create.struct", "u:cfy_st struct foo x 12;char[2] c");
	show_file("dyn.created", "dynamic_events", NULL);
	show_file("dyn.created", "user_events_status", NULL);

	dyn("dyn.delete.no-fields-given", "-:cfy_a");
	dyn("dyn.delete.fields", "-:cfy_a u32 a");
	dyn("dyn.delete.again", "-:cfy_a u32 a");
	dyn("dyn.delete.system", "-:user_events/cfy_b u32 a");
	dyn("dyn.delete.multi-system", "-:user_events_multi/cfy_d u32 a; u32 b");
	dyn("dyn.delete.wrong-system", "-:other/cfy_d u32 a; u32 b");
	dyn("dyn.delete.semi-nospace-d", "-:cfy_d u32 a;u32 b");
	dyn("dyn.delete.u-prefix", "-:u:cfy_c");
	dyn("dyn.delete.bang", "!u:cfy_c");
	dyn("dyn.delete.bang-no-colon", "!cfy_e");
	dyn("dyn.delete.dash-no-colon", "-cfy_e");
	dyn("dyn.delete.empty", "-:");
	dyn("dyn.delete.system-only", "-:user_events/");
	dyn("dyn.delete.bang-system", "!u:user_events/cfy_e u32 a");
	dyn("dyn.delete.system-of-nofields", "-:user_events/cfy_e");
	dyn("dyn.delete.wildcard", "-:cfy_*");
	dyn("dyn.delete.space", "-: cfy_h u32 a");
	dyn("dyn.delete.semi-nospace", "-:cfy_s u32 a;u32 b");
	dyn("dyn.delete.semi-space", "-:cfy_s u32 a; u32 b");
	dyn("dyn.delete.struct-no-size", "-:cfy_st struct foo x; char[2] c");
	dyn("dyn.delete.struct", "-:cfy_st struct foo x 12; char[2] c");
	show_file("dyn.deleted", "dynamic_events", NULL);

	/* Lines that are not user_events lines, or not lines. */
	dyn("dyn.other.kprobe", "p:cfy_kp cfy_no_such_symbol");
	dyn("dyn.other.unknown-type", "z:cfy_z u32 a");
	dyn("dyn.other.no-prefix", "cfy_np u32 a");
	dyn("dyn.other.U", "U:cfy_U u32 a");
	dyn("dyn.empty.line", "\n");
	dyn("dyn.empty.nothing", "");
	dyn("dyn.empty.comment", "# just a comment\n");
	dyn("dyn.empty.spaces", "   ");

	/* Several lines in one write, a failing line in the middle. */
	dyn("dynmulti.two", "u:cfy_m1 u32 a\nu:cfy_m2 u32 b\n");
	dyn("dynmulti.bad-second", "u:cfy_m3 u32 a\nu:cfy_m4 long b\nu:cfy_m5 u32 c\n");
	show_file("dynmulti", "dynamic_events", NULL);

	/* Longer than MAX_EVENT_DESC: dynamic_events has no such limit. */
	n = (size_t)snprintf(longline, sizeof(longline), "u:cfy_long");
	for (int i = 0; i < 80; i++)
		n += (size_t)snprintf(longline + n, sizeof(longline) - n, "%su32 field_%02d",
				      i ? ";" : " ", i);
	dyn("dyn.create.long", longline);
	printf("~len dyn.create.long %zu\n", n);
	show_format("dyn.create.long", longline + 2, "user_events", "cfy_long");
	/* One line longer than the write buffer. */
	n = (size_t)snprintf(longline, sizeof(longline), "u:cfy_huge u32 ");
	while (n < 4200)
		longline[n++] = 'h';
	longline[n] = '\0';
	dyn("dynwrite.over-4k", longline);

	/* A dynamic event is busy while a file holds it. */
	dyn("dyn.create.busy", "u:cfy_busy u32 a");
	ctx_open(&c);
	ctx_reg(&c, "dyn.busy.reg", "cfy_busy u32 a", 0, NULL, NULL);
	dyn("dynreg.delete-busy", "-:cfy_busy u32 a");
	{
		int fd = open(tpath("dynamic_events"), O_WRONLY | O_TRUNC | O_CLOEXEC);

		printf("trunc dyn.truncate.busy => %s\n", res(fd < 0 ? -errno : 0));
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; i < c.nen; i++)
		unreg(c.en[i].fd, c.en[i].addr, c.en[i].bit);
	close(c.fd);
	usleep(50000);
	show_file("dyn.before-truncate", "dynamic_events", NULL);
	{
		int fd = open(tpath("dynamic_events"), O_WRONLY | O_TRUNC | O_CLOEXEC);

		printf("trunc dyn.truncate => %s\n", res(fd < 0 ? -errno : 0));
		if (fd >= 0)
			close(fd);
	}
	show_file("dyn.after-truncate", "dynamic_events", NULL);
	show_file("dyn.after-truncate", "user_events_status", NULL);
	/* leftovers, should there be any */
	for (size_t i = 0; i < ARRAY_SIZE(left); i++)
		wait_gone(left[i]);
}

/* ---- section: status (several events at once) -------------------------------------------- */

void sec_status(void)
{
	static const char *const names[] = {
		"cfs_alpha u32 a", "cfs_beta", "cfs_gamma u8 g", "cfs_delta u64 d", "cfs_epsilon s8 e",
		"cfs_zeta char[2] z", "a", "b", "zz_last u32 a",
	};
	struct ctx c;

	begin("status");
	ctx_open(&c);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char id[64];

		snprintf(id, sizeof(id), "status.%zu", i);
		ctx_reg(&c, id, names[i], 0, NULL, NULL);
	}
	enable_event("user_events", "cfs_gamma", "1");
	enable_event("user_events", "b", "1");
	show_file("status.several", "user_events_status", NULL);
	show_file("status.several", "dynamic_events", NULL);
	show_available("status.several");
	show_file("status.several", "set_event", NULL);
	show_dir("status.several", "events/user_events");
	show_dir("status.several", "events/user_events/cfs_alpha");
	show_file("status.several", "events/user_events/cfs_alpha/filter", NULL);
	show_file("status.several", "events/user_events/cfs_alpha/trigger", NULL);
	show_file("status.several", "events/user_events/filter", NULL);
	enable_event("user_events", "cfs_gamma", "0");
	enable_event("user_events", "b", "0");
	ctx_close(&c);
	show_file("status.empty-again", "user_events_status", NULL);
}
