/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Records as text: the kernel's trace line for a user event (context prefix
 * and the fields printer every user event uses), the event size the ring
 * buffer reports, and our JSON rendering for the tools.  How a field prints
 * is derived from its type string, as the kernel derives its filter type.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "core.h"
#include "internal.h"
#include <stdlib.h>

#include "outbuf.h"

/* The kernel's filter types a user event field can have. */
enum print_class {
	PC_OTHER,		/* integers by size; 4-byte locations as byte arrays */
	PC_STATIC_STRING,	/* char[N] */
	PC_DYN_STRING,		/* __data_loc ... char */
	PC_RDYN_STRING,		/* __rel_loc ... char */
	PC_CPUMASK,		/* __data_loc cpumask_t: the fields printer has no case for it */
};

static enum print_class print_class(const char *type)
{
	if (strstr(type, "__data_loc")) {
		if (strstr(type, "char"))
			return PC_DYN_STRING;
		if (strstr(type, "cpumask_t"))
			return PC_CPUMASK;
	}
	if (strstr(type, "__rel_loc") && strstr(type, "char"))
		return PC_RDYN_STRING;
	if (strchr(type, '[') && strstr(type, "char"))
		return PC_STATIC_STRING;
	return PC_OTHER;
}

static bool is_printable(unsigned char c)
{
	/* The kernel's ctype table is Latin-1: 0xa0-0xff print too. */
	return (c >= 0x20 && c <= 0x7e) || c >= 0xa0;
}

static uint16_t load_u16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t load_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t load_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * A dynamic location read the way the fields printer reads it: the u32 as
 * an int, so a length of 0x8000 or more comes out negative.
 */
struct dyn_loc {
	int64_t offset;	/* from the start of the record */
	int64_t len;
	bool overflow;	/* the kernel prints <OVERFLOW> */
};

static struct dyn_loc read_dyn_loc(const struct ue_field *f, const unsigned char *pos,
				   size_t ent_size, bool rel)
{
	uint32_t loc = load_u32(pos);
	struct dyn_loc d;

	d.offset = loc & 0xffff;
	d.len = (int16_t)(loc >> 16);
	if (rel)
		d.offset += (int64_t)f->offset + (int64_t)sizeof(loc);
	/*
	 * The kernel's records stop at 4072 bytes, so a length of 0x8000 or more
	 * never fits one there; in usereventsd's larger records it can: read
	 * unsigned what the record holds.
	 */
	if (d.len < 0 && d.offset + (int64_t)(loc >> 16) <= (int64_t)ent_size)
		d.len = (int64_t)(loc >> 16);
	d.overflow = d.offset + d.len > (int64_t)ent_size;
	return d;
}

/* Bytes of a string starting at @off: up to @max, the first NUL, or the record's end. */
static size_t bounded_strlen(const unsigned char *rec, size_t ent_size, int64_t off, int64_t max)
{
	const unsigned char *nul;
	size_t avail;

	if (off < 0 || (uint64_t)off >= ent_size)
		return 0;
	avail = ent_size - (size_t)off;
	if (max >= 0 && (uint64_t)max < avail)
		avail = (size_t)max;
	nul = memchr(rec + off, '\0', avail);
	return nul ? (size_t)(nul - (rec + off)) : avail;
}

static bool fixed_part_fits(const struct ue_field *f, size_t ent_size)
{
	return (uint64_t)f->offset + f->size <= ent_size;
}

/**
 * ue_record_ent_size - size the kernel's ring buffer reports for a record
 * @record_len: UE_ENTRY_HDR_SIZE + payload length
 *
 * The ring buffer stores a record in 4-byte units after a 4-byte header;
 * records over 112 bytes keep their length in an extra word, and a 12-byte
 * slot is widened to 16.  What ring_buffer_event_length() then returns is
 * what the fields printer compares locations against: on x86-64 the record
 * length rounded up to 4, except that records of 5 to 8 bytes report 12.
 *
 * Return: the reported size, never smaller than @record_len.
 */
