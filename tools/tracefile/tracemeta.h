/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools/tracemeta: what a recording file holds besides its records, as a
 * tracefs gives it (header_page, header_event, the ftrace print format,
 * task names, the clock) and the formats of the events recorded, kept by
 * type id and grouped by system: the trace.dat sink's metadata sections
 * and the perf.data sink's tracing data are made of the same.
 */
#ifndef UE_TOOLS_TRACEMETA_H
#define UE_TOOLS_TRACEMETA_H

#include <stddef.h>

#include "formats.h"
#include "tracedat.h"

/**
 * uet_meta_read - the tracefs's part of @m (uet_meta_free())
 * @who: the command, for the message when header_page cannot be read
 *
 * Return: 0 or -errno (said).
 */
int uet_meta_read(struct uet_dat_meta *m, const char *tracefs, unsigned int ncpus, const char *who);
void uet_meta_free(struct uet_dat_meta *m);

/* The formats recorded, by type id (the event may be gone by the end). */
struct uet_meta_kept {
	unsigned int id;
	struct uet_dat_text t;
};

struct uet_meta_formats {
	struct uet_meta_kept *v;
	size_t n;
};

/** uet_meta_keep - keep @f's text by type id (seen again with another text: the new one); 0 or -ENOMEM */
int uet_meta_keep(struct uet_meta_formats *k, const struct uet_format *f);
/** uet_meta_formats_set - @k's formats, grouped by system, as @m->formats (pointing into @k); 0 or -ENOMEM */
int uet_meta_formats_set(struct uet_meta_formats *k, struct uet_dat_meta *m);
void uet_meta_formats_free(struct uet_meta_formats *k);

#endif /* UE_TOOLS_TRACEMETA_H */
