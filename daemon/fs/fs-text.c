// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-text: the list files of the mount.  README, user_events_status,
 * dynamic_events (reading, "u:" creation, "-:"/"!" deletion, O_TRUNC),
 * available_events and set_event (reading, enabling by name, O_TRUNC), and
 * our own usereventsd_stats.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "userevents/abi.h"
#include "counts.h"
#include "fs.h"
#include "native.h"
#include "proc-events.h"
#include "procmem.h"

/* Our own help text; the kernel's README is its own and not copied. */
static const char readme_text[] =
	"usereventsd: Linux user_events served from user space (FUSE)\n"
	"\n"
	"This mount is laid out like tracefs for the parts user_events needs:\n"
	"\n"
	"  user_events_data\t- open, register events with the DIAG_IOCSREG ioctl,\n"
	"\t\t\t  then write [u32 write_index][payload] while enabled\n"
	"  user_events_status\t- registered events and who uses them\n"
	"  usereventsd_stats\t- usereventsd's own counters: processes, enablers,\n"
	"\t\t\t  faults and retries of enable-bit writes, proc connector\n"
	"  usereventsd_counts\t- records, bytes and losses of each process and event:\n"
	"\t\t\t  \"TGID SYSTEM:EVENT RECORDS BYTES LOST COMM\" lines\n"
	"  usereventsd_session\t- write \"enable SYSTEM/NAME\", \"disable SYSTEM/NAME\"\n"
	"\t\t\t  or \"filter SYSTEM/NAME EXPR\": undone when the file is\n"
	"\t\t\t  closed, whatever ends its opener; read: what it holds;\n"
	"\t\t\t  \"arm GLOB\", \"arm-provider PROVIDER[:LEVEL[:KEYWORDS]]\":\n"
	"\t\t\t  enable what they name as it registers (\"disarm ...\")\n"
	"  dynamic_events\t- read: the user events as \"u:\" lines\n"
	"\t\t\t  write \"u:NAME FIELDS\" to create a persistent event,\n"
	"\t\t\t  \"-:NAME FIELDS\" or \"!u:NAME FIELDS\" to delete one;\n"
	"\t\t\t  opening with O_TRUNC deletes every unused event\n"
	"  available_events\t- every event as SYSTEM:NAME\n"
	"  set_event\t\t- enabled events; write SYSTEM:NAME (or NAME,\n"
	"\t\t\t  SYSTEM:*) to enable, !SYSTEM:NAME to disable\n"
	"  events/\t\t- one directory per system and event:\n"
	"\t\t\t  enable (write 0/1), format, id\n"
	"  trace\t\t\t- the trace buffer as text; open with O_TRUNC to clear\n"
	"  trace_pipe\t\t- the same, consumed as read; blocks when empty\n"
	"  tracing_on\t\t- 0 stops recording, 1 starts it again\n"
	"  buffer_size_kb\t- size of each CPU's ring in KiB\n"
	"  buffer_total_size_kb\t- size of all rings in KiB\n"
	"  options/overwrite\t- 1: a full ring drops its oldest records,\n"
	"\t\t\t  0: a full ring drops new records\n"
	"  options/fields\t- accepted; user events are always printed by field\n"
	"\n"
	"Differences from the kernel are listed in docs/compat.md of userevents.\n";

struct list_arg {
	struct ue_text *t;
	bool enabled_only;
	unsigned int active;
	unsigned int busy;
};

static int render_status(void *arg, char *buf, size_t len)
{
	const struct ue_revent *ev = arg;

	return ue_format_status_line(ue_revent_tp_name(ev), ue_revent_status(ev), buf, len);
}

static int status_one(struct ue_revent *ev, void *arg)
{
	struct list_arg *a = arg;

	ue_text_render(a->t, render_status, ev);
	a->active++;
	if (ue_revent_status(ev))
		a->busy++;
	return 0;
}

static int render_dynevent(void *arg, char *buf, size_t len)
{
	return ue_format_dynevent_line(ue_revent_desc(arg), buf, len);
}

static int dynevent_one(struct ue_revent *ev, void *arg)
{
	struct list_arg *a = arg;

	ue_text_render(a->t, render_dynevent, ev);
	return 0;
}

static int event_name_one(struct ue_revent *ev, void *arg)
{
	struct list_arg *a = arg;

	if (a->enabled_only && !ue_revent_enabled(ev))
		return 0;
	ue_text_printf(a->t, "%s:%s\n", ue_revent_system(ev), ue_revent_tp_name(ev));
	return 0;
}