size_t ue_record_ent_size(size_t record_len)
{
	const size_t hdr = 4, align = 4, max_small = 28 * 4;
	size_t len = record_len ? record_len : 1;
	size_t stored, reported;

	if (len > SIZE_MAX - 16)
		return record_len;
	if (len > max_small)
		len += 4;	/* the length word */
	len = (len + hdr + align - 1) & ~(align - 1);
	if (len == 8 + align)
		len += align;	/* 12 would not fit a time extend plus padding */

	stored = len - hdr;
	if (stored > max_small)
		reported = stored;	/* length word + data */
	else
		reported = (stored + align - 1) / align * align;
	if (reported > max_small + 4)
		reported -= 4;
	return reported;
}

/**
 * ue_render_context - the line prefix of a trace line
 * @ctx: the record's context
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * "%16s-%-7d [%03d] " then the latency flags (when @ctx->lat_flags is not
 * NULL, as with the irq-info option, the default) and " %5lu.%06lu: ", the
 * time in microseconds rounded to nearest.  The task name shows as the
 * kernel shows it: "<idle>" for pid 0, "<...>" when unknown, at most 15
 * characters.
 *
 * Return: the length of the full text (as snprintf), or -EINVAL.
 */
int ue_render_context(const struct ue_record_ctx *ctx, char *buf, size_t len)
{
	const char *comm;
	struct outbuf ob;
	uint64_t usecs;

	if (!ctx)
		return -EINVAL;
	if (ctx->pid == 0)
		comm = "<idle>";
	else if (ctx->pid < 0)
		comm = "<XXX>";
	else
		comm = ctx->comm ? ctx->comm : "<...>";

	ob_init(&ob, buf, len);
	ob_printf(&ob, "%16.15s-%-7d [%03d] ", comm, ctx->pid, (int)ctx->cpu);
	if (ctx->lat_flags)
		ob_puts(&ob, ctx->lat_flags);
	usecs = (ctx->ts_ns + 500) / 1000;
	ob_printf(&ob, " %5" PRIu64 ".%06" PRIu64 ": ", usecs / 1000000, usecs % 1000000);
	return ob_finish(&ob);
}

static void put_byte_array(struct outbuf *ob, const unsigned char *rec, struct dyn_loc d)
{
	for (int64_t i = 0; i < d.len; i++)
		ob_printf(ob, "%s%02x", i ? "," : "", rec[d.offset + i]);
}

static void put_other(struct outbuf *ob, const struct ue_field *f, const unsigned char *rec,
		      size_t ent_size)
{
	const unsigned char *pos = rec + f->offset;
	struct dyn_loc d;

	switch (f->size) {
	case 1:
		if (is_printable(pos[0]))
			ob_printf(ob, "'%c'", pos[0]);
		ob_printf(ob, "(%d)", pos[0]);
		break;
	case 2:
		ob_printf(ob, "0x%x (%d)", load_u16(pos), load_u16(pos));
		break;
	case 4:
		if (strstr(f->type, "__data_loc") || strstr(f->type, "__rel_loc")) {
			d = read_dyn_loc(f, pos, ent_size, !strstr(f->type, "__data_loc"));
			if (d.overflow)
				ob_puts(ob, "<OVERFLOW>");
			else
				put_byte_array(ob, rec, d);
			break;
		}
		ob_printf(ob, "0x%x (%d)", load_u32(pos), (int32_t)load_u32(pos));
		break;
	case 8:
		ob_printf(ob, "0x%" PRIx64 " (%" PRId64 ")", load_u64(pos), (int64_t)load_u64(pos));
		break;
	default:
		ob_puts(ob, "<INVALID-SIZE>");
		break;
	}
}

