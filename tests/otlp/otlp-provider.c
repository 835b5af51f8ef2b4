// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * otlp-provider: the events the OTLP export tests trace, written through
 * libuserevents, with a manifest of what was written (JSON lines on stdout
 * or -o FILE) for the checks to hold the receiver's records against.
 *
 *   otlp-provider [-n N] [-b BURST] [-i MS] [-E] [-m FILE] [-w MS] [-o MANIFEST]
 *
 * -n N      N plain user events OtlpPlain (u32 seq; u32 a_u32; u64 a_u64;
 *           s32 a_s32; char[16] a_chars; __rel_loc char[] a_str;
 *           __rel_loc u8[] a_bytes), BURST at a time (default all), MS
 *           milliseconds apart
 * -E        EventHeader events as LinuxTracepoints' producers write them:
 *           EhEvent on OtlpEh_L4K3 (typed fields, activity and related
 *           IDs), EhLevel<l> on OtlpEh_L<l>K1 for levels 1 to 5 (level 4's
 *           with a span's activity ID: 8 bytes and 8 zero bytes), and a
 *           Common Schema log (__csver__ 0x400, PartA/PartB/PartC) as the
 *           OpenTelemetry user_events logs exporter writes it, on OtlpCs_L3K1
 * -m FILE   one otlp_metrics event (u32 protocol; char[8] version;
 *           __rel_loc u8[] buffer) carrying FILE (an OTLP
 *           ExportMetricsServiceRequest) as its buffer
 *
 * Each event is written once enabled (-w: 5000 ms at most); a write the
 * library did not take (disabled, ring full) is not in the manifest but
 * counted in its last line {"summary":{...}} (with "end": the wall-clock
 * time at exit).  Exit 0, 3 when some write was not taken,
 * 1 on errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <userevents/userevents.h>

UE_EVENT(OtlpPlain, UE_U32(seq), UE_U32(a_u32), UE_U64(a_u64), UE_S32(a_s32), UE_CHARS(a_chars, 16),
	 UE_STR(a_str), UE_BYTES(a_bytes))
UE_EVENT(otlp_metrics, UE_U32(protocol), UE_CHARS(version, 8), UE_BYTES(buffer))

#define EH_FIELDS " u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"

/* EventHeader (LinuxTracepoints' eventheader.h): encodings and formats. */
enum { E_STRUCT = 1, E_V8, E_V16, E_V32, E_V64, E_Z8 = 7, E_S8 = 10, E_BIN = 13 };
enum { F_DEF, F_UNS, F_SIG, F_HEX, F_BOOL = 7, F_FLOAT = 8, F_UTF = 11 };

static FILE *out;
static unsigned long written, refused;
static long wait_ms = 5000;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void wait_enabled(const struct ue_tracepoint *tp)
{
	for (long i = 0; i < wait_ms / 10 && !ue_tracepoint_enabled(tp); i++)
		sleep_ms(10);
}

static void hex(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%02x", ((const unsigned char *)p)[i]);
}

/* A write's outcome: on the manifest when taken, counted when not. */
static int taken(int r, const char *what)
{
	if (r == 0) {
		written++;
		return 1;
	}
	refused++;
	if (r != -EBADF && r != -ENOBUFS)
		fprintf(stderr, "otlp-provider: %s: %s\n", what, strerror(-r));
	return 0;
}

/* A typed field on the manifest: [name, int|string|bytes|bool|double, value]. */
static __attribute__((format(printf, 4, 5))) void mf(int *first, const char *name, const char *type, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, "%s[\"%s\",\"%s\",", *first ? "" : ",", name, type);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fprintf(out, "]");
	*first = 0;
}