/*
 * usereventsd_stats: what the kernel keeps to itself about enablers, one
 * "key: value" per line, so tests and operators can see faults, retries and
 * the proc connector's health.
 */
static void stats_text(struct ue_daemon *d, struct ue_text *t)
{
	struct ue_proc_events_stats ps;
	struct ue_enablers_stats es;
	char native[640];

	ue_enablers_stats(d->enablers, &es);
	ue_proc_events_stats(d->procev, &ps);
	ue_text_printf(t,
		       "processes: %llu\n"
		       "enablers: %llu\n"
		       "pending_writes: %llu\n"
		       "stalled_processes: %llu\n"
		       "parked_enablers: %llu\n"
		       "writer_threads: %llu\n"
		       "faults: %llu\n"
		       "retries: %llu\n"
		       "failed_writes: %llu\n"
		       "late_updates: %llu\n"
		       "dead_processes: %llu\n"
		       "inherited_forks: %llu\n"
		       "unconfirmed_children: %llu\n"
		       "refused_forks: %llu\n"
		       "gone_forks: %llu\n"
		       "shared_vm_children: %llu\n"
		       "fork_probe_retries: %llu\n"
		       "proc_connector: %s\n"
		       "proc_events: %llu\n"
		       "proc_forks: %llu\n"
		       "proc_events_lost: %llu\n"
		       "proc_sync_timeouts: %llu\n"
		       "proc_passes: %llu\n",
		       (unsigned long long)es.processes, (unsigned long long)es.enablers,
		       (unsigned long long)es.pending, (unsigned long long)es.stalled,
		       (unsigned long long)es.parked, (unsigned long long)es.workers,
		       (unsigned long long)es.faults, (unsigned long long)es.retries,
		       (unsigned long long)es.failed_writes, (unsigned long long)es.late_updates,
		       (unsigned long long)es.dead_processes, (unsigned long long)es.inherited,
		       (unsigned long long)es.unconfirmed, (unsigned long long)es.refused_forks,
		       (unsigned long long)es.gone_forks, (unsigned long long)es.shared_vm,
		       (unsigned long long)es.probe_retries,
		       ps.connected ? "connected" : ps.polling ? "polling" : "unavailable",
		       (unsigned long long)ps.events, (unsigned long long)ps.forks,
		       (unsigned long long)ps.overruns, (unsigned long long)ps.sync_timeouts,
		       (unsigned long long)ps.passes);
	/* libuserevents' shared-memory rings: records, and drops of full rings. */
	ue_native_stats_text(ue_daemon_native(d), native, sizeof(native));
	ue_text_printf(t, "%sfuse_writes: %llu\n", native, __atomic_load_n(&d->fuse_writes, __ATOMIC_RELAXED));
	/* The daemons this mount went through (usereventsd(8), UPGRADE and RESTART). */
	ue_text_printf(t,
		       "upgrades: %llu\n"
		       "restarts: %llu\n"
		       "checkpoints: %llu\n"
		       "checkpoint_bytes: %llu\n"
		       "checkpoint_max_us: %llu\n",
		       (unsigned long long)d->upgrades, (unsigned long long)d->restarts,
		       (unsigned long long)atomic_load(&d->ckpt_written),
		       (unsigned long long)atomic_load(&d->ckpt_bytes),
		       (unsigned long long)atomic_load(&d->ckpt_max_ns) / 1000);
	ue_sessions_stats_text(d, t);
}

static int status_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };
	struct list_arg a = { &t, false, 0, 0 };

	ue_registry_foreach(d->reg, UE_ORDER_STATUS, status_one, &a);
	ue_text_printf(&t, "\nActive: %u\nBusy: %u\n", a.active, a.busy);
	return ue_text_to_fh(&t, fh);
}

static int dynevents_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };
	struct list_arg a = { &t, false, 0, 0 };

	ue_registry_foreach(d->reg, UE_ORDER_CREATED, dynevent_one, &a);
	return ue_text_to_fh(&t, fh);
}

static int event_names(struct ue_daemon *d, struct ue_fh *fh, bool enabled_only)
{
	struct ue_text t = { 0 };
	struct list_arg a = { &t, enabled_only, 0, 0 };

	ue_registry_foreach(d->reg, UE_ORDER_NEWEST, event_name_one, &a);
	return ue_text_to_fh(&t, fh);
}

static int available_events_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return event_names(d, fh, false);
}

static int set_event_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return event_names(d, fh, true);
}

