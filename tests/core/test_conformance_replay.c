// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Replays tests/conformance/refkernel.out -- what the reference Linux 6.12
 * kernel printed for tests/conformance/conformance.c -- against core/:
 * name_args errno, matching, dynamic_events lines, format / print fmt /
 * dynamic_events / user_events_status text, payload validation and trace
 * lines.  Observations only the daemon can reproduce are counted and listed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "harness.h"
#include "userevents/abi.h"

#define REF_PATH "tests/conformance/refkernel.out"

enum kind { K_REG, K_WRITE, K_TRACE, K_DYN, K_TEXT, K_MULTIDIR, K_CONTEXT, K_OTHER };

static const char *const kind_names[] = { "reg", "write", "trace", "dyn", "text", "multi-dir",
					  "context", "other" };

struct entry {
	enum kind kind;
	int lineno;
	char *word;		/* first word of the line (K_OTHER) */
	char *id;
	char *str;		/* reg: name_args; dyn: line; trace: event part; text: path; ... */
	size_t str_len;
	unsigned int flags;	/* reg */
	bool has_result;
	long result;		/* 0 or a count, or -errno */
	unsigned char *bytes;	/* write: payload; text: the file text */
	size_t nbytes;
	bool text_error;	/* text: "=> ERRNO" */
	bool consumed;		/* some check used it */
};

static struct entry *entries;
static size_t nentries;
static bool loaded;
static unsigned int checks;

static const struct {
	const char *name;
	int value;
} errnos[] = {
	{ "EPERM", EPERM }, { "ENOENT", ENOENT }, { "ESRCH", ESRCH }, { "EINTR", EINTR },
	{ "EIO", EIO }, { "ENXIO", ENXIO }, { "E2BIG", E2BIG }, { "EBADF", EBADF },
	{ "EAGAIN", EAGAIN }, { "ENOMEM", ENOMEM }, { "EACCES", EACCES }, { "EFAULT", EFAULT },
	{ "EBUSY", EBUSY }, { "EEXIST", EEXIST }, { "ENODEV", ENODEV }, { "ENOTDIR", ENOTDIR },
	{ "EISDIR", EISDIR }, { "EINVAL", EINVAL }, { "ENFILE", ENFILE }, { "EMFILE", EMFILE },
	{ "ENOTTY", ENOTTY }, { "EFBIG", EFBIG }, { "ENOSPC", ENOSPC }, { "ESPIPE", ESPIPE },
	{ "EROFS", EROFS }, { "EPIPE", EPIPE }, { "ERANGE", ERANGE },
	{ "ENAMETOOLONG", ENAMETOOLONG }, { "ENOSYS", ENOSYS }, { "ENOTEMPTY", ENOTEMPTY },
	{ "ELOOP", ELOOP }, { "ENODATA", ENODATA }, { "EOVERFLOW", EOVERFLOW },
	{ "EOPNOTSUPP", EOPNOTSUPP }, { "EADDRINUSE", EADDRINUSE }, { "ECANCELED", ECANCELED },
};

/* ---- reading refkernel.out ------------------------------------------------------- */

/* Undoes the program's escaping: "\\", "\"" and "\xNN". */
static size_t unescape(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && s[i + 1] == 'x' && i + 3 < n) {
			char hex[3] = { s[i + 2], s[i + 3], 0 };

			out[o++] = (char)strtoul(hex, NULL, 16);
			i += 3;
		} else if (s[i] == '\\' && i + 1 < n) {
			out[o++] = s[++i];
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
	return o;
}

static char *dup_unescaped(const char *s, size_t n, size_t *ret_len)
{
	char *out = malloc(n + 1);
	size_t len = unescape(s, n, out);

	if (ret_len)
		*ret_len = len;
	return out;
}

/* A quoted string at *p: returns it unescaped and moves *p past the closing quote. */
static char *take_quoted(const char **p, size_t *ret_len)
{
	const char *s = *p + 1, *e = s;

	while (*e && *e != '"') {
		if (*e == '\\' && e[1])
			e++;
		e++;
	}
	*p = *e ? e + 1 : e;
	return dup_unescaped(s, (size_t)(e - s), ret_len);
}

static char *take_word(const char **p)
{
	const char *s = *p;
	size_t n = strcspn(s, " \n");
	char *w = strndup(s, n);

	*p = s + n + (s[n] == ' ');
	return w;
}

