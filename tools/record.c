// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * userevents record and report: record copies the ring-buffer pages of
 * per_cpu/cpuN/trace_pipe_raw into a trace-cmd trace.dat (tracedat.c);
 * report reads such a file (ours or trace-cmd's) and prints its records as
 * the trace file shows them, or as JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format-parse.h"
#include "rbpage.h"
#include "tool.h"
#include "tracedat.h"

/* What the trace file shows in the flags column of a user event. */
#define LAT_FLAGS "....."

static volatile sig_atomic_t rec_stop;

static void on_stop(int sig)
{
	(void)sig;
	rec_stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct rec_counts {
	unsigned long long events, bytes, missed;
};

/* Count the events of a page (for the progress line); its bytes go to @out. */
static void count_page(struct rec_counts *rc, const void *page, size_t len)
{
	struct ue_rbpage_iter it;
	const void *data;
	uint64_t ts;
	size_t dlen;

	rc->bytes += len;
	if (ue_rbpage_iter_init(&it, page, len) < 0)
		return;
	if (it.missed && it.missed != UINT64_MAX)
		rc->missed += it.missed;
	while (ue_rbpage_next(&it, &ts, &data, &dlen) == 1)
		rc->events++;
}

/* One pass over the CPUs' trace_pipe_raw; the count of pages read, or -errno. */
static int read_pages(int *fds, FILE **out, unsigned int ncpus, struct rec_counts *rc)
{
	uint8_t page[UE_RB_PAGE_SIZE];
	int pages = 0;

	for (unsigned int c = 0; c < ncpus; c++) {
		for (int k = 0; k < 64; k++) {
			ssize_t n = read(fds[c], page, sizeof(page));

			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			if (n < 0)
				return -errno;
			if (n == 0)
				break;
			if ((size_t)n < sizeof(page))
				memset(page + n, 0, sizeof(page) - (size_t)n);
			if (fwrite(page, sizeof(page), 1, out[c]) != 1)
				return -EIO;
			count_page(rc, page, sizeof(page));
			pages++;
		}
	}
	return pages;
}

static void progress(const struct rec_counts *rc, const struct uet_buf_stats *st, bool final)
{
	unsigned long long drops = rc->missed + (st ? st->overrun + st->dropped : 0);

	fprintf(stderr, "%s" UET_PROG ": record: %llu events, %llu bytes, %llu dropped%s",
		final ? "" : "\r", rc->events, rc->bytes, drops, final ? "\n" : "");
	fflush(stderr);
}

static int add_text(struct uet_dat_text **v, size_t *n, const char *system, char *text, size_t len)
{
	struct uet_dat_text *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = (struct uet_dat_text){ system, text, len };
	(*n)++;
	return 0;
}

static void free_texts(struct uet_dat_text *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

/* The metadata from @tracefs and the pages in @cpu_data into @path. */
static int write_file(const char *tracefs, const char *path, FILE **cpu_data, unsigned int ncpus)
{
	struct uet_dat_meta m = { .ncpus = ncpus };
	struct uet_events evs = { 0 };
	char rel[600];
	int fd, e;

	m.header_page.text = uet_read(tracefs, "events/header_page", &m.header_page.len);
	m.header_event.text = uet_read(tracefs, "events/header_event", &m.header_event.len);
	if (!m.header_page.text || !m.header_event.text) {
		uet_err("record: %s/events/header_page: %s", tracefs, strerror(errno));
		e = -errno;
		goto out;
	}
	m.cmdlines.text = uet_read(tracefs, "saved_cmdlines", &m.cmdlines.len);
	m.trace_clock.text = uet_read(tracefs, "trace_clock", &m.trace_clock.len);
	{
		size_t len;
		char *t = uet_read(tracefs, "events/ftrace/print/format", &len);

		if (t && add_text(&m.ftrace, &m.nftrace, "ftrace", t, len) < 0)
			free(t);
	}
	e = uet_events_load(tracefs, &evs);
	if (e < 0) {
		uet_err("record: %s/events: %s", tracefs, strerror(-e));
		goto out;
	}
	/* uet_events_load() sorts by system, then name: one run per system. */
	for (size_t i = 0; i < evs.n; i++) {
		size_t len;
		char *t;

		snprintf(rel, sizeof(rel), "events/%s/%s/format", evs.v[i].system, evs.v[i].name);
		t = uet_read(tracefs, rel, &len);
		if (!t)
			continue;	/* deleted meanwhile */
		e = add_text(&m.formats, &m.nformats,
			     strcmp(evs.v[i].system, uet_systems[0]) == 0 ? uet_systems[0]
									  : uet_systems[1],
			     t, len);
		if (e < 0) {
			free(t);
			goto out;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = -errno;
		uet_err("record: %s: %s", path, strerror(errno));
		goto out;
	}
	e = uet_dat_write(fd, &m, cpu_data, UE_RB_PAGE_SIZE);
	if (close(fd) < 0 && e == 0)
		e = -errno;
	if (e < 0)
		uet_err("record: writing %s: %s", path, strerror(-e));
out:
	uet_events_free(&evs);
	free(m.header_page.text);
	free(m.header_event.text);
	free(m.cmdlines.text);
	free(m.trace_clock.text);
	free_texts(m.ftrace, m.nftrace);
	free_texts(m.formats, m.nformats);
	return e;
}

int uet_cmd_record(const char *tracefs_opt, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static char *all_user_events[] = { "user_events*:*" };
	struct uet_autoenable ae = { 0 };
	struct uet_private *priv = NULL;
	struct uet_buf_stats st;
	struct rec_counts rc = { 0 };
	struct sigaction sa;
	const char *output = NULL;
	char tracefs[4096];
	char **globs;
	FILE **out = NULL;
	int *fds = NULL;
	unsigned int ncpus = 0;
	size_t n = 0;
	bool quiet = false, have_st, tty = isatty(STDERR_FILENO);
	pid_t child = -1;
	int c, e, status = 0, exit_code = UET_EXIT_FAIL;
	uint64_t last_progress = 0;

	globs = calloc((size_t)argc + 1, sizeof(*globs));
	if (!globs)
		return UET_EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:e:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'e':
			globs[n++] = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			puts("usage: " UET_PROG " record -o FILE [-e GLOB]... [-q] [-- CMD [ARGS]]");
			free(globs);
			return UET_EXIT_OK;
		default:
			free(globs);
			return UET_EXIT_USAGE;
		}
	}
	if (!output) {
		uet_err("record: no output file (usage: " UET_PROG " record -o FILE ...)");
		free(globs);
		return UET_EXIT_USAGE;
	}
	if (!n) {
		free(globs);
		globs = all_user_events;
		n = 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (optind < argc && !tracefs_opt && !getenv("USEREVENTS_TRACEFS")) {
		/*
		 * Recording a command with a private daemon loses its records
		 * (known bug, docs/compat.md): refuse rather than write an
		 * empty file.
		 */
		uet_err("record: -- CMD needs a tracefs (--tracefs DIR or USEREVENTS_TRACEFS); "
			"with a private daemon use 'userevents run'");
		exit_code = UET_EXIT_USAGE;
		goto out;
	} else if (uet_tracefs_find(tracefs_opt, tracefs, sizeof(tracefs)) < 0) {
		uet_err("no tracefs with user_events found (use --tracefs DIR or USEREVENTS_TRACEFS)");
		exit_code = UET_EXIT_NO_TRACEFS;
		goto out;
	}
	e = uet_buf_stats_read(tracefs, &st);
	ncpus = e == 0 ? st.ncpus : 0;
	if (!ncpus) {
		uet_err("record: %s/per_cpu: %s", tracefs, strerror(e < 0 ? -e : ENOENT));
		goto out;
	}
	fds = calloc(ncpus, sizeof(*fds));
	out = calloc(ncpus, sizeof(*out));
	if (!fds || !out)
		goto out;
	for (unsigned int i = 0; i < ncpus; i++)
		fds[i] = -1;
	for (unsigned int i = 0; i < ncpus; i++) {
		char rel[sizeof(tracefs) + 64];

		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%u/trace_pipe_raw", tracefs, i);
		fds[i] = open(rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		out[i] = tmpfile();
		if (fds[i] < 0 || !out[i]) {
			uet_err("record: %s: %s", fds[i] < 0 ? rel : "tmpfile", strerror(errno));
			goto out;
		}
	}
	ae.tracefs = tracefs;
	ae.globs = globs;
	ae.nglobs = n;
	uet_autoenable_tick(&ae);
	if (!priv && optind >= argc && !ae.ndone) {
		/* Nothing we could enable now; matching events may still come. */
		for (size_t i = 0; i < n; i++)
			if (!strpbrk(globs[i], "*?["))
				uet_err("record: warning: no event matches '%s' yet", globs[i]);
	}
	if (optind < argc) {
		child = fork();
		if (child < 0) {
			uet_err("record: fork: %s", strerror(errno));
			goto out;
		}
		if (child == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			setenv("USEREVENTS_TRACEFS", tracefs, 1);
			execvp(argv[optind], argv + optind);
			e = errno;
			fprintf(stderr, UET_PROG ": record: %s: %s\n", argv[optind], strerror(e));
			_exit(e == ENOENT ? UET_EXIT_NOT_FOUND : UET_EXIT_CANNOT_EXEC);
		}
	}
	for (;;) {
		int got;

		uet_autoenable_tick(&ae);
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			/* Enable what registered just before the end, then drain. */
			uet_autoenable_tick(&ae);
			rec_stop = 1;
		}
		got = read_pages(fds, out, ncpus, &rc);
		if (got < 0) {
			uet_err("record: trace_pipe_raw: %s", strerror(-got));
			goto out;
		}
		if (rec_stop && got == 0)
			break;
		if (tty && !quiet && now_ns() - last_progress > 1000000000ull) {
			last_progress = now_ns();
			progress(&rc, NULL, false);
		}
		if (!got && !rec_stop) {
			struct timespec ts = { 0, 50 * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	have_st = uet_buf_stats_read(tracefs, &st) == 0;
	uet_autoenable_undo(&ae);
	e = write_file(tracefs, output, out, ncpus);
	if (!quiet) {
		if (tty)
			fputc('\r', stderr);
		progress(&rc, have_st ? &st : NULL, true);
	}
	if (e < 0)
		goto out;
	exit_code = UET_EXIT_OK;
	if (WIFEXITED(status))
		exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		exit_code = 128 + WTERMSIG(status);
out:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	uet_autoenable_undo(&ae);
	free(ae.done);
	for (unsigned int i = 0; fds && i < ncpus; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (unsigned int i = 0; out && i < ncpus; i++)
		if (out[i])
			fclose(out[i]);
	free(fds);
	free(out);
	if (priv)
		uet_private_stop(priv);
	if (globs != all_user_events)
		free(globs);
	return exit_code;
}

/* report: the records of a trace.dat, in time order over the CPUs. */

struct rep_event {
	unsigned int id;
	const char *system;
	struct ue_event *desc;
};

struct rep_cpu {
	const uint8_t *data;
	uint64_t size, page;	/* page: offset of the next page to open */
	unsigned int cpu;
	struct ue_rbpage_iter it;
	bool have;
	uint64_t ts;
	const void *rec;
	size_t len;
};

/* The next record of @c, opening pages as needed. */
static void rep_advance(struct rep_cpu *c, unsigned int page_size)
{
	for (;;) {
		if (c->it.data && ue_rbpage_next(&c->it, &c->ts, &c->rec, &c->len) == 1) {
			c->have = true;
			return;
		}
		c->it.data = NULL;
		if (c->page + page_size > c->size) {
			c->have = false;
			return;
		}
		if (ue_rbpage_iter_init(&c->it, c->data + c->page, page_size) < 0)
			c->it.data = NULL;
		c->page += page_size;
	}
}

static const char *comm_of(const char *cmdlines, int32_t pid, char *buf, size_t len)
{
	const char *s = cmdlines;

	while (s && *s) {
		char *end;
		long p = strtol(s, &end, 10);
		const char *nl = strchr(s, '\n');

		if (p == pid && *end == ' ') {
			size_t n = nl ? (size_t)(nl - end - 1) : strlen(end + 1);

			snprintf(buf, len, "%.*s", (int)n, end + 1);
			return buf;
		}
		s = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int uet_cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct rep_event *evs = NULL;
	struct rep_cpu *cpus = NULL;
	struct uet_dat d = { 0 };
	char err[256] = "", **globs, *line = NULL;
	size_t n = 0, nevs = 0, line_cap = 65536;
	bool json = false, have_pid = false;
	long pid = 0;
	int c, e, exit_code = UET_EXIT_FAIL;

	globs = calloc((size_t)argc + 1, sizeof(*globs));
	if (!globs)
		return UET_EXIT_FAIL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:p:jh", lopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			globs[n++] = optarg;
			break;
		case 'p':
			pid = strtol(optarg, NULL, 10);
			have_pid = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			puts("usage: " UET_PROG " report [-e GLOB]... [--pid N] [--json] FILE");
			free(globs);
			return UET_EXIT_OK;
		default:
			free(globs);
			return UET_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		uet_err("report: one FILE (usage: " UET_PROG " report [-e GLOB]... [--pid N] [--json] FILE)");
		free(globs);
		return UET_EXIT_USAGE;
	}
	e = uet_dat_read(argv[optind], &d, err, sizeof(err));
	if (e < 0) {
		uet_err("report: %s: %s", argv[optind], err);
		goto out;
	}
	evs = calloc(d.nformats + 1, sizeof(*evs));
	cpus = calloc(d.ncpus + 1, sizeof(*cpus));
	line = malloc(line_cap);
	if (!evs || !cpus || !line)
		goto out;
	for (size_t i = 0; i < d.nformats; i++) {
		struct rep_event *ev = &evs[nevs];

		if (strncmp(d.formats[i].system, "user_events", 11) != 0)
			continue;	/* only user events are rendered */
		if (ue_format_parse(d.formats[i].text, d.formats[i].len, &ev->desc, &ev->id) < 0)
			continue;
		ev->system = d.formats[i].system;
		nevs++;
	}
	for (unsigned int i = 0; i < d.ncpus; i++) {
		cpus[i].data = d.buf + d.cpus[i].off;
		cpus[i].size = d.cpus[i].size;
		cpus[i].cpu = d.cpus[i].cpu;
		rep_advance(&cpus[i], d.page_size);
	}
	for (;;) {
		struct rep_cpu *best = NULL;
		struct rep_event *ev = NULL;
		struct ue_entry_hdr hdr;
		struct ue_record_ctx ctx;
		char comm[64];
		int w, w2;

		for (unsigned int i = 0; i < d.ncpus; i++)
			if (cpus[i].have && (!best || cpus[i].ts < best->ts))
				best = &cpus[i];
		if (!best)
			break;
		if (best->len >= sizeof(hdr)) {
			memcpy(&hdr, best->rec, sizeof(hdr));
			for (size_t i = 0; i < nevs; i++)
				if (evs[i].id == hdr.type)
					ev = &evs[i];
		}
		if (!ev || (have_pid && hdr.pid != pid))
			goto next;
		if (n) {
			bool match = false;

			for (size_t i = 0; i < n && !match; i++)
				match = uet_glob_match(globs[i], ev->system, ev->desc->name);
			if (!match)
				goto next;
		}
		ctx = (struct ue_record_ctx){ .comm = comm_of(d.cmdlines, hdr.pid, comm, sizeof(comm)),
					      .pid = hdr.pid, .cpu = best->cpu, .ts_ns = best->ts,
					      .lat_flags = LAT_FLAGS };
		if (json) {
			w = ue_render_json(ev->desc, ev->system, ev->desc->name, &ctx, best->rec,
					   best->len, line, line_cap);
			if (w >= 0 && (size_t)w < line_cap)
				printf("%s\n", line);
		} else {
			w = ue_render_context(&ctx, line, line_cap);
			w2 = w < 0 || (size_t)w >= line_cap ? -E2BIG
				   : ue_render_fields(ev->desc, ev->desc->name, best->rec, best->len,
						      line + w, line_cap - (size_t)w);
			if (w2 >= 0 && (size_t)(w + w2) < line_cap)
				fputs(line, stdout);
			w = w2;
		}
		if (w < 0)
			uet_err("report: cannot render a record of %s: %s", ev->desc->name,
				strerror(-w));
next:
		rep_advance(best, d.page_size);
	}
	exit_code = fflush(stdout) == 0 ? UET_EXIT_OK : UET_EXIT_FAIL;
out:
	for (size_t i = 0; i < nevs; i++)
		ue_event_free(evs[i].desc);
	free(evs);
	free(cpus);
	free(line);
	uet_dat_free(&d);
	free(globs);
	return exit_code;
}
