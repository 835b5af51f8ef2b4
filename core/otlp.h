/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * OTLP messages (opentelemetry-proto's ExportLogsServiceRequest and its
 * parts) written as protobuf or as OTLP/JSON into a caller's buffer, and the
 * partial_success of an Export*ServiceResponse read back.  Pure: no I/O, no
 * allocation; every write is bounded by the buffer (an overflow is sticky and
 * reported by uo_finish()), nesting by UO_DEPTH.
 */
#ifndef UE_CORE_OTLP_H
#define UE_CORE_OTLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UO_DEPTH 16	/* nested messages and arrays open at once */
#define UO_ANY_BYTES_MAX 65536	/* bytes of one binary value read from JSON (uo_any_json()) */

/* Field numbers of opentelemetry-proto v1 (logs, common, resource, collector). */
enum {
	UO_REQ_RESOURCE_LOGS = 1,		/* ExportLogsServiceRequest */
	UO_RL_RESOURCE = 1, UO_RL_SCOPE_LOGS = 2,	/* ResourceLogs */
	UO_RES_ATTRIBUTES = 1,			/* Resource */
	UO_SL_SCOPE = 1, UO_SL_LOG_RECORDS = 2,	/* ScopeLogs */
	UO_SCOPE_NAME = 1, UO_SCOPE_VERSION = 2,	/* InstrumentationScope */
	UO_LR_TIME = 1, UO_LR_SEVERITY_NUMBER = 2, UO_LR_SEVERITY_TEXT = 3, UO_LR_BODY = 5,
	UO_LR_ATTRIBUTES = 6, UO_LR_DROPPED = 7, UO_LR_FLAGS = 8, UO_LR_TRACE_ID = 9,
	UO_LR_SPAN_ID = 10, UO_LR_OBSERVED_TIME = 11, UO_LR_EVENT_NAME = 12,	/* LogRecord */
	UO_KV_KEY = 1, UO_KV_VALUE = 2,		/* KeyValue */
	UO_AV_STRING = 1, UO_AV_BOOL = 2, UO_AV_INT = 3, UO_AV_DOUBLE = 4, UO_AV_ARRAY = 5,
	UO_AV_KVLIST = 6, UO_AV_BYTES = 7,	/* AnyValue */
	UO_LIST_VALUES = 1,			/* ArrayValue.values, KeyValueList.values */
};

/* A message being written. */
struct uo_w {
	uint8_t *p;
	size_t cap, len;
	bool json;
	size_t slack;		/* protobuf: length bytes the open messages may still need */
	bool overflow;		/* something did not fit: uo_finish() says -E2BIG */
	bool bad;		/* unbalanced begin/end or too deep: -EINVAL */
	unsigned depth;
	uint32_t any_f;		/* uo_any_field(): where the next AnyValue goes */
	const char *any_name;
	struct {
		size_t start;	/* protobuf: where the length prefix was reserved */
		uint32_t field;	/* array: the repeated field's number */
		uint8_t reserved;	/* protobuf: bytes the length may take (one written first) */
		bool array, first;
	} st[UO_DEPTH];
};

/**
 * uo_init - start a message in @buf (@cap bytes)
 * @json: OTLP/JSON (camelCase names, int64 as strings, hex ids, base64 bytes) instead of protobuf
 */
void uo_init(struct uo_w *w, void *buf, size_t cap, bool json);

/**
 * uo_init_elems - start a run of array elements of field @f (uo_elem()), to
 * be uo_splice()d into an array of another writer of the same kind
 */
void uo_init_elems(struct uo_w *w, void *buf, size_t cap, bool json, uint32_t f);

/** uo_finish - close the top-level message; its length, -E2BIG (did not fit) or -EINVAL */
long uo_finish(struct uo_w *w);

/*
 * The fields.  @f is the protobuf field number, @name the JSON one; inside
 * an array (uo_array()) both are ignored: the elements are the array's.
 */

/** uo_begin - open a nested message field (uo_end() closes it) */
void uo_begin(struct uo_w *w, uint32_t f, const char *name);
void uo_end(struct uo_w *w);

/** uo_array - open a repeated field: the elements written until uo_array_end() */
void uo_array(struct uo_w *w, uint32_t f, const char *name);
void uo_array_end(struct uo_w *w);

/** uo_str - a string field; invalid UTF-8 is written as U+FFFD (protobuf strings must be UTF-8) */
void uo_str(struct uo_w *w, uint32_t f, const char *name, const void *s, size_t n);
/** uo_bytes - a bytes field (JSON: base64) */
void uo_bytes(struct uo_w *w, uint32_t f, const char *name, const void *p, size_t n);
/** uo_id - trace_id / span_id: bytes (JSON: lowercase hex, as OTLP/JSON says) */
void uo_id(struct uo_w *w, uint32_t f, const char *name, const void *p, size_t n);
/** uo_int64 - int64 (JSON: a decimal string) */
void uo_int64(struct uo_w *w, uint32_t f, const char *name, int64_t v);
/** uo_uint32 - uint32 or an enum (JSON: a number) */
void uo_uint32(struct uo_w *w, uint32_t f, const char *name, uint32_t v);
/** uo_fixed64 - fixed64 (JSON: a decimal string) */
void uo_fixed64(struct uo_w *w, uint32_t f, const char *name, uint64_t v);
void uo_double(struct uo_w *w, uint32_t f, const char *name, double v);
void uo_bool(struct uo_w *w, uint32_t f, const char *name, bool v);