/*
 * usereventsd_counts: records each process wrote of each event (passed its
 * filter, handed to the buffer), their bytes, and those lost on the way
 * (of them, refused by a full ring; on a "-" line, whose event is not
 * known, refused by a producer's full native ring).  A line a (process, event), after a header:
 * "TGID SYSTEM:EVENT RECORDS BYTES LOST COMM", the comm last as it may hold
 * spaces.  TGID 0: processes beyond the table's bound (counts.h).
 */
struct counts_arg {
	struct ue_daemon *d;
	struct ue_text *t;
};

static void counts_one(void *arg, const struct ue_counts_row *row)
{
	struct counts_arg *a = arg;
	struct ue_revent *ev = row->id ? ue_registry_find_id(a->d->reg, row->id) : NULL;

	if (row->id && !ev)
		return;	/* deleted meanwhile */
	if (ev)
		ue_text_printf(a->t, "%d %s:%s", (int)row->tgid, ue_revent_system(ev),
			       ue_revent_tp_name(ev));
	else
		ue_text_printf(a->t, "%d -", (int)row->tgid);
	ue_text_printf(a->t, " %llu %llu %llu %.16s\n", (unsigned long long)row->records,
		       (unsigned long long)row->bytes, (unsigned long long)row->lost, row->comm);
	ue_revent_release(ev);
}

static int counts_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };
	struct counts_arg a = { d, &t };

	ue_text_printf(&t, "# TGID EVENT RECORDS BYTES LOST COMM\n");
	if (ue_counts_foreach(d->counts, counts_one, &a) < 0)
		t.failed = true;
	return ue_text_to_fh(&t, fh);
}

static int stats_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	stats_text(d, &t);
	return ue_text_to_fh(&t, fh);
}

/* After a dynamic_events deletion the kernel clears the trace when needed. */
static void maybe_clear_trace(struct ue_daemon *d)
{
	if (ue_registry_take_clear_trace(d->reg))
		ue_buffer_reset(d->buf);
}

/* The kernel acts on O_TRUNC only when the file is opened for writing. */
static bool open_truncates(const struct ue_fh *fh)
{
	return (fh->open_flags & O_TRUNC) && (fh->open_flags & O_ACCMODE) != O_RDONLY;
}

/* O_TRUNC on dynamic_events deletes every event no one uses. */
static int dynevents_open(fuse_req_t req, struct ue_fh *fh)
{
	struct ue_daemon *d = ue_req_daemon(req);
	int r;

	if (!open_truncates(fh))
		return 0;
	r = ue_registry_delete_all(d->reg, &(struct ue_who){
		.capable = ue_caller_capable(fuse_req_ctx(req)->pid), .uid = fuse_req_ctx(req)->uid });
	maybe_clear_trace(d);
	return r < 0 ? r : 0;
}

/* O_TRUNC on set_event: ftrace_clear_events(), every event off; none at all is fine. */
static int set_event_open(fuse_req_t req, struct ue_fh *fh)
{
	if (open_truncates(fh))
		ue_registry_set_enabled_match(ue_req_daemon(req)->reg, NULL, NULL, NULL, false);
	return 0;
}

static int dynevent_line(struct ue_daemon *d, const char *line, const struct ue_who *who)
{
	struct ue_dynevent_cmd *cmd;
	int r;

	cmd = malloc(sizeof(*cmd));
	if (!cmd)
		return -ENOMEM;
	r = ue_dynevent_parse(line, cmd);
	if (r == -ENOENT) {
		r = 0;
	} else if (r == -ECANCELED) {
		/* Meant for another dynamic event type: none exists here. */
		r = -EINVAL;
	} else if (r == 0 && cmd->op == UE_DYNEVENT_CREATE) {
		r = ue_registry_dyn_create(d->reg, cmd->name_args, who);
	} else if (r == 0) {
		r = ue_registry_dyn_delete(d->reg, cmd, who);
		maybe_clear_trace(d);
	}
	free(cmd);
	return r;
}

/*
 * The kernel's trace_parse_run_command(): the write is cut into lines, each
 * run as it comes; a line that does not end before a WRITE_BUFSIZE chunk
 * does is too long.  Returns the bytes done or the first error.
 */
