// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Interop with Debian's libtraceevent (suite 'interop'): events of every
 * field type and form usereventsd accepts, registered and written in a
 * private mount namespace.  libtraceevent parses header_page and every
 * format file we serve without a warning, reads our trace_pipe_raw pages
 * with kbuffer and prints each record as its print fmt says; our `trace`
 * prints it as the kernel's fields printer does (enum rule: how the two
 * differ).  With UE_TEP_TRACEFS=DIR it runs on a kernel's tracefs instead.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/event-utils.h>
#include <traceevent/kbuffer.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

/* struct trace_entry, before every payload: a __data_loc offset counts it. */
#define ENTRY_HDR_SIZE 8

/* How an event is created. */
enum reg_how {
	REG_IOCTL,	/* DIAG_IOCSREG */
	REG_PERSIST,	/* DIAG_IOCSREG with USER_EVENT_REG_PERSIST */
	REG_MULTI,	/* DIAG_IOCSREG with USER_EVENT_REG_MULTI_FORMAT */
	REG_DYNAMIC,	/* "u:" line of dynamic_events, then DIAG_IOCSREG to write */
};

static const struct ev_def {
	const char *name_args;
	enum reg_how how;
} events[] = {
	[0] = { "tep_ints s8 a; u8 b; char c; unsigned char d; s16 e; u16 f; short g; "
		"unsigned short h; s32 i; u32 j; int k; unsigned int l; s64 m; u64 n", REG_IOCTL },
	[1] = { "tep_strs char[16] fixed; unsigned char[0x8] ufixed; __data_loc char[] dyn; "
		"__rel_loc char[] rel; __data_loc unsigned char[] udyn; "
		"__rel_loc unsigned char[] urel", REG_IOCTL },
	[2] = { "tep_arrays __data_loc u8[] bytes; __rel_loc u8[] rbytes; "
		"__data_loc s32[] words; __rel_loc u64[] qwords; __data_loc cpumask_t mask",
		REG_IOCTL },
	[3] = { "tep_structs struct s1 a 1; struct s2 b 2; struct s4 c 4; struct s8 d 8; "
		"struct s3 e 3; struct s16 f 16; struct char[3] g 5; u8 end", REG_IOCTL },
	[4] = { "tep_empty", REG_IOCTL },
	[5] = { "tep_dyn u32 x; char[010] s; __rel_loc char[] r", REG_DYNAMIC },
	[6] = { "tep_persist u64 v; __data_loc char[] msg", REG_PERSIST },
	[7] = { "tep_multi u32 v; __rel_loc char[] s", REG_MULTI },
	[8] = { "tep_unaligned char[3] pad; u32 x; char[1] one; u64 y; s16 z", REG_IOCTL },
	/* Types the kernel accepts and prints by substrings of their text. */
	[9] = { "tep_odd struct __data_loc_x q 4; __data_loc char s0; __rel_loc u16 r0; "
		"struct char[4] sc 4; struct x REC 4; struct __rel_loc_y w 4", REG_IOCTL },
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

/* One field's value in a record: written in declaration order. */
enum item_kind { I_NONE, I_INT, I_FIXED, I_DLOC, I_RLOC };
struct item {
	enum item_kind kind;
	uint32_t size;		/* bytes in the fixed part */
	uint64_t v;		/* I_INT */
	const char *bytes;	/* I_FIXED (zero padded), I_DLOC/I_RLOC (the data) */
	uint32_t len;
};
#define INT(sz, val) { I_INT, sz, (uint64_t)(val), NULL, 0 }
#define FIX(sz, s) { I_FIXED, sz, 0, s, sizeof(s) - 1 }
/* A dynamic string with its NUL, and a dynamic array of bytes without one. */
#define DSTR(s) { I_DLOC, 4, 0, s, sizeof(s) }
#define RSTR(s) { I_RLOC, 4, 0, s, sizeof(s) }
#define DARR(s) { I_DLOC, 4, 0, s, sizeof(s) - 1 }
#define RARR(s) { I_RLOC, 4, 0, s, sizeof(s) - 1 }

#define S10 "0123456789"
#define S100 S10 S10 S10 S10 S10 S10 S10 S10 S10 S10
#define S1000 S100 S100 S100 S100 S100 S100 S100 S100 S100 S100

static const struct rec_def {
	unsigned int ev;
	struct item items[16];
} records[] = {
	{ 0, { INT(1, 0), INT(1, 0), INT(1, 0), INT(1, 0), INT(2, 0), INT(2, 0), INT(2, 0),
	       INT(2, 0), INT(4, 0), INT(4, 0), INT(4, 0), INT(4, 0), INT(8, 0), INT(8, 0) } },
	{ 0, { INT(1, 127), INT(1, 255), INT(1, 'A'), INT(1, 0xff), INT(2, 32767),
	       INT(2, 65535), INT(2, 0x8000), INT(2, 0xffff), INT(4, INT32_MAX),
	       INT(4, UINT32_MAX), INT(4, (uint32_t)INT32_MIN), INT(4, 0x80000000u),
	       INT(8, INT64_MIN), INT(8, UINT64_MAX) } },
	{ 0, { INT(1, 0xff), INT(1, 0x80), INT(1, 0x80), INT(1, 7), INT(2, 0xffff),
	       INT(2, 0x7fff), INT(2, 0xfffe), INT(2, 1), INT(4, UINT32_MAX), INT(4, 0x7fffffff),
	       INT(4, (uint32_t)-5), INT(4, 31), INT(8, (uint64_t)-1), INT(8, INT64_MAX) } },
	{ 0, { INT(1, ' '), INT(1, '~'), INT(1, 0x7f), INT(1, 0xa0), INT(2, 0x1234),
	       INT(2, 0x10), INT(2, 10), INT(2, 0xabcd), INT(4, 0xdeadbeef), INT(4, 0xdeadbeef),
	       INT(4, 42), INT(4, 0xffff), INT(8, 0x123456789abcdefULL), INT(8, 1) } },
	{ 1, { FIX(16, ""), FIX(8, ""), DSTR(""), RSTR(""), DSTR(""), RSTR("") } },
	{ 1, { FIX(16, "hello"), FIX(8, "u8"), DSTR("dynamic"), RSTR("relative"),
	       DSTR("unsigned"), RSTR("urel") } },
	{ 1, { FIX(16, "exactly16chars!!"), FIX(8, "8bytes!!"), DSTR(S1000 S1000),
	       RSTR(S1000), DSTR("a b=c"), RSTR("tab\there") } },
	{ 1, { FIX(16, "caf\xc3\xa9"), FIX(8, "\xe9t\xe9"), DSTR("\xff\x01"),
	       RSTR("%s %d"), DSTR("x\0after a NUL"), RSTR("") } },
	{ 2, { DARR(""), RARR(""), DARR(""), RARR(""), DARR("") } },
	{ 2, { DARR("\x0a\x0b\x0c"), RARR("\xff"), DARR("\x01\x00\x00\x00\xff\xff\xff\xff"),
	       RARR("\x01\x02\x03\x04\x05\x06\x07\x08"), DARR("\x0f\x00\x00\x00") } },
	{ 3, { INT(1, 0x41), INT(2, 0xfffe), INT(4, 0xffffffff), INT(8, 0x8000000000000000ULL),
	       FIX(3, "abc"), FIX(16, S10 "abcdef"), FIX(5, "str"), INT(1, 9) } },
	{ 3, { INT(1, 0), INT(2, 0), INT(4, 0), INT(8, 0), FIX(3, ""), FIX(16, ""),
	       FIX(5, "full!"), INT(1, 0) } },
	{ 4, { { I_NONE } } },
	{ 5, { INT(4, 0xcafe), FIX(8, "octal8"), RSTR("from dynamic_events") } },
	{ 5, { INT(4, UINT32_MAX), FIX(8, "12345678"), RSTR("") } },
	{ 6, { INT(8, 1), DSTR("persistent") } },
	{ 7, { INT(4, 7), RSTR("multi-format") } },
	{ 8, { FIX(3, "ab"), INT(4, 0x01020304), FIX(1, "z"), INT(8, 0x0102030405060708ULL),
	       INT(2, 0x8001) } },
	{ 8, { FIX(3, "abc"), INT(4, 0), FIX(1, ""), INT(8, 0), INT(2, 0) } },
	/* q: 2 bytes at 36 (r0's data), w: 4 bytes from its end (s0's data). */
	{ 9, { INT(4, 2 << 16 | 36), DSTR("str"), RARR("\x01\x02"), FIX(4, "abc"),
	       INT(4, 0x12345678), INT(4, 4 << 16) } },
	/* q: past the record's end; w: a negative length. */
	{ 9, { INT(4, 0x7fff0008), DSTR(""), RARR(""), FIX(4, "full"), INT(4, UINT32_MAX),
	       INT(4, 0xffff0000u) } },
};
#define NRECORDS (sizeof(records) / sizeof(records[0]))

/* Everything libtraceevent logs (its warnings), one message a line. */
static char tep_log[1 << 16];
static size_t tep_log_len;

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt,
	       va_list ap)
{
	int ret = errno;
	char msg[1024];
	int n;

	(void)print_err;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = snprintf(tep_log + tep_log_len, sizeof(tep_log) - tep_log_len, "%s (level %d): %s\n",
		     name, (int)level, msg);
	/* A message that does not fit is left out whole. */
	if (n > 0 && (size_t)n < sizeof(tep_log) - tep_log_len)
		tep_log_len += (size_t)n;
	else
		tep_log[tep_log_len] = '\0';
	return ret;
}

