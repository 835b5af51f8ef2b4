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
#include "fs.h"

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

/* The kernel's system_enable_read(): one character per state set. */
static int enable_state_show(struct ue_daemon *d, struct ue_fh *fh, const char *system,
			     bool all)
{
	static const char *const set_chars[4] = { "?", "0", "1", "X" };
	struct ue_text t = { 0 };
	struct sys_state s = { system, 0 };

	ue_registry_foreach(d->reg, UE_ORDER_NEWEST, sys_state_one, &s);
	/*
	 * events/enable of a kernel always counts the kernel's own events,
	 * which are off here: "0" rather than "?" when there is no user
	 * event at all.
	 */
	if (!s.set && all)
		s.set = 1;
	ue_text_printf(&t, "%s\n", set_chars[s.set]);
	return ue_text_to_fh(&t, fh);
}

static const char *fh_system(const struct ue_fh *fh)
{
	return fh->multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM;
}

static int events_enable_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return enable_state_show(d, fh, NULL, true);
}

static int sys_enable_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return enable_state_show(d, fh, fh_system(fh), false);
}

static int filter_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };
	char *shown = ue_revent_filter_text(fh->ev);

	(void)d;
	if (!shown)
		return -ENOMEM;
	ue_text_printf(&t, "%s\n", shown);
	free(shown);
	return ue_text_to_fh(&t, fh);
}

static int trigger_show(struct ue_daemon *d, struct ue_fh *fh)
{
	/* events/ftrace/print/trigger has no user event: its triggers are not run here. */
	char *text = fh->ev ? ue_revent_triggers_text(fh->ev) : strdup(UE_TRIGGER_AVAILABLE);
	struct ue_text t = { 0 };

	(void)d;
	if (!text)
		return -ENOMEM;
	ue_text_add(&t, text, strlen(text));
	free(text);
	return ue_text_to_fh(&t, fh);
}

static int enable_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	(void)d;
	if (ue_revent_dead(fh->ev))
		return -ENODEV;
	ue_text_printf(&t, "%s", ue_revent_enable_text(fh->ev));
	return ue_text_to_fh(&t, fh);
}

static int format_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	(void)d;
	if (ue_revent_dead(fh->ev))
		return -ENODEV;
	ue_text_render(&t, render_format, fh->ev);
	return ue_text_to_fh(&t, fh);
}

static int id_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	(void)d;
	ue_text_printf(&t, "%u\n", ue_revent_id(fh->ev));
	return ue_text_to_fh(&t, fh);
}

/* A file of an event's directory: ENOENT once the event is deleted. */
static int event_file_open(fuse_req_t req, struct ue_fh *fh)
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

/* The system's filter: its text set on every event of the system. */
static void sys_filter_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
			     off_t off)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct sys_filter sf = { fh_system(fh), buf, size, 0 };

	(void)off;
	/* The kernel takes at most a page less its NUL. */
	if (size >= UE_FILTER_MAX_WRITE)
		sf.err = -EINVAL;
	/* The system's directory goes with its last event. */
	else if (!ue_registry_count(d->reg, fh->multi))
		sf.err = -ENODEV;
	else
		ue_registry_foreach(d->reg, UE_ORDER_CREATED, sys_filter_one, &sf);
	ue_fs_reply_write(req, sf.err, size);
}

static void filter_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
			 off_t off)
{
	struct ue_filter *f = NULL;
	char *shown = NULL;
	int r;

	(void)off;
	if (size >= UE_FILTER_MAX_WRITE) {
		r = -EINVAL;
	} else if (ue_revent_dead(fh->ev)) {
		r = -ENODEV;
	} else {
		r = ue_filter_parse(ue_revent_desc(fh->ev), buf, size, &f, &shown);
		/* A filter that does not compile leaves the event unfiltered, showing why. */
		if (r >= 0 || shown)
			ue_revent_set_filter(fh->ev, f, shown);
	}
	ue_fs_reply_write(req, r, size);
}

static void trigger_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
			  off_t off)
{
	(void)off;
	ue_fs_reply_write(req,
			  fh->ev ? ue_revent_trigger_write(ue_req_daemon(req)->reg, fh->ev, buf, size)
				 : -EINVAL,
			  size);
}

/* An enable file takes "0" or "1". */
static int enable_set(struct ue_daemon *d, struct ue_fh *fh, unsigned long val)
{
	return val > 1 ? -EINVAL : ue_revent_set_enabled(d->reg, fh->ev, val);
}

static int sys_enable_set(struct ue_daemon *d, struct ue_fh *fh, unsigned long val)
{
	if (val > 1)
		return -EINVAL;
	return ue_registry_set_enabled_match(d->reg, NULL, fh_system(fh), NULL, val);
}

static int events_enable_set(struct ue_daemon *d, struct ue_fh *fh, unsigned long val)
{
	int r;

	(void)fh;
	if (val > 1)
		return -EINVAL;
	r = ue_registry_set_enabled_match(d->reg, NULL, NULL, NULL, val);
	/* events/enable also covers the kernel's events: never "none matched". */
	return r == -EINVAL ? 0 : r;
}

static const struct ue_file_ops events_enable_fops = {
	.show = events_enable_show,
	.set = events_enable_set,
};
static const struct ue_file_ops header_page_fops = { .text = header_page_text };
static const struct ue_file_ops header_event_fops = { .text = header_event_text };
static const struct ue_file_ops sys_enable_fops = {
	.show = sys_enable_show,
	.set = sys_enable_set,
};
static const struct ue_file_ops sys_filter_fops = {
	.text = sys_filter_text,
	.write = sys_filter_write,
};
static const struct ue_file_ops enable_fops = {
	.open = event_file_open,
	.show = enable_show,
	.set = enable_set,
};
static const struct ue_file_ops filter_fops = {
	.open = event_file_open,
	.show = filter_show,
	.write = filter_write,
};
static const struct ue_file_ops format_fops = { .open = event_file_open, .show = format_show };
static const struct ue_file_ops id_fops = { .open = event_file_open, .show = id_show };
static const struct ue_file_ops trigger_fops = {
	.open = event_file_open,
	.show = trigger_show,
	.write = trigger_write,
};

static const struct ue_fs_file files[] = {
	{ UE_DIR_EVENTS, "enable", 0640, &events_enable_fops },
	{ UE_DIR_EVENTS, "header_page", 0440, &header_page_fops },
	{ UE_DIR_EVENTS, "header_event", 0440, &header_event_fops },
	{ UE_DIR_USER_EVENTS, "enable", 0640, &sys_enable_fops },
	{ UE_DIR_USER_EVENTS, "filter", 0640, &sys_filter_fops },
	{ UE_DIR_USER_EVENTS_MULTI, "enable", 0640, &sys_enable_fops },
	{ UE_DIR_USER_EVENTS_MULTI, "filter", 0640, &sys_filter_fops },
	/* The print event has a trigger file, no enable and no filter. */
	{ UE_DIR_FTRACE_PRINT, "trigger", 0640, &trigger_fops },
	/* Each events/<system>/<name>/, in the order of their inode numbers. */
	{ UE_DIR_EVENT, "enable", 0640, &enable_fops },
	{ UE_DIR_EVENT, "filter", 0640, &filter_fops },
	{ UE_DIR_EVENT, "format", 0440, &format_fops },
	{ UE_DIR_EVENT, "id", 0440, &id_fops },
	{ UE_DIR_EVENT, "trigger", 0640, &trigger_fops },
};

const struct ue_fs_files ue_events_files = UE_FS_FILES(files);
