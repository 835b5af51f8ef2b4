// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * An EventHeader provider of our own: builds EventHeader events (every
 * encoding and format of eventheader.h, arrays, nested structs, field tags,
 * activity IDs, little- and big-endian, 32- and 64-bit pointer flags) by
 * hand, byte by byte, and either
 *   eh-provider write [USER_EVENTS_DATA]
 * registers each as PROVIDER_L<l>K<k> with the six header fields through
 * DIAG_IOCSREG and writes it with writev (as libeventheader-tracepoint
 * does), once its enable bit is set; or
 *   eh-provider activities [USER_EVENTS_DATA]
 * writes activities instead (provider EhAct): on the main thread a Task
 * start (opcode 1) and stop (2) without activity ID, nested in another,
 * and a Job started with an activity ID on the main thread and stopped with
 * it on a second thread, a Tick (opcode 0) with a numeric field between; or
 *   eh-provider dat FILE
 * writes them, with malformed ones after them, in the layout of
 * LinuxTracepoints' interceptor files (u32 size, name, NUL, event), the
 * input of its decode-dat-utest and of our dat-decode.
 * $EH_PROVIDER names write's provider (default EhTest): a long one makes
 * long tracepoint names.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"

#define MAXEV 256

struct ev {
	char tp[128];
	uint8_t hdr[8];
	const uint8_t *act, *rel;
	uint8_t meta[1024];
	size_t mlen;
	uint8_t data[2048];
	size_t dlen;
	int be;
};

static struct ev evs[MAXEV];
static size_t nevs;
static int be_mode, p32_mode;
static const char *prov = "EhTest";

static const uint8_t act1[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t act2[16] = { 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
				  0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f };

static void put(uint8_t *b, size_t *len, size_t cap, const void *p, size_t n)
{
	if (*len + n > cap) {
		fprintf(stderr, "eh-provider: event too big\n");
		exit(2);
	}
	memcpy(b + *len, p, n);
	*len += n;
}

static void order(uint8_t *out, uint64_t v, size_t n, int be)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (uint8_t)(v >> (8 * (be ? n - 1 - i : i)));
}

/* A new event: tracepoint PROVIDER_L<level>K<kw>, its name in the metadata. */
static struct ev *ev_new(const char *name, unsigned level, unsigned long long kw)
{
	struct ev *e = &evs[nevs++];

	memset(e, 0, sizeof(*e));
	e->be = be_mode;
	snprintf(e->tp, sizeof(e->tp), "%s%s_L%uK%llx", prov, be_mode ? "BE" : p32_mode ? "P32" : "",
		 level, kw);
	e->hdr[0] = (uint8_t)((be_mode ? 0 : 2) | (p32_mode ? 0 : 1) | 4);
	e->hdr[7] = (uint8_t)level;
	put(e->meta, &e->mlen, sizeof(e->meta), name, strlen(name) + 1);
	return e;
}

static void ev_hdr(struct ev *e, uint8_t version, uint16_t id, uint16_t tag, uint8_t opcode)
{
	e->hdr[1] = version;
	order(e->hdr + 2, id, 2, e->be);
	order(e->hdr + 4, tag, 2, e->be);
	e->hdr[6] = opcode;
}

/* A field definition: encoding (flags included), format, tag, constant count. */
static void def(struct ev *e, const char *name, uint8_t enc, uint8_t fmt, uint16_t tag,
		uint16_t count)
{
	uint8_t b[2];

	put(e->meta, &e->mlen, sizeof(e->meta), name, strlen(name) + 1);
	if (fmt || tag)
		enc |= 0x80;
	put(e->meta, &e->mlen, sizeof(e->meta), &enc, 1);
	if (enc & 0x80) {
		uint8_t f = (uint8_t)(fmt | (tag ? 0x80 : 0));

		put(e->meta, &e->mlen, sizeof(e->meta), &f, 1);
		if (tag) {
			order(b, tag, 2, e->be);
			put(e->meta, &e->mlen, sizeof(e->meta), b, 2);
		}
	}
	if (enc & 0x20) {
		order(b, count, 2, e->be);
		put(e->meta, &e->mlen, sizeof(e->meta), b, 2);
	}
}

static void dat(struct ev *e, const void *p, size_t n)
{
	put(e->data, &e->dlen, sizeof(e->data), p, n);
}