static ssize_t dynevents_write(struct ue_daemon *d, const char *buf, size_t count,
			       const struct ue_who *who)
{
	char *chunk;
	size_t done = 0;
	int r;

	chunk = malloc(UE_DYNEVENT_MAX_LINE);
	if (!chunk)
		return -ENOMEM;
	while (done < count) {
		size_t size = count - done;
		char *line;

		if (size >= UE_DYNEVENT_MAX_LINE)
			size = UE_DYNEVENT_MAX_LINE - 1;
		memcpy(chunk, buf + done, size);
		chunk[size] = '\0';
		line = chunk;
		do {
			char *nl = strchr(line, '\n');

			if (nl) {
				*nl = '\0';
				size = (size_t)(nl - line) + 1;
			} else {
				size = strlen(line);
				if (done + size < count) {
					if (line != chunk)
						break;
					free(chunk);
					return -EINVAL;
				}
			}
			done += size;
			r = dynevent_line(d, line, who);
			if (r < 0) {
				free(chunk);
				return r;
			}
			line += size;
		} while (done < count);
	}
	free(chunk);
	return (ssize_t)done;
}

/*
 * The kernel's ftrace_event_write(): one word per write() (the caller's
 * write loop brings the rest), "!" to disable.  Returns the bytes taken.
 */
static ssize_t set_event_write(struct ue_daemon *d, const char *buf, size_t count)
{
	char word[UE_EVENT_BUF_SIZE + 1];
	size_t i = 0, len = 0;
	char *colon, *match, *sub = NULL, *event = NULL;
	bool on = true;
	int r;

	if (!count)
		return 0;
	while (i < count && isspace((unsigned char)buf[i]))
		i++;
	if (i == count || !buf[i])
		return (ssize_t)(i < count ? i + 1 : i);
	while (i < count && buf[i] && !isspace((unsigned char)buf[i])) {
		if (len >= UE_EVENT_BUF_SIZE)
			return -EINVAL;
		word[len++] = buf[i++];
	}
	/* The character that ended the word is taken too. */
	if (i < count)
		i++;
	word[len] = '\0';

	match = word;
	if (*match == '!') {
		on = false;
		match++;
	}
	colon = strchr(match, ':');
	if (colon) {
		*colon = '\0';
		sub = match;
		event = colon + 1;
		match = NULL;
		if (!*sub || strcmp(sub, "*") == 0)
			sub = NULL;
		if (!*event || strcmp(event, "*") == 0)
			event = NULL;
	}
	r = ue_registry_set_enabled_match(d->reg, match, sub, event, on);
	return r < 0 ? r : (ssize_t)i;
}

static void reply_written(fuse_req_t req, ssize_t r)
{
	if (r < 0)
		fuse_reply_err(req, (int)-r);
	else
		fuse_reply_write(req, (size_t)r);
}

static void dynevents_write_op(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
			       off_t off)
{
	(void)fh;
	(void)off;
	reply_written(req, dynevents_write(ue_req_daemon(req), buf, size, &(struct ue_who){
		.capable = ue_caller_capable(fuse_req_ctx(req)->pid), .uid = fuse_req_ctx(req)->uid }));
}

static void set_event_write_op(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
			       off_t off)
{
	(void)fh;
	(void)off;
	reply_written(req, set_event_write(ue_req_daemon(req), buf, size));
}

static const struct ue_file_ops readme_fops = { .text = readme_text };
static const struct ue_file_ops status_fops = { .show = status_show };
static const struct ue_file_ops stats_fops = { .show = stats_show };
static const struct ue_file_ops counts_fops = { .show = counts_show };
static const struct ue_file_ops available_events_fops = { .show = available_events_show };

static const struct ue_file_ops dynevents_fops = {
	.open = dynevents_open,
	.show = dynevents_show,
	.write = dynevents_write_op,
};

static const struct ue_file_ops set_event_fops = {
	.open = set_event_open,
	.show = set_event_show,
	.write = set_event_write_op,
};

static const struct ue_fs_file files[] = {
	{ UE_DIR_ROOT, "README", 0440, &readme_fops },
	{ UE_DIR_ROOT, "available_events", 0440, &available_events_fops },
	{ UE_DIR_ROOT, "dynamic_events", 0640, &dynevents_fops },
	{ UE_DIR_ROOT, "set_event", 0640, &set_event_fops },
	{ UE_DIR_ROOT, "user_events_status", 0440, &status_fops },
	/* Ours, under a name no tracefs has: counters of the enablers and the proc connector. */
	{ UE_DIR_ROOT, "usereventsd_stats", 0440, &stats_fops },
	/* Ours too: records, bytes and losses per process and event (userevents top). */
	{ UE_DIR_ROOT, "usereventsd_counts", 0440, &counts_fops },
};

const struct ue_fs_files ue_text_files = UE_FS_FILES(files);
