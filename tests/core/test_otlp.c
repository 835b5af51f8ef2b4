// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/otlp.c and otlp-any.c: protobuf bytes checked field by field and
 * decoded by protoc --decode_raw (an independent reader), OTLP/JSON text,
 * UTF-8 repair, the buffer bound, partial_success read back, EventHeader's
 * JSON fields as AnyValues.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "otlp.h"

static char hex[8192];

static const char *tohex(const uint8_t *p, long n)
{
	hex[0] = '\0';
	for (long i = 0; i < n && (size_t)(i * 2 + 3) < sizeof(hex); i++)
		sprintf(hex + 2 * i, "%02x", p[i]);
	return hex;
}

/* One LogRecord with one attribute of each scalar type. */
static long sample(uint8_t *buf, size_t cap, bool json)
{
	static const uint8_t bytes[] = { 0x00, 0xff, 0x10 };
	static const uint8_t trace[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct uo_w w;

	uo_init(&w, buf, cap, json);
	uo_array(&w, UO_REQ_RESOURCE_LOGS, "resourceLogs");
	uo_begin(&w, 0, NULL);
	uo_begin(&w, UO_RL_RESOURCE, "resource");
	uo_array(&w, UO_RES_ATTRIBUTES, "attributes");
	uo_kv_int(&w, "process.pid", 42);
	uo_array_end(&w);
	uo_end(&w);
	uo_array(&w, UO_RL_SCOPE_LOGS, "scopeLogs");
	uo_begin(&w, 0, NULL);
	uo_begin(&w, UO_SL_SCOPE, "scope");
	uo_str(&w, UO_SCOPE_NAME, "name", "user_events", 11);
	uo_end(&w);
	uo_array(&w, UO_SL_LOG_RECORDS, "logRecords");
	uo_begin(&w, 0, NULL);
	uo_fixed64(&w, UO_LR_TIME, "timeUnixNano", 1000000000123ull);
	uo_uint32(&w, UO_LR_SEVERITY_NUMBER, "severityNumber", 9);
	uo_id(&w, UO_LR_TRACE_ID, "traceId", trace, 16);
	uo_str(&w, UO_LR_EVENT_NAME, "eventName", "ev", 2);
	uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
	uo_kv_int(&w, "neg", -2);
	uo_kv_str(&w, "s", "a\"b", 3);
	uo_kv_bytes(&w, "b", bytes, 3);
	uo_kv_bool(&w, "t", true);
	uo_kv_double(&w, "d", 0.5);
	uo_array_end(&w);
	uo_end(&w);
	uo_array_end(&w);
	uo_end(&w);
	uo_array_end(&w);
	uo_end(&w);
	uo_array_end(&w);
	return uo_finish(&w);
}

TEST(protobuf_fields)
{
	uint8_t buf[1024];
	struct uo_w w;
	long n;

	/* KeyValue{key "k", value AnyValue{int_value -2}}: -2 is a 10-byte varint. */
	uo_init(&w, buf, sizeof(buf), false);
	uo_array(&w, UO_RES_ATTRIBUTES, "attributes");
	uo_kv_int(&w, "k", -2);
	uo_array_end(&w);
	n = uo_finish(&w);
	ASSERT_EQ(n, 18);
	EXPECT_STREQ(tohex(buf, n), "0a100a016b120b18feffffffffffffffff01");
	/* fixed64 little-endian, enum varint, string */
	uo_init(&w, buf, sizeof(buf), false);
	uo_fixed64(&w, UO_LR_TIME, "timeUnixNano", 0x0102030405060708ull);
	uo_uint32(&w, UO_LR_SEVERITY_NUMBER, "severityNumber", 300);
	uo_str(&w, UO_LR_EVENT_NAME, "eventName", "x", 1);
	n = uo_finish(&w);
	EXPECT_STREQ(tohex(buf, n), "090807060504030201" "10ac02" "620178");
}

TEST(protobuf_long_body_length)
{
	static uint8_t buf[4096];
	char s[300];
	struct uo_w w;
	long n;

	memset(s, 'a', sizeof(s));
	uo_init(&w, buf, sizeof(buf), false);
	uo_begin(&w, 5, "body");
	uo_str(&w, 1, "stringValue", s, sizeof(s));
	uo_end(&w);
	n = uo_finish(&w);
	/* tag 5/LEN, length 303 (af 02), then tag 1/LEN, length 300 (ac 02), then the text */
	ASSERT_EQ(n, 1 + 2 + 1 + 2 + 300);
	EXPECT_STREQ(tohex(buf, 6), "2aaf020aac02");
	EXPECT_EQ(buf[6], 'a');
	EXPECT_EQ(buf[n - 1], 'a');
}

TEST(protobuf_decode_raw)
{
	static uint8_t buf[2048];
	char path[] = "/tmp/test-otlp-XXXXXX", cmd[256], out[8192];
	long n = sample(buf, sizeof(buf), false);
	size_t got;
	FILE *p;
	int fd;

	ASSERT_GE(n, 1);
	if (system("command -v protoc >/dev/null 2>&1") != 0) {
		ue_test_skipped = "protoc not installed (protobuf-compiler, scripts/deps.txt)";
		return;
	}
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, buf, (size_t)n), n);
	close(fd);
	snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s", path);
	p = popen(cmd, "r");
	ASSERT_TRUE(p != NULL);
	got = fread(out, 1, sizeof(out) - 1, p);
	out[got] = '\0';
	EXPECT_EQ(pclose(p), 0);
	unlink(path);
	/* protoc's own reading of each field (fixed64 as hex, varints as numbers) */
	EXPECT_TRUE(strstr(out, "1: \"process.pid\"") != NULL);
	EXPECT_TRUE(strstr(out, "3: 42") != NULL);
	EXPECT_TRUE(strstr(out, "1: \"user_events\"") != NULL);
	EXPECT_TRUE(strstr(out, "1: 0x000000e8d4a5107b") != NULL);	/* time_unix_nano */
	EXPECT_TRUE(strstr(out, "2: 9") != NULL);			/* severity_number */
	EXPECT_TRUE(strstr(out, "12: \"ev\"") != NULL);			/* event_name */
	EXPECT_TRUE(strstr(out, "3: 18446744073709551614") != NULL);	/* int_value -2 */
	EXPECT_TRUE(strstr(out, "1: \"a\\\"b\"") != NULL);
	EXPECT_TRUE(strstr(out, "7: \"\\000\\377\\020\"") != NULL);	/* bytes_value */
	EXPECT_TRUE(strstr(out, "2: 1") != NULL);			/* bool_value */
	EXPECT_TRUE(strstr(out, "4: 0x3fe0000000000000") != NULL);	/* double 0.5 */
	EXPECT_TRUE(strstr(out, "9: \"\\001\\002\\003\\004") != NULL);	/* trace_id */
	if (ue_test_failed)
		fprintf(stderr, "%s", out);
}