static void num(struct ev *e, uint64_t v, size_t n)
{
	uint8_t b[8];

	order(b, v, n, e->be);
	dat(e, b, n);
}

/* A scalar field: its definition and value. */
static void fnum(struct ev *e, const char *name, uint8_t enc, uint8_t fmt, uint64_t v)
{
	def(e, name, enc, fmt, 0, 0);
	num(e, v, (size_t)1 << (enc - 2));
}

/* A string of code units of @size bytes from @s, zero-terminated or counted. */
static void units(struct ev *e, const char *s, size_t size, int counted)
{
	size_t n = strlen(s);

	if (counted)
		num(e, n, 2);
	for (size_t i = 0; i < n; i++)
		num(e, (unsigned char)s[i], size);
	if (!counted)
		num(e, 0, size);
}

enum {
	STRUCT = 1, V8, V16, V32, V64, V128, Z8, Z16, Z32, S8, S16, S32, BIN,
	CARR = 0x20, VARR = 0x40,
};
enum {
	DEF, UNS, SIG, HEX, ERRNO_, PID, TIME_, BOOL_, FLOAT_, HEXB, STR8, UTF, UTFBOM, XML, JSON,
	UUID, PORT, IP, IPOBS,
};

static void build_all(void)
{
	static const uint8_t v128[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					  0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint8_t v4m[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3 };
	float f;
	double d;
	uint32_t fu;
	uint64_t du;
	struct ev *e;

	e = ev_new("Empty", 5, 0);
	e = ev_new("Header", 4, 0xf123456789abcdefull);
	ev_hdr(e, 11, 1000, 0x1234, 3);
	e = ev_new("Activity", 5, 1);
	e->act = act1;
	e = ev_new("Related", 5, 1);
	e->act = act1;
	e->rel = act2;

	e = ev_new("Ints", 5, 2);
	fnum(e, "u8", V8, DEF, 200);
	fnum(e, "i8", V8, SIG, 0x80);
	fnum(e, "u16", V16, UNS, 60000);
	fnum(e, "i16", V16, SIG, 0x8000);
	fnum(e, "u32", V32, DEF, 4000000000u);
	fnum(e, "i32", V32, SIG, 0x80000000u);
	fnum(e, "u64", V64, DEF, 18000000000000000000ull);
	fnum(e, "i64", V64, SIG, 0x8000000000000000ull);
	fnum(e, "h8", V8, HEX, 0xc8);
	fnum(e, "h16", V16, HEX, 0xea60);
	fnum(e, "h32", V32, HEX, 0x12ab);
	fnum(e, "h64", V64, HEX, 0xf9ccd8a1c5080000ull);
	fnum(e, "odd8", V8, PID, 7);	/* a format that does not fit: the default */

	e = ev_new("Formats", 5, 2);
	fnum(e, "e1", V32, ERRNO_, 1);
	fnum(e, "e131", V32, ERRNO_, 131);
	fnum(e, "e41", V32, ERRNO_, 41);
	fnum(e, "e0", V32, ERRNO_, 0);
	fnum(e, "eneg", V32, ERRNO_, (uint32_t)-5);
	fnum(e, "pid", V32, PID, (uint32_t)-1);
	fnum(e, "t32", V32, TIME_, 2000000000u);
	fnum(e, "t32neg", V32, TIME_, 0x80000000u);
	fnum(e, "t64", V64, TIME_, 0);
	fnum(e, "t64old", V64, TIME_, (uint64_t)-11644473601ll);
	fnum(e, "t64far", V64, TIME_, 910692730086ull);
	fnum(e, "t64huge", V64, TIME_, 9000000000000000000ull);
	fnum(e, "b0", V8, BOOL_, 0);
	fnum(e, "b1", V8, BOOL_, 1);
	fnum(e, "b8", V8, BOOL_, 255);
	fnum(e, "b16", V16, BOOL_, 60000);
	fnum(e, "b32", V32, BOOL_, 0x80000000u);
	fnum(e, "b64", V64, BOOL_, 1);
	f = 3.14f;
	memcpy(&fu, &f, 4);
	fnum(e, "f32", V32, FLOAT_, fu);
	f = 1.0f / 3;
	memcpy(&fu, &f, 4);
	fnum(e, "f32third", V32, FLOAT_, fu);
	d = 6.28;
	memcpy(&du, &d, 8);
	fnum(e, "f64", V64, FLOAT_, du);
	d = -1e300;
	memcpy(&du, &d, 8);
	fnum(e, "f64big", V64, FLOAT_, du);
	fnum(e, "finf", V32, FLOAT_, 0xff800000u);
	fnum(e, "fnan", V64, FLOAT_, 0x7ff8000000000000ull);
	fnum(e, "port", V16, PORT, 0x5000);	/* bytes in network order */
	fnum(e, "ip4", V32, IP, 0x0100007f);
	fnum(e, "c8", V8, STR8, 0xfe);
	fnum(e, "c16", V16, UTF, 0x263a);
	fnum(e, "c32", V32, UTF, 0x1f600);
	fnum(e, "c32bad", V32, UTF, 0x7fffffff);
	fnum(e, "hb32", V32, HEXB, 0x01020304);

	e = ev_new("V128", 5, 2);
	def(e, "default", V128, DEF, 0, 0);
	dat(e, v128, 16);
	def(e, "uuid", V128, UUID, 0, 0);
	dat(e, act2, 16);
	def(e, "ip6", V128, IP, 0, 0);
	dat(e, v128, 16);
	def(e, "ip6obs", V128, IPOBS, 0, 0);
	dat(e, v4m, 16);
	def(e, "ip6zero", V128, IP, 0, 0);
	dat(e, (uint8_t[16]){ 0 }, 16);
	def(e, "hb", V128, HEXB, 0, 0);
	dat(e, act1, 16);

	e = ev_new("Strings", 5, 4);
	def(e, "z8", Z8, DEF, 0, 0);
	units(e, "hello \"q\" \\ \n\t\x01 caf\xc3\xa9", 1, 0);
	def(e, "z8lat", Z8, STR8, 0, 0);
	units(e, "caf\xe9", 1, 0);
	def(e, "z8bad", Z8, UTF, 0, 0);
	units(e, "a\xff\xc3z", 1, 0);
	def(e, "z16", Z16, DEF, 0, 0);
	units(e, "wide16", 2, 0);
	def(e, "z32", Z32, DEF, 0, 0);
	units(e, "wide32", 4, 0);
	def(e, "s8", S8, DEF, 0, 0);
	units(e, "counted", 1, 1);
	def(e, "s16", S16, UTF, 0, 0);
	units(e, "c16", 2, 1);
	def(e, "s32", S32, XML, 0, 0);
	units(e, "<x/>", 4, 1);
	def(e, "empty", S8, DEF, 0, 0);
	units(e, "", 1, 1);
	def(e, "zhex", Z16, HEXB, 0, 0);
	units(e, "hx", 2, 0);
	def(e, "bom8", S8, UTFBOM, 0, 0);
	num(e, 5, 2);
	dat(e, "\xef\xbb\xbf" "ab", 5);
	def(e, "bom16sw", S16, JSON, 0, 0);	/* a BOM of the other byte order */
	num(e, 3, 2);
	dat(e, e->be ? "\xff\xfe\x41\x00\x42\x00" : "\xfe\xff\x00\x41\x00\x42", 6);
	def(e, "bom32", Z32, UTFBOM, 0, 0);
	num(e, 0xfeff, 4);
	units(e, "ok", 4, 0);
	def(e, "surrogates", S16, DEF, 0, 0);
	num(e, 3, 2);
	num(e, 0xd83d, 2);
	num(e, 0xde00, 2);
	num(e, 0xdc00, 2);

	e = ev_new("Binary", 5, 4);
	def(e, "b0", BIN, DEF, 0, 0);
	num(e, 0, 2);
	def(e, "b3", BIN, DEF, 0, 0);
	num(e, 3, 2);
	dat(e, "\x01\xab\xff", 3);
	def(e, "bnull", BIN, SIG, 0, 0);
	num(e, 0, 2);
	def(e, "bi4", BIN, SIG, 0, 0);
	num(e, 4, 2);
	num(e, (uint32_t)-7, 4);
	def(e, "bu8", BIN, UNS, 0, 0);
	num(e, 8, 2);
	num(e, 12345678901ull, 8);
	def(e, "bt4", BIN, TIME_, 0, 0);
	num(e, 4, 2);
	num(e, 86400, 4);
	def(e, "bip16", BIN, IP, 0, 0);
	num(e, 16, 2);
	dat(e, v128, 16);
	def(e, "bpid3", BIN, PID, 0, 0);	/* wrong size: the default, hex bytes */
	num(e, 3, 2);
	dat(e, "abc", 3);
	def(e, "serr3", S8, ERRNO_, 0, 0);	/* wrong size: the default, a string */
	num(e, 3, 2);
	dat(e, "abc", 3);
	def(e, "serr4", S8, ERRNO_, 0, 0);
	num(e, 4, 2);
	num(e, 2, 4);
	def(e, "bs8", BIN, STR8, 0, 0);
	num(e, 2, 2);
	dat(e, "\xe9" "a", 2);
	def(e, "bfloat", BIN, FLOAT_, 0, 0);
	num(e, 8, 2);
	d = 0.1;
	memcpy(&du, &d, 8);
	num(e, du, 8);
	def(e, "bbool2", BIN, BOOL_, 0, 0);
	num(e, 2, 2);
	num(e, 1, 2);
	def(e, "bport", BIN, PORT, 0, 0);
	num(e, 2, 2);
	dat(e, "\x1f\x90", 2);
	def(e, "buuid", BIN, UUID, 0, 0);
	num(e, 16, 2);
	dat(e, act1, 16);

	e = ev_new("Arrays", 5, 8);
	def(e, "c3", V32 | CARR, DEF, 0, 3);
	num(e, 1, 4), num(e, 2, 4), num(e, 3, 4);
	def(e, "v2", V16 | VARR, HEX, 0, 0);
	num(e, 2, 2), num(e, 0xabc, 2), num(e, 0xffff, 2);
	def(e, "v0", V64 | VARR, DEF, 0, 0);
	num(e, 0, 2);
	def(e, "chars", V8 | VARR, STR8, 0, 0);
	num(e, 3, 2);
	dat(e, "How", 3);
	def(e, "strs", Z8 | VARR, DEF, 0, 0);
	num(e, 3, 2);
	dat(e, "ABC\0\0XYZ\0", 9);
	def(e, "bins", BIN | CARR, DEF, 0, 2);
	num(e, 1, 2), dat(e, "\x01", 1), num(e, 0, 2);
	def(e, "uuids", V128 | VARR, UUID, 0, 0);
	num(e, 1, 2);
	dat(e, act1, 16);
	def(e, "bools", V32 | CARR, BOOL_, 0, 2);
	num(e, 1, 4), num(e, 0, 4);

	e = ev_new("Structs", 5, 8);
	fnum(e, "five", V8, DEF, 5);
	def(e, "S1", STRUCT, 2, 0xbeef, 0);
	def(e, "a", V16, DEF, 0x12, 0);
	num(e, 7, 2);
	def(e, "inner", STRUCT, 1, 0, 0);
	def(e, "deep", STRUCT, 1, 0, 0);
	def(e, "s", Z8, DEF, 0, 0);
	units(e, "nested", 1, 0);
	def(e, "arr", STRUCT | VARR, 2, 0, 0);
	num(e, 2, 2);
	def(e, "k", V8, STR8, 0, 0);
	def(e, "v", S16, DEF, 0, 0);
	dat(e, "A", 1), units(e, "x", 2, 1);
	dat(e, "B", 1), units(e, "yy", 2, 1);
	def(e, "none", STRUCT | VARR, 1, 0, 0);
	num(e, 0, 2);
	def(e, "s", V32, DEF, 0, 0);
	fnum(e, "five", V8, DEF, 5);	/* a name again */

	e = ev_new("Tags", 5, 0x10);
	ev_hdr(e, 1, 2, 3, 240);
	def(e, "tagged", V32, DEF, 0xabcd, 0);
	num(e, 1, 4);
	def(e, "attr;x=1", V32, HEX, 0x1, 0);
	num(e, 2, 4);
	def(e, "", V8, DEF, 0, 0);	/* a field without a name */
	num(e, 3, 1);

	e = ev_new("Event;attr=y", 1, 0x20);
	fnum(e, "x", V8, DEF, 1);
}

/* The malformed ones, as the interceptor would have recorded them. */
static size_t bad(uint8_t *out, size_t cap, int which, const char **tp)
{
	/* A valid event to cut from: Ints of the little-endian list. */
	static uint8_t hdr_le[8] = { 7, 0, 0, 0, 0, 0, 0, 5 };
	size_t n = 0;

	*tp = "EhBad_L5K1";
	memcpy(out, hdr_le, 8);
	n = 8;
#define B(...)                                                            \
	do {                                                                \
		static const uint8_t x_[] = { __VA_ARGS__ };                \
		if (n + sizeof(x_) <= cap) {                                \
			memcpy(out + n, x_, sizeof(x_));                    \
			n += sizeof(x_);                                    \
		}                                                           \
	} while (0)
	switch (which) {
	case 0: return 5;				/* short header */
	case 1: out[0] = 3; return 8;			/* no extension: no metadata */
	case 2: B(20, 0, 1, 0, 'E', 0); return n;	/* extension past the end */
	case 3: B(2, 0, 1, 0, 'E', 'v'); return n;	/* name without NUL */
	case 4: B(2, 0, 2, 0, 'E', 0); return n;	/* activity of 2 bytes, last */
	case 5: B(4, 0, 1, 0, 'E', 0, 'a', 0); return n; /* field name, no encoding */
	case 6: B(5, 0, 1, 0, 'E', 0, 'a', 0, 4, 1, 2); return n; /* value short */
	case 7: B(5, 0, 1, 0, 'E', 0, 'a', 0, 0); return n;	/* encoding 0 */
	case 8: B(5, 0, 1, 0, 'E', 0, 'a', 0, 30); return n;	/* encoding unknown */
	case 9: B(6, 0, 1, 0, 'E', 0, 'a', 0, 0x81, 0); return n; /* empty struct */
	case 10: B(5, 0, 1, 0, 'E', 0, 'a', 0, 7, 'x', 'y'); return n; /* zstring no NUL */
	case 11: B(5, 0, 1, 0, 'E', 0, 'a', 0, 10, 9, 0, 'x'); return n; /* length past */
	case 12: B(5, 0, 1, 0, 'E', 0, 'a', 0, 0x42, 2, 0, 1); return n; /* varray short */
	case 13: B(7, 0, 1, 0, 'E', 0, 'a', 0, 0x22, 5); return n; /* carray count cut */
	case 14: out[0] = 0x17; B(4, 0, 1, 0, 'E', 0, 0, 0); return n; /* unknown flag */
	case 15: B(2, 0, 0x81, 0, 'E', 0, 2, 0, 1, 0, 'F', 0); return n; /* two metadata */
	case 16: B(4, 0, 5, 0, 1, 2, 3, 4, 2, 0, 1, 0, 'E', 0); return n; /* unknown kind */
	case 17: *tp = "NotEh_L5"; B(2, 0, 1, 0, 'E', 0); return n; /* not an EH name */
	case 18: {	/* structs nested 20 deep */
		static uint8_t m[200];
		size_t k = 0;

		m[k++] = 'E', m[k++] = 0;
		for (int i = 0; i < 20; i++)
			m[k++] = 's', m[k++] = 0, m[k++] = 0x81, m[k++] = 1;
		m[k++] = 'v', m[k++] = 0, m[k++] = 2;
		out[n++] = (uint8_t)k, out[n++] = 0, out[n++] = 1, out[n++] = 0;
		memcpy(out + n, m, k);
		n += k;
		out[n++] = 9;
		return n;
	}
	case 19: B(6, 0, 1, 0, 'E', 0, 'a', 0, 0x62, 0); return n; /* carray and varray */
	case 20: B(14, 0, 1, 0, 'E', 0, 'a', 0, 0x41, 2, 'x', 0, 2, 'y', 0, 0x81, 0x81, 0); return n;
	}
	return 0;
#undef B
}

static size_t assemble(const struct ev *e, uint8_t *out)
{
	size_t n = 0;
	uint8_t b[4];

	memcpy(out, e->hdr, 8);
	n = 8;
	if (e->act) {
		order(b, e->rel ? 32 : 16, 2, e->be);
		order(b + 2, 0x8002, 2, e->be);
		memcpy(out + n, b, 4);
		memcpy(out + n + 4, e->act, 16);
		n += 20;
		if (e->rel) {
			memcpy(out + n, e->rel, 16);
			n += 16;
		}
	}
	order(b, e->mlen, 2, e->be);
	order(b + 2, 1, 2, e->be);
	memcpy(out + n, b, 4);
	memcpy(out + n + 4, e->meta, e->mlen);
	n += 4 + e->mlen;
	memcpy(out + n, e->data, e->dlen);
	return n + e->dlen;
}

static void dat_rec(FILE *f, const char *tp, const uint8_t *ev, size_t len)
{
	uint32_t size = (uint32_t)(4 + strlen(tp) + 1 + len);
	uint8_t b[4];

	order(b, size, 4, 0);
	fwrite(b, 1, 4, f);
	fwrite(tp, 1, strlen(tp) + 1, f);
	fwrite(ev, 1, len, f);
}

static void build_lists(void)
{
	build_all();			/* little-endian, 64-bit */
	be_mode = 1;
	build_all();			/* big-endian */
	be_mode = 0;
	p32_mode = 1;
	build_all();			/* 32-bit pointers */
	p32_mode = 0;
}

/* Register @name_args and write @payload once it is enabled (5 s at most). */
static int plain_one(int fd, const char *name_args, const void *payload, size_t len)
{
	static uint32_t enabled;	/* one at a time: the events share it */
	struct user_reg reg = { .size = sizeof(reg) };
	struct user_unreg unreg = { .size = sizeof(unreg) };
	int wi;

	enabled = 0;
	reg.enable_size = 4;
	reg.enable_addr = (uint64_t)(uintptr_t)&enabled;
	reg.name_args = (uint64_t)(uintptr_t)name_args;
	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		perror(name_args);
		return 1;
	}
	wi = (int)reg.write_index;
	for (int tries = 0; tries < 500 && !__atomic_load_n(&enabled, __ATOMIC_RELAXED); tries++)
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	if (!enabled || writev(fd, (struct iovec[]){ { &wi, 4 }, { (void *)payload, len } }, 2) < 0) {
		fprintf(stderr, "eh-provider: %s: %s\n", name_args, enabled ? strerror(errno) : "never enabled");
		return 1;
	}
	unreg.disable_addr = (uint64_t)(uintptr_t)&enabled;
	return ioctl(fd, DIAG_IOCSUNREG, &unreg) < 0;
}

