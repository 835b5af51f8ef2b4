/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/ private helpers: the kernel's notion of white space and the word
 * splitter its matching uses (name-args-parse.c, match.c, dynevent.c), and the check
 * of a caller's event the printers make (format-print.c, render.c).  Not part of
 * the API; nothing here leaves libuecore.
 */
#ifndef UE_CORE_INTERNAL_H
#define UE_CORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"

/*
 * The kernel's isspace(): its ctype table is Latin-1, so besides
 * \t \n \v \f \r and ' ' the no-break space 0xa0 is white space too.
 */
static inline bool ue_kspace(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

static inline const char *ue_kskip_spaces(const char *s)
{
	while (ue_kspace(*s))
		s++;
	return s;
}

/*
 * Words of a field list as the kernel's argv_split() sees them.  With
 * @split_semis (registration) a ';' also ends a word, as if a space
 * followed it; without it (a dynamic_events delete line) only white space
 * separates words.
 */
struct ue_words {
	const char *pos;
	bool split_semis;
};

/**
 * ue_words_next - the next word, or false at the end
 * @w: the splitter
 * @ret_word: start of the word (not NUL-terminated)
 * @ret_len: its length
 */
bool ue_words_next(struct ue_words *w, const char **ret_word, size_t *ret_len);

/**
 * ue_fields_match_words - the kernel's user_fields_match() over @w
 * @event: the existing event
 * @w: the words of the other description (an empty list matches only an
 *     event without fields)
 *
 * Each field in order must equal the next words joined by one space, up to
 * and including the first word that holds a ';' (the field then needs one
 * too); every word must be used.
 */
bool ue_fields_match_words(const struct ue_event *event, struct ue_words *w);

/* Every field has a type and a name (a hand-built event may lack them). */
static inline bool ue_event_ok(const struct ue_event *event)
{
	if (!event || (event->nfields && !event->fields))
		return false;
	for (uint32_t i = 0; i < event->nfields; i++)
		if (!event->fields[i].type || !event->fields[i].name)
			return false;
	return true;
}

#endif /* UE_CORE_INTERNAL_H */