static void put_field_text(struct outbuf *ob, const struct ue_field *f, const unsigned char *rec,
			   size_t ent_size)
{
	enum print_class pc = print_class(f->type);
	struct dyn_loc d;
	size_t n;

	ob_printf(ob, " %s=", f->name);
	if (!fixed_part_fits(f, ent_size)) {
		ob_puts(ob, "<OVERFLOW>");
		return;
	}
	switch (pc) {
	case PC_STATIC_STRING:
		ob_putn(ob, (const char *)rec + f->offset,
			bounded_strlen(rec, ent_size, f->offset, f->size));
		break;
	case PC_DYN_STRING:
	case PC_RDYN_STRING:
		d = read_dyn_loc(f, rec + f->offset, ent_size, pc == PC_RDYN_STRING);
		if (d.overflow) {
			ob_puts(ob, "<OVERFLOW>");
			break;
		}
		/*
		 * A negative length is "no precision" to the kernel's printf, which
		 * then reads up to a NUL wherever that is; we stop at the record's end.
		 */
		n = bounded_strlen(rec, ent_size, d.offset, d.len);
		if (n)
			ob_putn(ob, (const char *)rec + d.offset, n);
		break;
	case PC_CPUMASK:
		ob_puts(ob, "<INVALID-TYPE>");
		break;
	case PC_OTHER:
		put_other(ob, f, rec, ent_size);
		break;
	}
}

/**
 * ue_render_fields - the event part of a trace line, as the kernel prints it
 * @event: the event the record belongs to
 * @tp_name: the name shown
 * @record: common header followed by the payload; @ent_size bytes readable
 * @ent_size: the record's size as the ring buffer reports it
 *            (see ue_record_ent_size())
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * "NAME: a=0x1 (1) s=hello arr=0a,0b\n", or "NAME:No fields found\n".  Every
 * field is " name=" and then: 1 byte as 'c'(n) ('c' only when printable), 2
 * and 4 bytes as 0x%x (%d), 8 bytes as 0x%llx (%lld), other sizes as
 * <INVALID-SIZE>; char arrays and dynamic strings up to their first NUL;
 * other dynamic arrays as hex bytes joined by ','; <OVERFLOW> for a field or
 * location that ends past @ent_size.  Bytes are copied as they are, like
 * the kernel does.  Never reads outside [@record, @record + @ent_size).
 *
 * Return: the length of the full text (as snprintf), or -EINVAL.
 */
int ue_render_fields(const struct ue_event *event, const char *tp_name, const void *record,
		     size_t ent_size, char *buf, size_t len)
{
	const unsigned char *rec = record;
	struct outbuf ob;

	if (!ue_event_ok(event) || !tp_name || (!record && ent_size))
		return -EINVAL;
	ob_init(&ob, buf, len);
	ob_printf(&ob, "%s:", tp_name);
	if (!event->nfields)
		ob_puts(&ob, "No fields found");
	for (uint32_t i = 0; i < event->nfields; i++)
		put_field_text(&ob, &event->fields[i], rec, ent_size);
	ob_putc(&ob, '\n');
	return ob_finish(&ob);
}

/* Length of the well-formed UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	size_t need;
	uint32_t cp, min;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;	/* continuation byte, overlong lead or beyond U+10FFFF */
	if (s[0] < 0xe0) {
		need = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] < 0xf0) {
		need = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else {
		need = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	}
	if (need > n)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

/* Bytes a JSON string holds as they are: printable ASCII but '"' and '\\'. */
#define PLAIN16(b) 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const unsigned char json_plain[256] = {
	[0x20] = 1, 1, 0 /* '"' */, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[0x30] = PLAIN16(3), PLAIN16(4),
	[0x50] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* '\\' */, 1, 1, 1,
	[0x60] = PLAIN16(6),
	[0x70] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 /* DEL */,
};
#undef PLAIN16