/*
 * Two plain user events after them: one of several field types, and the
 * OpenTelemetry metrics exporter's otlp_metrics (a protobuf in its buffer).
 */
static int write_plain(int fd)
{
	/* u32 count; s16 neg; char[8] tag; __rel_loc char[] path; __rel_loc u8[] bytes; u64 big */
	static const uint8_t plain[] = {
		4, 0, 0, 0,  0xfe, 0xff,  'h', 'e', 'l', 'l', 'o', 0, 0, 0,
		12, 0, 4, 0,	/* path: 4 bytes, 12 after this field */
		12, 0, 3, 0,	/* bytes: 3 bytes, 12 after this field */
		0xef, 0xbe, 0xad, 0xde, 0, 0, 0, 0,
		'a', '/', 'b', 0,  1, 2, 3,
	};
	/* u32 protocol; char[8] version; __rel_loc u8[] buffer */
	static const uint8_t otlp[] = {
		0, 0, 0, 0,  'v', '1', 0, 0, 0, 0, 0, 0,
		0, 0, 5, 0,	/* buffer: 5 bytes, right after */
		0x0a, 0x03, 'a', 'b', 'c',
	};

	return plain_one(fd, "eh_plain u32 count; s16 neg; char[8] tag; __rel_loc char[] path; "
			     "__rel_loc u8[] bytes; u64 big", plain, sizeof(plain)) ||
	       plain_one(fd, "otlp_metrics u32 protocol;char[8] version;__rel_loc u8[] buffer",
			 otlp, sizeof(otlp));
}

