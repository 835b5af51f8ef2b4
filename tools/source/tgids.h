/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tools/source: thread -> process (tgids.c). */
#ifndef UE_TOOLS_TGIDS_H
#define UE_TOOLS_TGIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#include "util.h"

/*
 * Thread id -> process id (tgids.c): the kernel's saved_tgids text (a
 * recording's, a tracefs's) and, live, /proc/TID/status; cached.
 */
struct uet_tgids;

/** uet_tgids_new - an empty map; @tracefs: live (answers from /proc, then its saved_tgids), or NULL */
struct uet_tgids *uet_tgids_new(const char *tracefs);
/** uet_tgids_free - release @t (NULL is ignored) */
void uet_tgids_free(struct uet_tgids *t);
/** uet_tgids_parse - add the "PID TGID" lines of @text (saved_tgids' text); 0 or -ENOMEM */
int uet_tgids_parse(struct uet_tgids *t, const char *text, size_t len);
/** uet_tgids_get - the process of thread @tid, 0 when not known (@t NULL: 0) */
int32_t uet_tgids_get(struct uet_tgids *t, int32_t tid);
/** uet_tgids_text - every known pair as saved_tgids shows them, in pid order (free it); NULL without memory */
char *uet_tgids_text(struct uet_tgids *t, size_t *ret_len);
/** uet_tgids_known - how many threads have a known process */
size_t uet_tgids_known(const struct uet_tgids *t);

#endif /* UE_TOOLS_TGIDS_H */