/* @n bytes as a JSON string: well-formed UTF-8 kept, any other byte as \u00XX. */
static void put_json_string(struct outbuf *ob, const void *str, size_t n)
{
	const unsigned char *s = str;
	size_t i = 0, run;

	ob_putc(ob, '"');
	while (i < n) {
		unsigned char c = s[i];

		if (json_plain[c]) {
			/* A run of characters that need no escape: copied at once. */
			run = i + 1;
			while (run < n && json_plain[s[run]])
				run++;
			ob_putn(ob, (const char *)s + i, run - i);
			i = run;
			continue;
		}
		if (c >= 0x80) {
			run = utf8_seq_len(s + i, n - i);
			if (run) {
				ob_putn(ob, (const char *)s + i, run);
				i += run;
				continue;
			}
		}
		switch (c) {
		case '"': ob_puts(ob, "\\\""); break;
		case '\\': ob_puts(ob, "\\\\"); break;
		case '\b': ob_puts(ob, "\\b"); break;
		case '\f': ob_puts(ob, "\\f"); break;
		case '\n': ob_puts(ob, "\\n"); break;
		case '\r': ob_puts(ob, "\\r"); break;
		case '\t': ob_puts(ob, "\\t"); break;
		default: ob_printf(ob, "\\u%04x", c); break;
		}
		i++;
	}
	ob_putc(ob, '"');
}

static void put_json_cstr(struct outbuf *ob, const char *s)
{
	if (s)
		put_json_string(ob, s, strlen(s));
	else
		ob_puts(ob, "null");
}

static void put_json_hex(struct outbuf *ob, const unsigned char *p, size_t n)
{
	ob_putc(ob, '"');
	for (size_t i = 0; i < n; i++)
		ob_printf(ob, "%02x", p[i]);
	ob_putc(ob, '"');
}

static const char decimal_pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";

/* The two digits of @r (below 100) at @d. */
static inline void put_pair(char *d, uint32_t r)
{
	memcpy(d, decimal_pairs + 2 * r, 2);
}

/* @u in decimal, without a printf per number (a record's JSON has several). */
static void put_decimal(struct outbuf *ob, uint64_t u)
{
	static const uint64_t pow10[] = { 1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u,
					  10000000u, 100000000u, 1000000000u, 10000000000u,
					  100000000000u, 1000000000000u, 10000000000000u,
					  100000000000000u, 1000000000000000u, 10000000000000000u,
					  100000000000000000u, 1000000000000000000u,
					  10000000000000000000u };
	/* floor(bits * log10(2)): the digits are t, or t + 1 from 10^t on. */
	unsigned int t = ((64u - (unsigned int)__builtin_clzll(u | 1)) * 1233u) >> 12;
	size_t len = t + (u >= pow10[t]), n;
	char tmp[20], *d;
	uint32_t v;

	if (u < 10) {
		ob_putc(ob, (char)('0' + u));
		return;
	}
	/* Straight into the buffer when it has room, else through tmp (sizing, a short buffer). */
	d = ob->pos < ob->len && ob->len - 1 - ob->pos >= len ? ob->buf + ob->pos : tmp;
	n = len;
	/* Two digits a step in 32-bit arithmetic: the low eight after one 64-bit division. */
	while (u >= 100000000u) {
		uint32_t low = (uint32_t)(u % 100000000u);

		u /= 100000000u;
		for (int k = 0; k < 4; k++) {
			n -= 2;
			put_pair(d + n, low % 100);
			low /= 100;
		}
	}
	v = (uint32_t)u;
	while (v >= 100) {
		n -= 2;
		put_pair(d + n, v % 100);
		v /= 100;
	}
	if (v >= 10)
		put_pair(d + n - 2, v);
	else
		d[n - 1] = (char)('0' + v);
	if (d == tmp)
		ob_putn(ob, tmp, len);
	else
		ob->pos += len;
}

static void put_json_int(struct outbuf *ob, const struct ue_field *f, const unsigned char *pos)
{
	uint64_t u;
	int64_t s;

	switch (f->size) {
	case 1:
		u = pos[0];
		s = (int8_t)pos[0];
		break;
	case 2:
		u = load_u16(pos);
		s = (int16_t)load_u16(pos);
		break;
	case 4:
		u = load_u32(pos);
		s = (int32_t)load_u32(pos);
		break;
	default:
		u = load_u64(pos);
		s = (int64_t)load_u64(pos);
		break;
	}
	if (f->is_signed && s < 0) {
		ob_putc(ob, '-');
		u = (uint64_t)0 - (uint64_t)s;
	} else if (f->is_signed) {
		u = (uint64_t)s;
	}
	put_decimal(ob, u);
}

