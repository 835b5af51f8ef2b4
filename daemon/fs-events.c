// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-events: the events/ tree.  events/enable and events/<system>/enable
 * (0, 1, X for mixed), header_page and header_event, the system's filter,
 * and per event: enable (with the soft mode's '*'), filter, format
 * (rendered by core/), id, trigger.  Filters and triggers are kept and run
 * by the registry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userevents/abi.h"
#include "daemon.h"

struct sys_state {
	const char *system;	/* NULL: every system */
	unsigned int set;	/* bit 0: one is disabled, bit 1: one is enabled */
};

static int sys_state_one(struct ue_revent *ev, void *arg)
{
	struct sys_state *s = arg;

	if (s->system && strcmp(s->system, ue_revent_system(ev)) != 0)
		return 0;
	s->set |= 1u << (ue_revent_enabled(ev) ? 1 : 0);
	return 0;
}

static int render_format(void *arg, char *buf, size_t len)
{
	const struct ue_revent *ev = arg;

	return ue_format_file(ue_revent_desc(ev), ue_revent_tp_name(ev), ue_revent_id(ev), buf,
			      len);
}

/* The kernel's texts for files this daemon has no real content for. */
static const char header_page_text[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";
static const char sys_filter_text[] =
	"### global filter ###\n"
	"# Use this to set filters for multiple events.\n"
	"# Only events with the given fields will be affected.\n"
	"# If no events are modified, an error message will be displayed here\n";

static int generate(struct ue_daemon *d, struct ue_fh *fh)
{
	/* The kernel's system_enable_read(): one character per state set. */
	static const char *const set_chars[4] = { "?", "0", "1", "X" };
	struct ue_text t = { 0 };

	switch (fh->kind) {
	case UE_N_EVENTS_ENABLE:
	case UE_N_SYS_ENABLE: {
		struct sys_state s = { NULL, 0 };

		if (fh->kind == UE_N_SYS_ENABLE)
			s.system = fh->multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM;
		ue_registry_foreach(d->reg, UE_ORDER_NEWEST, sys_state_one, &s);
		/*
		 * events/enable of a kernel always counts the kernel's own
		 * events, which are off here: "0" rather than "?" when there
		 * is no user event at all.
		 */
		if (!s.set && fh->kind == UE_N_EVENTS_ENABLE)
			s.set = 1;
		ue_text_printf(&t, "%s\n", set_chars[s.set]);
		break;
	}
	case UE_N_HEADER_PAGE:
		ue_text_add(&t, header_page_text, sizeof(header_page_text) - 1);
		break;
	case UE_N_HEADER_EVENT:
		ue_text_add(&t, header_event_text, sizeof(header_event_text) - 1);
		break;
	case UE_N_SYS_FILTER:
		ue_text_add(&t, sys_filter_text, sizeof(sys_filter_text) - 1);
		break;
	case UE_N_EV_FILTER: {
		char *shown = ue_revent_filter_text(fh->ev);

		if (!shown)
			return -ENOMEM;
		ue_text_printf(&t, "%s\n", shown);
		free(shown);
		break;
	}
	case UE_N_EV_TRIGGER: {
		/* events/ftrace/print/trigger has no user event: its triggers are not run here. */
		char *text = fh->ev ? ue_revent_triggers_text(fh->ev) : strdup(UE_TRIGGER_AVAILABLE);

		if (!text)
			return -ENOMEM;
		ue_text_add(&t, text, strlen(text));
		free(text);
		break;
	}
	case UE_N_EV_ENABLE:
		if (ue_revent_dead(fh->ev))
			return -ENODEV;
		ue_text_printf(&t, "%s", ue_revent_enable_text(fh->ev));
		break;
	case UE_N_EV_FORMAT:
		if (ue_revent_dead(fh->ev))
			return -ENODEV;
		ue_text_render(&t, render_format, fh->ev);
		break;
	case UE_N_EV_ID:
		ue_text_printf(&t, "%u\n", ue_revent_id(fh->ev));
		break;
	default:
		return -EINVAL;
	}
	return ue_text_to_fh(&t, fh);
}

int ue_events_open(fuse_req_t req, struct ue_fh *fh)
{
	(void)req;
	if (fh->ev && ue_revent_dead(fh->ev))
		return -ENOENT;
	/*
	 * O_TRUNC on a trigger file removes only the kinds that have an
	 * unreg_all in the kernel (hist), which are not here: nothing to do.
	 */
	return 0;
}

void ue_events_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off)
{
	ue_fs_serve_text(req, fh, size, off, generate);
}

/*
 * The system's filter: the text set on every event of the system, each
 * event keeping it or, when it does not compile there, the kernel's
 * message for a subsystem filter (the event is then unfiltered).  The
 * system's own file keeps showing its default text.
 */
struct sys_filter {
	const char *system;
	const char *text;
	size_t len;
	int err;
};

static int sys_filter_one(struct ue_revent *ev, void *arg)
{
	struct sys_filter *sf = arg;
	struct ue_filter *f = NULL;
	char *shown = NULL;
	int r;

	if (strcmp(ue_revent_system(ev), sf->system) != 0)
		return 0;
	r = ue_filter_parse(ue_revent_desc(ev), sf->text, sf->len, &f, &shown);
	if (r == -ENOMEM) {
		sf->err = r;
		return 1;
	}
	if (r < 0) {
		free(shown);
		shown = ue_filter_subsystem_error(sf->text, sf->len);
		if (!shown) {
			sf->err = -ENOMEM;
			return 1;
		}
	}
	ue_revent_set_filter(ev, f, shown);
	return 0;
}

static int set_filter(struct ue_daemon *d, struct ue_fh *fh, const char *buf, size_t size)
{
	/* The kernel takes at most a page less its NUL. */
	if (size >= UE_FILTER_MAX_WRITE)
		return -EINVAL;
	if (fh->kind == UE_N_SYS_FILTER) {
		struct sys_filter sf = {
			fh->multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM, buf, size, 0,
		};

		/* The system's directory goes with its last event. */
		if (!ue_registry_count(d->reg, fh->multi))
			return -ENODEV;
		ue_registry_foreach(d->reg, UE_ORDER_CREATED, sys_filter_one, &sf);
		return sf.err;
	} else {
		struct ue_filter *f = NULL;
		char *shown = NULL;
		int r;

		if (ue_revent_dead(fh->ev))
			return -ENODEV;
		r = ue_filter_parse(ue_revent_desc(fh->ev), buf, size, &f, &shown);
		/* A filter that does not compile leaves the event unfiltered, showing why. */
		if (r >= 0 || shown)
			ue_revent_set_filter(fh->ev, f, shown);
		return r;
	}
}

void ue_events_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size)
{
	struct ue_daemon *d = ue_req_daemon(req);
	const char *system = NULL;
	unsigned long val;
	int r;

	switch (fh->kind) {
	case UE_N_EV_FILTER:
	case UE_N_SYS_FILTER:
		r = set_filter(d, fh, buf, size);
		goto out;
	case UE_N_EV_TRIGGER:
		r = fh->ev ? ue_revent_trigger_write(d->reg, fh->ev, buf, size) : -EINVAL;
		goto out;
	default:
		break;
	}
	r = ue_parse_ulong(buf, size, &val);
	if (r < 0)
		goto out;
	if (val > 1) {
		r = -EINVAL;
		goto out;
	}
	switch (fh->kind) {
	case UE_N_EV_ENABLE:
		r = ue_revent_set_enabled(d->reg, fh->ev, val);
		break;
	case UE_N_SYS_ENABLE:
		system = fh->multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM;
		/* fall through */
	default:
		r = ue_registry_set_enabled_match(d->reg, NULL, system, NULL, val);
		/* events/enable also covers the kernel's events: never "none matched". */
		if (r == -EINVAL && fh->kind == UE_N_EVENTS_ENABLE)
			r = 0;
		break;
	}
out:
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}