static int plain(struct ue_provider *p, unsigned long n, unsigned long burst, long interval)
{
	int r = ue_OtlpPlain_register(p);

	if (r < 0) {
		fprintf(stderr, "otlp-provider: register OtlpPlain: %s\n", strerror(-r));
		return -1;
	}
	wait_enabled(&ue_OtlpPlain_tp);
	for (unsigned long i = 0; i < n; i++) {
		uint32_t a_u32 = 4000000000u - (uint32_t)i;
		uint64_t a_u64 = 0x123456789abcdef0ull + i;
		int32_t a_s32 = -123456 - (int32_t)i;
		char chars[32], str[64];
		uint8_t bytes[6] = { 0x00, 0xff, 0x80, 0x7f, (uint8_t)i, (uint8_t)(i >> 8) };
		long long t0, t1;
		int first;

		if (i && burst && i % burst == 0 && interval > 0)
			sleep_ms(interval);
		snprintf(chars, sizeof(chars), "chars-%lu", i);
		snprintf(str, sizeof(str), "string %lu: \"quoted\" \\ tab\there", i);
		t0 = now_ns();
		r = ue_OtlpPlain_write((uint32_t)i, a_u32, a_u64, a_s32, chars, str, bytes, sizeof(bytes));
		t1 = now_ns();
		if (!taken(r, "OtlpPlain"))
			continue;
		first = 1;
		fprintf(out, "{\"event\":\"OtlpPlain\",\"seq\":%lu,\"t0\":%lld,\"t1\":%lld,\"fields\":[",
			i, t0, t1);
		mf(&first, "seq", "int", "\"%lu\"", i);
		mf(&first, "a_u32", "int", "\"%u\"", a_u32);
		mf(&first, "a_u64", "int", "\"%llu\"", (unsigned long long)a_u64);
		mf(&first, "a_s32", "int", "\"%d\"", a_s32);
		mf(&first, "a_chars", "string", "\"%.16s\"", chars);
		mf(&first, "a_str", "string", "\"string %lu: \\\"quoted\\\" \\\\ tab\\there\"", i);
		mf(&first, "a_bytes", "bytes", "\"%02x%02x%02x%02x%02x%02x\"", bytes[0], bytes[1], bytes[2], bytes[3],
		   bytes[4], bytes[5]);
		fprintf(out, "]}\n");
	}
	return 0;
}

/* An EventHeader event under construction: metadata and data. */
struct eh {
	uint8_t meta[512], data[512];
	size_t mlen, dlen;
};

static void put(uint8_t *b, size_t *len, size_t cap, const void *p, size_t n)
{
	if (*len + n > cap) {
		fprintf(stderr, "otlp-provider: event too big\n");
		exit(1);
	}
	memcpy(b + *len, p, n);
	*len += n;
}

/* A field's metadata: name, encoding, format (a struct's: its field count). */
static void def(struct eh *e, const char *name, uint8_t enc, uint8_t fmt)
{
	uint8_t b[2] = { (uint8_t)(enc | (fmt ? 0x80 : 0)), fmt };

	put(e->meta, &e->mlen, sizeof(e->meta), name, strlen(name) + 1);
	put(e->meta, &e->mlen, sizeof(e->meta), b, fmt ? 2 : 1);
}

/* A little-endian scalar of 1 << (enc - 2) bytes. */
static void val(struct eh *e, const char *name, uint8_t enc, uint8_t fmt, uint64_t v)
{
	uint8_t b[8];
	size_t n = (size_t)1 << (enc - E_V8);

	def(e, name, enc, fmt);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(e->data, &e->dlen, sizeof(e->data), b, n);
}

/* A counted string (StringLength16Char8) or binary (BinaryLength16Char8). */
static void counted(struct eh *e, const char *name, uint8_t enc, uint8_t fmt, const void *p, size_t n)
{
	uint8_t b[2] = { (uint8_t)n, (uint8_t)(n >> 8) };

	def(e, name, enc, fmt);
	put(e->data, &e->dlen, sizeof(e->data), b, 2);
	put(e->data, &e->dlen, sizeof(e->data), p, n);
}

static void zstr(struct eh *e, const char *name, const char *s)
{
	def(e, name, E_Z8, F_DEF);
	put(e->data, &e->dlen, sizeof(e->data), s, strlen(s) + 1);
}

static void cstr(struct eh *e, const char *name, const char *s)
{
	counted(e, name, E_S8, F_DEF, s, strlen(s));
}