/* A dynamic location that lies wholly inside the record, or NULL in JSON. */
static void put_json_dyn(struct outbuf *ob, const struct ue_field *f, const unsigned char *rec,
			 size_t ent_size, bool rel, bool string)
{
	struct dyn_loc d = read_dyn_loc(f, rec + f->offset, ent_size, rel);

	if (d.overflow || d.len < 0) {
		ob_puts(ob, "null");
		return;
	}
	if (string) {
		put_json_string(ob, rec + d.offset, bounded_strlen(rec, ent_size, d.offset, d.len));
		return;
	}
	ob_putc(ob, '[');
	for (int64_t i = 0; i < d.len; i++)
		ob_printf(ob, "%s%u", i ? "," : "", rec[d.offset + i]);
	ob_putc(ob, ']');
}

/*
 * The OpenTelemetry metrics exporter's event (otlp_metrics: u32 protocol;
 * char[8] version; __rel_loc u8[] buffer) carries a protobuf: its buffer
 * in base64 (RFC 4648, padded) rather than as an array of numbers.
 */
static bool otlp_buffer(const char *tp_name, const struct ue_field *f)
{
	return f->size == 4 && strcmp(tp_name, "otlp_metrics") == 0 && strcmp(f->name, "buffer") == 0 &&
	       strcmp(f->type, "__rel_loc u8[]") == 0 && f->size == 4;
}

static void put_json_base64(struct outbuf *ob, const struct ue_field *f, const unsigned char *rec,
			    size_t ent_size)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct dyn_loc d;
	const unsigned char *p;

	if (!fixed_part_fits(f, ent_size)) {
		ob_puts(ob, "null");
		return;
	}
	d = read_dyn_loc(f, rec + f->offset, ent_size, true);
	if (d.overflow || d.len < 0) {
		ob_puts(ob, "null");
		return;
	}
	p = rec + d.offset;
	ob_putc(ob, '"');
	for (int64_t i = 0; i < d.len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < d.len ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < d.len ? p[i + 2] : 0);
		char q[4] = { b64[v >> 18], b64[(v >> 12) & 63],
			      i + 1 < d.len ? b64[(v >> 6) & 63] : '=', i + 2 < d.len ? b64[v & 63] : '=' };

		ob_putn(ob, q, 4);
	}
	ob_putc(ob, '"');
}

