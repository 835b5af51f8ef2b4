// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * EventHeader events: the tracepoint name, the header and its extensions,
 * and the fields as JSON the way LinuxTracepoints' perf-decode prints them
 * (the format is eventheader.h's; the output conventions were taken from
 * that tool's observed output).  Every read goes through rd_*(), which
 * checks it against what the caller gave; nesting and values are bounded.
 */
/* strerrorname_np: _GNU_SOURCE (meson.build) */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"
#include "outbuf.h"

/* Encodings (low 5 bits of the encoding byte) and its flags. */
enum {
	ENC_STRUCT = 1, ENC_V8, ENC_V16, ENC_V32, ENC_V64, ENC_V128,
	ENC_Z8, ENC_Z16, ENC_Z32, ENC_S8, ENC_S16, ENC_S32, ENC_BIN8, ENC_MAX,
};
#define ENC_CARRAY 0x20
#define ENC_VARRAY 0x40
#define ENC_CHAIN  0x80

/* Formats (low 7 bits of the format byte). */
enum {
	F_DEFAULT, F_UNSIGNED, F_SIGNED, F_HEX, F_ERRNO, F_PID, F_TIME, F_BOOL, F_FLOAT,
	F_HEXBYTES, F_STRING8, F_UTF, F_UTF_BOM, F_XML, F_JSON, F_UUID, F_PORT, F_IP,
	F_IP_OBSOLETE,
};
#define FMT_CHAIN 0x80

int ueh_lower_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool ueh_parse_name(const char *name, size_t len, struct ueh_name *n)
{
	size_t us = len, i, digits;
	uint64_t kw = 0;
	uint8_t level = 0;

	/*
	 * As eventheader.h spells a name: PROVIDER (not empty) before the last
	 * '_'; 'L' and the level, 'K' and the keyword, in lowercase hex (1-2
	 * and 1-16 digits); then options, each an uppercase letter followed by
	 * lowercase letters or digits.
	 */
	while (us > 0 && name[us - 1] != '_')
		us--;
	if (us-- <= 1 || us + 1 >= len || name[us + 1] != 'L')
		return false;
	for (i = us + 2, digits = 0; i < len && ueh_lower_hex(name[i]) >= 0; i++, digits++)
		level = (uint8_t)(level << 4 | ueh_lower_hex(name[i]));
	if (digits == 0 || digits > 2 || i >= len || name[i] != 'K')
		return false;
	for (i++, digits = 0; i < len && ueh_lower_hex(name[i]) >= 0; i++, digits++)
		kw = kw << 4 | (uint64_t)ueh_lower_hex(name[i]);
	if (digits == 0 || digits > 16)
		return false;
	n->provider_len = us;
	n->level = level;
	n->keyword = kw;
	n->options_off = i;
	if (i < len && !(name[i] >= 'A' && name[i] <= 'Z'))
		return false;
	for (; i < len; i++) {
		char c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

bool ueh_is_format(const struct ue_event *ev)
{
	static const struct {
		const char *name;
		uint32_t size;
	} want[] = {
		{ "eventheader_flags", 1 }, { "version", 1 }, { "id", 2 },
		{ "tag", 2 },		    { "opcode", 1 },  { "level", 1 },
	};
	uint32_t off = 8;

	if (!ev || ev->nfields < 6)
		return false;
	for (size_t i = 0; i < 6; i++) {
		const struct ue_field *f = &ev->fields[i];

		if (strcmp(f->name, want[i].name) != 0 || f->size != want[i].size ||
		    f->offset != off || f->kind != UE_FIELD_INT)
			return false;
		off += want[i].size;
	}
	return true;
}

/* A bounds-checked reader over one buffer. */
struct rd {
	const uint8_t *p;
	size_t n, pos;
	bool be;
};

static bool rd_take(struct rd *r, size_t n, const uint8_t **out)
{
	if (r->n - r->pos < n)
		return false;
	*out = r->p + r->pos;
	r->pos += n;
	return true;
}

static uint64_t load(const uint8_t *p, size_t n, bool be)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * (be ? n - 1 - i : i));
	return v;
}

static bool rd_u16(struct rd *r, uint16_t *v)
{
	const uint8_t *p;

	if (!rd_take(r, 2, &p))
		return false;
	*v = (uint16_t)load(p, 2, r->be);
	return true;
}

int ueh_start(struct ueh_event *e, const char *tp_name, size_t tp_len, const void *data,
	      size_t len)
{
	struct rd r = { .p = data, .n = len };
	const uint8_t *h;
	bool more;

	memset(e, 0, sizeof(*e));
	if (!ueh_parse_name(tp_name, tp_len, &e->n))
		return -ENOTSUP;
	if (!rd_take(&r, 8, &h))
		return -EINVAL;
	e->tp_name = tp_name;
	e->tp_len = tp_len;
	e->flags = h[0];
	e->version = h[1];
	r.be = !(e->flags & UEH_FLAG_LITTLE_ENDIAN);
	e->id = (uint16_t)load(h + 2, 2, r.be);
	e->tag = (uint16_t)load(h + 4, 2, r.be);
	e->opcode = h[6];
	e->level = h[7];
	if (e->flags & ~(UEH_FLAG_POINTER64 | UEH_FLAG_LITTLE_ENDIAN | UEH_FLAG_EXTENSION))
		return -ENOTSUP;
	more = e->flags & UEH_FLAG_EXTENSION;
	while (more) {
		uint16_t size, kind;
		const uint8_t *x;

		if (!rd_u16(&r, &size) || !rd_u16(&r, &kind) || !rd_take(&r, size, &x))
			return -EBADMSG;
		more = kind & 0x8000;
		switch (kind & 0x7fff) {
		case UEH_EXT_METADATA: {
			const uint8_t *nul = memchr(x, 0, size);

			if (e->name)
				return -EINVAL;	/* two of them */
			if (!nul)
				return -EBADMSG;
			e->name = (const char *)x;
			e->name_len = (size_t)(nul - x);
			e->meta = nul + 1;
			e->meta_len = size - e->name_len - 1;
			break;
		}
		case UEH_EXT_ACTIVITY_ID:
			if (e->activity || (size != 16 && size != 32))
				return -EBADMSG;
			e->activity = x;
			e->related = size == 32 ? x + 16 : NULL;
			break;
		default:
			break;	/* unknown kinds are skipped */
		}
	}
	if (!e->name)
		return -ENOTSUP;
	/* Attributes after the name (";attr=value") are not part of it. */
	{
		const char *semi = memchr(e->name, ';', e->name_len);

		if (semi)
			e->name_len = (size_t)(semi - e->name);
	}
	e->data = r.p + r.pos;
	e->data_len = r.n - r.pos;
	return 0;
}

/* ---- JSON text -------------------------------------------------------- */

static void put_utf8(struct outbuf *ob, uint32_t c)
{
	char b[4];

	if (c < 0x20 || c == '"' || c == '\\') {
		static const char esc[] = { '\b', 'b', '\f', 'f', '\n', 'n', '\r', 'r', '\t', 't',
					    '"',  '"', '\\', '\\' };

		for (size_t i = 0; i < sizeof(esc); i += 2) {
			if ((uint32_t)(unsigned char)esc[i] == c) {
				ob_putc(ob, '\\');
				ob_putc(ob, esc[i + 1]);
				return;
			}
		}
		ob_printf(ob, "\\u%04x", c);
	} else if (c < 0x80) {
		ob_putc(ob, (char)c);
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3f));
		ob_putn(ob, b, 2);
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		ob_putn(ob, b, 3);
	} else if (c <= 0x10ffff) {
		b[0] = (char)(0xf0 | (c >> 18));
		b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		ob_putn(ob, b, 4);
	} else {
		/* perf-decode's way: its extended (5- to 7-byte, not UTF-8) form. */
		int k = c < 0x200000 ? 4 : c < 0x4000000 ? 5 : c < 0x80000000u ? 6 : 7;
		static const uint8_t lead[] = { 0, 0, 0, 0, 0xf0, 0xf8, 0xfc, 0xfe };
		char x[7];

		for (int i = k - 1; i > 0; i--, c >>= 6)
			x[i] = (char)(0x80 | (c & 0x3f));
		x[0] = (char)(lead[k] | (k < 7 ? c : 0));
		ob_putn(ob, x, (size_t)k);
	}
}