TEST(json_mapping)
{
	static uint8_t buf[2048];
	long n = sample(buf, sizeof(buf) - 1, true);

	ASSERT_GE(n, 1);
	buf[n] = '\0';
	EXPECT_STREQ((char *)buf,
		     "{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":\"process.pid\","
		     "\"value\":{\"intValue\":\"42\"}}]},\"scopeLogs\":[{\"scope\":{\"name\":"
		     "\"user_events\"},\"logRecords\":[{\"timeUnixNano\":\"1000000000123\","
		     "\"severityNumber\":9,\"traceId\":\"0102030405060708090a0b0c0d0e0f10\","
		     "\"eventName\":\"ev\",\"attributes\":[{\"key\":\"neg\",\"value\":{\"intValue\":"
		     "\"-2\"}},{\"key\":\"s\",\"value\":{\"stringValue\":\"a\\\"b\"}},{\"key\":\"b\","
		     "\"value\":{\"bytesValue\":\"AP8Q\"}},{\"key\":\"t\",\"value\":{\"boolValue\":"
		     "true}},{\"key\":\"d\",\"value\":{\"doubleValue\":0.5}}]}]}]}]}");
}

TEST(utf8_repaired)
{
	uint8_t buf[64];
	struct uo_w w;
	long n;

	/* A lone 0xff, a truncated sequence and a surrogate: each byte a U+FFFD. */
	uo_init(&w, buf, sizeof(buf), false);
	uo_str(&w, 1, "s", "a\xff" "b\xc3", 4);
	n = uo_finish(&w);
	EXPECT_STREQ(tohex(buf, n), "0a0861efbfbd62efbfbd");
	uo_init(&w, buf, sizeof(buf), true);
	uo_str(&w, 1, "s", "\x01\xed\xa0\x80", 4);
	n = uo_finish(&w);
	ASSERT_GE(n, 0);
	buf[n] = '\0';
	EXPECT_STREQ((char *)buf, "{\"s\":\"\\u0001\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"}");
}