/* An integer field JSON shows as a string of hex bytes: a struct, or not 1, 2, 4 or 8 bytes. */
static bool json_hex(const struct ue_field *f)
{
	return (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
	       strncmp(f->type, "struct ", 7) == 0;
}

static void put_field_json_as(struct outbuf *ob, const struct ue_field *f,
			      const unsigned char *rec, size_t ent_size, bool hex);

static void put_field_json(struct outbuf *ob, const struct ue_field *f, const unsigned char *rec,
			   size_t ent_size)
{
	put_field_json_as(ob, f, rec, ent_size, json_hex(f));
}

static void put_field_json_as(struct outbuf *ob, const struct ue_field *f,
			      const unsigned char *rec, size_t ent_size, bool hex)
{
	const unsigned char *pos = rec + f->offset;

	if (!fixed_part_fits(f, ent_size)) {
		ob_puts(ob, "null");
		return;
	}
	/* The field's kind, classified once from its type when it was parsed. */
	switch (f->kind) {
	case UE_FIELD_STATIC_STRING:
		put_json_string(ob, pos, bounded_strlen(rec, ent_size, f->offset, f->size));
		return;
	case UE_FIELD_DYN_STRING:
		put_json_dyn(ob, f, rec, ent_size, false, true);
		return;
	case UE_FIELD_RDYN_STRING:
		put_json_dyn(ob, f, rec, ent_size, true, true);
		return;
	case UE_FIELD_CPUMASK:
	case UE_FIELD_DATA_LOC:
		put_json_dyn(ob, f, rec, ent_size, false, false);
		return;
	case UE_FIELD_REL_LOC:
		put_json_dyn(ob, f, rec, ent_size, true, false);
		return;
	case UE_FIELD_INT:
		break;
	}
	if (hex)
		put_json_hex(ob, pos, f->size);
	else
		put_json_int(ob, f, pos);
}

/* A dynamic location's bytes, or UE_VAL_NULL, as put_json_dyn() reads them. */
static enum ue_value_kind dyn_value(const struct ue_field *f, const unsigned char *rec,
				   size_t ent_size, bool rel, bool string, struct ue_value *v)
{
	struct dyn_loc d = read_dyn_loc(f, rec + f->offset, ent_size, rel);

	if (d.overflow || d.len < 0)
		return v->kind = UE_VAL_NULL;
	v->p = rec + d.offset;
	v->len = string ? bounded_strlen(rec, ent_size, d.offset, d.len) : (size_t)d.len;
	return v->kind = string ? UE_VAL_STRING : UE_VAL_BYTES;
}

enum ue_value_kind ue_field_value(const struct ue_field *f, const void *record, size_t ent_size,
				  struct ue_value *v)
{
	const unsigned char *rec = record, *pos = rec + f->offset;

	memset(v, 0, sizeof(*v));
	if (!fixed_part_fits(f, ent_size))
		return v->kind = UE_VAL_NULL;
	switch (f->kind) {
	case UE_FIELD_STATIC_STRING:
		v->p = pos;
		v->len = bounded_strlen(rec, ent_size, f->offset, f->size);
		return v->kind = UE_VAL_STRING;
	case UE_FIELD_DYN_STRING:
		return dyn_value(f, rec, ent_size, false, true, v);
	case UE_FIELD_RDYN_STRING:
		return dyn_value(f, rec, ent_size, true, true, v);
	case UE_FIELD_CPUMASK:
	case UE_FIELD_DATA_LOC:
		return dyn_value(f, rec, ent_size, false, false, v);
	case UE_FIELD_REL_LOC:
		return dyn_value(f, rec, ent_size, true, false, v);
	case UE_FIELD_INT:
		break;
	}
	if (strncmp(f->type, "struct ", 7) == 0 ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)) {
		v->p = pos;
		v->len = f->size;
		return v->kind = UE_VAL_BYTES;
	}
	switch (f->size) {
	case 1:
		v->u = pos[0];
		v->i = (int8_t)pos[0];
		break;
	case 2:
		v->u = load_u16(pos);
		v->i = (int16_t)v->u;
		break;
	case 4:
		v->u = load_u32(pos);
		v->i = (int32_t)v->u;
		break;
	default:
		v->u = load_u64(pos);
		v->i = (int64_t)v->u;
		break;
	}
	return v->kind = f->is_signed ? UE_VAL_INT : UE_VAL_UINT;
}

/* ,"cpu":N,"pid":N,"comm":C, as last rendered (a comm of up to 15 bytes, escaped: at most 90). */
struct json_ctx_memo {
	bool valid, comm_null;
	unsigned int cpu;
	int32_t pid;
	char comm[16];
	size_t len;
	char text[160];
};

/* ,"cpu":N,"pid":N,"comm":C, */
static void put_json_cpu_pid_comm(struct outbuf *ob, const struct ue_record_ctx *ctx)
{
	ob_puts(ob, ",\"cpu\":");
	put_decimal(ob, ctx->cpu);
	ob_puts(ob, ",\"pid\":");
	if (ctx->pid < 0)
		ob_putc(ob, '-');
	put_decimal(ob, ctx->pid < 0 ? (uint64_t)0 - (uint64_t)(int64_t)ctx->pid
				      : (uint64_t)ctx->pid);
	ob_puts(ob, ",\"comm\":");
	put_json_cstr(ob, ctx->comm);
	ob_putc(ob, ',');
}