/* Length of a valid UTF-8 sequence at @p (its code point in *c), or 0. */
static size_t utf8_seq(const uint8_t *p, size_t n, uint32_t *c)
{
	size_t k;
	uint32_t v, min;

	if (p[0] < 0x80) {
		*c = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		k = 2, v = p[0] & 0x1f, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		k = 3, v = p[0] & 0x0f, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		k = 4, v = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (p[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*c = v;
	return k;
}

/* Code units of @size bytes (1, 2, 4) as a JSON string's content. */
static void put_units(struct outbuf *ob, const uint8_t *p, size_t nbytes, unsigned size, bool be,
		      bool latin1)
{
	size_t i = 0;

	while (i + size <= nbytes) {
		uint32_t c = (uint32_t)load(p + i, size, be);

		if (size == 1) {
			size_t k = latin1 ? 0 : utf8_seq(p + i, nbytes - i, &c);

			put_utf8(ob, k ? c : p[i]);
			i += k ? k : 1;
			continue;
		}
		i += size;
		if (size == 2 && c >= 0xd800 && c < 0xdc00 && i + 2 <= nbytes) {
			uint32_t lo = (uint32_t)load(p + i, 2, be);

			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i += 2;
			}
		}
		put_utf8(ob, c);
	}
}

/* A string of code units; the BOM formats honour (and drop) a BOM. */
static void put_string(struct outbuf *ob, const uint8_t *p, size_t n, unsigned size, bool be,
		       unsigned fmt)
{
	if (fmt == F_UTF_BOM || fmt == F_XML || fmt == F_JSON) {
		if (size == 1 && n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
			p += 3, n -= 3;
		} else if (size > 1 && n >= size) {
			uint32_t bom = (uint32_t)load(p, size, be);

			if (bom == 0xfeff || bom == (size == 2 ? 0xfffeu : 0xfffe0000u)) {
				if (bom != 0xfeff)
					be = !be;
				p += size, n -= size;
			}
		}
	}
	ob_putc(ob, '"');
	put_units(ob, p, n, size, be, fmt == F_STRING8);
	ob_putc(ob, '"');
}

int ueh_json_string(const char *s, size_t n, char *buf, size_t len)
{
	struct outbuf ob;

	ob_init(&ob, buf, len);
	put_string(&ob, (const uint8_t *)s, n, 1, false, F_UTF);
	return ob_finish(&ob);
}

static void put_hexbytes(struct outbuf *ob, const uint8_t *p, size_t n)
{
	ob_putc(ob, '"');
	for (size_t i = 0; i < n; i++)
		ob_printf(ob, i ? " %02x" : "%02x", p[i]);
	ob_putc(ob, '"');
}

static void put_uuid(struct outbuf *ob, const uint8_t *u)
{
	for (int i = 0; i < 16; i++)
		ob_printf(ob, (i == 4 || i == 6 || i == 8 || i == 10) ? "-%02x" : "%02x", u[i]);
}

static void put_ipv6(struct outbuf *ob, const uint8_t *a)
{
	unsigned w[8];
	int best = -1, bestlen = 0;

	for (int i = 0; i < 8; i++)
		w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && w[j] == 0)
			j++;
		if (j - i > bestlen && j - i >= 2)
			best = i, bestlen = j - i;
		i = j > i ? j : i + 1;
	}
	/* inet_ntop's form of IPv4-mapped and -compatible addresses. */
	if (best == 0 && (bestlen == 6 || (bestlen == 5 && w[5] == 0xffff))) {
		ob_puts(ob, bestlen == 5 ? "::ffff:" : "::");
		ob_printf(ob, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
		return;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			ob_puts(ob, "::");
			i += bestlen - 1;
			continue;
		}
		ob_printf(ob, i && i != best + bestlen ? ":%x" : "%x", w[i]);
	}
}