TEST(bounded)
{
	uint8_t buf[2048];
	long full = sample(buf, sizeof(buf), false);

	ASSERT_GE(full, 1);
	/* Every cap short of the whole: -E2BIG, never a write past it (ASan would say). */
	for (size_t cap = 0; cap < (size_t)full; cap++) {
		uint8_t *b = malloc(cap ? cap : 1);

		ASSERT_TRUE(b != NULL);
		EXPECT_ERRNO(sample(b, cap, false), E2BIG);
		EXPECT_ERRNO(sample(b, cap, true), E2BIG);
		free(b);
	}
	EXPECT_EQ(sample(buf, (size_t)full, false), full);
}

/* Three LogRecords in a ScopeLogs, each with a string attribute of @n bytes, then a text from JSON. */
static long three_records(uint8_t *buf, size_t cap, size_t n)
{
	char s[64];
	struct uo_w w;

	memset(s, 'a', sizeof(s));
	uo_init(&w, buf, cap, false);
	uo_array(&w, UO_RL_SCOPE_LOGS, "scopeLogs");
	uo_begin(&w, 0, NULL);
	uo_array(&w, UO_SL_LOG_RECORDS, "logRecords");
	for (int k = 0; k < 3; k++) {
		uo_begin(&w, 0, NULL);
		uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
		uo_kv_str(&w, "s", s, n);
		uo_array_end(&w);
		uo_str_json(&w, UO_LR_SEVERITY_TEXT, "severityText", "a\\\"b\\u00e9", 10);
		uo_end(&w);
	}
	uo_array_end(&w);
	uo_end(&w);
	uo_array_end(&w);
	return uo_finish(&w);
}

TEST(bound_as_reserved)
{
	static uint8_t buf[4096], ref[4096];
	long n = three_records(ref, sizeof(ref), 60), got;
	size_t cap;

	ASSERT_GE(n, 1);
	/*
	 * A text from JSON is unescaped into the room left beyond what the
	 * open messages' lengths may take: the smallest buffer that holds
	 * these is larger than they are, by what the encoder that wrote the
	 * lengths reserved in full needed (so a batch splits where it did),
	 * and any larger one gives the same bytes.
	 */
	for (cap = 0; (got = three_records(buf, cap, 60)) < 0; cap++)
		EXPECT_EQ(got, -E2BIG);
	EXPECT_EQ(got, n);
	EXPECT_EQ(cap, (size_t)n + 14);
	for (; cap < (size_t)n + 300; cap += 7) {
		memset(buf, 0xee, sizeof(buf));
		ASSERT_EQ(three_records(buf, cap, 60), n);
		EXPECT_EQ(memcmp(buf, ref, (size_t)n), 0);
	}
}

