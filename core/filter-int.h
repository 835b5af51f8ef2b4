/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The compiled form of an event filter, shared by its two halves:
 * filter-parse.c builds it (a branch program of predicates) and
 * filter-match.c runs it over a record.  Private to core/.
 */
#ifndef UE_CORE_FILTER_INT_H
#define UE_CORE_FILTER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

/* Operators in the order the kernel tries them ("<=" before "<"). */
enum op { OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, OP_NONE };

enum pred_kind { PK_NOP, PK_NUM, PK_CPU, PK_COMM, PK_STATIC, PK_DYN, PK_RDYN };
enum match_kind { MK_FULL, MK_FRONT, MK_MIDDLE, MK_END, MK_GLOB };

struct pred {
	enum pred_kind kind;
	enum op op;
	enum match_kind match;
	bool not;
	bool is_signed;
	uint32_t size;
	uint64_t offset;
	uint64_t val;
	size_t plen;
	char pattern[];		/* plen bytes and a NUL: a filter's memory follows its text */
};

/*
 * One step of the program: evaluate pred; when the result equals
 * when_to_branch, continue after entry target, else after this one.  The
 * two entries past the last predicate hold the answers (1 then 0).
 */
struct step {
	int target;
	int when_to_branch;
	struct pred *pred;
};

struct ue_filter {
	int npreds;
	struct step *prog;
};

#endif /* UE_CORE_FILTER_INT_H */