/* Seconds since 1970 as gmtime_r() + "%04d-%02u-..." would print them. */
static void put_time(struct outbuf *ob, int64_t t)
{
	int64_t days = t / 86400, secs = t % 86400;
	int64_t z, era, doe, yoe, y, doy, mp, d, m;

	if (secs < 0)
		secs += 86400, days--;
	/* Days to civil date (proleptic Gregorian). */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	y += m <= 2;
	if (t < -67768040609740800LL || y - 1900 > INT32_MAX || y - 1900 < INT32_MIN) {
		ob_printf(ob, "\"TIME(%" PRId64 ")\"", t);
		return;
	}
	ob_printf(ob, "\"%04d-%02u-%02uT%02u:%02u:%02u\"", (int)y, (unsigned)m, (unsigned)d,
		  (unsigned)(secs / 3600), (unsigned)(secs / 60 % 60), (unsigned)(secs % 60));
}

static void put_float(struct outbuf *ob, double v, bool single)
{
	char b[40];

	if (isnan(v) || isinf(v)) {
		snprintf(b, sizeof(b), "%g", v);
		ob_printf(ob, "\"%s\"", b);
		return;
	}
	/* The shortest text that reads back as the same value. */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(b, sizeof(b), "%.*g", prec, v);
		if (single ? strtof(b, NULL) == (float)v : strtod(b, NULL) == v)
			break;
	}
	ob_puts(ob, b);
}