static bool parse_result(const char *s, long *ret)
{
	if (*s >= '0' && *s <= '9') {
		*ret = strtol(s, NULL, 10);
		return true;
	}
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		size_t n = strlen(errnos[i].name);

		if (!strncmp(s, errnos[i].name, n) && (s[n] == '\0' || s[n] == ' ' || s[n] == '\n')) {
			*ret = -errnos[i].value;
			return true;
		}
	}
	return false;
}

/* " => RESULT" at the end of @line, if any. */
static bool result_of(const char *line, long *ret)
{
	const char *p = strstr(line, " => ");

	return p && parse_result(p + 4, ret);
}

static struct entry *add(enum kind kind, int lineno, char *id)
{
	struct entry *e;

	entries = realloc(entries, sizeof(*entries) * (nentries + 1));
	e = &entries[nentries++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->lineno = lineno;
	e->id = id;
	return e;
}

static unsigned char *hex_bytes(const char *s, size_t *ret_n)
{
	size_t n = strcspn(s, " ");
	unsigned char *b = malloc(n / 2 + 1);

	*ret_n = 0;
	if (*s == '-')
		return b;
	for (size_t i = 0; i + 1 < n; i += 2) {
		char hex[3] = { s[i], s[i + 1], 0 };

		b[(*ret_n)++] = (unsigned char)strtoul(hex, NULL, 16);
	}
	return b;
}

static int load(void)
{
	FILE *f = fopen(REF_PATH, "r");
	struct entry *block = NULL;
	size_t cap = 0;
	char *line = NULL;
	ssize_t n;
	int lineno = 0;

	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) >= 0) {
		const char *p = line;
		struct entry *e;
		char *word;

		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (block) {
			if (!strcmp(line, "end") || !strcmp(line, "end-no-newline")) {
				if (!strcmp(line, "end-no-newline") && block->nbytes)
					block->bytes[--block->nbytes] = '\0';
				block = NULL;
				continue;
			}
			if (!strncmp(line, "~garbage-len ", 13))
				continue;
			p = line + (line[0] == '~') + 2;
			block->bytes = realloc(block->bytes, block->nbytes + (size_t)n + 2);
			block->nbytes += unescape(p, strlen(p), (char *)block->bytes + block->nbytes);
			block->bytes[block->nbytes++] = '\n';
			block->bytes[block->nbytes] = '\0';
			continue;
		}
		if (!n || line[0] == '#')
			continue;
		if (!strncmp(line, "~trace-line ", 12)) {
			p = line + 12;
			e = add(K_CONTEXT, lineno, take_word(&p));
			e->str = dup_unescaped(p, strlen(p), &e->str_len);
			continue;
		}
		if (line[0] == '~')
			continue;

		word = take_word(&p);
		if (!strcmp(word, "reg")) {
			e = add(K_REG, lineno, take_word(&p));
			if (*p == '"')
				e->str = take_quoted(&p, &e->str_len);
			else
				p += 1;
			sscanf(p, " flags=%u", &e->flags);
			e->has_result = result_of(p, &e->result);
		} else if (!strcmp(word, "write") && strstr(p, " => ")) {
			e = add(K_WRITE, lineno, take_word(&p));
			e->bytes = hex_bytes(p, &e->nbytes);
			e->has_result = result_of(p, &e->result);
		} else if (!strcmp(word, "trace")) {
			e = add(K_TRACE, lineno, take_word(&p));
			e->str = dup_unescaped(p, strlen(p), &e->str_len);
		} else if (!strcmp(word, "dyn") && strchr(p, '"')) {
			e = add(K_DYN, lineno, take_word(&p));
			e->str = take_quoted(&p, &e->str_len);
			e->has_result = result_of(p, &e->result);
		} else if (!strcmp(word, "text")) {
			const char *arrow = strstr(p, " => ");

			e = add(K_TEXT, lineno, take_word(&p));
			e->str = dup_unescaped(p, arrow ? (size_t)(arrow - p) : strlen(p), &e->str_len);
			if (arrow) {
				e->text_error = true;
			} else {
				e->bytes = calloc(1, 1);
				block = e;
			}
		} else if (!strcmp(word, "multi-dir")) {
			e = add(K_MULTIDIR, lineno, take_word(&p));
			e->str = strdup(p);
		} else {
			e = add(K_OTHER, lineno, take_word(&p));
			e->word = word;
			e->has_result = result_of(p, &e->result);
			word = NULL;
		}
		free(word);
	}
	free(line);
	fclose(f);
	return block ? -EBADMSG : 0;
}