/* What libtraceevent logged since the last call, as TAP comments: the number of messages. */
static int flush_tep_log(void)
{
	int n = 0;

	for (char *line = tep_log, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		printf("# %s\n", line);
		n++;
	}
	tep_log_len = 0;
	tep_log[0] = '\0';
	return n;
}

static struct tep_handle *tep;
static int data_fd = -1;
static uint32_t write_index[NEVENTS];
static uint32_t enable_word[NEVENTS];
/* The name an event has in trace and its format file (NAME.<id> when multi-format). */
static char tp_name[NEVENTS][256];
/* Whether libtraceevent knows the event (see multi_format_parses). */
static bool tep_knows[NEVENTS];

/* Closed before the daemon is unmounted at exit: an open file keeps the mount busy. */
static void close_data_fd(void)
{
	if (data_fd >= 0)
		close(data_fd);
	data_fd = -1;
}

/*
 * usereventsd ($USEREVENTSD) on a new directory of a private mount namespace,
 * or SKIP without root or /dev/fuse.  With $UE_TEP_TRACEFS set, that tracefs
 * instead (mnt): the same checks then run on the reference kernel.
 */
__attribute__((constructor)) static void setup(void)
{
	const char *tracefs = getenv("UE_TEP_TRACEFS");

	setvbuf(stdout, NULL, _IOLBF, 0);
	tep_set_loglevel(TEP_LOG_ALL);
	if (tracefs) {
		snprintf(mnt, sizeof(mnt), "%s", tracefs);
		return;
	}
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (a mount namespace)\n");
		exit(0);
	}
	daemon_setup(NULL);
	atexit(close_data_fd);
}

