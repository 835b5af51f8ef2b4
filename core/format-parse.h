/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format-parse: the reader's side of core/format-print.c — an event's format file
 * back into a struct ue_event.  Pure (libc only); the tools and the fuzzers use it.
 */
#ifndef UE_CORE_FORMAT_PARSE_H
#define UE_CORE_FORMAT_PARSE_H

#include <stddef.h>

#include "core.h"

/**
 * ue_format_parse - parse the text of an events/<system>/<name>/format file
 * @text: the file's bytes (need not be NUL-terminated)
 * @len: their count
 * @ret_event: on success a new event (free with ue_event_free()): its name
 *             is the "name:" line (NAME or NAME.<hex>), its fields those
 *             after the common_* ones, with the offsets, sizes and
 *             signedness the file states
 * @ret_id: on success the "ID:" line (may be NULL)
 *
 * A fixed array shown as "char a[]" (size 20) comes back as type "char[20]"
 * and name "a", the declaration the kernel derived that line from.
 *
 * Return: 0; -EINVAL when the text is not a format file (no name, no ID, a
 * field line that does not parse); -ENOMEM.
 */
int ue_format_parse(const char *text, size_t len, struct ue_event **ret_event,
		    unsigned int *ret_id);

#endif /* UE_CORE_FORMAT_PARSE_H */