static void ensure_loaded(void)
{
	int r;

	if (loaded)
		return;
	loaded = true;
	r = load();
	if (r)
		UE_FAIL_(1, "cannot read %s (run from the source root): %s", REF_PATH, strerror(-r));
}

/* ---- helpers ------------------------------------------------------------------------- */

static const char *value_name(long v)
{
	static char buf[2][32];
	static unsigned int i;
	char *b = buf[i++ % 2];

	if (v < 0 && ue_errno_name((int)v))
		snprintf(b, 32, "-%s", ue_errno_name((int)v));
	else
		snprintf(b, 32, "%ld", v);
	return b;
}

static void check_int(const struct entry *e, const char *what, long got, long want)
{
	checks++;
	if (got != want)
		UE_FAIL_(0, "line %d %s: %s: core %s, kernel %s", e->lineno, e->id, what,
			 value_name(got), value_name(want));
}

/* @s with newlines and bytes outside ASCII as \n and \xNN, so TAP stays one line each. */
static char *escaped(const char *s)
{
	char *out = malloc(strlen(s) * 4 + 1), *o = out;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			o += sprintf(o, "\\n");
		else if (c == '\\')
			o += sprintf(o, "\\\\");
		else if (c < 0x20 && c != '\t')
			o += sprintf(o, "\\x%02x", c);
		else if (c >= 0x7f)
			o += sprintf(o, "\\x%02x", c);
		else
			*o++ = (char)c;
	}
	*o = '\0';
	return out;
}

static void check_text(const struct entry *e, const char *what, const char *got, const char *want)
{
	checks++;
	if (strcmp(got, want)) {
		char *g = escaped(got), *w = escaped(want);

		UE_FAIL_(0, "line %d %s: %s:\n#   core:   \"%s\"\n#   kernel: \"%s\"", e->lineno,
			 e->id, what, g, w);
		free(g);
		free(w);
	}
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * The text of a renderer that follows the snprintf convention, in a new
 * buffer; NULL on error.  @call names its buffer rbuf_ and its size rlen_.
 */
#define RENDER(call)                                                                    \
	({                                                                              \
		char *out_ = NULL, *rbuf_ = NULL;                                       \
		size_t rlen_ = 0;                                                       \
		int need_ = (call);                                                     \
		if (need_ >= 0) {                                                       \
			rlen_ = (size_t)need_ + 1;                                      \
			rbuf_ = malloc(rlen_);                                          \
			if ((call) == need_)                                            \
				out_ = rbuf_;                                           \
			else                                                            \
				free(rbuf_);                                            \
		}                                                                       \
		out_;                                                                   \
	})

static long expected_status(const struct entry *e)
{
	return e->result < 0 ? e->result : 0;
}

/* The last entry of @kind called @id at or before entry index @before. */
static struct entry *find_before(enum kind kind, const char *id, size_t before)
{
	for (size_t i = before + 1; i-- > 0;)
		if (entries[i].kind == kind && !strcmp(entries[i].id, id))
			return &entries[i];
	return NULL;
}

/*
 * The event a case registered: its reg line, or for a "u:" line of
 * dynamic_events its dyn line.  NULL when neither exists or both failed.
 */
static struct ue_event *event_of(const char *id, size_t before, unsigned int *ret_flags)
{
	struct entry *r = find_before(K_REG, id, before);
	struct ue_event *ev = NULL;

	*ret_flags = 0;
	if (r && r->str && r->has_result && r->result == 0) {
		*ret_flags = r->flags;
		if (ue_event_parse(r->str, &ev))
			return NULL;
		return ev;
	}
	r = find_before(K_DYN, id, before);
	if (r && r->has_result && r->result >= 0) {
		static struct ue_dynevent_cmd cmd;

		if (ue_dynevent_parse(r->str, &cmd) || cmd.op != UE_DYNEVENT_CREATE)
			return NULL;
		if (ue_event_parse_dyn(cmd.name_args, &ev))
			return NULL;
		return ev;
	}
	return NULL;
}

/* "ID: N" lines vary: blank their number on both sides. */
static void blank_id_line(char *text)
{
	char *p = strstr(text, "\nID: ");

	if (p) {
		char *nl = strchr(p + 5, '\n');

		if (nl)
			memmove(p + 5, nl, strlen(nl) + 1);
	}
}

/* ---- checks ------------------------------------------------------------------------- */

TEST(parse_errno)
{
	ensure_loaded();
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = &entries[i];
		struct ue_event *ev = NULL;

		/* registrations whose result depends on name_args alone */
		if (e->kind != K_REG || !e->str || !e->has_result ||
		    !(has_prefix(e->id, "parse.") || has_prefix(e->id, "pay.") ||
		      has_prefix(e->id, "status.")))
			continue;
		e->consumed = true;
		check_int(e, "ue_event_parse", ue_event_parse(e->str, &ev), e->result);
		ue_event_free(ev);
	}
}