/* A field made once by uo_prep_str() and written by uo_put_prep() is uo_str()'s. */
TEST(prepared_fields)
{
	static const char name[] = "a\"b\xff\xc3\xa9";	/* a quote, a byte to repair, é */
	uint8_t a[512], b[512], key[64];
	struct uo_w w;
	long na, nb, nk;

	for (int json = 0; json < 2; json++) {
		uo_init(&w, a, sizeof(a), json);
		uo_fixed64(&w, UO_LR_TIME, "timeUnixNano", 7);
		uo_str(&w, UO_LR_EVENT_NAME, "eventName", name, 6);
		uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
		for (int i = 0; i < 2; i++) {
			uo_kv_begin(&w, name, 6);
			uo_any_int(&w, i);
			uo_kv_end(&w);
		}
		uo_array_end(&w);
		na = uo_finish(&w);
		ASSERT_GE(na, 1);

		nk = uo_prep_str(json, UO_LR_EVENT_NAME, "eventName", name, 6, key, sizeof(key));
		ASSERT_GE(nk, 1);
		uo_init(&w, b, sizeof(b), json);
		uo_fixed64(&w, UO_LR_TIME, "timeUnixNano", 7);
		uo_put_prep(&w, key, (size_t)nk);
		nk = uo_prep_str(json, UO_KV_KEY, "key", name, 6, key, sizeof(key));
		ASSERT_GE(nk, 1);
		uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
		for (int i = 0; i < 2; i++) {
			uo_kv_begin_prep(&w, key, (size_t)nk);
			uo_any_int(&w, i);
			uo_kv_end(&w);
		}
		uo_array_end(&w);
		nb = uo_finish(&w);
		ASSERT_EQ(nb, na);
		EXPECT_EQ(memcmp(a, b, (size_t)na), 0);
		/* What does not fit is said, and nothing is written past @cap. */
		memset(key, 0xee, sizeof(key));
		EXPECT_ERRNO(uo_prep_str(json, UO_KV_KEY, "key", name, 6, key, 4), E2BIG);
		EXPECT_EQ(key[4], 0xee);
	}
	EXPECT_STREQ(tohex(key, uo_prep_str(false, UO_KV_KEY, "key", "ab", 2, key, sizeof(key))),
		     "0a026162");
	nk = uo_prep_str(true, UO_KV_KEY, "key", "ab", 2, key, sizeof(key));
	key[nk] = '\0';
	EXPECT_STREQ((char *)key, "\"key\":\"ab\"");
}

TEST(unbalanced)
{
	uint8_t buf[64];
	struct uo_w w;

	uo_init(&w, buf, sizeof(buf), false);
	uo_begin(&w, 1, "a");
	EXPECT_ERRNO(uo_finish(&w), EINVAL);
	uo_init(&w, buf, sizeof(buf), true);
	uo_end(&w);
	EXPECT_ERRNO(uo_finish(&w), EINVAL);
	uo_init(&w, buf, sizeof(buf), false);
	for (int i = 0; i < UO_DEPTH + 2; i++)
		uo_begin(&w, 1, "a");
	EXPECT_ERRNO(uo_finish(&w), EINVAL);
}

TEST(elements_spliced)
{
	uint8_t e[256], out[512];
	struct uo_w el, w;
	long ne, n;

	for (int json = 0; json < 2; json++) {
		uo_init_elems(&el, e, sizeof(e), json, UO_SL_LOG_RECORDS);
		for (int i = 0; i < 2; i++) {
			uo_begin(&el, 0, NULL);
			uo_str(&el, UO_LR_EVENT_NAME, "eventName", "e", 1);
			uo_end(&el);
		}
		ne = uo_finish(&el);
		ASSERT_GE(ne, 1);
		uo_init(&w, out, sizeof(out) - 1, json);
		uo_array(&w, UO_SL_LOG_RECORDS, "logRecords");
		uo_splice(&w, e, (size_t)ne);
		uo_array_end(&w);
		n = uo_finish(&w);
		ASSERT_GE(n, 1);
		out[n] = '\0';
		if (json)
			EXPECT_STREQ((char *)out,
				     "{\"logRecords\":[{\"eventName\":\"e\"},{\"eventName\":\"e\"}]}");
		else
			EXPECT_STREQ(tohex(out, n), "1203620165" "1203620165");
	}
}