/* Whether @m holds the rendering of @ctx's cpu, pid and comm. */
static bool memo_hit(const struct json_ctx_memo *m, const struct ue_record_ctx *ctx)
{
	if (!m->valid || m->cpu != ctx->cpu || m->pid != ctx->pid)
		return false;
	if (!ctx->comm)
		return m->comm_null;
	/* m->comm ends within its 16 bytes: equal there is equal. */
	return !m->comm_null && strncmp(m->comm, ctx->comm, sizeof(m->comm)) == 0;
}

/*
 * '{' and the record's context, when given, up to the comma before
 * "system"; with @m, its cpu, pid and comm from there when they repeat.
 */
static void put_json_ctx(struct outbuf *ob, const struct ue_record_ctx *ctx,
			 struct json_ctx_memo *m)
{
	struct outbuf mo;

	ob_putc(ob, '{');
	if (!ctx)
		return;
	ob_puts(ob, "\"ts\":");
	put_decimal(ob, ctx->ts_ns);
	if (!m) {
		put_json_cpu_pid_comm(ob, ctx);
		return;
	}
	if (!memo_hit(m, ctx)) {
		m->valid = false;
		/* A comm of 16 bytes or more is rendered each time (a memo holds 15 and its NUL). */
		if (ctx->comm && strnlen(ctx->comm, sizeof(m->comm)) == sizeof(m->comm)) {
			put_json_cpu_pid_comm(ob, ctx);
			return;
		}
		ob_init(&mo, m->text, sizeof(m->text));
		put_json_cpu_pid_comm(&mo, ctx);
		if (mo.pos >= sizeof(m->text)) {
			put_json_cpu_pid_comm(ob, ctx);
			return;
		}
		m->len = mo.pos;
		m->cpu = ctx->cpu;
		m->pid = ctx->pid;
		m->comm_null = !ctx->comm;
		memset(m->comm, 0, sizeof(m->comm));
		if (ctx->comm)
			strcpy(m->comm, ctx->comm);
		m->valid = true;
	}
	ob_putn(ob, m->text, m->len);
}

/**
 * ue_render_json - one record as a JSON object, for the tools
 * @event: the event the record belongs to
 * @system: the event's system ("user_events"), or NULL (shown as null)
 * @tp_name: the name shown
 * @ctx: the record's context, or NULL to leave out ts/cpu/pid/comm
 * @record: common header followed by the payload; @ent_size bytes readable
 * @ent_size: the record's size as the ring buffer reports it
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * Our own format, one object and no newline:
 *   {"ts":NS,"cpu":N,"pid":N,"comm":"..."|null,"system":"...","event":"...",
 *    "fields":{"name":VALUE,...}}
 * ts is the timestamp in nanoseconds; comm is null when unknown.  Fields
 * come in declaration order and are classified as the trace line does:
 * integers (1, 2, 4, 8 bytes) as numbers, signed when the field is signed;
 * char arrays and dynamic strings as strings, up to their first NUL; other
 * dynamic arrays (and __data_loc cpumask_t) as arrays of byte values;
 * struct fields and integers of any other size as a string of their bytes in
 * hex ("0a0b"); a field or location outside the record (or of negative
 * length) as null; the buffer of otlp_metrics (OpenTelemetry's metrics
 * exporter) as a base64 string.  Strings keep well-formed UTF-8, escape '"', '\\' and
 * control characters, and write any other byte as \u00XX, so the output is
 * always valid JSON.
 *
 * Return: the length of the full text (as snprintf), or -EINVAL.
 */
int ue_render_json(const struct ue_event *event, const char *system, const char *tp_name,
		   const struct ue_record_ctx *ctx, const void *record, size_t ent_size, char *buf,
		   size_t len)
{
	const unsigned char *rec = record;
	struct outbuf ob;

	if (!ue_event_ok(event) || !tp_name || (!record && ent_size))
		return -EINVAL;
	ob_init(&ob, buf, len);
	put_json_ctx(&ob, ctx, NULL);
	ob_puts(&ob, "\"system\":");
	put_json_cstr(&ob, system);
	ob_puts(&ob, ",\"event\":");
	put_json_cstr(&ob, tp_name);
	ob_puts(&ob, ",\"fields\":{");
	for (uint32_t i = 0; i < event->nfields; i++) {
		const struct ue_field *f = &event->fields[i];

		if (i)
			ob_putc(&ob, ',');
		put_json_cstr(&ob, f->name);
		ob_putc(&ob, ':');
		if (otlp_buffer(tp_name, f))
			put_json_base64(&ob, f, rec, ent_size);
		else
			put_field_json(&ob, f, rec, ent_size);
	}
	ob_puts(&ob, "}}");
	return ob_finish(&ob);
}