TEST(match)
{
	ensure_loaded();
	for (size_t i = 0; i < nentries; i++) {
		struct entry *b = &entries[i], *a;
		char ida[128];
		struct ue_event *ev = NULL;
		const char *args;
		size_t name_len;
		int r;

		if (b->kind != K_REG || !has_prefix(b->id, "match.") || strlen(b->id) < 3 ||
		    strcmp(b->id + strlen(b->id) - 2, ".b"))
			continue;
		snprintf(ida, sizeof(ida), "%.*s.a", (int)strlen(b->id) - 2, b->id);
		a = find_before(K_REG, ida, i);
		if (!a || a->result != 0 || ue_event_parse(a->str, &ev))
			continue;
		a->consumed = b->consumed = true;
		check_int(a, "ue_event_parse", 0, a->result);
		r = ue_name_args_split(b->str, &name_len, &args);
		if (b->result == -EINVAL) {
			/* the kernel refuses text flags before it looks the name up */
			check_int(b, "ue_name_args_split", r, -EINVAL);
		} else if (r) {
			check_int(b, "ue_name_args_split", r, 0);
		} else if (name_len == strlen(ev->name) && !strncmp(b->str, ev->name, name_len)) {
			check_int(b, "ue_event_match_args (1: same event)",
				  ue_event_match_args(ev, args), b->result == 0);
		}
		ue_event_free(ev);
	}
}

/* A "u:..." line of dynamic_events: the line core renders for the event it parses. */
static void check_dynevent_roundtrip(const struct entry *e, const char *line, size_t n)
{
	char *want = malloc(n + 2);
	struct ue_event *ev = NULL;
	char *got;
	int r = -EINVAL;

	memcpy(want, line, n);
	want[n] = '\0';
	if (n >= 2 && !strncmp(want, "u:", 2))
		r = ue_event_parse_dyn(want + 2, &ev);
	check_int(e, "ue_event_parse_dyn of a line of dynamic_events", r, 0);
	if (!r) {
		want[n] = '\n';
		want[n + 1] = '\0';
		got = RENDER(ue_format_dynevent_line(ev, rbuf_, rlen_));
		check_text(e, "dynamic_events line (round trip)", got ? got : "(error)", want);
		free(got);
		ue_event_free(ev);
	}
	free(want);
}

/* A line of user_events_status: "NAME" or "NAME # Used by ftrace perf other". */
static void check_status_line(const struct entry *e, const char *line, size_t n)
{
	char *want = malloc(n + 2), *hash, *name, *got;
	unsigned int status = 0;

	memcpy(want, line, n);
	want[n] = '\0';
	hash = strstr(want, " # Used by");
	name = strndup(want, hash ? (size_t)(hash - want) : n);
	if (hash) {
		status |= strstr(hash, " ftrace") ? UE_STATUS_FTRACE : 0;
		status |= strstr(hash, " perf") ? UE_STATUS_PERF : 0;
		status |= strstr(hash, " other") ? UE_STATUS_OTHER : 0;
	}
	want[n] = '\n';
	want[n + 1] = '\0';
	got = RENDER(ue_format_status_line(name, status, rbuf_, rlen_));
	check_text(e, "user_events_status line", got ? got : "(error)", want);
	free(got);
	free(want);
	free(name);
}