TEST(partial_success)
{
	static const uint8_t pb[] = { 0x0a, 0x07, 0x08, 0x05, 0x12, 0x03, 'b', 'a', 'd' };
	static const char js[] =
		"{\"partialSuccess\":{\"rejectedLogRecords\":\"7\",\"errorMessage\":\"too old\"}}";
	int64_t rej;
	char msg[32];

	EXPECT_EQ(uo_partial_success(pb, sizeof(pb), false, &rej, msg, sizeof(msg)), 0);
	EXPECT_EQ(rej, 5);
	EXPECT_STREQ(msg, "bad");
	EXPECT_EQ(uo_partial_success("", 0, false, &rej, msg, sizeof(msg)), 0);
	EXPECT_EQ(rej, 0);
	EXPECT_EQ(uo_partial_success(js, strlen(js), true, &rej, msg, sizeof(msg)), 0);
	EXPECT_EQ(rej, 7);
	EXPECT_STREQ(msg, "too old");
	EXPECT_EQ(uo_partial_success("{}", 2, true, &rej, msg, sizeof(msg)), 0);
	EXPECT_EQ(rej, 0);
	/* A length past the end. */
	EXPECT_ERRNO(uo_partial_success((const uint8_t[]){ 0x0a, 0x09, 0x08 }, 3, false, &rej, msg,
					sizeof(msg)),
		     EBADMSG);
}

struct seen {
	char names[8][32];
	int n;
};

static int see(void *arg, const struct uo_member *m)
{
	struct seen *s = arg;

	if (s->n < 8)
		snprintf(s->names[s->n++], 32, "%.*s=%.*s", (int)m->name_len, m->name,
			 (int)m->value_len, m->value);
	return 0;
}

