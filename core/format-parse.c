// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * format-parse: turns the text of an events/<system>/<name>/format file
 * (the kernel's or usereventsd's) back into a struct ue_event, so a tracer
 * renders records with core/ without registering anything.  Pure: libc only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format-parse.h"

/* One field line as read, pointing into the text. */
struct raw_field {
	const char *decl;	/* "type name" up to the ';' */
	size_t decl_len;
	unsigned long offset, size;
	int is_signed;
};

static const char *line_end(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? nl : end;
}

static bool starts(const char *s, const char *e, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(e - s) >= n && memcmp(s, prefix, n) == 0;
}

/* "key:NUMBER;" at *s (after spaces or tabs); advances *s past the ';'. */
static int take_number(const char **s, const char *e, const char *key, unsigned long *ret)
{
	const char *p = *s;
	char num[24];
	size_t n = 0;
	char *end;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (!starts(p, e, key))
		return -EINVAL;
	p += strlen(key);
	while (p < e && *p != ';' && n < sizeof(num) - 1)
		num[n++] = *p++;
	if (p >= e || *p != ';' || !n)
		return -EINVAL;
	num[n] = '\0';
	errno = 0;
	*ret = strtoul(num, &end, 10);
	if (errno || *end || num[0] == '-')
		return -EINVAL;
	*s = p + 1;
	return 0;
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" */
static int parse_field_line(const char *s, const char *e, struct raw_field *f)
{
	const char *semi;
	unsigned long sign;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (!starts(s, e, "field:"))
		return -EINVAL;
	s += 6;
	semi = memchr(s, ';', (size_t)(e - s));
	if (!semi || semi == s)
		return -EINVAL;
	f->decl = s;
	f->decl_len = (size_t)(semi - s);
	s = semi + 1;
	if (take_number(&s, e, "offset:", &f->offset) || take_number(&s, e, "size:", &f->size) ||
	    take_number(&s, e, "signed:", &sign))
		return -EINVAL;
	if (f->offset > UINT32_MAX || f->size > UINT32_MAX || sign > 1)
		return -EINVAL;
	f->is_signed = (int)sign;
	return 0;
}

/*
 * Split DECL into the type and the name the way the event was declared: the
 * last word is the name; a "[...]" on it (the format file's "char a[]" for
 * "char[20] a", "__rel_loc char a[]" for "__rel_loc char[] a") goes back
 * onto the type, with the field's size as the count of a fixed array: the
 * type text is what ue_field_kind_of() and the renderers look at.
 */
static int split_decl(const struct raw_field *f, char *type, size_t tlen, char *name, size_t nlen)
{
	const char *d = f->decl, *e = f->decl + f->decl_len, *sp, *br;
	size_t n;

	while (e > d && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	while (d < e && (*d == ' ' || *d == '\t'))
		d++;
	for (sp = e; sp > d && sp[-1] != ' ' && sp[-1] != '\t'; sp--)
		;
	if (sp == d || sp == e)
		return -EINVAL;
	/*
	 * The kernel prints a fixed array "char[4] a" as "char a[N]" where N
	 * is a length it never sets (0 on a fresh allocation, garbage after),
	 * and "__rel_loc u8[] a" as "__rel_loc u8 a[N]": after a char type or
	 * a __rel_loc any "[...]" is that.  Elsewhere only an empty "[]" is:
	 * "u32 a[2]" registers a field named "a[2]".
	 */
	br = NULL;
	if (e[-1] == ']') {
		const char *t = sp;

		while (t > d && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		br = memchr(sp, '[', (size_t)(e - sp));
		if (br && !(br == e - 2 || (t - d >= 4 && memcmp(t - 4, "char", 4) == 0) ||
			    ((size_t)(e - d) > 10 && memcmp(d, "__rel_loc ", 10) == 0)))
			br = NULL;
	}
	n = (size_t)((br ? br : e) - sp);
	if (!n || n >= nlen)
		return -EINVAL;
	memcpy(name, sp, n);
	name[n] = '\0';
	while (sp > d && (sp[-1] == ' ' || sp[-1] == '\t'))
		sp--;
	n = (size_t)(sp - d);
	if (n >= tlen)
		return -EINVAL;
	memcpy(type, d, n);
	type[n] = '\0';
	if (br) {
		int w;

		/* A dynamic array's slot is 4 bytes, not its count: it stays "[]". */
		if (strncmp(type, "__rel_loc", 9) != 0)
			w = snprintf(type + n, tlen - n, "[%lu]", f->size);
		else
			w = snprintf(type + n, tlen - n, "[]");
		if (w < 0 || (size_t)w >= tlen - n)
			return -EINVAL;
	}
	return 0;
}

/* Longest type or name: a dynamic_events line may declare one this long. */
#define DECL_MAX (UE_DYNEVENT_MAX_LINE + 32)

int ue_format_parse(const char *text, size_t len, struct ue_event **ret_event,
		    unsigned int *ret_id)
{
	const char *s = text, *end = text + len, *name = NULL;
	size_t name_len = 0, strings = 0, nfields = 0, cap = 0;
	struct raw_field *raw = NULL;
	unsigned long id = 0;
	bool have_id = false, in_format = false;
	struct ue_event *ev;
	struct ue_field *fields;
	char *str;
	uint64_t max_end = UE_ENTRY_HDR_SIZE;
	int r = -EINVAL;

	if (!text || !ret_event)
		return -EINVAL;
	while (s < end) {
		const char *e = line_end(s, end);

		if (!in_format && starts(s, e, "name: ")) {
			name = s + 6;
			name_len = (size_t)(e - name);
		} else if (!in_format && starts(s, e, "ID: ")) {
			char num[24], *ne;
			size_t n = (size_t)(e - s - 4);

			if (!n || n >= sizeof(num))
				goto out;
			memcpy(num, s + 4, n);
			num[n] = '\0';
			errno = 0;
			id = strtoul(num, &ne, 10);
			if (errno || *ne || num[0] == '-' || id > UINT32_MAX)
				goto out;
			have_id = true;
		} else if (starts(s, e, "format:")) {
			in_format = true;
		} else if (in_format && starts(s, e, "print fmt: ")) {
			break;
		} else if (in_format && e > s) {
			struct raw_field f;
			const char *seen = s;

			/*
			 * A field name may hold a newline ("u32 a\n" registers a
			 * field "a\n"): the kernel prints it as is, so the line
			 * goes on until the ';' that ends the declaration.  Only
			 * the lines added are searched: a long run stays linear.
			 */
			while (e < end && !memchr(seen, ';', (size_t)(e - seen))) {
				seen = e;
				e = line_end(e + 1, end);
			}

			if (parse_field_line(s, e, &f) < 0)
				goto out;
			if (nfields == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				struct raw_field *nr = realloc(raw, ncap * sizeof(*nr));

				if (!nr) {
					r = -ENOMEM;
					goto out;
				}
				raw = nr;
				cap = ncap;
			}
			raw[nfields++] = f;
		}
		s = e < end ? e + 1 : e;
	}
	if (!name || !name_len || !have_id || !in_format)
		goto out;

	/* The common fields belong to the header, not to the event. */
	{
		size_t k = 0;

		for (size_t i = 0; i < nfields; i++) {
			char type[DECL_MAX], fname[DECL_MAX];

			r = split_decl(&raw[i], type, sizeof(type), fname, sizeof(fname));
			if (r < 0)
				goto out;
			if (strncmp(fname, "common_", 7) == 0)
				continue;
			raw[k++] = raw[i];
			strings += strlen(type) + strlen(fname) + 2;
		}
		nfields = k;
	}
	r = -ENOMEM;
	ev = calloc(1, sizeof(*ev) + nfields * sizeof(*fields) + strings + name_len + 1);
	if (!ev)
		goto out;
	fields = (struct ue_field *)(ev + 1);
	str = (char *)(fields + nfields);
	memcpy(str, name, name_len);
	str[name_len] = '\0';
	ev->name = str;
	str += name_len + 1;
	ev->fields = nfields ? fields : NULL;
	ev->nfields = (uint32_t)nfields;
	for (size_t i = 0; i < nfields; i++) {
		struct ue_field *f = &fields[i];
		char type[DECL_MAX], fname[DECL_MAX];

		/* Checked above: it cannot fail now. */
		split_decl(&raw[i], type, sizeof(type), fname, sizeof(fname));
		f->type = strcpy(str, type);
		str += strlen(type) + 1;
		f->name = strcpy(str, fname);
		str += strlen(fname) + 1;
		f->offset = (uint32_t)raw[i].offset;
		f->size = (uint32_t)raw[i].size;
		f->is_signed = raw[i].is_signed;
		f->is_struct = strncmp(type, "struct ", 7) == 0;
		f->kind = ue_field_kind_of(type, f->size);
		if (strncmp(type, "__data_loc ", 11) == 0 || strncmp(type, "__rel_loc ", 10) == 0)
			ev->nvalidators++;
		if ((uint64_t)f->offset + f->size > max_end)
			max_end = (uint64_t)f->offset + f->size;
	}
	ev->min_size = (uint32_t)(max_end - UE_ENTRY_HDR_SIZE);
	*ret_event = ev;
	if (ret_id)
		*ret_id = (unsigned int)id;
	r = 0;
out:
	free(raw);
	return r;
}
