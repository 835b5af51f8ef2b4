// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: the facts (-f): what usereventsd reproduces besides the events: modes,
 * contents, the trace file's header and options, README.
 */
#include "conformance.h"

/* ---- facts: what the daemon reproduces besides events ------------------------------------ */

static void facts_dir(const char *rel, int depth)
{
	char **names;
	char sub[4096];
	int n = list_dir(rel, &names);

	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		struct stat st;

		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", names[i]);
		if (stat(tpath(sub), &st))
			continue;
		show_stat("facts.tree", sub);
		if (S_ISDIR(st.st_mode) && depth > 0)
			facts_dir(sub, depth - 1);
	}
	free_list(names, n);
}

static void facts_trace_pipe(const char *id)
{
	int fd = open(tpath("trace_pipe"), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		printf("text %s trace_pipe => %s\n", id, errname(errno));
		return;
	}
	n = read(fd, big, sizeof(big) - 1);
	show_text(id, "trace_pipe", big, n < 0 ? -errno : n, vary_all);
	if (n >= 0) {
		big[n] = '\0';
		printf("trace-pipe-event %s ", id);
		if (event_part(big))
			put_esc(event_part(big), strcspn(event_part(big), "\n"), false);
		putchar('\n');
	}
	n = read(fd, big, sizeof(big) - 1);
	printf("read %s.again trace_pipe => %s\n", id, res(n < 0 ? -errno : n));
	close(fd);
}