TEST(eventheader_json_values)
{
	static const char fields[] =
		", \"n\": -5, \"big\": 18446744073709551615, \"f\": 1.5, \"s\": \"x\\u00e9\\n\""
		", \"a\": [ 1, 2 ], \"PartC\": { \"k\": true }, \"z\": null";
	uint8_t buf[1024];
	struct seen s = { 0 };
	struct uo_w w;
	long n;

	ASSERT_EQ(uo_json_members(fields, strlen(fields), see, &s), 0);
	ASSERT_EQ(s.n, 7);
	EXPECT_STREQ(s.names[0], "n=-5");
	EXPECT_STREQ(s.names[4], "a=[ 1, 2 ]");
	EXPECT_STREQ(s.names[5], "PartC={ \"k\": true }");
	/* As attributes: int, string (above INT64_MAX), double, string, array, kvlist, empty. */
	uo_init(&w, buf, sizeof(buf), true);
	uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
	for (int i = 0; i < s.n; i++) {
		const char *eq = strchr(s.names[i], '=');

		uo_kv_begin(&w, s.names[i], (size_t)(eq - s.names[i]));
		EXPECT_EQ(uo_any_json(&w, eq + 1, strlen(eq + 1)), 0);
		uo_kv_end(&w);
	}
	uo_array_end(&w);
	n = uo_finish(&w);
	ASSERT_GE(n, 1);
	buf[n] = '\0';
	EXPECT_TRUE(strstr((char *)buf, "{\"key\":\"n\",\"value\":{\"intValue\":\"-5\"}}") != NULL);
	EXPECT_TRUE(strstr((char *)buf, "\"stringValue\":\"18446744073709551615\"") != NULL);
	EXPECT_TRUE(strstr((char *)buf, "\"doubleValue\":1.5") != NULL);
	EXPECT_TRUE(strstr((char *)buf, "\"arrayValue\":{\"values\":[{\"intValue\":\"1\"},"
					"{\"intValue\":\"2\"}]}") != NULL);
	EXPECT_TRUE(strstr((char *)buf, "\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":"
					"{\"boolValue\":true}}]}") != NULL);
	EXPECT_TRUE(strstr((char *)buf, "{\"key\":\"z\",\"value\":{}}") != NULL);
	/* Protobuf: the string unescaped to UTF-8. */
	uo_init(&w, buf, sizeof(buf), false);
	uo_any_field(&w, UO_LR_BODY, "body");
	EXPECT_EQ(uo_any_json(&w, "\"x\\u00e9\\n\"", 11), 0);
	n = uo_finish(&w);
	EXPECT_STREQ(tohex(buf, n), "2a060a0478c3a90a");
	/* perf-decode's 6-byte form of a code point above U+10FFFF: repaired, both ways. */
	uo_init(&w, buf, sizeof(buf), false);
	uo_any_field(&w, UO_LR_BODY, "body");
	EXPECT_EQ(uo_any_json(&w, "\"\xfd\xbf\xbf\xbf\xbf\xbf\"", 8), 0);
	n = uo_finish(&w);
	EXPECT_STREQ(tohex(buf, n), "2a140a12efbfbdefbfbdefbfbdefbfbdefbfbdefbfbd");
	uo_init(&w, buf, sizeof(buf), true);
	uo_any_field(&w, UO_LR_BODY, "body");
	EXPECT_EQ(uo_any_json(&w, "\"a\\\"\xfd\"", 6), 0);
	n = uo_finish(&w);
	buf[n] = '\0';
	EXPECT_STREQ((char *)buf, "{\"body\":{\"stringValue\":\"a\\\"\xef\xbf\xbd\"}}");
	/* Not JSON, and too deep. */
	uo_init(&w, buf, sizeof(buf), false);
	EXPECT_ERRNO(uo_any_json(&w, "\"open", 5), EBADMSG);
	uo_init(&w, buf, sizeof(buf), false);
	EXPECT_ERRNO(uo_any_json(&w, "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]", 41), EBADMSG);
}
/* uo_kv_int_prep() writes what the nested messages would, for any value and key length. */
TEST(kv_int_prep_is_the_nested_messages)
{
	static const int64_t vals[] = { 0, 1, 127, 128, 300, -1, -128, INT64_MAX, INT64_MIN };
	static uint8_t a[8192], b[8192], key[512];
	char name[300];
	struct uo_w w;

	for (int json = 0; json < 2; json++) {
		for (size_t kl = 1; kl < sizeof(name); kl += 149) {
			long na, nb, nk;

			memset(name, 'k', kl);
			nk = uo_prep_str(json, UO_KV_KEY, "key", name, kl, key, sizeof(key));
			ASSERT_GE(nk, 1);
			uo_init(&w, a, sizeof(a), json);
			uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
			for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
				uo_kv_begin_prep(&w, key, (size_t)nk);
				uo_any_int(&w, vals[i]);
				uo_kv_end(&w);
			}
			uo_array_end(&w);
			na = uo_finish(&w);
			ASSERT_GE(na, 1);
			uo_init(&w, b, sizeof(b), json);
			uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
			for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
				uo_kv_int_prep(&w, key, (size_t)nk, vals[i]);
			uo_array_end(&w);
			nb = uo_finish(&w);
			ASSERT_EQ(nb, na);
			EXPECT_EQ(memcmp(a, b, (size_t)na), 0);
			/* Short of room: said, and nothing written past the end. */
			memset(b, 0xee, sizeof(b));
			uo_init(&w, b, (size_t)na / 2, json);
			uo_array(&w, UO_LR_ATTRIBUTES, "attributes");
			for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
				uo_kv_int_prep(&w, key, (size_t)nk, vals[i]);
			uo_array_end(&w);
			EXPECT_ERRNO(uo_finish(&w), E2BIG);
			EXPECT_EQ(b[na / 2], 0xee);
		}
	}
}

UE_TEST_MAIN()