/* Register evs[] and wait for their enable bits; the write indexes in @wi. */
static int reg_all(int fd, uint32_t *enabled, int *wi)
{
	char cmd[256];

	for (size_t i = 0; i < nevs; i++) {
		struct user_reg reg = { .size = sizeof(reg) };

		snprintf(cmd, sizeof(cmd), "%.127s u8 eventheader_flags; u8 version; u16 id; u16 tag; "
			 "u8 opcode; u8 level", evs[i].tp);
		reg.enable_size = 4;
		reg.enable_addr = (uint64_t)(uintptr_t)&enabled[i];
		reg.name_args = (uint64_t)(uintptr_t)cmd;
		if (ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
			perror(cmd);
			return 1;
		}
		wi[i] = (int)reg.write_index;
	}
	for (int tries = 0; tries < 500; tries++) {
		size_t on = 0;

		for (size_t i = 0; i < nevs; i++)
			on += __atomic_load_n(&enabled[i], __ATOMIC_RELAXED) != 0;
		if (on == nevs)
			return 0;
		nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	fprintf(stderr, "eh-provider: not enabled\n");
	return 1;
}

static int write_all(const char *path)
{
	static uint8_t out[4096];
	uint32_t enabled[MAXEV] = { 0 };
	int wi[MAXEV];
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	/* Each written once its tracer has enabled it (5 s at most). */
	if (reg_all(fd, enabled, wi))
		return 1;
	for (size_t i = 0; i < nevs; i++) {
		size_t len = assemble(&evs[i], out);
		struct iovec iov[3] = {
			{ &wi[i], sizeof(wi[i]) },
			{ out, 8 },
			{ out + 8, len - 8 },
		};

		if (writev(fd, iov, 3) < 0) {
			perror("writev");
			return 1;
		}
	}
	return write_plain(fd) ? 1 : (close(fd), 0);
}

static int act_fd, act_wi[8];

static int act_write(size_t i)
{
	static uint8_t out[4096];
	size_t len = assemble(&evs[i], out);

	nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	if (writev(act_fd, (struct iovec[]){ { &act_wi[i], 4 }, { out, len } }, 2) < 0) {
		perror("writev");
		return 1;
	}
	return 0;
}

static void *act_thread(void *arg)
{
	return (void *)(intptr_t)act_write((size_t)(uintptr_t)arg);
}

/* Slices and an async span (see the top): evs[] 0 Task start, 1 Task stop, 2 Job start, 3 Job stop, 4 Tick. */
static int write_activities(const char *path)
{
	uint32_t enabled[8] = { 0 };
	pthread_t th;
	void *r;
	struct ev *e;

	prov = "EhAct";
	nevs = 0;
	e = ev_new("Task", 5, 1);
	ev_hdr(e, 0, 1, 0, 1);
	e = ev_new("Task", 5, 2);
	ev_hdr(e, 0, 2, 0, 2);
	e = ev_new("Job", 4, 1);
	ev_hdr(e, 0, 3, 0, 1);
	e->act = act1;
	e = ev_new("Job", 4, 2);
	ev_hdr(e, 0, 4, 0, 2);
	e->act = act1;
	e = ev_new("Tick", 3, 1);
	fnum(e, "n", V32, DEF, 42);
	act_fd = open(path, O_RDWR);
	if (act_fd < 0) {
		perror(path);
		return 1;
	}
	if (reg_all(act_fd, enabled, act_wi) || act_write(0) || act_write(0) || act_write(4) ||
	    act_write(1) || act_write(2) || act_write(1) || pthread_create(&th, NULL, act_thread,
									   (void *)3))
		return 1;
	pthread_join(th, &r);
	return r != NULL;
}

int main(int argc, char **argv)
{
	static uint8_t out[4096];

	if (argc < 2 || (strcmp(argv[1], "write") && strcmp(argv[1], "activities") &&
			 (strcmp(argv[1], "dat") || argc < 3))) {
		fprintf(stderr, "usage: eh-provider write|activities [USER_EVENTS_DATA] | dat FILE\n");
		return 2;
	}
	if (strcmp(argv[1], "activities") == 0)
		return write_activities(argc > 2 ? argv[2] : "/sys/kernel/tracing/user_events_data");
	if (getenv("EH_PROVIDER") && *getenv("EH_PROVIDER"))
		prov = getenv("EH_PROVIDER");
	build_lists();
	if (strcmp(argv[1], "write") == 0)
		return write_all(argc > 2 ? argv[2] : "/sys/kernel/tracing/user_events_data");
	{
		FILE *f = fopen(argv[2], "wb");
		const char *tp;
		size_t n;

		if (!f) {
			perror(argv[2]);
			return 1;
		}
		for (size_t i = 0; i < nevs; i++) {
			n = assemble(&evs[i], out);
			dat_rec(f, evs[i].tp, out, n);
		}
		for (int w = 0; w <= 20; w++) {
			n = bad(out, sizeof(out), w, &tp);
			dat_rec(f, tp, out, n);
		}
		return fclose(f) ? 1 : 0;
	}
}
