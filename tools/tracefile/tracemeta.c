// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tools/tracemeta: a recording's metadata from a tracefs, and the formats
 * of its events (tracemeta.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracemeta.h"

void uet_meta_free(struct uet_dat_meta *m)
{
	free(m->header_page.text);
	free(m->header_event.text);
	free(m->cmdlines.text);
	free(m->tgids.text);
	free(m->trace_clock.text);
	if (m->ftrace)
		free(m->ftrace[0].text);
	free(m->ftrace);
	free(m->formats);
	for (unsigned int c = 0; m->cpustats && c < m->ncpus; c++)
		free(m->cpustats[c].text);
	free(m->cpustats);
	memset(m, 0, sizeof(*m));
}

int uet_meta_read(struct uet_dat_meta *m, const char *tracefs, unsigned int ncpus, const char *who)
{
	size_t len;
	char *t;
	int e;

	m->ncpus = ncpus;
	m->header_page.text = uet_read(tracefs, "events/header_page", &m->header_page.len);
	m->header_event.text = uet_read(tracefs, "events/header_event", &m->header_event.len);
	if (!m->header_page.text || !m->header_event.text) {
		e = -errno;
		uet_err("%s: %s/events/header_page: %s", who, tracefs, strerror(-e));
		return e;
	}
	m->cmdlines.text = uet_read(tracefs, "saved_cmdlines", &m->cmdlines.len);
	m->trace_clock.text = uet_read(tracefs, "trace_clock", &m->trace_clock.len);
	t = uet_read(tracefs, "events/ftrace/print/format", &len);
	if (t) {
		m->ftrace = calloc(1, sizeof(*m->ftrace));
		if (!m->ftrace) {
			free(t);
			return -ENOMEM;
		}
		m->ftrace[0] = (struct uet_dat_text){ "ftrace", t, len };
		m->nftrace = 1;
	}
	return 0;
}

int uet_meta_keep(struct uet_meta_formats *k, const struct uet_format *f)
{
	struct uet_meta_kept *at = NULL, *nv;
	char *text = malloc(f->len + 1);

	if (!text)
		return -ENOMEM;
	memcpy(text, f->text, f->len);
	text[f->len] = '\0';
	for (size_t i = 0; i < k->n && !at; i++)
		if (k->v[i].id == f->id)
			at = &k->v[i];
	if (!at) {
		nv = realloc(k->v, (k->n + 1) * sizeof(*nv));
		if (!nv) {
			free(text);
			return -ENOMEM;
		}
		k->v = nv;
		at = &k->v[k->n++];
	} else {
		free(at->t.text);
		free((char *)at->t.system);
	}
	at->id = f->id;
	at->t = (struct uet_dat_text){ strdup(f->system), text, f->len };
	return at->t.system ? 0 : -ENOMEM;
}

static int cmp_kept(const void *a, const void *b)
{
	const struct uet_meta_kept *x = a, *y = b;
	int c = strcmp(x->t.system, y->t.system);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

int uet_meta_formats_set(struct uet_meta_formats *k, struct uet_dat_meta *m)
{
	struct uet_dat_text *v = calloc(k->n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	if (k->n > 1)
		qsort(k->v, k->n, sizeof(*k->v), cmp_kept);
	for (size_t i = 0; i < k->n; i++)
		v[i] = k->v[i].t;
	free(m->formats);
	m->formats = v;
	m->nformats = k->n;
	return 0;
}

void uet_meta_formats_free(struct uet_meta_formats *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->v[i].t.text);
		free((char *)k->v[i].t.system);
	}
	free(k->v);
	k->v = NULL;
	k->n = 0;
}