TEST(texts)
{
	unsigned int skipped = 0;

	ensure_loaded();
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = &entries[i];
		const char *t = (const char *)e->bytes;
		unsigned int flags;
		struct ue_event *ev;

		if (e->kind != K_TEXT || e->text_error)
			continue;

		if (!strcmp(e->str, "dynamic_events") || !strcmp(e->str, "user_events_status")) {
			bool status = !strcmp(e->str, "user_events_status");

			e->consumed = true;
			for (const char *p = t; *p;) {
				size_t len = strcspn(p, "\n");

				/*
				 * A name or field may hold a newline, which the kernel prints
				 * as is: a line that does not start with "u:" continues the
				 * one before.
				 */
				while (!status && p[len] == '\n' && p[len + 1] &&
				       strncmp(p + len + 1, "u:", 2))
					len += 1 + strcspn(p + len + 1, "\n");
				if (!status)
					check_dynevent_roundtrip(e, p, len);
				else if (len && strncmp(p, "Active: ", 8) && strncmp(p, "Busy: ", 6))
					check_status_line(e, p, len);
				p += len + (p[len] == '\n');
			}
			/* the event of this case, rendered from its own name_args */
			ev = status ? NULL : event_of(e->id, i, &flags);
			if (ev) {
				char *got = RENDER(ue_format_dynevent_line(ev, rbuf_, rlen_));
				bool found = false;

				for (const char *p = t; got && *p;) {
					size_t len = strcspn(p, "\n");

					found |= !strncmp(p, got, len + 1);
					p += len + (p[len] == '\n');
				}
				checks++;
				if (!found)
					UE_FAIL_(0, "line %d %s: dynamic_events has no line \"%s\"",
						 e->lineno, e->id, got ? got : "(error)");
				free(got);
				ue_event_free(ev);
			}
			continue;
		}

		if (strlen(e->str) > 7 && !strcmp(e->str + strlen(e->str) - 7, "/format") &&
		    has_prefix(e->str, "events/")) {
			const char *tp = strchr(e->str + 7, '/');
			char *tp_name, *got, *want, *pf;

			ev = event_of(e->id, i, &flags);
			if (!ev || !tp) {
				skipped++;
				continue;
			}
			e->consumed = true;
			tp_name = strndup(tp + 1, strlen(tp + 1) - 7);
			got = RENDER(ue_format_file(ev, tp_name, 0, rbuf_, rlen_));
			want = strdup(t);
			if (got)
				blank_id_line(got);
			blank_id_line(want);
			check_text(e, "format file", got ? got : "(error)", want);
			pf = strstr(t, "\nprint fmt: ");
			if (pf) {
				char *fmt = RENDER(ue_format_print_fmt(ev, rbuf_, rlen_));
				/* to the end: a field name may hold a newline */
				char *kfmt = strndup(pf + 12, strlen(pf + 12) - 1);

				check_text(e, "print fmt", fmt ? fmt : "(error)", kfmt);
				free(fmt);
				free(kfmt);
			}
			free(got);
			free(want);
			free(tp_name);
			ue_event_free(ev);
		}
	}
	if (skipped)
		printf("# texts: %u format files of events core cannot rebuild skipped\n", skipped);
}

TEST(payloads)
{
	ensure_loaded();
	for (size_t i = 0; i < nentries; i++) {
		struct entry *w = &entries[i];
		char group[128], *tp_name, *got;
		struct entry *md;
		struct ue_event *ev;
		unsigned char *record;
		unsigned int flags, ntrace = 0;
		struct ue_check *check;
		size_t record_len;
		int r;

		if (w->kind != K_WRITE || !has_prefix(w->id, "pay.") || !w->has_result)
			continue;
		snprintf(group, sizeof(group), "%.*s", (int)strcspn(w->id, "/"), w->id);
		ev = event_of(group, i, &flags);
		if (!ev)
			continue;
		w->consumed = true;
		md = find_before(K_MULTIDIR, group, i);
		tp_name = strdup(flags & USER_EVENT_REG_MULTI_FORMAT && md ? md->str : ev->name);

		record_len = UE_ENTRY_HDR_SIZE + w->nbytes;
		record = calloc(1, record_len);
		memcpy(record + UE_ENTRY_HDR_SIZE, w->bytes, w->nbytes);
		r = ue_check_new(ev, &check);
		if (r == 0) {
			r = ue_check_record(check, record, record_len);
			ue_check_free(check);
		}
		check_int(w, "ue_check_record", r, expected_status(w));

		for (size_t j = i + 1; j < nentries && entries[j].kind == K_TRACE &&
				       !strcmp(entries[j].id, w->id); j++) {
			struct entry *t = &entries[j];
			size_t ent = ue_record_ent_size(record_len);

			t->consumed = true;
			ntrace++;
			got = RENDER(ue_render_fields(ev, tp_name, record, ent, rbuf_, rlen_));
			if (got && *got && got[strlen(got) - 1] == '\n')
				got[strlen(got) - 1] = '\0';
			check_text(t, "trace line", got ? got : "(error)", t->str);
			free(got);
		}
		check_int(w, "trace lines recorded", ntrace, w->result >= 0);
		free(record);
		free(tp_name);
		ue_event_free(ev);
	}
}