/**
 * uo_elem - an array element already encoded as a message by another writer
 * (its uo_finish() bytes): protobuf tag and length added, JSON a separator
 */
void uo_elem(struct uo_w *w, const void *msg, size_t n);

/** uo_splice - elements that uo_elem() wrote into another writer of the same kind, as they are */
void uo_splice(struct uo_w *w, const void *elems, size_t n);

/*
 * Fields encoded once and written many times (a sink's per-event-format
 * parts): uo_prep_str() makes the bytes, uo_put_prep() writes them where
 * uo_str() would have.
 */

/**
 * uo_prep_str - the bytes uo_str(@f, @name, @s, @n) writes in a message (not in an array),
 * into @out (@cap bytes); with @json OTLP/JSON ("name":"...")
 *
 * Return: their length, or -E2BIG when they do not fit in @cap.
 */
long uo_prep_str(bool json, uint32_t f, const char *name, const void *s, size_t n, void *out,
		 size_t cap);

/** uo_put_prep - write a field uo_prep_str() made (JSON: with the separator it needs) */
void uo_put_prep(struct uo_w *w, const void *prep, size_t n);

/** uo_kv_begin_prep - uo_kv_begin() with the key a uo_prep_str(UO_KV_KEY, "key", ...) made */
void uo_kv_begin_prep(struct uo_w *w, const void *key, size_t n);

/**
 * uo_kv_int_prep - a whole attribute of an integer value, its key prepared
 * as for uo_kv_begin_prep(): the same bytes as uo_kv_begin_prep(),
 * uo_any_int() and uo_kv_end(), written at once in protobuf (no message
 * opened and closed: each length is known first)
 */
void uo_kv_int_prep(struct uo_w *w, const void *key, size_t n, int64_t v);

/* KeyValue attributes (in a uo_array() of them), AnyValue of each type. */
void uo_kv_str(struct uo_w *w, const char *key, const void *s, size_t n);
void uo_kv_int(struct uo_w *w, const char *key, int64_t v);
void uo_kv_bytes(struct uo_w *w, const char *key, const void *p, size_t n);
void uo_kv_double(struct uo_w *w, const char *key, double v);
void uo_kv_bool(struct uo_w *w, const char *key, bool v);
/** uo_kv_begin - a KeyValue whose AnyValue the caller writes (uo_any_*), then uo_kv_end() */
void uo_kv_begin(struct uo_w *w, const char *key, size_t key_len);
void uo_kv_end(struct uo_w *w);

/** uo_any_field - the next uo_any_*() is field @f / @name (LogRecord.body), not a kv's value */
void uo_any_field(struct uo_w *w, uint32_t f, const char *name);

/* AnyValue's alternatives, as the value of a uo_kv_begin() or an element of a uo_any_array(). */
void uo_any_str(struct uo_w *w, const void *s, size_t n);
void uo_any_int(struct uo_w *w, int64_t v);
void uo_any_bytes(struct uo_w *w, const void *p, size_t n);
void uo_any_double(struct uo_w *w, double v);
void uo_any_bool(struct uo_w *w, bool v);
/** uo_any_array / uo_any_kvlist - open an ArrayValue / KeyValueList (uo_any_close() ends it) */
void uo_any_array(struct uo_w *w);
void uo_any_kvlist(struct uo_w *w);
void uo_any_close(struct uo_w *w);

/* ---- JSON values as AnyValue (otlp-any.c): EventHeader fields as perf-decode shows them ---- */

/* One member of a JSON object: its name (still escaped) and its value's text. */
struct uo_member {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};

/**
 * uo_json_members - the members of a JSON object's body
 * @text: '"a": 1, "b": {...}' (a leading ',' or '{' and a trailing '}' are skipped)
 * @fn: called for each member; a non-zero return stops and is returned
 *
 * Return: 0, what @fn returned, or -EBADMSG (not such a text; what came before was seen).
 */
int uo_json_members(const char *text, size_t n, int (*fn)(void *arg, const struct uo_member *m),
		    void *arg);

/**
 * uo_any_json - write the JSON value @text as an AnyValue (uo_any_*: a kv's value or an array
 * element): integers as int_value (above INT64_MAX: string_value), other numbers as
 * double_value, strings (unescaped) as string_value, true/false as bool_value, arrays as
 * array_value, objects as kvlist_value, null as an empty AnyValue
 *
 * Return: 0, or -EBADMSG (nesting deeper than UO_DEPTH allows, or not JSON).
 */
int uo_any_json(struct uo_w *w, const char *text, size_t n);

/** uo_str_json - uo_str() of a JSON string's inside (@s, @n bytes, still escaped) */
void uo_str_json(struct uo_w *w, uint32_t f, const char *name, const char *s, size_t n);

/** uo_json_unescape - a JSON string's inside (@s, @n bytes) unescaped into @out; its length */
size_t uo_json_unescape(const char *s, size_t n, char *out, size_t cap);

/**
 * uo_partial_success - the partial_success of an ExportLogsServiceResponse
 * or ExportMetricsServiceResponse (field 1: its field 1, int64 rejected
 * records / data points; field 2, error_message)
 * @p, @n: the response body (protobuf, or JSON with @json)
 * @rejected: set to the count (0 when absent)
 * @msg: error_message, NUL-terminated, cut to @msg_cap (may be NULL)
 *
 * Return: 0, or -EBADMSG when the body is not such a message.
 */
int uo_partial_success(const void *p, size_t n, bool json, int64_t *rejected, char *msg,
		       size_t msg_cap);

#endif /* UE_CORE_OTLP_H */
