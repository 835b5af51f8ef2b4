// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: the cases of event triggers.
 */
#include "conformance.h"

/* ---- section trigger ------------------------------------------------------------ */

#define CFT_A "events/user_events/cft_a/"
#define CFT_B "events/user_events/cft_b/"

struct cft {
	struct ctx c;
	bool traced;	/* the trace can be cleared (not so for a member of the group) */
	uint32_t ia, ib;
	uint64_t *wa, *wb;
};

/* Four writes of a = 1..4 to cft_a, each followed by one to cft_b. */
static void cft_writes(const char *id, struct cft *t)
{
	for (uint32_t v = 1; v <= 4; v++) {
		ssize_t ra = write_event(t->c.fd, (int32_t)t->ia, &v, sizeof(v), HOW_WRITEV);
		ssize_t rb = write_event(t->c.fd, (int32_t)t->ib, &v, sizeof(v), HOW_WRITEV);

		printf("write %s a=%u cft_a => %s cft_b => %s\n", id, v, res(ra), res(rb));
	}
}

/*
 * One trigger on cft_a: set with O_APPEND, listed, run by four writes,
 * then removed with "!".  @a_on, @b_on and @trace_on are the states before.
 */
static void cft_case(struct cft *t, const char *id, const char *text, const char *a_on,
		     const char *b_on, const char *trace_on)
{
	char bang[256];
	ssize_t r;

	clear_trace();
	put_file("tracing_on", "1", O_WRONLY);
	put_file(CFT_A "enable", a_on, O_WRONLY);
	put_file(CFT_B "enable", b_on, O_WRONLY);
	put_file("tracing_on", trace_on, O_WRONLY);
	r = fwrite_show(id, CFT_A "trigger", text, O_WRONLY | O_APPEND);
	show_file(id, CFT_A "trigger", NULL);
	show_value(id, CFT_A "enable");
	show_value(id, CFT_B "enable");
	printf("word %s cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", id, *t->wa, *t->wb);
	cft_writes(id, t);
	show_value(id, "tracing_on");
	show_value(id, CFT_A "enable");
	show_value(id, CFT_B "enable");
	put_file("tracing_on", "1", O_WRONLY);
	if (t->traced)
		show_trace_lines(id);
	if (r > 0 && text[0] != '!') {
		snprintf(bang, sizeof(bang), "!%s", text);
		fwrite_show(id, CFT_A "trigger", bang, O_WRONLY | O_APPEND);
		show_file(id, CFT_A "trigger", NULL);
		show_value(id, CFT_A "enable");
		show_value(id, CFT_B "enable");
		printf("word %s cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", id, *t->wa,
		       *t->wb);
	}
}