/* Events listed by the last dynamic_events text, for the delete lines that follow. */
struct dyn_state {
	struct ue_event **ev;
	size_t n;
};

static void dyn_state_reset(struct dyn_state *s, const char *text)
{
	for (size_t i = 0; i < s->n; i++)
		ue_event_free(s->ev[i]);
	s->n = 0;
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		struct ue_event *ev;

		if (len >= 2 && !ue_event_parse_dyn(line + 2, &ev)) {
			s->ev = realloc(s->ev, sizeof(*s->ev) * (s->n + 1));
			s->ev[s->n++] = ev;
		}
		free(line);
		p += len + (p[len] == '\n');
	}
}

/* Every line of a dyn write through ue_dynevent_parse(): the first failure, or 0. */
static int dyn_lines(const char *text, int (*each)(const struct ue_dynevent_cmd *cmd, void *arg),
		     void *arg, int *ret_first)
{
	static struct ue_dynevent_cmd cmd;
	const char *p = text;
	int r = 0, n = 0;

	*ret_first = 1;
	do {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);

		r = ue_dynevent_parse(line, &cmd);
		free(line);
		if (n++ == 0)
			*ret_first = r;
		if (r == -ENOENT)
			r = 0;
		else if (!r && each)
			r = each(&cmd, arg);
		p += len;
		if (*p == '\n')
			p++;
	} while (!r && *p);
	return r;
}

static int dyn_create(const struct ue_dynevent_cmd *cmd, void *arg)
{
	struct ue_event *ev;
	int r;

	(void)arg;
	if (cmd->op != UE_DYNEVENT_CREATE)
		return -EPROTO;
	r = ue_event_parse_dyn(cmd->name_args, &ev);
	if (!r)
		ue_event_free(ev);
	return r;
}

TEST(dynevent)
{
	struct dyn_state state = { NULL, 0 };

	ensure_loaded();
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = &entries[i];
		static struct ue_dynevent_cmd cmd;
		int first, r;

		if (e->kind == K_TEXT && !e->text_error && !strcmp(e->str, "dynamic_events")) {
			dyn_state_reset(&state, (const char *)e->bytes);
			continue;
		}
		if (e->kind != K_DYN || !e->has_result)
			continue;

		if (has_prefix(e->id, "dyn.create.")) {
			e->consumed = true;
			r = dyn_lines(e->str, dyn_create, NULL, &first);
			check_int(e, "ue_dynevent_parse + ue_event_parse_dyn", r, expected_status(e));
		} else if (has_prefix(e->id, "dyn.empty.")) {
			e->consumed = true;
			r = dyn_lines(e->str, NULL, NULL, &first);
			check_int(e, "ue_dynevent_parse of an empty line", first, -ENOENT);
			check_int(e, "write of empty lines", r, expected_status(e));
		} else if (has_prefix(e->id, "dyn.other.")) {
			e->consumed = true;
			check_int(e, "ue_dynevent_parse of another provider's line",
				  ue_dynevent_parse(e->str, &cmd), -ECANCELED);
		} else if (has_prefix(e->id, "dyn.delete.")) {
			size_t matched = 0, kept = 0;

			e->consumed = true;
			r = ue_dynevent_parse(e->str, &cmd);
			if (e->result == -EINVAL) {
				check_int(e, "ue_dynevent_parse", r, -EINVAL);
				continue;
			}
			check_int(e, "ue_dynevent_parse", r, 0);
			if (r)
				continue;
			check_int(e, "op (1: DELETE)", cmd.op == UE_DYNEVENT_DELETE, 1);
			for (size_t j = 0; j < state.n; j++)
				matched += ue_dynevent_match(&cmd, state.ev[j]);
			/* the kernel deletes every event that matches */
			for (size_t j = 0; e->result >= 0 && j < state.n; j++) {
				if (ue_dynevent_match(&cmd, state.ev[j]))
					ue_event_free(state.ev[j]);
				else
					state.ev[kept++] = state.ev[j];
			}
			if (e->result >= 0)
				state.n = kept;
			check_int(e, "ue_dynevent_match finds an event (1) or none (0)", matched > 0,
				  e->result >= 0);
		}
	}
	dyn_state_reset(&state, NULL);
	free(state.ev);
}