void run_facts(void)
{
	static const char *const values[] = {
		"tracing_on", "buffer_size_kb", "buffer_total_size_kb", "buffer_percent",
		"buffer_subbuf_size_kb", "trace_clock", "current_tracer", "saved_cmdlines_size",
		"tracing_cpumask", "timestamp_mode", "events/enable", "events/user_events/enable",
		"set_event_pid", "tracing_thresh",
	};
	static const char *const texts[] = {
		"events/header_page", "events/header_event", "trace_options", "available_tracers",
		"set_event", "dynamic_events", "user_events_status", "error_log",
	};
	struct ctx c;
	uint32_t idx;

	begin("facts.tree");
	facts_dir("", 0);
	facts_dir("options", 0);
	facts_dir("per_cpu", 1);
	facts_dir("events/user_events", 0);
	show_stat("facts.tree", "events/enable");
	show_stat("facts.tree", "events/header_page");
	show_stat("facts.tree", "events/header_event");

	begin("facts.values");
	for (size_t i = 0; i < ARRAY_SIZE(values); i++)
		show_value("facts", values[i]);
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		show_file("facts", texts[i], NULL);

	begin("facts.options");
	{
		char **names;
		int n = list_dir("options", &names);

		for (int i = 0; i < n; i++) {
			char rel[512];

			snprintf(rel, sizeof(rel), "options/%s", names[i]);
			show_value("facts.options", rel);
		}
		if (n > 0)
			free_list(names, n);
	}

	begin("facts.trace");
	clear_trace();
	show_file("facts.trace-empty", "trace", vary_trace_header);
	ctx_open(&c);
	ctx_reg(&c, "facts.event", "cff_ev u32 a;char[4] s", 0, &idx, NULL);
	ctx_reg(&c, "facts.event2", "cff_ev2 u8 b", 0, NULL, NULL);
	show_dir("facts.event-dir", "events/user_events/cff_ev");
	{
		char **names;
		int n = list_dir("events/user_events/cff_ev", &names);

		for (int i = 0; i < n; i++) {
			char rel[512];

			snprintf(rel, sizeof(rel), "events/user_events/cff_ev/%s", names[i]);
			show_file("facts.event-file", rel,
				  strcmp(names[i], "id") ? vary_id_line : vary_all);
		}
		if (n > 0)
			free_list(names, n);
	}
	show_value("facts.disabled", "events/user_events/enable");
	enable_event("user_events", "cff_ev", "1");
	show_value("facts.mixed", "events/user_events/enable");
	show_value("facts.mixed", "events/enable");
	show_file("facts.mixed", "set_event", NULL);
	show_file("facts.mixed", "user_events_status", NULL);
	enable_event("user_events", "cff_ev2", "1");
	show_value("facts.all", "events/user_events/enable");
	show_value("facts.all", "events/enable");
	show_file("facts.all", "set_event", NULL);
	show_file("facts.enabled-event", "events/user_events/cff_ev/enable", NULL);
	enable_event("user_events", "cff_ev2", "0");
	do_write("facts.one", c.fd, (int32_t)idx, "u32:1 \"abc\" 00", HOW_WRITEV);
	show_file("facts.trace-one", "trace", vary_trace_file);
	do_write("facts.two", c.fd, (int32_t)idx, "u32:2 \"def\" 00", HOW_WRITEV);
	show_file("facts.trace-two", "trace", vary_trace_file);
	{
		/* Output options that change the trace line. */
		static const char *const opts[][2] = {
			{ "options/raw", "1" }, { "options/hex", "1" },
			{ "options/context-info", "0" }, { "options/irq-info", "0" },
			{ "options/latency-format", "1" }, { "options/record-tgid", "1" },
			{ "options/fields", "1" }, { "options/print-parent", "0" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
			char id[96];

			snprintf(id, sizeof(id), "facts.option.%s=%s", opts[i][0] + 8, opts[i][1]);
			fwrite_show(id, opts[i][0], opts[i][1], O_WRONLY);
			show_file(id, "trace", vary_trace_file);
			fwrite_show(id, opts[i][0], opts[i][1][0] == '1' ? "0" : "1", O_WRONLY);
		}
	}
	show_file("facts.saved_cmdlines", "saved_cmdlines", vary_all);
	show_file("facts.per_cpu-trace", "per_cpu/cpu0/trace", vary_trace_file);
	show_file("facts.per_cpu-stats", "per_cpu/cpu0/stats", vary_all);
	facts_trace_pipe("facts.trace_pipe");
	show_file("facts.trace-after-pipe", "trace", vary_trace_file);
	show_dir("facts.user_events-dir", "events/user_events");
	{
		int fd = open(tpath("trace"), O_WRONLY | O_CLOEXEC);
		ssize_t r = fd < 0 ? -errno : write(fd, "x", 1);

		printf("fwrite facts.trace-write-no-trunc trace \"x\" => %s\n",
		       res(r < 0 ? -errno : r));
		if (fd >= 0)
			close(fd);
	}
	{
		int fd = open(tpath("user_events_status"), O_WRONLY | O_CLOEXEC);
		ssize_t r = fd < 0 ? -errno : write(fd, "x", 1);

		printf("fwrite facts.status-write user_events_status \"x\" => %s\n",
		       res(r < 0 ? -errno : r));
		if (fd >= 0)
			close(fd);
	}
	{
		int fd = open(tpath("user_events_data"), O_RDONLY | O_CLOEXEC);
		char b[8];
		ssize_t r = fd < 0 ? -errno : read(fd, b, sizeof(b));

		printf("read facts.data-read => %s\n", res(r < 0 ? -errno : r));
		if (fd >= 0)
			close(fd);
	}
	enable_event("user_events", "cff_ev", "0");
	show_available("facts.available_events");
	{
		ssize_t n = slurp("available_events", big, sizeof(big));
		int lines = 0;

		for (ssize_t i = 0; i < n; i++)
			lines += big[i] == '\n';
		printf("~available_events-lines %d\n", lines);
		if (n > 0) {
			char *third = big;

			for (int i = 0; i < 3 && third; i++)
				third = strchr(third + 1, '\n');
			show_text("facts.available_events-head", "available_events", big,
				  third ? third + 1 - big : n, vary_all);
		}
	}
	ctx_close(&c);

	begin("facts.readme");
	show_file("facts.readme", "README", NULL);
}