struct ue_json_keys {
	struct json_ctx_memo memo;
	size_t head_len;	/* "system":S,"event":E,"fields":{ */
	uint32_t nfields;
	struct {
		size_t off, len;	/* in text: [,]"name": */
		bool base64;		/* otlp_metrics' buffer */
		bool hex;		/* json_hex() */
	} *field;
	char *text;
};

/* The keys' text into @ob (sized when its buffer is NULL), each field's place in @k. */
static void put_keys(struct outbuf *ob, struct ue_json_keys *k, const struct ue_event *event,
		     const char *system, const char *tp_name)
{
	ob_puts(ob, "\"system\":");
	put_json_cstr(ob, system);
	ob_puts(ob, ",\"event\":");
	put_json_cstr(ob, tp_name);
	ob_puts(ob, ",\"fields\":{");
	k->head_len = ob->pos;
	for (uint32_t i = 0; i < event->nfields; i++) {
		size_t at = ob->pos;

		if (i)
			ob_putc(ob, ',');
		put_json_cstr(ob, event->fields[i].name);
		ob_putc(ob, ':');
		k->field[i].off = at;
		k->field[i].len = ob->pos - at;
		k->field[i].base64 = otlp_buffer(tp_name, &event->fields[i]);
		k->field[i].hex = json_hex(&event->fields[i]);
	}
}

int ue_json_keys_new(const struct ue_event *event, const char *system, const char *tp_name,
		     struct ue_json_keys **ret)
{
	struct ue_json_keys *k;
	struct outbuf ob;

	if (!ue_event_ok(event) || !tp_name || !ret)
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->nfields = event->nfields;
	k->field = calloc(event->nfields ? event->nfields : 1, sizeof(*k->field));
	if (!k->field) {
		ue_json_keys_free(k);
		return -ENOMEM;
	}
	ob_init(&ob, NULL, 0);
	put_keys(&ob, k, event, system, tp_name);
	k->text = malloc(ob.pos + 1);
	if (!k->text) {
		ue_json_keys_free(k);
		return -ENOMEM;
	}
	ob_init(&ob, k->text, ob.pos + 1);
	put_keys(&ob, k, event, system, tp_name);
	*ret = k;
	return 0;
}

void ue_json_keys_free(struct ue_json_keys *keys)
{
	if (!keys)
		return;
	free(keys->field);
	free(keys->text);
	free(keys);
}

int ue_render_json_keys(struct ue_json_keys *keys, const struct ue_event *event,
			const struct ue_record_ctx *ctx, const void *record, size_t ent_size,
			char *buf, size_t len)
{
	const unsigned char *rec = record;
	struct outbuf ob;

	if (!keys || !ue_event_ok(event) || event->nfields != keys->nfields ||
	    (!record && ent_size))
		return -EINVAL;
	ob_init(&ob, buf, len);
	put_json_ctx(&ob, ctx, &keys->memo);
	ob_putn(&ob, keys->text, keys->head_len);
	for (uint32_t i = 0; i < event->nfields; i++) {
		const struct ue_field *f = &event->fields[i];

		ob_putn(&ob, keys->text + keys->field[i].off, keys->field[i].len);
		if (keys->field[i].base64)
			put_json_base64(&ob, f, rec, ent_size);
		else
			put_field_json_as(&ob, f, rec, ent_size, keys->field[i].hex);
	}
	ob_puts(&ob, "}}");
	return ob_finish(&ob);
}
