/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Event filters, the parser: the expression language of
 * events/<system>/<event>/filter as Linux 6.12 parses and keeps it (predicates
 * on fields, &&, ||, !, parentheses), its error texts and caret, compiled into
 * a branch program that threads may share (run by filter-match.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "filter-int.h"
#include "internal.h"

/* The kernel's limits: an operand of 256 bytes or more, a number of 24. */
#define STR_VAL_MAX 256
#define NUM_BUF_SIZE 24

/* The kernel's operator texts, in enum op's order ("<=" before "<"). */
static const char *const op_text[] = { "~", "!=", "==", "<=", "<", ">=", ">", "&" };

/* The kernel's parse error numbers (its err_text[] order) and their texts. */
enum perr {
	PE_NONE, PE_INVALID_OP, PE_TOO_MANY_OPEN, PE_TOO_MANY_CLOSE, PE_MISSING_QUOTE,
	PE_MISSING_BRACE_OPEN, PE_MISSING_BRACE_CLOSE, PE_OPERAND_TOO_LONG, PE_EXPECT_STRING,
	PE_EXPECT_DIGIT, PE_ILLEGAL_FIELD_OP, PE_FIELD_NOT_FOUND, PE_ILLEGAL_INTVAL,
	PE_BAD_SUBSYS_FILTER, PE_TOO_MANY_PREDS, PE_INVALID_FILTER, PE_INVALID_CPULIST,
	PE_IP_FIELD_ONLY, PE_INVALID_VALUE, PE_NO_FUNCTION, PE_ERRNO, PE_NO_FILTER,
	PE_UNSUPPORTED, PE_EXPECT_FIELD,
};
static const char *const perr_text[] = {
	"No error", "Invalid operator", "Too many '('", "Too few '('",
	"Missing matching quote", "Missing '{'", "Missing '}'", "Operand too long",
	"Expecting string field", "Expecting numeric field", "Illegal operation for field type",
	"Field not found", "Illegal integer value",
	"Couldn't find or set field in one of a subsystem's events",
	"Too many terms in predicate expression", "Meaningless filter expression",
	"Invalid cpulist", "Only 'ip' field is supported for function trace",
	"Invalid value (did you forget quotes)?", "Function not found", "Error",
	"No filter found",
	/* Ours: CPUS{...} needs the CPU count and masks, which we do not model. */
	"CPUS{} is not supported by userevents",
	/* Ours, of ue_filter_check() only: where the kernel says "Error: (0)". */
	"Expecting a field name",
};

/*
 * How the kernel classes a field for filtering (filter_assign_type() and the
 * generic fields); FT_ANY: ue_filter_check()'s field of no event, whatever
 * its operand needs.
 */
enum ftype { FT_OTHER, FT_STATIC_STRING, FT_DYN_STRING, FT_RDYN_STRING, FT_PTR_STRING,
	     FT_CPUMASK, FT_CPU, FT_COMM, FT_STACKTRACE, FT_ANY };

struct field_ref {
	enum ftype type;
	uint64_t offset;
	uint32_t size;
	bool is_signed;
};

struct perror_pos {
	enum perr err;
	int pos;
};

/* The kernel's ctype: Latin-1, so 0xc0-0xff (but 0xd7, 0xf7) are letters (ue_kspace(): 0xa0 a space). */
static bool kspace(unsigned char c)
{
	return ue_kspace((char)c);
}

static bool kdigit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool kalnum(unsigned char c)
{
	if (kdigit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
		return true;
	return c >= 0xc0 && c != 0xd7 && c != 0xf7;
}

static void set_perr(struct perror_pos *pe, enum perr err, int pos)
{
	pe->err = err;
	pe->pos = pos;
}

/* kstrtoll() with base 0: a '-' is allowed, and the value must fit. */
static int kstrtoll0(const char *s, uint64_t *ret)
{
	uint64_t v;
	int err;

	if (s[0] == '-') {
		/* The kernel skips '+' only without '-'. */
		if (s[1] == '+')
			return -EINVAL;
		err = ue_kstrtoull(s + 1, 0, &v);
		if (err)
			return err;
		if (v > (uint64_t)1 << 63)
			return -ERANGE;
		*ret = -v;
		return 0;
	}
	err = ue_kstrtoull(s, 0, &v);
	if (err)
		return err;
	if (v >> 63)
		return -ERANGE;
	*ret = v;
	return 0;
}

static enum ftype assign_type(const char *type)
{
	if (strstr(type, "__data_loc")) {
		if (strstr(type, "char"))
			return FT_DYN_STRING;
		if (strstr(type, "cpumask_t"))
			return FT_CPUMASK;
	}
	if (strstr(type, "__rel_loc") && strstr(type, "char"))
		return FT_RDYN_STRING;
	if (strchr(type, '[') && strstr(type, "char"))
		return FT_STATIC_STRING;
	if (!strcmp(type, "char *") || !strcmp(type, "const char *"))
		return FT_PTR_STRING;
	return FT_OTHER;
}

static bool is_string_type(enum ftype t)
{
	return t == FT_STATIC_STRING || t == FT_DYN_STRING || t == FT_RDYN_STRING ||
	       t == FT_PTR_STRING || t == FT_COMM;
}

static bool name_is(const char *name, const char *s, size_t len)
{
	return strlen(name) == len && !memcmp(name, s, len);
}

/*
 * The kernel's trace_find_event_field(): the event's own fields (the last
 * declared first, as its list is built at the head), then the generic
 * fields, then the common ones.  Without @event (ue_filter_check()), any
 * name: the event may declare it, of any type (COMM and cpu too).
 */
static bool find_field(const struct ue_event *event, const char *s, size_t len,
		       struct field_ref *ret)
{
	static const struct {
		const char *name;
		enum ftype type;
		bool is_signed;
	} generic[] = {
		{ "CPU", FT_CPU, true }, { "cpu", FT_CPU, true }, { "common_cpu", FT_CPU, true },
		{ "COMM", FT_COMM, false }, { "comm", FT_COMM, false },
		{ "stacktrace", FT_STACKTRACE, false }, { "STACKTRACE", FT_STACKTRACE, false },
	};
	static const struct {
		const char *name;
		uint32_t offset, size;
		bool is_signed;
	} common[] = {
		{ "common_type", 0, 2, false }, { "common_flags", 2, 1, false },
		{ "common_preempt_count", 3, 1, false }, { "common_pid", 4, 4, true },
	};

	if (!event) {
		*ret = (struct field_ref){ FT_ANY, 0, 8, false };
		return true;
	}
	for (uint32_t i = event->nfields; i-- > 0;) {
		const struct ue_field *f = &event->fields[i];

		if (f->name && f->type && name_is(f->name, s, len)) {
			*ret = (struct field_ref){ assign_type(f->type), f->offset, f->size,
						   f->is_signed };
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		if (name_is(generic[i].name, s, len)) {
			*ret = (struct field_ref){ generic[i].type, 0, 0, generic[i].is_signed };
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		if (name_is(common[i].name, s, len)) {
			*ret = (struct field_ref){ FT_OTHER, common[i].offset, common[i].size,
						   common[i].is_signed };
			return true;
		}
	}
	return false;
}

/*
 * The kernel's filter_parse_regex() for '~': a leading '!' negates, a
 * leading digit means a full match, "*x" / "x*" / "*x*" are end, front and
 * middle matches, any other '*' or a '[', '?' or '\' makes a glob.
 */
static void build_regex(struct pred *p)
{
	char *b = p->pattern;
	size_t len = p->plen;
	enum match_kind kind = MK_FULL;
	size_t skip = 0;

	if (p->op != OP_GLOB) {
		p->match = MK_FULL;
		return;
	}
	p->not = b[0] == '!';
	if (p->not) {
		b++;
		len--;
	}
	if (kdigit((unsigned char)b[0]))
		goto done;
	for (size_t i = 0; i < len; i++) {
		if (b[i] == '*') {
			if (i == 0) {
				kind = MK_END;
			} else if (i == len - 1) {
				kind = kind == MK_END ? MK_MIDDLE : MK_FRONT;
				b[i] = '\0';
				break;
			} else {
				kind = MK_GLOB;
				goto done;
			}
		} else if (b[i] == '[' || b[i] == '?' || b[i] == '\\') {
			kind = MK_GLOB;
			goto done;
		}
	}
	if (b[0] == '*')
		skip = 1;
done:
	b += skip;
	p->match = kind;
	p->plen = strlen(b);
	memmove(p->pattern, b, p->plen + 1);
}

/* The kernel's choice of comparison by size; other sizes never match. */
static enum pred_kind comparison_kind(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8 ? PK_NUM : PK_NOP;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * One predicate ("field op value") at @str, the kernel's parse_pred();
 * @pos is what the kernel passes: the predicate's index in the whole
 * string plus one.  Return: characters used, or -EINVAL (with *pe set),
 * -1 (no field name: the kernel's write then fails with EPERM), -ENOMEM.
 */
static int parse_pred(const struct ue_event *event, const char *str, int pos,
		      struct perror_pos *pe, struct pred **ret)
{
	struct field_ref field;
	struct pred *p;
	bool function = false;
	int i = 0, s, op;
	size_t len;

	while (kspace((unsigned char)str[i]))
		i++;
	s = i;
	while (kalnum((unsigned char)str[i]) || str[i] == '_')
		i++;
	if (i == s)
		return -1;
	if (!find_field(event, str + s, (size_t)(i - s), &field)) {
		set_perr(pe, PE_FIELD_NOT_FOUND, pos + i);
		return -EINVAL;
	}
	if (has_prefix(str + i, ".ustring"))
		i += 8;
	if (has_prefix(str + i, ".function")) {
		function = true;
		i += 9;
	}
	while (kspace((unsigned char)str[i]))
		i++;
	for (op = 0; op < OP_NONE; op++)
		if (has_prefix(str + i, op_text[op]))
			break;
	if (op == OP_NONE) {
		set_perr(pe, PE_INVALID_OP, pos + i);
		return -EINVAL;
	}
	i += (int)strlen(op_text[op]);
	while (kspace((unsigned char)str[i]))
		i++;
	s = i;

	if (function) {
		if (field.size != 8) {
			set_perr(pe, PE_ILLEGAL_FIELD_OP, pos + i);
			return -EINVAL;
		}
		if (op != OP_EQ && op != OP_NE) {
			set_perr(pe, PE_INVALID_OP, pos + i);
			return -EINVAL;
		}
		if (kdigit((unsigned char)str[i])) {
			char num[NUM_BUF_SIZE];
			uint64_t ip;

			while (kalnum((unsigned char)str[i]))
				i++;
			if (i - s >= NUM_BUF_SIZE) {
				set_perr(pe, PE_OPERAND_TOO_LONG, pos + i);
				return -EINVAL;
			}
			memcpy(num, str + s, (size_t)(i - s));
			num[i - s] = '\0';
			if (ue_kstrtoull(num, 0, &ip)) {
				set_perr(pe, PE_INVALID_VALUE, pos + i);
				return -EINVAL;
			}
		} else {
			while (str[i] && !kspace((unsigned char)str[i]))
				i++;
		}
		/*
		 * There are no kernel symbols here: every address and name is
		 * unknown (the kernel's tracefs may know it: no check refuses it).
		 */
		if (event) {
			set_perr(pe, PE_NO_FUNCTION, pos + i);
			return -EINVAL;
		}
		goto nop;
	}

	if (has_prefix(str + i, "CPUS")) {
		if (field.type != FT_CPUMASK && field.type != FT_CPU && field.type != FT_OTHER &&
		    field.type != FT_ANY) {
			set_perr(pe, PE_ILLEGAL_FIELD_OP, pos + i);
			return -EINVAL;
		}
		if (op != OP_EQ && op != OP_NE && op != OP_BAND) {
			set_perr(pe, PE_ILLEGAL_FIELD_OP, pos + i);
			return -EINVAL;
		}
		i += 4;
		if (str[i++] != '{') {
			set_perr(pe, PE_MISSING_BRACE_OPEN, pos + i);
			return -EINVAL;
		}
		s = i;
		while (str[i] && str[i] != '}')
			i++;
		if (str[i] != '}') {
			set_perr(pe, PE_MISSING_BRACE_CLOSE, pos + i);
			return -EINVAL;
		}
		/* Not modelled here, but the kernel's tracefs takes a CPU list. */
		if (event || i == s) {
			set_perr(pe, i == s ? PE_INVALID_CPULIST : PE_UNSUPPORTED, pos + i);
			return -EINVAL;
		}
		i++;
		goto nop;
	}

	p = calloc(1, sizeof(*p) + 1);
	if (!p)
		return -ENOMEM;
	p->op = (enum op)op;
	p->offset = field.offset;
	p->size = field.size;
	p->is_signed = field.is_signed;

	if (str[i] == '\'' || str[i] == '"') {
		struct pred *np;
		char q = str[i];

		if (op == OP_NE) {
			p->not = true;
		} else if (op != OP_GLOB && op != OP_EQ) {
			set_perr(pe, PE_ILLEGAL_FIELD_OP, pos + i);
			goto fail;
		}
		if (!is_string_type(field.type) && field.type != FT_ANY) {
			set_perr(pe, PE_EXPECT_DIGIT, pos + i);
			goto fail;
		}
		for (i++; str[i] && str[i] != q; i++)
			;
		if (!str[i]) {
			set_perr(pe, PE_MISSING_QUOTE, pos + i);
			goto fail;
		}
		s++;
		len = (size_t)(i - s);
		if (len >= STR_VAL_MAX) {
			set_perr(pe, PE_OPERAND_TOO_LONG, pos + i);
			goto fail;
		}
		np = realloc(p, sizeof(*p) + len + 1);
		if (!np) {
			free(p);
			return -ENOMEM;
		}
		p = np;
		memcpy(p->pattern, str + s, len);
		p->pattern[len] = '\0';
		p->plen = len;
		build_regex(p);
		switch (field.type) {
		case FT_COMM: p->kind = PK_COMM; break;
		case FT_STATIC_STRING: p->kind = PK_STATIC; break;
		case FT_DYN_STRING: p->kind = PK_DYN; break;
		case FT_RDYN_STRING: p->kind = PK_RDYN; break;
		/* A "char *" holds an address in another process: never readable here. */
		default: p->kind = PK_NOP; break;
		}
		i++;
	} else if (kdigit((unsigned char)str[i]) || str[i] == '-') {
		char num[NUM_BUF_SIZE];
		int err;

		if (is_string_type(field.type)) {
			set_perr(pe, PE_EXPECT_STRING, pos + i);
			goto fail;
		}
		if (op == OP_GLOB) {
			set_perr(pe, PE_ILLEGAL_FIELD_OP, pos + i);
			goto fail;
		}
		if (str[i] == '-')
			i++;
		while (kalnum((unsigned char)str[i]))
			i++;
		if (i - s >= NUM_BUF_SIZE) {
			set_perr(pe, PE_OPERAND_TOO_LONG, pos + i);
			goto fail;
		}
		memcpy(num, str + s, (size_t)(i - s));
		num[i - s] = '\0';
		/* A field of no event is as signed as its operand. */
		if (field.type == FT_ANY)
			field.is_signed = num[0] == '-';
		err = field.is_signed ? kstrtoll0(num, &p->val) : ue_kstrtoull(num, 0, &p->val);
		if (err) {
			set_perr(pe, PE_ILLEGAL_INTVAL, pos + s);
			goto fail;
		}
		if (field.type == FT_CPU) {
			p->kind = PK_CPU;
		} else {
			p->kind = comparison_kind(field.size);
			p->not = op == OP_NE;
		}
	} else {
		set_perr(pe, PE_INVALID_VALUE, pos + i);
		goto fail;
	}
	*ret = p;
	return i;
nop:
	/* ue_filter_check(): well formed, for a tracefs that can tell more. */
	p = calloc(1, sizeof(*p) + 1);
	if (!p)
		return -ENOMEM;
	p->kind = PK_NOP;
	*ret = p;
	return i;
fail:
	free(p);
	return -EINVAL;
}

enum { CS_TOO_MANY_CLOSE = -1, CS_TOO_MANY_OPEN = -2, CS_MISSING_QUOTE = -3 };

/*
 * The kernel's calc_stack(): a first look at the whole string for the
 * number of predicates and the depth of parentheses, and for unbalanced
 * parentheses and quotes (its negative results become the write's errno).
 */
static int calc_stack(const char *str, int *ret_parens, int *ret_preds, int *ret_err)
{
	int open = 1, max_open = 1, preds = 0, last_quote = 0, i;
	bool in_pred = false;
	char quote = 0;

	*ret_err = 0;
	for (i = 0; str[i]; i++) {
		if (kspace((unsigned char)str[i]))
			continue;
		if (quote) {
			if (str[i] == quote)
				quote = 0;
			continue;
		}
		switch (str[i]) {
		case '\'':
		case '"':
			quote = str[i];
			last_quote = i;
			break;
		case '|':
		case '&':
			if (str[i + 1] != str[i])
				break;
			in_pred = false;
			continue;
		case '(':
			in_pred = false;
			if (++open > max_open)
				max_open = open;
			continue;
		case ')':
			in_pred = false;
			if (open == 1) {
				*ret_err = i;
				return CS_TOO_MANY_CLOSE;
			}
			open--;
			continue;
		}
		if (!in_pred) {
			preds++;
			in_pred = true;
		}
	}
	if (quote) {
		*ret_err = last_quote;
		return CS_MISSING_QUOTE;
	}
	if (open != 1) {
		int level = open;

		/* Walk back to the '(' left open; index 0 is never looked at. */
		for (i--; i > 0; i--) {
			if (quote) {
				if (str[i] == quote)
					quote = 0;
				continue;
			}
			switch (str[i]) {
			case '(':
				if (level == open) {
					*ret_err = i;
					return CS_TOO_MANY_OPEN;
				}
				level--;
				break;
			case ')':
				level++;
				break;
			case '\'':
			case '"':
				quote = str[i];
				break;
			}
		}
		*ret_err = 0;
		return CS_TOO_MANY_OPEN;
	}
	*ret_parens = max_open;
	*ret_preds = preds;
	return 0;
}

enum { ST_INVERT = 1, ST_AND = 2, ST_OR = 4 };

/* Points the pending "&&" or "||" of entry @n's operand at label @n. */
static void link_branch(struct step *prog, int n, int when)
{
	int t = prog[n].target;
	int s = prog[t].target;

	prog[t].when_to_branch = when;
	prog[t].target = n;
	prog[n].target = s;
}

static void free_prog(struct step *prog)
{
	if (!prog)
		return;
	for (int i = 0; prog[i].pred; i++)
		free(prog[i].pred);
	free(prog);
}

/*
 * The kernel's predicate_parse(): one pass over the string builds the
 * branch program (&& binds tighter than ||; a '!' before a predicate or a
 * parenthesis inverts it), then two passes shorten the jumps and fold the
 * inversions into the branch conditions.  Returns 0 or the kernel's error,
 * including its -1 (EPERM) for tokens where it expected "&&", "||" or ')'.
 */
static int build_program(const struct ue_event *event, const char *str, int nr_parens,
			 int nr_preds, struct perror_pos *pe, struct step **ret_prog)
{
	struct step *prog;
	const char *ptr = str;
	char *inverts;
	int *stack, *top;
	int ret = -ENOMEM, n = 0, invert = 0;

	stack = malloc(sizeof(*stack) * (size_t)nr_parens);
	prog = calloc((size_t)nr_preds + 2, sizeof(*prog));
	inverts = malloc((size_t)nr_preds + 2);
	if (!stack || !prog || !inverts)
		goto fail;
	top = stack;
	*top = 0;

	while (*ptr) {
		const char *next = ptr++;
		int len;

		if (kspace((unsigned char)*next))
			continue;
		if (*next == '(') {
			if (top - stack >= nr_parens - 1) {
				ret = -EINVAL;
				goto fail;
			}
			*++top = invert;
			continue;
		}
		if (*next == '!' && next[1] != '=' && next[1] != '~') {
			invert = !invert;
			continue;
		}
		if (n >= nr_preds) {
			set_perr(pe, PE_TOO_MANY_PREDS, (int)(next - str));
			goto fail;
		}
		inverts[n] = (char)invert;
		prog[n].target = n - 1;
		len = parse_pred(event, next, (int)(ptr - str), pe, &prog[n].pred);
		if (len < 0) {
			/* No field name: the kernel records no reason; the check gives one. */
			if (len == -1 && !event)
				set_perr(pe, PE_EXPECT_FIELD, (int)(next - str));
			ret = len;
			goto fail;
		}
		ptr = next + len;
		n++;

		ret = -1;
		for (;;) {
			char c;

			next = ptr++;
			c = *next;
			if (kspace((unsigned char)c))
				continue;
			if (c == '&' || c == '|') {
				if (next[1] != c) {
					set_perr(pe, PE_TOO_MANY_PREDS, (int)(next - str));
					goto fail;
				}
				ptr++;
			} else if (c != ')' && c != '\0') {
				set_perr(pe, PE_TOO_MANY_PREDS, (int)(next - str));
				goto fail;
			}
			invert = *top & ST_INVERT;
			if (*top & ST_AND) {
				link_branch(prog, n - 1, invert);
				*top &= ~ST_AND;
			}
			if (c == '&') {
				*top |= ST_AND;
				break;
			}
			if (*top & ST_OR) {
				link_branch(prog, n - 1, !invert);
				*top &= ~ST_OR;
			}
			if (c == '|') {
				*top |= ST_OR;
				break;
			}
			if (!c)
				goto done;
			if (top == stack) {
				set_perr(pe, PE_TOO_MANY_CLOSE, (int)(ptr - str));
				goto fail;
			}
			top--;
		}
	}
	/* The string ended where a predicate was expected. */
	if (n) {
		ret = -EINVAL;
		set_perr(pe, PE_INVALID_FILTER, (int)(ptr - str));
		goto fail;
	}
done:
	if (top != stack) {
		set_perr(pe, PE_TOO_MANY_OPEN, (int)(ptr - str));
		goto fail;
	}
	if (!n) {
		ret = -EINVAL;
		set_perr(pe, PE_NO_FILTER, (int)(ptr - str));
		goto fail;
	}
	prog[n].target = 1;
	prog[n + 1].target = 0;
	prog[n - 1].target = n;
	prog[n - 1].when_to_branch = 0;
	for (int i = n - 1; i-- > 0;) {
		int t = prog[i].target;

		if (prog[i].when_to_branch == prog[t].when_to_branch)
			prog[i].target = prog[t].target;
	}
	for (int i = 0; i < n; i++) {
		prog[i].when_to_branch ^= inverts[i];
		if (prog[i].target <= i) {
			/* Cannot happen (the kernel warns): refuse rather than loop. */
			ret = -EINVAL;
			goto fail;
		}
	}
	free(stack);
	free(inverts);
	*ret_prog = prog;
	return 0;
fail:
	free(stack);
	free(inverts);
	free_prog(prog);
	return ret;
}

/* What the kernel keeps of a write: up to its first NUL, trailing white space cut. */
static char *kept_text(const char *text, size_t len)
{
	char *kept;

	len = text ? strnlen(text, len) : 0;
	while (len && kspace((unsigned char)text[len - 1]))
		len--;
	kept = malloc(len + 1);
	if (!kept)
		return NULL;
	if (len)
		memcpy(kept, text, len);
	kept[len] = '\0';
	return kept;
}

/* "0" after leading white space: the write that removes the filter. */
static bool is_clear(const char *kept)
{
	while (kspace((unsigned char)*kept))
		kept++;
	return !strcmp(kept, "0");
}

/* The kernel's filter_string after an error (append_filter_err()). */
static char *error_text(const char *kept, const struct perror_pos *pe)
{
	int klen = (int)strlen(kept), pos = pe->pos, n;
	char *out;

	if (pos > klen)
		pos = klen;
	if (pos)
		pos++;
	for (int pass = 0; pass < 2; pass++) {
		size_t size = pass ? (size_t)n + 1 : 0;

		out = pass ? malloc(size) : NULL;
		if (pass && !out)
			return NULL;
		if (pe->err > PE_NONE)
			n = snprintf(out, size, "%s\n%*s\nparse_error: %s\n", kept, pos, "^",
				     perr_text[pe->err]);
		else
			n = snprintf(out, size, "%s\nError: (%d)\n", kept, (int)pe->err);
		if (n < 0) {
			free(out);
			return NULL;
		}
	}
	return out;
}

/* ue_filter_parse(), or without @event ue_filter_check()'s parse. */
static int filter_parse(const struct ue_event *event, const char *text, size_t len,
			struct ue_filter **ret, char **ret_shown)
{
	struct perror_pos pe = { PE_NONE, 0 };
	struct step *prog = NULL;
	struct ue_filter *f;
	int parens = 0, preds = 0, where, err;
	char *kept;

	*ret = NULL;
	*ret_shown = NULL;
	if ((event && event->nfields && !event->fields) || (!text && len))
		return -EINVAL;
	if (len >= UE_FILTER_MAX_WRITE)
		return -EINVAL;
	kept = kept_text(text, len);
	if (!kept)
		return -ENOMEM;
	if (is_clear(kept)) {
		free(kept);
		return 0;
	}

	err = calc_stack(kept, &parens, &preds, &where);
	if (err < 0) {
		set_perr(&pe, err == CS_MISSING_QUOTE	 ? PE_MISSING_QUOTE
			      : err == CS_TOO_MANY_OPEN ? PE_TOO_MANY_OPEN
							 : PE_TOO_MANY_CLOSE,
			 where);
	} else if (!preds) {
		err = -EINVAL;
		if (!event)
			set_perr(&pe, PE_NO_FILTER, 0);
	} else {
		err = build_program(event, kept, parens, preds, &pe, &prog);
	}
	if (err == -ENOMEM) {
		free(kept);
		return err;
	}
	if (err) {
		*ret_shown = error_text(kept, &pe);
		free(kept);
		return *ret_shown ? err : -ENOMEM;
	}
	f = malloc(sizeof(*f));
	if (!f) {
		free_prog(prog);
		free(kept);
		return -ENOMEM;
	}
	f->prog = prog;
	for (f->npreds = 0; prog[f->npreds].pred; f->npreds++)
		;
	*ret = f;
	*ret_shown = kept;
	return 0;
}

/**
 * ue_filter_parse - compile what was written to an event's filter file
 * @event: the event whose fields the expression names
 * @text: the bytes of the write (not NUL-terminated)
 * @len: their number
 * @ret: the compiled filter; NULL when the write clears the filter or fails
 * @ret_shown: the kernel's filter string afterwards (malloc'ed), or NULL
 *
 * See core.h for what the caller applies in each case.
 *
 * Return: 0, or the kernel's errno (-EINVAL, -EPERM, -ENOENT, -ESRCH), -ENOMEM.
 */
int ue_filter_parse(const struct ue_event *event, const char *text, size_t len,
		    struct ue_filter **ret, char **ret_shown)
{
	if (!event) {
		*ret = NULL;
		*ret_shown = NULL;
		return -EINVAL;
	}
	return filter_parse(event, text, len, ret, ret_shown);
}

/**
 * ue_filter_check - whether @text is a filter some event could take
 * @text: the filter (not NUL-terminated)
 * @len: its length
 * @ret_msg: on error, the text, a caret and the reason (malloc'ed), or NULL
 *
 * See core.h.  Return: 0, or the errno ue_filter_parse() gives any event.
 */
int ue_filter_check(const char *text, size_t len, char **ret_msg)
{
	struct ue_filter *f = NULL;
	char *shown = NULL;
	int r = filter_parse(NULL, text, len, &f, &shown);

	ue_filter_free(f);
	if (r == 0) {
		free(shown);
		shown = NULL;
	}
	*ret_msg = shown;
	return r;
}

/**
 * ue_filter_subsystem_error - an event's filter string after a subsystem filter failed on it
 * @text: what was written to events/<system>/filter (not NUL-terminated)
 * @len: its length
 *
 * Return: the kept text with the kernel's subsystem error (malloc'ed), or NULL.
 */
char *ue_filter_subsystem_error(const char *text, size_t len)
{
	struct perror_pos pe = { PE_BAD_SUBSYS_FILTER, 0 };
	char *kept = kept_text(text, len);
	char *shown;

	if (!kept)
		return NULL;
	shown = error_text(kept, &pe);
	free(kept);
	return shown;
}

/** ue_filter_free - release a filter (NULL is ignored) */
void ue_filter_free(struct ue_filter *f)
{
	if (!f)
		return;
	free_prog(f->prog);
	free(f);
}