static int reg(unsigned int ev)
{
	unsigned int flags = events[ev].how == REG_PERSIST ? USER_EVENT_REG_PERSIST :
			     events[ev].how == REG_MULTI ? USER_EVENT_REG_MULTI_FORMAT : 0;

	return reg_full(data_fd, events[ev].name_args, &enable_word[ev], sizeof(enable_word[ev]),
			0, flags, &write_index[ev]);
}

/* The first record of event @ev: its items give the field layout. */
static const struct rec_def *first_record(unsigned int ev)
{
	for (size_t i = 0; i < NRECORDS; i++)
		if (records[i].ev == ev)
			return &records[i];
	return NULL;
}

/*
 * The name of field @i in @name_args: the last word of its part, or the one
 * before the size of a "struct NAME field SIZE".  Return: 0, or -1 if none.
 */
static int field_name(const char *name_args, unsigned int i, char *out, size_t len)
{
	const char *p = strchr(name_args, ' ');
	char part[256], *words[8], *save = NULL, *w;
	unsigned int n = 0;
	size_t plen;

	for (; p && i; i--)
		p = strchr(p + 1, ';');
	if (!p)
		return -1;
	plen = strcspn(p + 1, ";");
	snprintf(part, sizeof(part), "%.*s", (int)plen, p + 1);
	for (w = strtok_r(part, " ", &save); w && n < 8; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	if (n < 2)
		return -1;
	snprintf(out, len, "%s", strcmp(words[0], "struct") ? words[n - 1] : words[n - 2]);
	return 0;
}

TEST(header_page)
{
	char *text = read_rel_alloc("events/header_page");

	ASSERT_TRUE(text);
	tep = tep_alloc();
	ASSERT_TRUE(tep);
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, (int)sysconf(_SC_PAGESIZE));
	ASSERT_EQ(tep_parse_header_page(tep, text, strlen(text), sizeof(long)), 0);
	free(text);
	/* tep_parse_header_page() is silent about a field it could not read: check what it got. */
	EXPECT_EQ(tep_get_header_timestamp_size(tep), 8);
	EXPECT_EQ(tep_get_header_page_size(tep), sizeof(long));
	EXPECT_EQ(flush_tep_log(), 0);
}

TEST(register_every_form)
{
	char line[600];

	data_fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	ASSERT_GE(data_fd, 0);
	for (unsigned int ev = 0; ev < NEVENTS; ev++) {
		printf("# %s%s\n", events[ev].name_args,
		       events[ev].how == REG_DYNAMIC ? " (dynamic_events)" :
		       events[ev].how == REG_PERSIST ? " (persist)" :
		       events[ev].how == REG_MULTI ? " (multi-format)" : "");
		if (events[ev].how == REG_DYNAMIC) {
			snprintf(line, sizeof(line), "u:%s\n", events[ev].name_args);
			ASSERT_EQ(write_rel("dynamic_events", line), (ssize_t)strlen(line));
		}
		ASSERT_EQ(reg(ev), 0);
		snprintf(tp_name[ev], sizeof(tp_name[ev]), "%.*s",
			 (int)strcspn(events[ev].name_args, " "), events[ev].name_args);
	}
}

/* Parses events/@rel/format as event of @system: tep_parse_event()'s result. */
static enum tep_errno parse_format(const char *system, const char *rel)
{
	char path[512], msg[256];
	enum tep_errno err;
	char *text;

	snprintf(path, sizeof(path), "events/%s/format", rel);
	text = read_rel_alloc(path);
	if (!text) {
		printf("# cannot read %s\n", path);
		return TEP_ERRNO__READ_FORMAT_FAILED;
	}
	err = tep_parse_event(tep, text, strlen(text), system);
	if (err) {
		tep_strerror(tep, err, msg, sizeof(msg));
		printf("# %s: %s\n", path, msg);
	}
	free(text);
	return err;
}

/* Parses every events/@system/ * /format: the number parsed, or -1 after a failure. */
static int parse_system(const char *system)
{
	char rel[512];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(rel, sizeof(rel), "events/%s", system);
	d = opendir(path(rel));
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", system, de->d_name);
		if (parse_format(system, rel))
			n = -1;
		else if (n >= 0)
			n++;
	}
	closedir(d);
	return n;
}

/*
 * libtraceevent sees the fields we registered: names in order, the offsets
 * and sizes of the test's own layout, __data_loc/__rel_loc as dynamic.
 */
static void check_layout(unsigned int ev, const char *system)
{
	const struct rec_def *r = first_record(ev);
	struct tep_event *event = tep_find_event_by_name(tep, system, tp_name[ev]);
	struct tep_format_field **fields;
	unsigned int i = 0;
	int off = ENTRY_HDR_SIZE;
	char name[64];

	ASSERT_TRUE(event && r);
	EXPECT_FALSE(event->flags & TEP_EVENT_FL_FAILED);
	fields = tep_event_fields(event);
	ASSERT_TRUE(fields || r->items[0].kind == I_NONE);
	for (; r->items[i].kind != I_NONE; i++) {
		const struct item *it = &r->items[i];
		const struct tep_format_field *f = fields[i];
		bool dyn = it->kind == I_DLOC || it->kind == I_RLOC;

		ASSERT_TRUE(f);
		ASSERT_EQ(field_name(events[ev].name_args, i, name, sizeof(name)), 0);
		EXPECT_STREQ(f->name, name);
		EXPECT_EQ(f->offset, off);
		EXPECT_EQ(f->size, it->size);
		EXPECT_EQ(!!(f->flags & TEP_FIELD_IS_DYNAMIC), dyn);
		EXPECT_EQ(!!(f->flags & TEP_FIELD_IS_RELATIVE), it->kind == I_RLOC);
		off += (int)it->size;
	}
	EXPECT_TRUE(!fields || !fields[i]);
	free(fields);
}

