// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stat sink (report --stat): no record printed, their counts at the
 * end, as trace-cmd report --stat sums a file up: events per event name,
 * events and lost events per CPU, the first and last time stamp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"
#include "util.h"

struct stat_name {
	char *name;		/* SYSTEM:NAME */
	unsigned long long events;
};

struct stat_cpu {
	unsigned long long events, lost;
	bool lost_some;		/* a loss of unknown size */
};

struct stat_sink {
	struct uet_sink s;
	struct stat_name *names;
	size_t nnames;
	struct stat_cpu *cpus;
	unsigned int ncpus;	/* entries of @cpus: the highest CPU seen + 1 */
	unsigned int file_cpus;	/* the CPUs with data in the file (trace-cmd's cpus=) */
	unsigned long long events;
	uint64_t first, last;
};

static int stat_begin(struct uet_sink *s, const struct uet_sink_env *env)
{
	((struct stat_sink *)s)->file_cpus = env->ncpus;
	return 0;
}

static struct stat_cpu *stat_cpu(struct stat_sink *st, unsigned int cpu)
{
	if (cpu >= st->ncpus) {
		struct stat_cpu *v = realloc(st->cpus, (cpu + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + st->ncpus, 0, (cpu + 1 - st->ncpus) * sizeof(*v));
		st->cpus = v;
		st->ncpus = cpu + 1;
	}
	return &st->cpus[cpu];
}

static int stat_record(struct uet_sink *s, const struct uet_sink_rec *r)
{
	struct stat_sink *st = (struct stat_sink *)s;
	struct stat_cpu *c;
	char name[128];
	size_t i;

	if (!r->format)
		return 0;
	snprintf(name, sizeof(name), "%s:%s", r->format->system, r->format->desc->name);
	for (i = 0; i < st->nnames && strcmp(st->names[i].name, name) != 0; i++)
		;
	if (i == st->nnames) {
		struct stat_name *v = realloc(st->names, (i + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		st->names = v;
		v[i].events = 0;
		v[i].name = strdup(name);
		if (!v[i].name)
			return -ENOMEM;
		st->nnames++;
	}
	c = stat_cpu(st, r->ctx.cpu);
	if (!c)
		return -ENOMEM;
	st->names[i].events++;
	c->events++;
	if (!st->events++ || r->ctx.ts_ns < st->first)
		st->first = r->ctx.ts_ns;
	if (r->ctx.ts_ns > st->last)
		st->last = r->ctx.ts_ns;
	return 0;
}

static int stat_lost(struct uet_sink *s, unsigned int cpu, uint64_t n)
{
	struct stat_cpu *c = stat_cpu((struct stat_sink *)s, cpu);

	if (!c)
		return -ENOMEM;
	if (n == UINT64_MAX)
		c->lost_some = true;
	else
		c->lost += n;
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct stat_name *)a)->name, ((const struct stat_name *)b)->name);
}

static void print_stat(struct stat_sink *st)
{
	FILE *f = st->s.out;
	bool some = false;

	qsort(st->names, st->nnames, sizeof(*st->names), cmp_name);
	fprintf(f, "%-40s %12s\n", "EVENT", "EVENTS");
	for (size_t i = 0; i < st->nnames; i++)
		fprintf(f, "%-40s %12llu\n", st->names[i].name, st->names[i].events);
	fprintf(f, "%-40s %12llu\n", "total", st->events);
	fprintf(f, "\ncpus: %u\n%-8s %12s %12s\n", st->file_cpus, "CPU", "EVENTS", "LOST");
	for (unsigned int c = 0; c < st->ncpus; c++) {
		const struct stat_cpu *p = &st->cpus[c];

		if (!p->events && !p->lost && !p->lost_some)
			continue;
		fprintf(f, "%-8u %12llu %11llu%s\n", c, p->events, p->lost,
			p->lost_some ? "+" : " ");
		some |= p->lost_some;
	}
	if (some)
		fprintf(f, "+: and more lost, count unknown (the daemon went away meanwhile, or "
			   "the kernel's pages did not count)\n");
	if (st->events) {
		/* In microseconds, rounded, as report's and trace-cmd's trace lines show them. */
		unsigned long long first = (st->first + 500) / 1000, last = (st->last + 500) / 1000;

		fprintf(f, "\nfirst: %llu.%06llu\nlast: %llu.%06llu\n", first / 1000000,
			first % 1000000, last / 1000000, last % 1000000);
	}
}

static int stat_end(struct uet_sink *s, bool ok)
{
	struct stat_sink *st = (struct stat_sink *)s;

	if (ok)
		print_stat(st);
	for (size_t i = 0; i < st->nnames; i++)
		free(st->names[i].name);
	free(st->names);
	free(st->cpus);
	return uet_sink_stream_end(s, ok);
}

static const struct uet_sink_ops stat_ops = {
	.name = "stat",
	.needs = UET_SINK_RECORDS,
	.begin = stat_begin,
	.record = stat_record,
	.lost = stat_lost,
	.flush = uet_sink_stream_flush,
	.end = stat_end,
};

struct uet_sink *uet_sink_stat_new(FILE *out, const char *path)
{
	return uet_sink_make(sizeof(struct stat_sink), &stat_ops, out, path);
}