/*
 * Register @tpname (EventHeader's six fields) and write the header, the
 * activity extension (when @act: 16 bytes, or 32 with the related ID),
 * the metadata extension and the data, once it is enabled.  Return 1 when
 * written, 0 when not taken, -1 on errors.
 */
static int eh_write(struct ue_provider *p, const char *tpname, uint8_t level, uint16_t id, uint8_t opcode,
		    const uint8_t *act, size_t actlen, const struct eh *e, long long *t0, long long *t1)
{
	static struct ue_tracepoint tps[16];
	static char names[16][128];
	static int ntps;
	struct ue_tracepoint *tp;
	uint8_t hdr[8] = { 7, 1, (uint8_t)id, (uint8_t)(id >> 8), 0, 0, opcode, level };
	uint8_t ah[4] = { (uint8_t)actlen, 0, 2, 0x80 };	/* activity ID, another follows */
	uint8_t mh[4] = { (uint8_t)e->mlen, (uint8_t)(e->mlen >> 8), 1, 0 };	/* metadata, last */
	struct iovec iov[6];
	int n = 0, r;

	if (ntps == 16)
		return -1;
	tp = &tps[ntps];
	snprintf(names[ntps], sizeof(names[ntps]), "%s%s", tpname, EH_FIELDS);
	tp->name_args = names[ntps++];
	r = ue_tracepoint_register(p, tp, NULL);
	if (r < 0) {
		fprintf(stderr, "otlp-provider: register %s: %s\n", tpname, strerror(-r));
		return -1;
	}
	wait_enabled(tp);
	iov[n++] = (struct iovec){ hdr, 8 };
	if (act) {
		iov[n++] = (struct iovec){ ah, 4 };
		iov[n++] = (struct iovec){ (void *)act, actlen };
	}
	iov[n++] = (struct iovec){ mh, 4 };
	iov[n++] = (struct iovec){ (void *)e->meta, e->mlen };
	iov[n++] = (struct iovec){ (void *)e->data, e->dlen };
	*t0 = now_ns();
	r = ue_tracepoint_writev(tp, iov, n);
	*t1 = now_ns();
	return taken(r, tpname);
}

static const uint8_t act_id[16] = { 0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
				    0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36 };
static const uint8_t rel_id[16] = { 0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7,
				    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };

static int eventheader(struct ue_provider *p)
{
	static const uint8_t bin[6] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01 };
	uint8_t act[32];
	struct eh e = { 0 };
	long long t0, t1;
	double f = 2.5;
	uint64_t fbits;
	int first = 1, r;

	/* EhEvent: typed fields, activity and related IDs, level 4, keyword 3. */
	memcpy(&fbits, &f, 8);
	memcpy(act, act_id, 16);
	memcpy(act + 16, rel_id, 16);
	put(e.meta, &e.mlen, sizeof(e.meta), "EhEvent", 8);
	val(&e, "seq", E_V32, F_UNS, 0);
	val(&e, "eh_u32", E_V32, F_DEF, 4000000000u);
	val(&e, "eh_i64", E_V64, F_SIG, (uint64_t)-5000000000LL);
	val(&e, "eh_bool", E_V8, F_BOOL, 1);
	val(&e, "eh_f64", E_V64, F_FLOAT, fbits);
	cstr(&e, "eh_cstr", "counted string");
	zstr(&e, "eh_zstr", "zero-terminated");
	counted(&e, "eh_bin", E_BIN, F_DEF, bin, sizeof(bin));
	r = eh_write(p, "OtlpEh_L4K3", 4, 42, 0, act, 32, &e, &t0, &t1);
	if (r < 0)
		return -1;
	if (r) {
		fprintf(out, "{\"event\":\"EhEvent\",\"tracepoint\":\"OtlpEh_L4K3\",\"provider\":\"OtlpEh\","
			"\"level\":4,\"keyword\":3,\"id\":42,\"version\":1,\"opcode\":0,\"activity\":\"");
		hex(act_id, 16);
		fprintf(out, "\",\"related\":\"");
		hex(rel_id, 16);
		fprintf(out, "\",\"t0\":%lld,\"t1\":%lld,\"fields\":[", t0, t1);
		mf(&first, "seq", "int", "\"0\"");
		mf(&first, "eh_u32", "int", "\"4000000000\"");
		mf(&first, "eh_i64", "int", "\"-5000000000\"");
		mf(&first, "eh_bool", "bool", "true");
		mf(&first, "eh_f64", "double", "2.5");
		mf(&first, "eh_cstr", "string", "\"counted string\"");
		mf(&first, "eh_zstr", "string", "\"zero-terminated\"");
		mf(&first, "eh_bin", "bytes", "\"deadbeef0001\"");
		fprintf(out, "]}\n");
	}

	/*
	 * EhLevel<l>: one field, on OtlpEh_L<l>K1, for each level; level 4's
	 * with the activity ID OpenTelemetry's exporters give a span: its
	 * span ID and 8 zero bytes.
	 */
	for (unsigned int l = 1; l <= 5; l++) {
		static const uint8_t span_act[16] = { 0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7 };
		char tpname[32], name[16];

		memset(&e, 0, sizeof(e));
		snprintf(tpname, sizeof(tpname), "OtlpEh_L%uK1", l);
		snprintf(name, sizeof(name), "EhLevel%u", l);
		put(e.meta, &e.mlen, sizeof(e.meta), name, strlen(name) + 1);
		val(&e, "seq", E_V32, F_UNS, l);
		r = eh_write(p, tpname, (uint8_t)l, (uint16_t)l, 0, l == 4 ? span_act : NULL, l == 4 ? 16 : 0,
			     &e, &t0, &t1);
		if (r < 0)
			return -1;
		if (!r)
			continue;
		fprintf(out, "{\"event\":\"%s\",\"tracepoint\":\"%s\",\"provider\":\"OtlpEh\",\"level\":%u,"
			"\"keyword\":1,", name, tpname, l);
		if (l == 4) {
			fprintf(out, "\"activity\":\"");
			hex(span_act, 16);
			fprintf(out, "\",");
		}
		fprintf(out, "\"t0\":%lld,\"t1\":%lld,\"fields\":[[\"seq\",\"int\",\"%u\"]]}\n", t0, t1, l);
	}
	return 0;
}

/*
 * A Common Schema log as the OpenTelemetry user_events logs exporter
 * (opentelemetry-rust-contrib) writes it: __csver__, then PartA (time as
 * RFC 3339, ext_dt with the trace and span IDs in hex), PartC (the
 * attributes), PartB (_typeName Log, body, severityNumber, severityText,
 * eventId, name).  Its time is 2 s before the write, so that it can be
 * told from the record's.
 */
static int common_schema(struct ue_provider *p)
{
	struct eh e = { 0 };
	long long t0, t1, when = now_ns() - 2000000000LL + 123;
	time_t sec = (time_t)(when / 1000000000LL);
	struct tm tm;
	char stamp[64];
	double f = 0.25;
	uint64_t fbits;
	int first = 1, r;

	gmtime_r(&sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), ".%09lld+00:00", when % 1000000000LL);
	memcpy(&fbits, &f, 8);
	put(e.meta, &e.mlen, sizeof(e.meta), "CsEvent", 8);
	val(&e, "__csver__", E_V32, F_UNS, 0x400);
	def(&e, "PartA", E_STRUCT, 2);
	cstr(&e, "time", stamp);
	def(&e, "ext_dt", E_STRUCT, 2);
	cstr(&e, "traceId", "0af7651916cd43dd8448eb211c80319c");
	cstr(&e, "spanId", "b7ad6b7169203331");
	def(&e, "PartC", E_STRUCT, 4);
	val(&e, "user_id", E_V64, F_SIG, 12345);
	val(&e, "ok", E_V8, F_BOOL, 1);
	val(&e, "ratio", E_V64, F_FLOAT, fbits);
	cstr(&e, "note", "a note");
	def(&e, "PartB", E_STRUCT, 6);
	cstr(&e, "_typeName", "Log");
	cstr(&e, "body", "the body");
	val(&e, "severityNumber", E_V16, F_SIG, 14);
	cstr(&e, "severityText", "WARN2");
	val(&e, "eventId", E_V64, F_SIG, 7);
	cstr(&e, "name", "CsEvent");
	r = eh_write(p, "OtlpCs_L3K1", 3, 0, 0, NULL, 0, &e, &t0, &t1);
	if (r > 0) {
		fprintf(out, "{\"event\":\"CsEvent\",\"tracepoint\":\"OtlpCs_L3K1\",\"provider\":\"OtlpCs\","
			"\"level\":3,\"keyword\":1,\"t0\":%lld,\"t1\":%lld,\"cs\":{\"time\":\"%s\","
			"\"timeUnixNano\":\"%lld\",\"traceId\":\"0af7651916cd43dd8448eb211c80319c\","
			"\"spanId\":\"b7ad6b7169203331\",\"body\":\"the body\",\"severityNumber\":14,"
			"\"severityText\":\"WARN2\",\"eventId\":7,\"name\":\"CsEvent\"},\"fields\":[",
			t0, t1, stamp, when);
		mf(&first, "user_id", "int", "\"12345\"");
		mf(&first, "ok", "bool", "true");
		mf(&first, "ratio", "double", "0.25");
		mf(&first, "note", "string", "\"a note\"");
		fprintf(out, "]}\n");
	}
	return r < 0 ? -1 : 0;
}