TEST(every_format_parses)
{
	unsigned int ncreated = 0;

	ASSERT_TRUE(tep);
	for (unsigned int ev = 0; ev < NEVENTS; ev++)
		ncreated += events[ev].how != REG_MULTI;
	ASSERT_EQ(parse_system("user_events"), ncreated);
	/* trace-cmd copies the ftrace system into a recording; print is what we serve of it. */
	ASSERT_EQ(parse_format("ftrace", "ftrace/print"), 0);
	EXPECT_EQ(flush_tep_log(), 0);
	for (unsigned int ev = 0; ev < NEVENTS; ev++) {
		if (events[ev].how == REG_MULTI)
			continue;
		printf("# layout of %s\n", tp_name[ev]);
		check_layout(ev, "user_events");
		tep_knows[ev] = true;
	}
}

/*
 * A multi-format event is NAME.<id> in user_events_multi, as in the kernel
 * ("name: cfmf.0" on the reference kernel).  libtraceevent (1.7.1, and
 * 1.8.4 still) reads an event name as one token, which ends at the '.':
 * it then fails to read "ID:", on the kernel's file as on ours.
 */
TEST(multi_format_parses)
{
	for (unsigned int ev = 0; ev < NEVENTS; ev++) {
		size_t n = strlen(tp_name[ev]);
		struct dirent *de;
		enum tep_errno err;
		char rel[512];
		int found = 0;
		DIR *d;

		if (events[ev].how != REG_MULTI)
			continue;
		d = opendir(path("events/" USER_EVENTS_MULTI_SYSTEM));
		ASSERT_TRUE(d);
		while ((de = readdir(d))) {
			if (!strncmp(de->d_name, tp_name[ev], n) && de->d_name[n] == '.' && !found++)
				snprintf(rel, sizeof(rel), "%s", de->d_name);
		}
		closedir(d);
		ASSERT_EQ(found, 1);
		snprintf(tp_name[ev], sizeof(tp_name[ev]), "%.200s", rel);
		snprintf(rel, sizeof(rel), USER_EVENTS_MULTI_SYSTEM "/%s", tp_name[ev]);
		err = parse_format(USER_EVENTS_MULTI_SYSTEM, rel);
		flush_tep_log();
		if (err == TEP_ERRNO__READ_ID_FAILED) {
			NOT_EXERCISED("libtraceevent cannot read an event name with a '.' "
				      "(the kernel's multi-format NAME.<id> too)");
			continue;
		}
		ASSERT_EQ(err, 0);
		check_layout(ev, USER_EVENTS_MULTI_SYSTEM);
		tep_knows[ev] = true;
	}
}

/* [u32 write_index][payload] of record @r into @buf: its length. */
static size_t build(const struct rec_def *r, uint8_t *buf, size_t cap)
{
	uint8_t *payload = buf + sizeof(uint32_t);
	size_t fixed = 0, off = 0, dyn;

	for (const struct item *it = r->items; it->kind != I_NONE; it++)
		fixed += it->size;
	dyn = fixed;
	memset(buf, 0, cap);
	memcpy(buf, &write_index[r->ev], sizeof(uint32_t));
	for (const struct item *it = r->items; it->kind != I_NONE; off += it->size, it++) {
		uint32_t loc;

		switch (it->kind) {
		case I_INT:
			/* Little-endian, the host's order: the first it->size bytes of v. */
			memcpy(payload + off, &it->v, it->size);
			break;
		case I_FIXED:
			memcpy(payload + off, it->bytes, it->len < it->size ? it->len : it->size);
			break;
		case I_DLOC:
		case I_RLOC:
			/* __data_loc counts from the record's start, __rel_loc from the field's end. */
			if (it->kind == I_DLOC)
				loc = (uint32_t)(ENTRY_HDR_SIZE + dyn);
			else
				loc = (uint32_t)(dyn - off - sizeof(loc));
			loc |= it->len << 16;
			memcpy(payload + off, &loc, sizeof(loc));
			memcpy(payload + dyn, it->bytes, it->len);
			dyn += it->len;
			break;
		case I_NONE:
			break;
		}
	}
	return sizeof(uint32_t) + dyn;
}

TEST(write_records)
{
	static uint8_t buf[4096];

	ASSERT_GE(data_fd, 0);
	ASSERT_EQ(write_rel("events/user_events/enable", "1"), 1);
	ASSERT_EQ(write_rel("events/" USER_EVENTS_MULTI_SYSTEM "/enable", "1"), 1);
	for (size_t i = 0; i < NRECORDS; i++) {
		size_t len = build(&records[i], buf, sizeof(buf));

		ASSERT_EQ(enable_word[records[i].ev] & 1, 1);
		ASSERT_EQ(write(data_fd, buf, len), (ssize_t)len);
	}
	ASSERT_EQ(write_rel("events/user_events/enable", "0"), 1);
	ASSERT_EQ(write_rel("events/" USER_EVENTS_MULTI_SYSTEM "/enable", "0"), 1);
}

/* A record as kbuffer read it from a trace_pipe_raw page. */
struct raw_rec {
	int cpu;
	size_t seq;		/* the order read, within a CPU the order written */
	unsigned long long ts;
	int size;
	uint8_t *data;
};

#define MAX_RAW (NRECORDS + 16)
static struct raw_rec raw[MAX_RAW];
static size_t nraw;