void sec_trigger(void)
{
	static const struct {
		const char *text, *a_on, *b_on, *trace_on;
	} cases[] = {
		{ "traceoff", "1", "0", "1" },
		{ "traceon", "1", "0", "1" },
		{ "traceoff:2", "1", "0", "1" },
		{ "traceoff:0", "1", "0", "1" },
		{ "traceoff if a == 3", "1", "0", "1" },
		{ "traceoff:1 if a > 1", "1", "0", "1" },
		{ "traceoff 0x2", "1", "0", "1" },
		{ "traceon", "1", "0", "0" },
		{ "traceon if a == 3", "1", "0", "0" },
		{ "traceon:1", "1", "0", "0" },
		{ "enable_event:user_events:cft_b", "1", "0", "1" },
		{ "enable_event:user_events:cft_b:1", "1", "0", "1" },
		{ "enable_event:user_events:cft_b if a == 3", "1", "0", "1" },
		{ "disable_event:user_events:cft_b", "1", "0", "1" },
		{ "disable_event:user_events:cft_b", "1", "1", "1" },
		{ "disable_event:user_events:cft_b if a == 2", "1", "1", "1" },
		{ "enable_event:user_events:cft_a", "1", "0", "1" },
		/* a trigger on an event that is not enabled: live, records discarded */
		{ "traceoff", "0", "0", "1" },
		{ "traceoff if a == 2", "0", "0", "1" },
		{ "enable_event:user_events:cft_b", "0", "0", "1" },
		{ "enable_event:user_events:cft_a", "0", "0", "1" },
		/* refused */
		{ "snapshot", "1", "0", "1" },
		{ "hist:keys=a", "1", "0", "1" },
		{ "bogus", "1", "0", "1" },
		{ "traceoff if nosuch == 1", "1", "0", "1" },
		{ "traceoff if a == ", "1", "0", "1" },
		{ "traceoff iff a == 1", "1", "0", "1" },
		{ "traceoff:x", "1", "0", "1" },
		{ "traceoff:08", "1", "0", "1" },
		{ "traceoff:99999999999999999999", "1", "0", "1" },
		{ "enable_event:user_events:cft_nosuch", "1", "0", "1" },
		{ "enable_event:cft_b", "1", "0", "1" },
		{ "enable_event", "1", "0", "1" },
		{ "enable_event:ftrace:print", "1", "0", "1" },
		{ "enable_event:user_events:cft_b:x", "1", "0", "1" },
		{ "!enable_event:user_events:cft_nosuch", "1", "0", "1" },
		{ "!traceoff", "1", "0", "1" },
		{ "!traceoff:x", "1", "0", "1" },
		{ "!!traceoff", "1", "0", "1" },
		{ "! traceoff", "1", "0", "1" },
		{ "!", "1", "0", "1" },
		{ "", "1", "0", "1" },
		{ " traceoff\n", "1", "0", "1" },
	};
	struct cft t;
	uint64_t *wm;
	uint32_t idx;
	ssize_t r;

	begin("trigger");
	r = put_file("trace", "", O_WRONLY | O_TRUNC);
	t.traced = r >= 0;
	printf("open trigger.trace trace O_TRUNC => %s\n", res(r));
	ctx_open(&t.c);
	if (ctx_reg(&t.c, "trigger.a", "cft_a u32 a", 0, &t.ia, &t.wa) < 0 ||
	    ctx_reg(&t.c, "trigger.b", "cft_b u32 a", 0, &t.ib, &t.wb) < 0) {
		ctx_close(&t.c);
		return;
	}
	show_file("trigger.initial", CFT_A "trigger", NULL);
	show_value("trigger.initial", CFT_A "enable");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char id[32];

		snprintf(id, sizeof(id), "trigger.%zu", i);
		cft_case(&t, id, cases[i].text, cases[i].a_on, cases[i].b_on, cases[i].trace_on);
	}

	/* Several triggers: one of a kind (and target) each, newest listed first. */
	put_file(CFT_A "enable", "1", O_WRONLY);
	put_file(CFT_B "enable", "0", O_WRONLY);
	fwrite_show("trigger.many", CFT_A "trigger", "traceoff:3", O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "enable_event:user_events:cft_b",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "traceoff", O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "traceon", O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "disable_event:user_events:cft_b",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_A "trigger", "enable_event:user_events:cft_a:2",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.many", CFT_B "trigger", "disable_event:user_events:cft_a",
		    O_WRONLY | O_APPEND);
	show_file("trigger.many", CFT_A "trigger", NULL);
	show_file("trigger.many", CFT_B "trigger", NULL);
	show_value("trigger.many", CFT_A "enable");
	show_value("trigger.many", CFT_B "enable");
	/* "!traceon" removes the traceoff: they are one kind. */
	fwrite_show("trigger.many", CFT_A "trigger", "!traceon", O_WRONLY | O_APPEND);
	show_file("trigger.many", CFT_A "trigger", NULL);
	/* While a trigger aims at it, an event is in use. */
	printf("del trigger.many-del-b => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, "cft_b")));
	/* A write without O_APPEND adds too; O_TRUNC on open removes none of these. */
	fwrite_show("trigger.many", CFT_A "trigger", "traceon", O_WRONLY);
	show_file("trigger.many", CFT_A "trigger", NULL);
	r = put_file(CFT_B "trigger", "", O_WRONLY | O_TRUNC);
	printf("fwrite trigger.trunc-b => %s\n", res(r));
	show_file("trigger.trunc-b", CFT_B "trigger", NULL);
	show_file("trigger.trunc-b", CFT_A "trigger", NULL);
	show_value("trigger.trunc-b", CFT_A "enable");
	r = put_file(CFT_A "trigger", "", O_RDONLY | O_TRUNC);
	printf("fwrite trigger.trunc-rdonly => %s\n", res(r));
	show_file("trigger.trunc-rdonly", CFT_A "trigger", NULL);
	r = put_file(CFT_A "trigger", "", O_WRONLY | O_TRUNC);
	printf("fwrite trigger.trunc => %s\n", res(r));
	show_file("trigger.trunc", CFT_A "trigger", NULL);
	show_value("trigger.trunc", CFT_A "enable");
	show_value("trigger.trunc", CFT_B "enable");
	printf("word trigger.trunc cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", *t.wa, *t.wb);

	/* A persistent event nobody uses: its trigger keeps it. */
	fwrite_show("trigger.dyn", "dynamic_events", "u:cft_p u32 a", O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn", "events/user_events/cft_p/trigger", "traceoff",
		    O_WRONLY | O_APPEND);
	show_value("trigger.dyn", "events/user_events/cft_p/enable");
	fwrite_show("trigger.dyn-del", "dynamic_events", "-:cft_p u32 a", O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn", "events/user_events/cft_p/trigger", "!traceoff",
		    O_WRONLY | O_APPEND);
	show_value("trigger.dyn", "events/user_events/cft_p/enable");
	fwrite_show("trigger.dyn", CFT_A "trigger", "enable_event:user_events:cft_p",
		    O_WRONLY | O_APPEND);
	show_value("trigger.dyn-target", "events/user_events/cft_p/enable");
	fwrite_show("trigger.dyn-target-del", "dynamic_events", "-:cft_p u32 a",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn", CFT_A "trigger", "!enable_event:user_events:cft_p",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.dyn-del", "dynamic_events", "-:cft_p u32 a", O_WRONLY | O_APPEND);

	/* What O_TRUNC left (it removes only hist triggers, which 6.12 lacks here). */
	fwrite_show("trigger.end", CFT_A "trigger", "!traceon", O_WRONLY | O_APPEND);
	fwrite_show("trigger.end", CFT_A "trigger", "!enable_event:user_events:cft_a",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.end", CFT_A "trigger", "!disable_event:user_events:cft_b",
		    O_WRONLY | O_APPEND);
	fwrite_show("trigger.end", CFT_B "trigger", "!enable_event:user_events:cft_a",
		    O_WRONLY | O_APPEND);
	show_file("trigger.end", CFT_A "trigger", NULL);
	show_file("trigger.end", CFT_B "trigger", NULL);
	show_value("trigger.end", CFT_A "enable");
	show_value("trigger.end", CFT_B "enable");
	printf("word trigger.end cft_a 0x%016" PRIx64 " cft_b 0x%016" PRIx64 "\n", *t.wa, *t.wb);

	/* A multi-format event: its own triggers, and the target of cft_a's. */
	if (ctx_reg(&t.c, "trigger.m", "cft_m u32 a", USER_EVENT_REG_MULTI_FORMAT, &idx, &wm) == 0) {
		char **names, mdir[700] = "", rel[800], cmd[800];
		int n = list_dir("events/user_events_multi", &names);

		for (int i = 0; i < n; i++) {
			if (!strncmp(names[i], "cft_m.", 6))
				snprintf(mdir, sizeof(mdir), "%s", names[i]);
		}
		if (n >= 0)
			free_list(names, n);
		printf("multi-dir trigger.m %s\n", mdir);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/trigger", mdir);
		fwrite_show("trigger.m", rel, "traceoff if a == 2", O_WRONLY | O_APPEND);
		show_file("trigger.m", rel, NULL);
		snprintf(cmd, sizeof(cmd), "enable_event:user_events_multi:%s", mdir);
		fwrite_show("trigger.m-target", CFT_A "trigger", cmd, O_WRONLY | O_APPEND);
		show_file("trigger.m-target", CFT_A "trigger", NULL);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/enable", mdir);
		show_value("trigger.m", rel);
		printf("word trigger.m cft_m 0x%016" PRIx64 "\n", *wm);
		clear_trace();
		put_file("tracing_on", "1", O_WRONLY);
		put_file(CFT_A "enable", "1", O_WRONLY);
		for (uint32_t v = 1; v <= 3; v++) {
			ssize_t ra = write_event(t.c.fd, (int32_t)t.ia, &v, sizeof(v), HOW_WRITEV);
			ssize_t rm = write_event(t.c.fd, (int32_t)idx, &v, sizeof(v), HOW_WRITEV);

			printf("write trigger.m a=%u cft_a => %s cft_m => %s\n", v, res(ra), res(rm));
		}
		show_value("trigger.m", "tracing_on");
		show_value("trigger.m", rel);
		put_file("tracing_on", "1", O_WRONLY);
		if (t.traced)
			show_trace_lines("trigger.m");
		fwrite_show("trigger.m-again", CFT_A "trigger", cmd, O_WRONLY | O_APPEND);
		snprintf(cmd, sizeof(cmd), "!enable_event:user_events_multi:%s", mdir);
		fwrite_show("trigger.m", CFT_A "trigger", cmd, O_WRONLY | O_APPEND);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/trigger", mdir);
		fwrite_show("trigger.m", rel, "!traceoff", O_WRONLY | O_APPEND);
		show_file("trigger.m", rel, NULL);
		snprintf(rel, sizeof(rel), "events/user_events_multi/%s/enable", mdir);
		show_value("trigger.m", rel);
		printf("word trigger.m cft_m 0x%016" PRIx64 "\n", *wm);
		/* Enabled by the trigger, it stays enabled without it. */
		put_file(rel, "0", O_WRONLY);
	}

	put_file("tracing_on", "1", O_WRONLY);
	put_file(CFT_A "enable", "0", O_WRONLY);
	put_file(CFT_B "enable", "0", O_WRONLY);
	clear_trace();
	ctx_close(&t.c);
}