static int metrics(struct ue_provider *p, const char *file)
{
	static uint8_t buf[UE_MAX_PAYLOAD];
	FILE *f = fopen(file, "rb");
	size_t n;
	long long t0, t1;
	int r;

	if (!f) {
		perror(file);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	r = ue_otlp_metrics_register(p);
	if (r < 0) {
		fprintf(stderr, "otlp-provider: register otlp_metrics: %s\n", strerror(-r));
		return -1;
	}
	wait_enabled(&ue_otlp_metrics_tp);
	t0 = now_ns();
	r = ue_otlp_metrics_write(0, "v0.19.00", buf, (uint32_t)n);
	t1 = now_ns();
	if (taken(r, "otlp_metrics"))
		fprintf(out, "{\"event\":\"otlp_metrics\",\"t0\":%lld,\"t1\":%lld,\"length\":%zu}\n", t0, t1, n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 0, burst = 0;
	long interval = 0;
	const char *mfile = NULL;
	int c, eh = 0, r = 0;
	bool native;
	struct ue_provider *p;

	out = stdout;
	while ((c = getopt(argc, argv, "n:b:i:Em:w:o:")) != -1) {
		if (c == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (c == 'b')
			burst = strtoul(optarg, NULL, 10);
		else if (c == 'i')
			interval = strtol(optarg, NULL, 10);
		else if (c == 'E')
			eh = 1;
		else if (c == 'm')
			mfile = optarg;
		else if (c == 'w')
			wait_ms = strtol(optarg, NULL, 10);
		else if (c == 'o' && !(out = fopen(optarg, "w"))) {
			perror(optarg);
			return 1;
		} else if (c != 'o') {
			fprintf(stderr, "usage: otlp-provider [-n N] [-b BURST] [-i MS] [-E] [-m FILE] [-w MS] "
				"[-o MANIFEST]\n");
			return 1;
		}
	}
	setvbuf(out, NULL, _IOLBF, 0);
	r = ue_provider_open(NULL, &p);
	if (r < 0) {
		fprintf(stderr, "otlp-provider: open: %s\n", strerror(-r));
		return 1;
	}
	native = ue_provider_native(p);
	if ((n && plain(p, n, burst, interval) < 0) || (eh && (eventheader(p) < 0 || common_schema(p) < 0)) ||
	    (mfile && metrics(p, mfile) < 0))
		r = 1;
	ue_provider_close(p);
	fprintf(out, "{\"summary\":{\"written\":%lu,\"refused\":%lu,\"pid\":%d,\"native\":%s,\"end\":%lld}}\n",
		written, refused, (int)getpid(), native ? "true" : "false", now_ns());
	if (out != stdout && fclose(out))
		r = 1;
	return r ? 1 : refused ? 3 : 0;
}