/* Reads one CPU's trace_pipe_raw until it has no page: 0, 1 when there is no such CPU, -1. */
static int read_cpu(struct kbuffer *kbuf, int cpu)
{
	static char page[4096];
	char rel[64];
	ssize_t n;
	int fd, ret = 0;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
	fd = open(path(rel), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 1 : -1;
	while (ret == 0 && (n = read(fd, page, sizeof(page))) > 0) {
		unsigned long long ts;
		void *data;

		if (kbuffer_load_subbuffer(kbuf, page) < 0) {
			ret = -1;
			break;
		}
		if (kbuffer_missed_events(kbuf))
			printf("# cpu%d: a page after missed events\n", cpu);
		while (ret == 0 && (data = kbuffer_read_event(kbuf, &ts))) {
			struct raw_rec *r = &raw[nraw];

			if (nraw == MAX_RAW) {
				ret = -1;
				break;
			}
			r->cpu = cpu;
			r->seq = nraw;
			r->ts = ts;
			r->size = kbuffer_event_size(kbuf);
			r->data = malloc((size_t)r->size);
			if (!r->data) {
				ret = -1;
				break;
			}
			memcpy(r->data, data, (size_t)r->size);
			nraw++;
			kbuffer_next_event(kbuf, NULL);
		}
	}
	if (ret == 0 && n < 0 && errno != EAGAIN)
		ret = -1;
	close(fd);
	return ret;
}

/* The order of trace: by time, the lower CPU first on a tie, then as written. */
static int by_time(const void *a, const void *b)
{
	const struct raw_rec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A trace line split up: "COMM-PID [CPU] FLAGS TS: NAME:INFO". */
struct line {
	char comm[32];
	int pid, cpu;
	char ts[32];
	const char *event;	/* "NAME:INFO" (ours), "NAME" (libtraceevent's) */
	const char *info;	/* libtraceevent's INFO */
};

static int split_ours(char *text, struct line *l)
{
	char *br = strstr(text, " ["), *p, *dash, *ts;

	if (!br)
		return -1;
	for (p = br; p > text && p[-1] == ' '; p--)
		;
	*p = '\0';
	dash = strrchr(text, '-');
	if (!dash)
		return -1;
	*dash = '\0';
	l->pid = atoi(dash + 1);
	for (p = text; *p == ' '; p++)
		;
	snprintf(l->comm, sizeof(l->comm), "%s", p);
	l->cpu = atoi(br + 2);
	/* "] FLAGS  TS: " (the flags column is there with the irq-info option, the default). */
	p = strchr(br, ']');
	if (!p || !(p = strchr(p + 2, ' ')))
		return -1;
	while (*p == ' ')
		p++;
	ts = p;
	p = strstr(ts, ": ");
	if (!p)
		return -1;
	snprintf(l->ts, sizeof(l->ts), "%.*s", (int)(p - ts), ts);
	l->event = p + 2;
	return 0;
}

/* libtraceevent's line: fields apart, joined by the unit separator. */
static int split_theirs(char *text, struct line *l)
{
	char *part[6], *save = NULL;
	int n = 0;

	for (char *p = text; n < 6; p = NULL) {
		part[n] = strtok_r(p, "\x1f", &save);
		if (!part[n])
			break;
		n++;
	}
	/* strtok_r() skips an empty INFO. */
	if (n == 5)
		part[n++] = (char *)"";
	if (n != 6)
		return -1;
	snprintf(l->comm, sizeof(l->comm), "%s", part[0]);
	l->pid = atoi(part[1]);
	l->cpu = atoi(part[2]);
	snprintf(l->ts, sizeof(l->ts), "%s", part[3] + strspn(part[3], " "));
	l->event = part[4];
	l->info = part[5];
	return 0;
}

/*
 * How a field's text in our trace (the kernel's fields printer,
 * print_fields() in trace_output.c) and in libtraceevent's line (the print
 * fmt, "a=%u", REC->a) relate.  trace-cmd prints what libtraceevent prints,
 * on the kernel as on usereventsd; our trace prints what the kernel's does.
 */
enum rule {
	R_STRING,		/* static and dynamic strings: the same text */
	R_INTEGER,		/* the same value: hex and signed int, or the print fmt's conversion */
	R_INVALID_SIZE,		/* <INVALID-SIZE>, libtraceevent 0 */
	R_DYN_ARRAY,		/* bytes, <OVERFLOW> or <INVALID-TYPE>; libtraceevent a number */
	R_STRING_AS_NUMBER,	/* the string, libtraceevent 0 */
	R_NO_FIELDS,		/* "NAME:No fields found", libtraceevent nothing */
	R_OTHER,
	NRULES
};

static const char *const rule_text[NRULES] = {
	[R_STRING] = "char[N], __data_loc/__rel_loc char[], struct char[N]: the same text",
	[R_INTEGER] = "integers: ours 0x%x (%d) or 'c'(%d), libtraceevent the print fmt's "
		      "conversion of the unsigned value (no sign extension below 4 bytes)",
	[R_INVALID_SIZE] = "struct of 3, 5-7, 9+ bytes: ours <INVALID-SIZE>, libtraceevent 0",
	[R_DYN_ARRAY] = "other __data_loc/__rel_loc (and 4-byte types naming them): ours the "
			"bytes (0a,0b), <OVERFLOW> or <INVALID-TYPE> (cpumask_t), libtraceevent "
			"the u32 location word (%llu)",
	[R_STRING_AS_NUMBER] = "__data_loc char without []: ours the string, libtraceevent 0 "
			       "(%llu of __get_str())",
	[R_NO_FIELDS] = "no fields: ours 'No fields found', libtraceevent ''",
	[R_OTHER] = "other pairs",
};
static unsigned int rule_seen[NRULES];

/* The conversion the print fmt uses for @name: "d", "u", "lld", "llu", "s". */
static int print_conv(const struct tep_event *event, const char *name, char *out, size_t len)
{
	const char *fmt = event->print_fmt.format, *p;
	char key[80];
	size_t klen;

	klen = (size_t)snprintf(key, sizeof(key), "%s=%%", name);
	for (p = fmt; p && (p = strstr(p, key)); p++) {
		if (p == fmt || p[-1] == ' ') {
			snprintf(out, len, "%.*s", (int)strspn(p + klen, "lhdusx"), p + klen);
			return 0;
		}
	}
	return -1;
}

/*
 * Values of @fields in @info, "a=1 b=x" (@lead: " a=1 b=x"): each runs to
 * the next " name=" or the end.  Return: 0, or -1 when a field is missing.
 */
static int split_info(const char *info, struct tep_format_field **fields, bool lead,
		      const char **start, size_t *len)
{
	const char *p = info;
	char key[80];

	for (unsigned int i = 0; fields[i]; i++) {
		snprintf(key, sizeof(key), "%s%s=", lead || i ? " " : "", fields[i]->name);
		if (strncmp(p, key, strlen(key)))
			return -1;
		start[i] = p + strlen(key);
		if (fields[i + 1]) {
			snprintf(key, sizeof(key), " %s=", fields[i + 1]->name);
			p = strstr(start[i], key);
			if (!p)
				return -1;
		} else {
			p = start[i] + strlen(start[i]);
		}
		len[i] = (size_t)(p - start[i]);
	}
	return *p ? -1 : 0;
}

static uint64_t read_le(const uint8_t *p, int size)
{
	uint64_t v = 0;

	memcpy(&v, p, (size_t)size);
	return v;
}

/* Text of at most @max bytes at @p, up to a NUL. */
static void put_cstr(const uint8_t *p, size_t max, char *out, size_t len)
{
	snprintf(out, len, "%.*s", (int)strnlen((const char *)p, max), (const char *)p);
}

/* The type field @i was registered with: its words before the name (and a struct's size). */
static int registered_type(const char *name_args, unsigned int i, char *out, size_t len)
{
	const char *p = strchr(name_args, ' ');
	char part[256], *words[8], *save = NULL, *w;
	unsigned int n = 0, ntype;
	size_t used = 0;

	for (; p && i; i--)
		p = strchr(p + 1, ';');
	if (!p)
		return -1;
	snprintf(part, sizeof(part), "%.*s", (int)strcspn(p + 1, ";"), p + 1);
	for (w = strtok_r(part, " ", &save); w && n < 8; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	ntype = n >= 2 && strcmp(words[0], "struct") == 0 ? n - 2 : n - 1;
	out[0] = '\0';
	for (unsigned int k = 0; k < ntype && used < len; k++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", k ? " " : "", words[k]);
	return n >= 2 ? 0 : -1;
}

enum ours_class { K_STRING, K_INT, K_INVALID_SIZE, K_ARRAY };

/* A location's bytes as hex joined by ',', or <OVERFLOW> past the record's end. */
static enum ours_class loc_bytes(const struct raw_rec *r, int32_t off, int32_t n, char *out,
				 size_t len)
{
	int used = 0;

	if (off + n > r->size) {
		snprintf(out, len, "<OVERFLOW>");
		return K_ARRAY;
	}
	out[0] = '\0';
	for (int32_t i = 0; i < n && used < (int)len; i++)
		used += snprintf(out + used, len - (size_t)used, "%s%02x", i ? "," : "",
				 r->data[off + i]);
	return K_ARRAY;
}

/*
 * What the kernel's fields printer shows of field @f (registered as @type)
 * in record @r: the filter type from the type text (filter_assign_type()),
 * then by size.  Locations are read as ints and checked against the
 * record's size as the ring buffer reports it (kbuffer's event size).
 */
static enum ours_class fields_printer(const char *type, const struct tep_format_field *f,
				      const struct raw_rec *r, char *out, size_t len)
{
	const uint8_t *pos = r->data + f->offset;
	bool data_loc = strstr(type, "__data_loc"), rel_loc = strstr(type, "__rel_loc");
	bool has_char = strstr(type, "char");
	int32_t loc = 0, off, n;
	uint64_t u;

	/* A location is an int: a length of 0x8000 or more is negative. */
	if (f->size == 4)
		loc = (int32_t)read_le(pos, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if ((data_loc || rel_loc) && has_char) {
		if (!data_loc)
			off += f->offset + 4;
		if (off + n > r->size) {
			snprintf(out, len, "<OVERFLOW>");
			return K_STRING;
		}
		/* A negative length is no precision: up to the NUL (here: the record's end). */
		put_cstr(r->data + off, n < 0 ? (size_t)(r->size - off) : (size_t)n, out, len);
		return K_STRING;
	}
	if (data_loc && strstr(type, "cpumask_t")) {
		snprintf(out, len, "<INVALID-TYPE>");
		return K_ARRAY;
	}
	if (strchr(type, '[') && has_char) {
		put_cstr(pos, (size_t)f->size, out, len);
		return K_STRING;
	}
	if (f->size == 4 && data_loc)
		return loc_bytes(r, off, n, out, len);
	if (f->size == 4 && rel_loc)
		return loc_bytes(r, off + f->offset + 4, n, out, len);
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
		snprintf(out, len, "<INVALID-SIZE>");
		return K_INVALID_SIZE;
	}
	u = read_le(pos, f->size);
	if (f->size == 1 && ((pos[0] >= 0x20 && pos[0] < 0x7f) || pos[0] >= 0xa0))
		snprintf(out, len, "'%c'(%d)", pos[0], pos[0]);
	else if (f->size == 1)
		snprintf(out, len, "(%d)", pos[0]);
	else if (f->size == 2)
		snprintf(out, len, "0x%x (%d)", (unsigned int)u, (int)u);
	else if (f->size == 4)
		snprintf(out, len, "0x%x (%d)", (unsigned int)u, (int32_t)u);
	else
		snprintf(out, len, "0x%llx (%lld)", (unsigned long long)u, (long long)u);
	return K_INT;
}

/*
 * What libtraceevent prints for the print fmt's conversion @conv of @arg:
 * REC->field reads the field's bytes as an unsigned number (sizes 1, 2, 4,
 * 8; 0 for others) handed to printf as an int or a long long, or as a string
 * for %s (up to a NUL within the field); __get_str()/__get_rel_str() is the
 * string at the location for %s, and 0 for a number conversion.
 * Return: true when the text is a string.
 */
static bool tep_printer(const char *conv, const struct tep_print_arg *arg,
			const struct tep_format_field *f, const struct raw_rec *r, char *out,
			size_t len)
{
	uint64_t u = 0;

	if (arg->type == TEP_PRINT_STRING && !strcmp(conv, "s")) {
		uint32_t loc = (uint32_t)read_le(r->data + f->offset, 4);
		uint32_t off = loc & 0xffff, n = loc >> 16;

		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (uint32_t)(f->offset + f->size);
		if (off + n > (uint32_t)r->size || !n)
			out[0] = '\0';
		else
			put_cstr(r->data + off, (size_t)r->size - off, out, len);
		return true;
	}
	if (arg->type == TEP_PRINT_FIELD && !strcmp(conv, "s")) {
		put_cstr(r->data + f->offset, (size_t)f->size, out, len);
		return true;
	}
	if (arg->type == TEP_PRINT_FIELD &&
	    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
		u = read_le(r->data + f->offset, f->size);
	if (!strcmp(conv, "d"))
		snprintf(out, len, "%d", (int)u);
	else if (!strcmp(conv, "u"))
		snprintf(out, len, "%u", (unsigned int)u);
	else if (!strcmp(conv, "lld"))
		snprintf(out, len, "%lld", (long long)u);
	else
		snprintf(out, len, "%llu", (unsigned long long)u);
	return false;
}

/*
 * Field @i of a record of event @ev: our text @ours and libtraceevent's
 * @theirs (@olen, @tlen bytes), each against its printer's model applied to
 * the raw record @r.  Return: the rule, or -1 (printed why).
 */
static int compare_field(unsigned int ev, unsigned int i, const struct tep_event *event,
			 const struct tep_format_field *f, const struct tep_print_arg *arg,
			 const struct raw_rec *r, const char *ours, size_t olen, const char *theirs,
			 size_t tlen)
{
	char type[128], conv[8], want_ours[4096], want_theirs[4096];
	enum ours_class oc;
	bool tstring;
	int rule;

	if (registered_type(events[ev].name_args, i, type, sizeof(type)) < 0 || !arg ||
	    print_conv(event, f->name, conv, sizeof(conv)) < 0 || f->offset + f->size > r->size) {
		printf("# %s: no type, no print fmt argument, or outside the record\n", f->name);
		return -1;
	}
	oc = fields_printer(type, f, r, want_ours, sizeof(want_ours));
	tstring = tep_printer(conv, arg, f, r, want_theirs, sizeof(want_theirs));
	if (oc == K_STRING && tstring)
		rule = R_STRING;
	else if (oc == K_INT && !tstring)
		rule = R_INTEGER;
	else if (oc == K_INVALID_SIZE && !tstring)
		rule = R_INVALID_SIZE;
	else if (oc == K_ARRAY && !tstring)
		rule = R_DYN_ARRAY;
	else if (oc == K_STRING && !tstring)
		rule = R_STRING_AS_NUMBER;
	else
		rule = R_OTHER;
	if (olen != strlen(want_ours) || memcmp(ours, want_ours, olen) ||
	    tlen != strlen(want_theirs) || memcmp(theirs, want_theirs, tlen)) {
		printf("# %s (%s, %%%s): ours '%.*s', libtraceevent '%.*s'; expected '%s' and '%s'\n",
		       f->name, type, conv, (int)olen, ours, (int)tlen, theirs, want_ours,
		       want_theirs);
		return -1;
	}
	return rule;
}

/* One record: our trace line against libtraceevent's.  Return: 0 or -1 (printed why). */
static int compare_record(unsigned int ev, char *ours_line, const struct raw_rec *r,
			  struct trace_seq *s)
{
	const struct tep_print_arg *arg;
	struct tep_format_field **fields = NULL;
	const char *ostart[32], *tstart[32];
	size_t olen[32], tlen[32];
	struct line o, t;
	struct tep_event *event;
	struct tep_record rec;
	size_t nlen;
	int ret = -1;

	memset(&rec, 0, sizeof(rec));
	rec.ts = r->ts;
	rec.cpu = r->cpu;
	rec.size = r->size;
	rec.data = r->data;
	event = tep_find_event_by_record(tep, &rec);
	trace_seq_reset(s);
	tep_print_event(tep, s, &rec, "%s\x1f%d\x1f%d\x1f%6.1000d\x1f%s\x1f%s", TEP_PRINT_COMM,
			TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME, TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(s);
	printf("# %s\n", ours_line);
	if (!event || split_ours(ours_line, &o) || split_theirs(s->buffer, &t)) {
		printf("# unreadable: libtraceevent printed '%s'\n", s->buffer);
		return -1;
	}
	if (o.pid != t.pid || o.cpu != t.cpu || strcmp(o.ts, t.ts) || strcmp(o.comm, t.comm)) {
		printf("# context: ours %s-%d [%d] %s, libtraceevent %s-%d [%d] %s\n", o.comm, o.pid,
		       o.cpu, o.ts, t.comm, t.pid, t.cpu, t.ts);
		return -1;
	}
	nlen = strlen(t.event);
	if (strncmp(o.event, t.event, nlen) || o.event[nlen] != ':') {
		printf("# event: ours %s, libtraceevent %s\n", o.event, t.event);
		return -1;
	}
	fields = tep_event_fields(event);
	if (!fields || !fields[0]) {
		if (strcmp(o.event + nlen + 1, "No fields found") || t.info[0]) {
			printf("# no fields: ours '%s', libtraceevent '%s'\n", o.event + nlen + 1,
			       t.info);
		} else {
			rule_seen[R_NO_FIELDS]++;
			ret = 0;
		}
		free(fields);
		return ret;
	}
	if (split_info(o.event + nlen + 1, fields, true, ostart, olen) < 0 ||
	    split_info(t.info, fields, false, tstart, tlen) < 0) {
		printf("# fields: ours '%s', libtraceevent '%s'\n", o.event + nlen + 1, t.info);
		free(fields);
		return -1;
	}
	ret = 0;
	arg = event->print_fmt.args;
	for (unsigned int i = 0; fields[i] && i < 32; i++, arg = arg ? arg->next : NULL) {
		int rule = compare_field(ev, i, event, fields[i], arg, r, ostart[i], olen[i],
					 tstart[i], tlen[i]);

		if (rule < 0)
			ret = -1;
		else
			rule_seen[rule]++;
	}
	free(fields);
	return ret;
}

TEST(records_print_alike)
{
	char *text = read_rel_alloc("trace"), *cmdlines = read_rel_alloc("saved_cmdlines");
	struct kbuffer *kbuf = tep_kbuffer(tep);
	char *lines[MAX_RAW];
	size_t nlines = 0, compared = 0, unknown = 0;
	struct trace_seq s;
	int bad = 0, r = 0;

	ASSERT_TRUE(text && cmdlines && kbuf);
	for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (line[0] != '#' && nlines < MAX_RAW)
			lines[nlines++] = line;
	}
	EXPECT_EQ(nlines, NRECORDS);
	/* The comm of a pid comes from saved_cmdlines, as trace-cmd does. */
	ASSERT_EQ(tep_parse_saved_cmdlines(tep, cmdlines), 0);
	for (int cpu = 0; r == 0; cpu++)
		r = read_cpu(kbuf, cpu);
	ASSERT_EQ(r, 1);
	ASSERT_EQ(nraw, NRECORDS);
	qsort(raw, nraw, sizeof(raw[0]), by_time);
	trace_seq_init(&s);
	for (size_t i = 0; i < nraw && i < nlines; i++) {
		uint16_t type = (uint16_t)read_le(raw[i].data, 2);
		struct tep_event *event = tep_find_event(tep, type);
		unsigned int ev = 0;

		if (!event) {
			/* An event libtraceevent could not parse (multi_format_parses says why). */
			printf("# not compared, unknown to libtraceevent: %s\n", lines[i]);
			unknown++;
			continue;
		}
		while (ev < NEVENTS && strcmp(tp_name[ev], event->name))
			ev++;
		if (ev == NEVENTS || compare_record(ev, lines[i], &raw[i], &s) < 0)
			bad++;
		compared++;
	}
	trace_seq_destroy(&s);
	kbuffer_free(kbuf);
	for (size_t i = 0; i < nraw; i++)
		free(raw[i].data);
	free(text);
	free(cmdlines);
	for (unsigned int i = 0; i < NRULES; i++)
		printf("# %3u fields: %s\n", rule_seen[i], rule_text[i]);
	printf("# %zu records compared, %zu of events libtraceevent does not know\n", compared,
	       unknown);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(flush_tep_log(), 0);
	for (unsigned int ev = 0; ev < NEVENTS; ev++)
		if (!tep_knows[ev])
			EXPECT_EQ(events[ev].how, REG_MULTI);
	EXPECT_EQ(compared + unknown, NRECORDS);
}

/*
 * Field names the kernel accepts (it splits a field at single spaces and
 * checks no name) that make a format file libtraceevent cannot read: it
 * keeps the event, marked failed, and warns.  The reference kernel's files
 * for them are the same (tests/tools/ref/libtraceevent.out).
 */
static const char *const unreadable[] = {
	"tep_colon u32 a:b",	/* "field:u32 a:b;": ';' expected after the name */
	"tep_noname u32 ",	/* "field:u32 ;": an empty name, so no type */
	"tep_star u32 *p",	/* "u32 *p" reads as a pointer p, "REC->*p" does not parse */
};

TEST(unreadable_field_names)
{
	static uint32_t word;

	ASSERT_GE(data_fd, 0);
	for (size_t i = 0; i < sizeof(unreadable) / sizeof(unreadable[0]); i++) {
		char name[64], rel[128];
		struct user_reg r;
		struct tep_event *event;

		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.name_args = (uintptr_t)unreadable[i];
		r.enable_addr = (uintptr_t)&word;
		r.enable_size = sizeof(word);
		r.enable_bit = (uint8_t)i;
		printf("# %s\n", unreadable[i]);
		ASSERT_EQ(ioctl(data_fd, DIAG_IOCSREG, &r), 0);
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(unreadable[i], " "), unreadable[i]);
		snprintf(rel, sizeof(rel), "user_events/%s", name);
		/* 1.7.1 returns 0 for an event it keeps but could not read: the flag says it. */
		parse_format("user_events", rel);
		event = tep_find_event_by_name(tep, "user_events", name);
		ASSERT_TRUE(event);
		EXPECT_TRUE(event->flags & TEP_EVENT_FL_FAILED);
		EXPECT_GE(flush_tep_log(), 1);
	}
}

UE_TEST_MAIN()