static int64_t sext(uint64_t v, size_t size)
{
	unsigned sh = (unsigned)(64 - 8 * size);

	return size >= 8 ? (int64_t)v : (int64_t)(v << sh) >> sh;
}

/* Whether @fmt applies to a fixed-size value of @size bytes. */
static bool fmt_fits(unsigned fmt, size_t size)
{
	switch (fmt) {
	case F_UNSIGNED: case F_SIGNED: case F_HEX:
		return size == 1 || size == 2 || size == 4 || size == 8;
	case F_ERRNO: case F_PID:
		return size == 4;
	case F_TIME: case F_FLOAT:
		return size == 4 || size == 8;
	case F_BOOL:
		return size == 1 || size == 2 || size == 4;
	case F_HEXBYTES:
		return true;
	case F_STRING8:
		return size == 1;
	case F_UTF: case F_UTF_BOM: case F_XML: case F_JSON:
		return size == 1 || size == 2 || size == 4;
	case F_UUID:
		return size == 16;
	case F_PORT:
		return size == 2;
	case F_IP: case F_IP_OBSOLETE:
		return size == 4 || size == 16;
	default:
		return false;
	}
}

/* A fixed-size value (Value8..Value128, or a char8 length field of that size). */
static void put_fixed(struct outbuf *ob, const uint8_t *p, size_t size, unsigned fmt, bool be)
{
	uint64_t v = size <= 8 ? load(p, size, be) : 0;

	if (!fmt_fits(fmt, size))
		fmt = size == 16 ? F_HEXBYTES : F_UNSIGNED;
	switch (fmt) {
	case F_SIGNED: case F_PID:
		ob_printf(ob, "%" PRId64, sext(v, size));
		break;
	case F_HEX:
		ob_printf(ob, "\"0x%" PRIX64 "\"", v);
		break;
	case F_ERRNO: {
		int32_t e = (int32_t)v;
		const char *name = e > 0 && e <= 133 ? strerrorname_np(e) : NULL;

		ob_printf(ob, "\"%s(%" PRId32 ")\"", name ? name : "ERRNO", e);
		break;
	}
	case F_TIME:
		put_time(ob, sext(v, size));
		break;
	case F_BOOL:
		if (v <= 1)
			ob_puts(ob, v ? "true" : "false");
		else if (size == 4)
			ob_printf(ob, "%" PRId64, sext(v, size));
		else
			ob_printf(ob, "%" PRIu64, v);
		break;
	case F_FLOAT:
		if (size == 4) {
			uint32_t u = (uint32_t)v;
			float f;

			memcpy(&f, &u, 4);
			put_float(ob, f, true);
		} else {
			double d;

			memcpy(&d, &v, 8);
			put_float(ob, d, false);
		}
		break;
	case F_HEXBYTES:
		put_hexbytes(ob, p, size);
		break;
	case F_STRING8: case F_UTF: case F_UTF_BOM: case F_XML: case F_JSON:
		ob_putc(ob, '"');
		if (fmt == F_STRING8 || size == 1)
			put_utf8(ob, (uint32_t)v & 0xff);
		else
			put_units(ob, p, size, (unsigned)size, be, false);
		ob_putc(ob, '"');
		break;
	case F_UUID:
		ob_putc(ob, '"');
		put_uuid(ob, p);
		ob_putc(ob, '"');
		break;
	case F_PORT:
		ob_printf(ob, "%u", (unsigned)load(p, 2, true));
		break;
	case F_IP:
	case F_IP_OBSOLETE:
		ob_putc(ob, '"');
		if (size == 4)
			ob_printf(ob, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
		else
			put_ipv6(ob, p);
		ob_putc(ob, '"');
		break;
	default:
		ob_printf(ob, "%" PRIu64, v);
		break;
	}
}

/* ---- walking the metadata and the data -------------------------------- */

struct walk {
	struct outbuf *ob;
	struct rd m;		/* field definitions */
	struct rd d;		/* field values */
	unsigned flags;		/* UEH_J_* */
	unsigned long items;
};

/*
 * Binary content: hex text, or with UEH_J_BYTES an object whose one member
 * is named "\u0000" (no field name can be: they are NUL-terminated), which
 * readers that want the bytes as bytes (the OTLP export) tell apart.
 */
static void put_binary(const struct walk *w, const uint8_t *p, size_t n)
{
	if (w->flags & UEH_J_BYTES)
		ob_puts(w->ob, "{ \"\\u0000\": ");
	put_hexbytes(w->ob, p, n);
	if (w->flags & UEH_J_BYTES)
		ob_puts(w->ob, " }");
}

struct def {
	const char *name;
	size_t name_len;
	uint8_t enc, fmt;
	uint16_t tag, count;
};

static int def_read(struct walk *w, struct def *f)
{
	const uint8_t *p = w->m.p + w->m.pos;
	const uint8_t *nul = memchr(p, 0, w->m.n - w->m.pos);
	const uint8_t *b;

	if (!nul)
		return -EBADMSG;
	f->name = (const char *)p;
	f->name_len = (size_t)(nul - p);	/* attributes included, as perf-decode */
	w->m.pos += (size_t)(nul - p) + 1;
	f->fmt = 0;
	f->tag = 0;
	f->count = 0;
	if (!rd_take(&w->m, 1, &b))
		return -EBADMSG;
	f->enc = b[0];
	if (f->enc & ENC_CHAIN) {
		if (!rd_take(&w->m, 1, &b))
			return -EBADMSG;
		f->fmt = b[0];
		if ((f->fmt & FMT_CHAIN) && !rd_u16(&w->m, &f->tag))
			return -EBADMSG;
	}
	/* A constant-length array may not be empty (nor, as their decoder, be read so). */
	if ((f->enc & ENC_CARRAY) && (!rd_u16(&w->m, &f->count) || f->count == 0))
		return -EBADMSG;
	if ((f->enc & (ENC_CARRAY | ENC_VARRAY)) == (ENC_CARRAY | ENC_VARRAY))
		return -EBADMSG;
	if ((f->enc & 0x1f) == 0 || (f->enc & 0x1f) >= ENC_MAX)
		return -EBADMSG;
	if ((f->enc & 0x1f) == ENC_STRUCT && (f->fmt & 0x7f) == 0)
		return -EBADMSG;
	return 0;
}

static int field(struct walk *w, unsigned depth, bool skip, bool *first);

/* The N field definitions of a struct, once: as a JSON object, or skipped. */
static int struct_body(struct walk *w, unsigned n, unsigned depth, bool skip)
{
	bool first = true;
	int e = 0;

	if (depth >= UEH_NEST_MAX)
		return -E2BIG;
	if (!skip)
		ob_puts(w->ob, "{");
	/* A struct that claims more fields than the metadata has ends with it. */
	for (unsigned i = 0; i < n && e == 0 && w->m.pos < w->m.n; i++)
		e = field(w, depth + 1, skip, &first);
	if (!skip)
		ob_puts(w->ob, " }");
	return e;
}

/* One element of a non-struct field. */
static int element(struct walk *w, const struct def *f)
{
	unsigned enc = f->enc & 0x1f, fmt = f->fmt & 0x7f;
	const uint8_t *p;
	uint16_t n16;

	if (++w->items > UEH_ITEMS_MAX)
		return -E2BIG;
	switch (enc) {
	case ENC_V8: case ENC_V16: case ENC_V32: case ENC_V64: case ENC_V128: {
		size_t size = (size_t)1 << (enc - ENC_V8);

		if (!rd_take(&w->d, size, &p))
			return -EBADMSG;
		put_fixed(w->ob, p, size, fmt, w->d.be);
		return 0;
	}
	case ENC_Z8: case ENC_Z16: case ENC_Z32: {
		unsigned size = 1u << (enc - ENC_Z8);
		size_t i = w->d.pos;

		for (;; i += size) {
			if (w->d.n - i < size)
				return -EBADMSG;
			if (load(w->d.p + i, size, false) == 0)
				break;
		}
		p = w->d.p + w->d.pos;
		w->d.pos = i + size;
		if (fmt == F_HEXBYTES)
			put_binary(w, p, (size_t)(w->d.p + i - p));
		else
			put_string(w->ob, p, (size_t)(w->d.p + i - p), size, w->d.be,
				   size == 1 && fmt == F_STRING8 ? F_STRING8 : fmt);
		return 0;
	}
	case ENC_S8: case ENC_S16: case ENC_S32: case ENC_BIN8: {
		unsigned size = enc == ENC_BIN8 ? 1 : 1u << (enc - ENC_S8);

		if (!rd_u16(&w->d, &n16) || !rd_take(&w->d, (size_t)n16 * size, &p))
			return -EBADMSG;
		if (size == 1 && fmt != F_DEFAULT && fmt != F_HEXBYTES && fmt != F_STRING8 &&
		    fmt != F_UTF && fmt != F_UTF_BOM && fmt != F_XML && fmt != F_JSON) {
			if (n16 == 0) {
				ob_puts(w->ob, "null");
				return 0;
			}
			if ((n16 == 1 || n16 == 2 || n16 == 4 || n16 == 8 || n16 == 16) &&
			    fmt_fits(fmt, n16)) {
				put_fixed(w->ob, p, n16, fmt, w->d.be);
				return 0;
			}
			fmt = F_DEFAULT;
		}
		if (fmt == F_HEXBYTES || (fmt == F_DEFAULT && enc == ENC_BIN8))
			put_binary(w, p, (size_t)n16 * size);
		else
			put_string(w->ob, p, (size_t)n16 * size, size, w->d.be, fmt);
		return 0;
	}
	}
	return -EBADMSG;
}

static int field(struct walk *w, unsigned depth, bool skip, bool *first)
{
	struct def f;
	bool is_struct;
	size_t kids;
	unsigned count = 1;
	int e = def_read(w, &f);

	if (e < 0)
		return e;
	is_struct = (f.enc & 0x1f) == ENC_STRUCT;
	if (skip)
		return is_struct ? struct_body(w, f.fmt & 0x7f, depth, true) : 0;
	if (depth == 0 && (w->flags & UEH_J_TEXT)) {
		/* A trace line's " name=value" (values as in JSON). */
		ob_putc(w->ob, ' ');
		ob_putn(w->ob, f.name, f.name_len);
		ob_putc(w->ob, '=');
	} else {
		ob_puts(w->ob, *first ? " \"" : ", \"");
		put_units(w->ob, (const uint8_t *)f.name, f.name_len, 1, false, false);
		if ((w->flags & UEH_J_TAGS) && f.tag)
			ob_printf(w->ob, ";tag=0x%X", f.tag);
		ob_puts(w->ob, "\": ");
	}
	*first = false;
	if (f.enc & ENC_VARRAY) {
		uint16_t n;

		if (!rd_u16(&w->d, &n))
			return -EBADMSG;
		count = n;
	} else if (f.enc & ENC_CARRAY) {
		count = f.count;
	}
	kids = w->m.pos;
	if (f.enc & (ENC_VARRAY | ENC_CARRAY))
		ob_puts(w->ob, "[");
	for (unsigned i = 0; i < count && e == 0; i++) {
		/* Struct elements count too: they may take no data at all. */
		if (is_struct && ++w->items > UEH_ITEMS_MAX)
			return -E2BIG;
		if (f.enc & (ENC_VARRAY | ENC_CARRAY))
			ob_puts(w->ob, i ? ", " : " ");
		if (is_struct) {
			w->m.pos = kids;
			e = struct_body(w, f.fmt & 0x7f, depth, false);
		} else {
			e = element(w, &f);
		}
	}
	if (e == 0 && is_struct && count == 0)
		e = struct_body(w, f.fmt & 0x7f, depth, true);
	if (f.enc & (ENC_VARRAY | ENC_CARRAY))
		ob_puts(w->ob, " ]");
	return e;
}

int ueh_json_fields(const struct ueh_event *e, unsigned flags, char *buf, size_t len)
{
	struct outbuf ob;
	struct walk w = {
		.ob = &ob,
		.m = { .p = e->meta, .n = e->meta_len, .be = !(e->flags & UEH_FLAG_LITTLE_ENDIAN) },
		.d = { .p = e->data, .n = e->data_len, .be = !(e->flags & UEH_FLAG_LITTLE_ENDIAN) },
		.flags = flags,
	};
	int err = 0;

	ob_init(&ob, buf, len);
	while (w.m.pos < w.m.n && err == 0) {
		bool first = false;	/* after "n": always a comma */

		err = field(&w, 0, false, &first);
	}
	if (err < 0) {
		ob_finish(&ob);
		return err;
	}
	return ob_finish(&ob);
}

int ueh_json_meta(const struct ueh_event *e, char *buf, size_t len)
{
	struct outbuf ob;

	ob_init(&ob, buf, len);
	if (e->id)
		ob_printf(&ob, ", \"id\": %u", e->id);
	if (e->version)
		ob_printf(&ob, ", \"version\": %u", e->version);
	if (e->level)
		ob_printf(&ob, ", \"level\": %u", e->level);
	if (e->n.keyword)
		ob_printf(&ob, ", \"keyword\": \"0x%" PRIX64 "\"", e->n.keyword);
	if (e->opcode)
		ob_printf(&ob, ", \"opcode\": %u", e->opcode);
	if (e->tag)
		ob_printf(&ob, ", \"tag\": \"0x%X\"", e->tag);
	if (e->activity) {
		ob_puts(&ob, ", \"activity\": \"");
		put_uuid(&ob, e->activity);
		ob_putc(&ob, '"');
	}
	if (e->related) {
		ob_puts(&ob, ", \"relatedActivity\": \"");
		put_uuid(&ob, e->related);
		ob_putc(&ob, '"');
	}
	return ob_finish(&ob);
}