/* "<comm>-<pid> [cpu] flags  sec.usec: " as the kernel printed it. */
TEST(context_prefix)
{
	ensure_loaded();
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = &entries[i];
		struct ue_record_ctx ctx = { 0 };
		const char *br, *dash, *colon, *s;
		char comm[64], flags[16], *want, *got;
		unsigned long sec, usec;

		if (e->kind != K_CONTEXT)
			continue;
		br = strstr(e->str, " [");
		colon = br ? strstr(br, ": ") : NULL;
		if (!br || !colon)
			continue;
		for (dash = br; dash > e->str && *dash != '-'; dash--)
			;
		s = e->str;
		while (*s == ' ')
			s++;
		snprintf(comm, sizeof(comm), "%.*s", (int)(dash - s), s);
		ctx.comm = strcmp(comm, "<...>") ? comm : NULL;
		ctx.pid = atoi(dash + 1);
		ctx.cpu = (unsigned int)atoi(br + 2);
		if (sscanf(strchr(br, ']') + 2, "%15s %lu.%lu", flags, &sec, &usec) != 3)
			continue;
		ctx.lat_flags = flags;
		ctx.ts_ns = ((uint64_t)sec * 1000000 + usec) * 1000;
		e->consumed = true;
		want = strndup(e->str, (size_t)(colon + 2 - e->str));
		got = RENDER(ue_render_context(&ctx, rbuf_, rlen_));
		check_text(e, "context prefix", got ? got : "(error)", want);
		free(got);
		free(want);
	}
}

/* The name of every errno the kernel returned somewhere in the file. */
TEST(errno_names)
{
	ensure_loaded();
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		const char *name = ue_errno_name(errnos[i].value);
		bool seen = false;

		for (size_t j = 0; j < nentries && !seen; j++)
			seen = entries[j].has_result && entries[j].result == -errnos[i].value;
		if (!seen)
			continue;
		checks++;
		if (!name || strcmp(name, errnos[i].name))
			UE_FAIL_(0, "ue_errno_name(%d): got %s, want %s", errnos[i].value,
				 name ? name : "NULL", errnos[i].name);
	}
}

/*
 * What the replay leaves to the daemon: every observation no check above
 * consumed, by kind of line and case family.  Printed, never failed on.
 */
TEST(summary)
{
	struct {
		char key[96];
		unsigned int n;
	} groups[128];
	size_t ngroups = 0, consumed = 0;

	ensure_loaded();
	for (size_t i = 0; i < nentries; i++) {
		const struct entry *e = &entries[i];
		char key[96];
		size_t g;

		if (e->consumed) {
			consumed++;
			continue;
		}
		snprintf(key, sizeof(key), "%s %.*s", e->word ? e->word : kind_names[e->kind],
			 (int)strcspn(e->id, "./"), e->id);
		for (g = 0; g < ngroups && strcmp(groups[g].key, key); g++)
			;
		if (g == ngroups && ngroups < sizeof(groups) / sizeof(groups[0])) {
			snprintf(groups[ngroups].key, sizeof(groups[0].key), "%s", key);
			groups[ngroups++].n = 0;
		}
		if (g < ngroups)
			groups[g].n++;
	}
	printf("# replayed %zu of %zu observations (%u checks); left to the daemon:\n", consumed,
	       nentries, checks);
	for (size_t g = 0; g < ngroups; g++)
		printf("#   %-28s %u\n", groups[g].key, groups[g].n);

	for (size_t i = 0; i < nentries; i++) {
		free(entries[i].word);
		free(entries[i].id);
		free(entries[i].str);
		free(entries[i].bytes);
	}
	free(entries);
	entries = NULL;
	nentries = 0;
}

UE_TEST_MAIN()
