// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs: the FUSE side of usereventsd.  Owns the inode table (fixed numbers for
 * the static tracefs files, numbers derived from an event's creation number
 * for events/<system>/<name>/), lookups, attributes, directory listings and
 * the dispatch of open/read/write/ioctl/poll to the fs-*.c areas.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "userevents/abi.h"
#include "daemon.h"
#include "native.h"
#include "../lib/native-proto.h"

/* Inode numbers of the static nodes; FUSE_ROOT_ID is 1. */
enum {
	INO_ROOT = FUSE_ROOT_ID,
	INO_README,
	INO_AVAILABLE_EVENTS,
	INO_BUFFER_SIZE_KB,
	INO_BUFFER_TOTAL_KB,
	INO_DYNAMIC_EVENTS,
	INO_EVENTS,
	INO_OPTIONS,
	INO_SET_EVENT,
	INO_TRACE,
	INO_TRACE_PIPE,
	INO_TRACING_ON,
	INO_DATA,
	INO_STATUS,
	INO_TRACE_OPTIONS,
	INO_PER_CPU,
	INO_CURRENT_TRACER,
	INO_AVAILABLE_TRACERS,
	INO_EVENTS_ENABLE,
	INO_HEADER_PAGE,
	INO_HEADER_EVENT,
	INO_SYS,
	INO_SYS_ENABLE,
	INO_SYS_FILTER,
	INO_MSYS,
	INO_MSYS_ENABLE,
	INO_MSYS_FILTER,
	INO_TRACE_CLOCK,
	INO_SAVED_CMDLINES,
	INO_SAVED_CMDLINES_SIZE,
	INO_SAVED_TGIDS,
	INO_FTRACE,
	INO_FTRACE_PRINT,
	INO_FTRACE_PRINT_FORMAT,
	INO_FTRACE_PRINT_ID,
	INO_USEREVENTSD_STATS,
	INO_TRACE_MARKER,
	INO_TRACE_MARKER_RAW,
	INO_FTRACE_PRINT_TRIGGER,
	INO_FTRACE_RAW_DATA,
	INO_FTRACE_RAW_DATA_FORMAT,
	INO_STATIC_END,
};

_Static_assert(INO_STATIC_END - INO_ROOT <= UE_STATIC_NODES_MAX, "static nodes fit node_mode[]");

/* options/<name>: INO_OPT_BASE + enum ue_trace_option. */
#define INO_OPT_BASE 512
/* per_cpu/cpuN/: INO_CPU_BASE + N * INO_CPU_STRIDE + k, k = 0 the directory. */
#define INO_CPU_BASE (UINT64_C(1) << 40)
#define INO_CPU_STRIDE 8

/*
 * Events: INO_EV_BASE + (seq - 1) * INO_EV_STRIDE + k, k = 0 the directory,
 * then the files of event_files[].  Creation numbers are never reused, so
 * neither are inode numbers: a stale inode can only answer ENOENT.
 */
#define INO_EV_BASE 1024
#define INO_EV_STRIDE 8

/* Entries that never change may be cached; the others are looked up each time. */
#define STATIC_TIMEOUT 3600.0

struct static_node {
	fuse_ino_t ino;
	fuse_ino_t parent;
	const char *name;
	enum ue_node kind;
	mode_t mode;
	bool multi;
};

/* Modes as tracefs gives them (TRACE_MODE_READ 0440, TRACE_MODE_WRITE 0640). */
static const struct static_node static_nodes[] = {
	{ INO_ROOT, INO_ROOT, "", UE_N_ROOT, S_IFDIR | 0700, false },
	{ INO_README, INO_ROOT, "README", UE_N_README, S_IFREG | 0440, false },
	{ INO_AVAILABLE_EVENTS, INO_ROOT, "available_events", UE_N_AVAILABLE_EVENTS,
	  S_IFREG | 0440, false },
	{ INO_BUFFER_SIZE_KB, INO_ROOT, "buffer_size_kb", UE_N_BUFFER_SIZE_KB, S_IFREG | 0640,
	  false },
	{ INO_BUFFER_TOTAL_KB, INO_ROOT, "buffer_total_size_kb", UE_N_BUFFER_TOTAL_KB,
	  S_IFREG | 0440, false },
	{ INO_DYNAMIC_EVENTS, INO_ROOT, "dynamic_events", UE_N_DYNAMIC_EVENTS, S_IFREG | 0640,
	  false },
	{ INO_EVENTS, INO_ROOT, "events", UE_N_EVENTS, S_IFDIR | 0755, false },
	{ INO_OPTIONS, INO_ROOT, "options", UE_N_OPTIONS, S_IFDIR | 0750, false },
	{ INO_SET_EVENT, INO_ROOT, "set_event", UE_N_SET_EVENT, S_IFREG | 0640, false },
	{ INO_TRACE, INO_ROOT, "trace", UE_N_TRACE, S_IFREG | 0640, false },
	{ INO_TRACE_PIPE, INO_ROOT, "trace_pipe", UE_N_TRACE_PIPE, S_IFREG | 0440, false },
	{ INO_TRACING_ON, INO_ROOT, "tracing_on", UE_N_TRACING_ON, S_IFREG | 0640, false },
	{ INO_DATA, INO_ROOT, "user_events_data", UE_N_DATA, S_IFREG | 0640, false },
	{ INO_STATUS, INO_ROOT, "user_events_status", UE_N_STATUS, S_IFREG | 0440, false },
	{ INO_TRACE_OPTIONS, INO_ROOT, "trace_options", UE_N_TRACE_OPTIONS, S_IFREG | 0640,
	  false },
	{ INO_PER_CPU, INO_ROOT, "per_cpu", UE_N_PER_CPU, S_IFDIR | 0750, false },
	{ INO_CURRENT_TRACER, INO_ROOT, "current_tracer", UE_N_CURRENT_TRACER, S_IFREG | 0640,
	  false },
	{ INO_AVAILABLE_TRACERS, INO_ROOT, "available_tracers", UE_N_AVAILABLE_TRACERS,
	  S_IFREG | 0440, false },
	{ INO_EVENTS_ENABLE, INO_EVENTS, "enable", UE_N_EVENTS_ENABLE, S_IFREG | 0640, false },
	{ INO_HEADER_PAGE, INO_EVENTS, "header_page", UE_N_HEADER_PAGE, S_IFREG | 0440, false },
	{ INO_HEADER_EVENT, INO_EVENTS, "header_event", UE_N_HEADER_EVENT, S_IFREG | 0440,
	  false },
	{ INO_SYS, INO_EVENTS, USER_EVENTS_SYSTEM, UE_N_SYS_DIR, S_IFDIR | 0755, false },
	{ INO_SYS_ENABLE, INO_SYS, "enable", UE_N_SYS_ENABLE, S_IFREG | 0640, false },
	{ INO_SYS_FILTER, INO_SYS, "filter", UE_N_SYS_FILTER, S_IFREG | 0640, false },
	{ INO_MSYS, INO_EVENTS, USER_EVENTS_MULTI_SYSTEM, UE_N_SYS_DIR, S_IFDIR | 0755, true },
	{ INO_MSYS_ENABLE, INO_MSYS, "enable", UE_N_SYS_ENABLE, S_IFREG | 0640, true },
	{ INO_MSYS_FILTER, INO_MSYS, "filter", UE_N_SYS_FILTER, S_IFREG | 0640, true },
	{ INO_TRACE_CLOCK, INO_ROOT, "trace_clock", UE_N_TRACE_CLOCK, S_IFREG | 0640, false },
	{ INO_SAVED_CMDLINES, INO_ROOT, "saved_cmdlines", UE_N_SAVED_CMDLINES, S_IFREG | 0440,
	  false },
	{ INO_SAVED_CMDLINES_SIZE, INO_ROOT, "saved_cmdlines_size", UE_N_SAVED_CMDLINES_SIZE,
	  S_IFREG | 0640, false },
	{ INO_SAVED_TGIDS, INO_ROOT, "saved_tgids", UE_N_SAVED_TGIDS, S_IFREG | 0440, false },
	/* trace-cmd record needs the ftrace system: its print event is enough. */
	{ INO_FTRACE, INO_EVENTS, "ftrace", UE_N_FTRACE_DIR, S_IFDIR | 0755, false },
	{ INO_FTRACE_PRINT, INO_FTRACE, "print", UE_N_FTRACE_DIR, S_IFDIR | 0755, false },
	{ INO_FTRACE_PRINT_FORMAT, INO_FTRACE_PRINT, "format", UE_N_FTRACE_FORMAT, S_IFREG | 0440,
	  false },
	{ INO_FTRACE_PRINT_ID, INO_FTRACE_PRINT, "id", UE_N_FTRACE_ID, S_IFREG | 0440, false },
	/* Ours, under a name no tracefs has: counters of the enablers and the proc connector. */
	{ INO_USEREVENTSD_STATS, INO_ROOT, "usereventsd_stats", UE_N_USEREVENTSD_STATS,
	  S_IFREG | 0440, false },
	/* Write-only, as tracefs makes them (0220). */
	{ INO_TRACE_MARKER, INO_ROOT, "trace_marker", UE_N_TRACE_MARKER, S_IFREG | 0220, false },
	{ INO_TRACE_MARKER_RAW, INO_ROOT, "trace_marker_raw", UE_N_TRACE_MARKER_RAW,
	  S_IFREG | 0220, false },
	/* The print event has a trigger file, no enable and no filter; raw_data a format only. */
	{ INO_FTRACE_PRINT_TRIGGER, INO_FTRACE_PRINT, "trigger", UE_N_EV_TRIGGER, S_IFREG | 0640,
	  false },
	{ INO_FTRACE_RAW_DATA, INO_FTRACE, "raw_data", UE_N_FTRACE_DIR, S_IFDIR | 0755, false },
	{ INO_FTRACE_RAW_DATA_FORMAT, INO_FTRACE_RAW_DATA, "format", UE_N_FTRACE_RAW_FORMAT,
	  S_IFREG | 0440, false },
};

/* The files of an event directory, in the order of their inode numbers. */
static const struct {
	const char *name;
	enum ue_node kind;
	mode_t mode;
} event_files[] = {
	{ "enable", UE_N_EV_ENABLE, S_IFREG | 0640 },
	{ "filter", UE_N_EV_FILTER, S_IFREG | 0640 },
	{ "format", UE_N_EV_FORMAT, S_IFREG | 0440 },
	{ "id", UE_N_EV_ID, S_IFREG | 0440 },
	{ "trigger", UE_N_EV_TRIGGER, S_IFREG | 0640 },
};
#define N_EVENT_FILES (sizeof(event_files) / sizeof(event_files[0]))

/* The files of per_cpu/cpuN/ (no trace_pipe). */
static const struct {
	const char *name;
	enum ue_node kind;
	mode_t mode;
} cpu_files[] = {
	{ "buffer_size_kb", UE_N_CPU_BUFFER_SIZE_KB, S_IFREG | 0640 },
	{ "stats", UE_N_CPU_STATS, S_IFREG | 0440 },
	{ "trace", UE_N_CPU_TRACE, S_IFREG | 0640 },
	{ "trace_pipe_raw", UE_N_CPU_PIPE_RAW, S_IFREG | 0440 },
};
#define N_CPU_FILES (sizeof(cpu_files) / sizeof(cpu_files[0]))

/* A resolved inode. */
struct node {
	fuse_ino_t ino;
	enum ue_node kind;
	mode_t mode;
	bool multi;
	bool dynamic;		/* may disappear: no caching */
	unsigned int option;	/* UE_N_OPTION */
	struct ue_revent *ev;	/* memory reference */
};

static fuse_ino_t event_ino(const struct ue_revent *ev, unsigned int k)
{
	return INO_EV_BASE + (ue_revent_seq(ev) - 1) * INO_EV_STRIDE + k;
}

static const struct static_node *find_static(fuse_ino_t ino)
{
	if (ino < INO_ROOT || ino >= INO_STATIC_END)
		return NULL;
	return &static_nodes[ino - INO_ROOT];
}

static bool is_sys_node(enum ue_node kind)
{
	return kind == UE_N_SYS_DIR || kind == UE_N_SYS_ENABLE || kind == UE_N_SYS_FILTER;
}

/* A system directory exists while it holds events, as with eventfs. */
static bool static_exists(struct ue_daemon *d, const struct static_node *sn)
{
	if (is_sys_node(sn->kind))
		return ue_registry_count(d->reg, sn->multi) > 0;
	return true;
}

static int resolve(struct ue_daemon *d, fuse_ino_t ino, struct node *n)
{
	const struct static_node *sn;
	struct ue_revent *ev;
	uint64_t seq;
	unsigned int k;

	memset(n, 0, sizeof(*n));
	n->ino = ino;
	sn = find_static(ino);
	if (sn) {
		if (!static_exists(d, sn))
			return -ENOENT;
		n->kind = sn->kind;
		n->mode = sn->mode;
		n->multi = sn->multi;
		n->dynamic = is_sys_node(sn->kind);
		if (sn->kind == UE_N_ROOT)
			n->mode = S_IFDIR | (d->opts.root_mode & 07777);
		return 0;
	}
	if (ino >= INO_CPU_BASE) {
		uint64_t cpu = (ino - INO_CPU_BASE) / INO_CPU_STRIDE;

		k = (unsigned int)((ino - INO_CPU_BASE) % INO_CPU_STRIDE);
		if (cpu >= ue_buffer_ncpus(d->buf) || k > N_CPU_FILES)
			return -ENOENT;
		n->option = (unsigned int)cpu;
		n->kind = k ? cpu_files[k - 1].kind : UE_N_CPU_DIR;
		n->mode = k ? cpu_files[k - 1].mode : S_IFDIR | 0750;
		return 0;
	}
	if (ino >= INO_OPT_BASE && ino < INO_OPT_BASE + UE_OPT_COUNT) {
		n->kind = UE_N_OPTION;
		n->option = (unsigned int)(ino - INO_OPT_BASE);
		n->mode = S_IFREG | 0640;
		return 0;
	}
	if (ino < INO_EV_BASE)
		return -ENOENT;
	seq = (ino - INO_EV_BASE) / INO_EV_STRIDE + 1;
	k = (ino - INO_EV_BASE) % INO_EV_STRIDE;
	if (k > N_EVENT_FILES)
		return -ENOENT;
	ev = ue_registry_find_seq(d->reg, seq);
	if (!ev)
		return -ENOENT;
	n->ev = ev;
	n->multi = ue_revent_multi(ev);
	n->dynamic = true;
	if (k == 0) {
		n->kind = UE_N_EV_DIR;
		n->mode = S_IFDIR | 0755;
	} else {
		n->kind = event_files[k - 1].kind;
		n->mode = event_files[k - 1].mode;
	}
	return 0;
}

static fuse_ino_t parent_ino(const struct node *n)
{
	const struct static_node *sn = find_static(n->ino);

	if (sn)
		return sn->parent;
	if (n->kind == UE_N_CPU_DIR)
		return INO_PER_CPU;
	return n->multi ? INO_MSYS : INO_SYS;
}

static fuse_ino_t cpu_ino(unsigned int cpu, unsigned int k)
{
	return INO_CPU_BASE + (fuse_ino_t)cpu * INO_CPU_STRIDE + k;
}

static void node_put(struct node *n)
{
	ue_revent_release(n->ev);
	n->ev = NULL;
}

static void fill_attr(struct ue_daemon *d, const struct node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_mode = n->mode;
	st->st_nlink = S_ISDIR(n->mode) ? 2 : 1;
	st->st_uid = d->opts.uid;
	st->st_gid = d->opts.gid;
	if (find_static(n->ino)) {
		size_t i = n->ino - INO_ROOT;
		uint64_t v;

		v = atomic_load(&d->node_mode[i]);
		if (v)
			st->st_mode = (n->mode & S_IFMT) | (mode_t)(v & 07777);
		v = atomic_load(&d->node_uid[i]);
		if (v)
			st->st_uid = (uid_t)v;
		v = atomic_load(&d->node_gid[i]);
		if (v)
			st->st_gid = (gid_t)v;
	}
	st->st_blksize = 4096;
	st->st_atim = d->mount_time;
	st->st_mtim = d->mount_time;
	st->st_ctim = d->mount_time;
}

static void fs_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ue_daemon *d = userdata;

	d->max_write = conn->max_write;
	/* O_TRUNC arrives with open(): trace, set_event and dynamic_events act on it. */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* Nothing is cached: every file is generated or consumed on read. */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

static void reply_entry(fuse_req_t req, struct ue_daemon *d, struct node *n)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = n->ino;
	e.generation = 1;
	fill_attr(d, n, &e.attr);
	e.attr_timeout = n->dynamic ? 0.0 : STATIC_TIMEOUT;
	e.entry_timeout = n->dynamic ? 0.0 : STATIC_TIMEOUT;
	fuse_reply_entry(req, &e);
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct node p, n;
	int err;

	err = resolve(d, parent, &p);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	err = -ENOENT;
	if (p.kind == UE_N_SYS_DIR) {
		struct ue_revent *ev = ue_registry_find_tp(d->reg, p.multi, name);

		if (ev) {
			fuse_ino_t ino = event_ino(ev, 0);

			ue_revent_release(ev);
			err = resolve(d, ino, &n);
		}
		if (err == -ENOENT)
			goto static_children;
	} else if (p.kind == UE_N_EV_DIR) {
		for (unsigned int i = 0; i < N_EVENT_FILES; i++) {
			if (strcmp(name, event_files[i].name) == 0) {
				err = resolve(d, event_ino(p.ev, i + 1), &n);
				break;
			}
		}
	} else if (p.kind == UE_N_OPTIONS) {
		for (unsigned int i = 0; i < UE_OPT_COUNT; i++) {
			if (strcmp(name, ue_trace_options[i].name) == 0) {
				err = resolve(d, INO_OPT_BASE + i, &n);
				break;
			}
		}
	} else if (p.kind == UE_N_PER_CPU) {
		unsigned int cpu;
		char tail;

		if (sscanf(name, "cpu%u%c", &cpu, &tail) == 1 && cpu < ue_buffer_ncpus(d->buf)) {
			char canon[32];

			snprintf(canon, sizeof(canon), "cpu%u", cpu);
			if (strcmp(canon, name) == 0)
				err = resolve(d, cpu_ino(cpu, 0), &n);
		}
	} else if (p.kind == UE_N_CPU_DIR) {
		for (unsigned int i = 0; i < N_CPU_FILES; i++) {
			if (strcmp(name, cpu_files[i].name) == 0) {
				err = resolve(d, cpu_ino(p.option, i + 1), &n);
				break;
			}
		}
	} else {
static_children:
		for (size_t i = 1; i < sizeof(static_nodes) / sizeof(static_nodes[0]); i++) {
			const struct static_node *sn = &static_nodes[i];

			if (sn->parent == parent && strcmp(sn->name, name) == 0) {
				err = resolve(d, sn->ino, &n);
				break;
			}
		}
	}
	node_put(&p);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	reply_entry(req, d, &n);
	node_put(&n);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct stat st;
	struct node n;
	int err;

	(void)fi;
	err = resolve(d, ino, &n);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	fill_attr(d, &n, &st);
	fuse_reply_attr(req, &st, n.dynamic ? 0.0 : STATIC_TIMEOUT);
	node_put(&n);
}

/*
 * chmod and chown of the fixed nodes stick, as on tracefs (the kernel has
 * checked that the caller may: default_permissions); sizes stay 0, and the
 * nodes of events/, per_cpu/ and options/ keep their modes (docs/compat.md).
 */
static void fs_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	const struct static_node *sn = find_static(ino);
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync();

	if (sn) {
		size_t i = ino - INO_ROOT;

		if (to_set & FUSE_SET_ATTR_MODE)
			atomic_store(&d->node_mode[i], UE_ATTR_SET | (attr->st_mode & 07777));
		if (to_set & FUSE_SET_ATTR_UID)
			atomic_store(&d->node_uid[i], UE_ATTR_SET | attr->st_uid);
		if (to_set & FUSE_SET_ATTR_GID)
			atomic_store(&d->node_gid[i], UE_ATTR_SET | attr->st_gid);
	}
	fs_getattr(req, ino, fi);
}

/* Return: 0, -EMFILE past max_files (a client cannot make us grow), -ENOMEM. */
static int fh_new(struct ue_daemon *d, enum ue_node kind, struct ue_fh **ret)
{
	struct ue_fh *fh;

	if (atomic_fetch_add(&d->open_files, 1) >= d->opts.max_files) {
		atomic_fetch_sub(&d->open_files, 1);
		return -EMFILE;
	}
	fh = calloc(1, sizeof(*fh));
	if (!fh) {
		atomic_fetch_sub(&d->open_files, 1);
		return -ENOMEM;
	}
	fh->d = d;
	fh->kind = kind;
	pthread_mutex_init(&fh->lock, NULL);
	pthread_mutex_lock(&d->fh_lock);
	fh->next = d->fh_list;
	if (d->fh_list)
		d->fh_list->prev = fh;
	d->fh_list = fh;
	pthread_mutex_unlock(&d->fh_lock);
	*ret = fh;
	return 0;
}

/* Directory handles use UE_N_ROOT as their kind: they only hold a listing. */
static void fh_free(struct ue_daemon *d, struct ue_fh *fh)
{
	if (!fh)
		return;
	pthread_mutex_lock(&d->fh_lock);
	if (fh->prev)
		fh->prev->next = fh->next;
	else
		d->fh_list = fh->next;
	if (fh->next)
		fh->next->prev = fh->prev;
	pthread_mutex_unlock(&d->fh_lock);
	if (fh->kind == UE_N_ROOT) {
		for (size_t i = 0; i < fh->dir.n; i++)
			free(fh->dir.ents[i].name);
		free(fh->dir.ents);
	}
	ue_revent_release(fh->ev);
	if (fh->have_text)
		atomic_fetch_sub(&d->text_bytes, fh->text_len + 1);
	free(fh->text);
	pthread_mutex_destroy(&fh->lock);
	free(fh);
	atomic_fetch_sub(&d->open_files, 1);
}

/* What release does for a file, before its handle is freed. */
static void fh_close(struct ue_daemon *d, struct ue_fh *fh)
{
	if (fh->kind == UE_N_DATA)
		ue_data_release(d, fh);
	else if (fh->kind == UE_N_TRACE_PIPE)
		ue_trace_release(d, fh);
	else if (fh->kind == UE_N_CPU_PIPE_RAW)
		ue_raw_release(d, fh);
	fh_free(d, fh);
}

void ue_fs_cleanup(struct ue_daemon *d)
{
	while (d->fh_list)
		fh_close(d, d->fh_list);
}

/*
 * The end of an open or opendir: on @err the handle is dropped; otherwise it
 * is handed to the kernel, and closed at once if the opener is gone
 * (interrupted), since no release will come.  For a directory fh_close() is
 * fh_free().
 */
static void reply_open(fuse_req_t req, struct ue_daemon *d, struct ue_fh *fh,
		       struct fuse_file_info *fi, int err)
{
	if (err < 0) {
		fh_free(d, fh);
		fuse_reply_err(req, -err);
		return;
	}
	fi->fh = (uintptr_t)fh;
	if (fuse_reply_open(req, fi) != 0)
		fh_close(d, fh);
}

static inline struct ue_fh *get_fh(struct fuse_file_info *fi)
{
	return (struct ue_fh *)(uintptr_t)fi->fh;
}

static int dir_add(struct ue_fh *fh, size_t *cap, const char *name, fuse_ino_t ino, mode_t mode)
{
	struct ue_dirent *e;

	if (fh->dir.n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;

		e = realloc(fh->dir.ents, ncap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		fh->dir.ents = e;
		*cap = ncap;
	}
	e = &fh->dir.ents[fh->dir.n];
	e->name = strdup(name);
	if (!e->name)
		return -ENOMEM;
	e->ino = ino;
	e->mode = mode;
	fh->dir.n++;
	return 0;
}

struct list_events_arg {
	struct ue_fh *fh;
	size_t *cap;
	bool multi;
	int err;
};

/* Names a directory entry cannot have (FUSE refuses the whole listing). */
static bool bad_entry_name(const char *name)
{
	return !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	       strlen(name) > 255;
}

static int list_event_dir(struct ue_revent *ev, void *arg)
{
	struct list_events_arg *a = arg;

	if (ue_revent_multi(ev) != a->multi || bad_entry_name(ue_revent_tp_name(ev)))
		return 0;
	a->err = dir_add(a->fh, a->cap, ue_revent_tp_name(ev), event_ino(ev, 0), S_IFDIR | 0755);
	return a->err;
}

static void fs_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_fh *fh;
	size_t cap = 0;
	struct node n;
	int err;

	err = resolve(d, ino, &n);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	err = fh_new(d, UE_N_ROOT, &fh);
	if (err < 0) {
		node_put(&n);
		fuse_reply_err(req, -err);
		return;
	}
	err = dir_add(fh, &cap, ".", ino, S_IFDIR);
	if (!err)
		err = dir_add(fh, &cap, "..", parent_ino(&n), S_IFDIR);
	if (!err && n.kind == UE_N_EV_DIR) {
		for (unsigned int i = 0; i < N_EVENT_FILES && !err; i++)
			err = dir_add(fh, &cap, event_files[i].name, event_ino(n.ev, i + 1),
				      event_files[i].mode);
	} else if (!err && n.kind == UE_N_OPTIONS) {
		for (unsigned int i = 0; i < UE_OPT_COUNT && !err; i++)
			err = dir_add(fh, &cap, ue_trace_options[i].name, INO_OPT_BASE + i,
				      S_IFREG | 0640);
	} else if (!err && n.kind == UE_N_PER_CPU) {
		for (unsigned int i = 0; i < ue_buffer_ncpus(d->buf) && !err; i++) {
			char name[32];

			snprintf(name, sizeof(name), "cpu%u", i);
			err = dir_add(fh, &cap, name, cpu_ino(i, 0), S_IFDIR | 0750);
		}
	} else if (!err && n.kind == UE_N_CPU_DIR) {
		for (unsigned int i = 0; i < N_CPU_FILES && !err; i++)
			err = dir_add(fh, &cap, cpu_files[i].name, cpu_ino(n.option, i + 1),
				      cpu_files[i].mode);
	} else if (!err) {
		for (size_t i = 1; i < sizeof(static_nodes) / sizeof(static_nodes[0]) && !err;
		     i++) {
			const struct static_node *sn = &static_nodes[i];

			if (sn->parent == ino && static_exists(d, sn))
				err = dir_add(fh, &cap, sn->name, sn->ino, sn->mode);
		}
		if (!err && n.kind == UE_N_SYS_DIR) {
			struct list_events_arg a = { fh, &cap, n.multi, 0 };

			ue_registry_foreach(d->reg, UE_ORDER_NEWEST, list_event_dir, &a);
			err = a.err;
		}
	}
	node_put(&n);
	reply_open(req, d, fh, fi, err);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct ue_fh *fh = get_fh(fi);
	size_t used = 0;
	char *buf;

	(void)ino;
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (size_t i = off < 0 ? 0 : (size_t)off; i < fh->dir.n; i++) {
		struct ue_dirent *e = &fh->dir.ents[i];
		struct stat st = { .st_ino = e->ino, .st_mode = e->mode };
		size_t len = fuse_add_direntry(req, buf + used, size - used, e->name, &st,
					       (off_t)(i + 1));

		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void fs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	fh_free(ue_req_daemon(req), get_fh(fi));
	fuse_reply_err(req, 0);
}

/* The fs-*.c file that opens and reads the files of a kind. */
enum fs_area { AREA_DATA, AREA_EVENTS, AREA_TRACE, AREA_RAW, AREA_MARKER, AREA_TEXT };

static enum fs_area area_of(enum ue_node kind)
{
	switch (kind) {
	case UE_N_DATA:
		return AREA_DATA;
	case UE_N_EVENTS_ENABLE:
	case UE_N_HEADER_PAGE:
	case UE_N_HEADER_EVENT:
	case UE_N_SYS_ENABLE:
	case UE_N_SYS_FILTER:
	case UE_N_EV_ENABLE:
	case UE_N_EV_FILTER:
	case UE_N_EV_FORMAT:
	case UE_N_EV_ID:
	case UE_N_EV_TRIGGER:
		return AREA_EVENTS;
	case UE_N_TRACE:
	case UE_N_TRACE_PIPE:
	case UE_N_TRACING_ON:
	case UE_N_BUFFER_SIZE_KB:
	case UE_N_BUFFER_TOTAL_KB:
	case UE_N_TRACE_OPTIONS:
	case UE_N_CURRENT_TRACER:
	case UE_N_AVAILABLE_TRACERS:
	case UE_N_OPTION:
	case UE_N_CPU_BUFFER_SIZE_KB:
	case UE_N_CPU_STATS:
	case UE_N_CPU_TRACE:
		return AREA_TRACE;
	case UE_N_CPU_PIPE_RAW:
	case UE_N_TRACE_CLOCK:
	case UE_N_SAVED_CMDLINES:
	case UE_N_SAVED_CMDLINES_SIZE:
	case UE_N_SAVED_TGIDS:
	case UE_N_FTRACE_FORMAT:
	case UE_N_FTRACE_ID:
		return AREA_RAW;
	case UE_N_TRACE_MARKER:
	case UE_N_TRACE_MARKER_RAW:
	case UE_N_FTRACE_RAW_FORMAT:
		return AREA_MARKER;
	default:
		return AREA_TEXT;
	}
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_fh *fh;
	struct node n;
	int err;
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync();

	err = resolve(d, ino, &n);
	if (err < 0) {
		fuse_reply_err(req, -err);
		return;
	}
	if (S_ISDIR(n.mode)) {
		node_put(&n);
		fuse_reply_err(req, EISDIR);
		return;
	}
	err = fh_new(d, n.kind, &fh);
	if (err < 0) {
		node_put(&n);
		fuse_reply_err(req, -err);
		return;
	}
	fh->multi = n.multi;
	fh->option = n.option;
	fh->ev = n.ev;
	n.ev = NULL;
	fh->open_flags = fi->flags;

	/* Every file is generated on read: no page cache, exact offsets. */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	fi->noflush = 1;
	switch (area_of(n.kind)) {
	case AREA_DATA:
		ue_data_open(d, fh);
		/*
		 * Each write() is one request with the caller's bytes; the file
		 * position means nothing (see docs/compat.md on pwrite).
		 */
		fi->nonseekable = 1;
		/* Close must reach us at once: the file's references go on release. */
		fi->noflush = 0;
		err = 0;
		break;
	case AREA_EVENTS:
		err = ue_events_open(req, fh);
		break;
	case AREA_TRACE:
		if (n.kind == UE_N_TRACE_PIPE) {
			fi->nonseekable = 1;
			/* Its close must be seen: the next open waits for the release. */
			fi->noflush = 0;
		}
		err = ue_trace_open(req, fh);
		break;
	case AREA_RAW:
		if (n.kind == UE_N_CPU_PIPE_RAW)
			fi->nonseekable = 1;
		err = ue_raw_open(req, fh);
		break;
	case AREA_MARKER:
		/* As user_events_data: one request per write(), no file position. */
		if (n.kind != UE_N_FTRACE_RAW_FORMAT)
			fi->nonseekable = 1;
		err = 0;
		break;
	case AREA_TEXT:
		err = ue_textfile_open(req, fh);
		break;
	}
	reply_open(req, d, fh, fi, err);
}

static void fs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct ue_fh *fh = get_fh(fi);
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync();

	(void)ino;
	switch (area_of(fh->kind)) {
	case AREA_DATA:
		/* user_events_data has no read method: vfs_read() says EINVAL. */
		fuse_reply_err(req, EINVAL);
		break;
	case AREA_EVENTS:
		ue_events_read(req, fh, size, off);
		break;
	case AREA_TRACE:
		ue_trace_read(req, fh, size, off, fi->flags);
		break;
	case AREA_RAW:
		ue_raw_read(req, fh, size, off, fi->flags);
		break;
	case AREA_MARKER:
		ue_marker_read(req, fh, size, off);
		break;
	case AREA_TEXT:
		ue_textfile_read(req, fh, size, off);
		break;
	}
}

static void fs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct ue_fh *fh = get_fh(fi);
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync();

	(void)ino;
	switch (fh->kind) {
	case UE_N_DATA:
		ue_data_write(req, fh, buf, size, off);
		break;
	case UE_N_EVENTS_ENABLE:
	case UE_N_SYS_ENABLE:
	case UE_N_SYS_FILTER:
	case UE_N_EV_ENABLE:
	case UE_N_EV_FILTER:
	case UE_N_EV_TRIGGER:
		ue_events_write(req, fh, buf, size);
		break;
	case UE_N_TRACE:
	case UE_N_TRACING_ON:
	case UE_N_BUFFER_SIZE_KB:
	case UE_N_TRACE_OPTIONS:
	case UE_N_CURRENT_TRACER:
	case UE_N_AVAILABLE_TRACERS:
	case UE_N_OPTION:
	case UE_N_CPU_BUFFER_SIZE_KB:
	case UE_N_CPU_STATS:
	case UE_N_CPU_TRACE:
		ue_trace_write(req, fh, buf, size);
		break;
	case UE_N_DYNAMIC_EVENTS:
	case UE_N_SET_EVENT:
		ue_textfile_write(req, fh, buf, size);
		break;
	case UE_N_TRACE_CLOCK:
	case UE_N_SAVED_CMDLINES_SIZE:
		ue_raw_write(req, fh, buf, size);
		break;
	case UE_N_TRACE_MARKER:
	case UE_N_TRACE_MARKER_RAW:
		ue_marker_write(req, fh, buf, size);
		break;
	default:
		/* No write method (read-only files opened by root): EINVAL, as vfs_write(). */
		fuse_reply_err(req, EINVAL);
		break;
	}
}

static void fs_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_fh *fh = get_fh(fi);

	(void)ino;
	if (fh->kind == UE_N_DATA)
		ue_data_flush(ue_req_daemon(req), fh);
	else if (fh->kind == UE_N_TRACE_PIPE)
		ue_trace_flush(ue_req_daemon(req), fh);
	fuse_reply_err(req, 0);
}

static void fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_fh *fh = get_fh(fi);
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync();

	(void)ino;
	fh_close(d, fh);
	fuse_reply_err(req, 0);
}

static void fs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg,
		     struct fuse_file_info *fi, unsigned int flags, const void *in_buf,
		     size_t in_bufsz, size_t out_bufsz)
{
	struct ue_fh *fh = get_fh(fi);
	/* Native writes that returned before this request are in the buffer first. */
	ue_native_sync();

	(void)ino;
	(void)in_buf;
	(void)in_bufsz;
	(void)out_bufsz;
	if (fh->kind != UE_N_DATA) {
		/* No tracefs file but user_events_data has an ioctl method. */
		fuse_reply_err(req, ENOTTY);
		return;
	}
	ue_data_ioctl(req, fh, cmd, arg, flags);
}

static void fs_poll(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph)
{
	struct ue_fh *fh = get_fh(fi);

	(void)ino;
	if (fh->kind == UE_N_TRACE_PIPE) {
		ue_trace_poll(req, fh, ph);
		return;
	}
	/*
	 * Files without a poll method are always ready (DEFAULT_POLLMASK).
	 * Answering ENOSYS instead would turn poll off for the whole mount.
	 */
	if (ph)
		fuse_pollhandle_destroy(ph);
	fuse_reply_poll(req, POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
}

/*
 * No extended attributes, as on tracefs, but one: user_events_data names the
 * socket of this daemon's native path, for libuserevents (fgetxattr() on its
 * descriptor reaches the daemon that serves that very file).
 */
static void fs_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	const char *val = NULL;
	size_t len;

	if (ino == INO_DATA && strcmp(name, UE_NATIVE_XATTR) == 0)
		val = ue_native_name();
	if (!val) {
		fuse_reply_err(req, EOPNOTSUPP);
		return;
	}
	len = strlen(val);
	if (size == 0)
		fuse_reply_xattr(req, len);
	else if (size < len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, val, len);
}

/* An empty list, as tracefs gives (the native path's name is not listed). */
static void fs_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	(void)ino;
	if (size == 0)
		fuse_reply_xattr(req, 0);
	else
		fuse_reply_buf(req, NULL, 0);
}

static void fs_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs st;

	(void)ino;
	memset(&st, 0, sizeof(st));
	st.f_bsize = 4096;
	st.f_frsize = 4096;
	st.f_namemax = 255;
	fuse_reply_statfs(req, &st);
}

const struct fuse_lowlevel_ops ue_fs_ops = {
	.init = fs_init,
	.lookup = fs_lookup,
	.getattr = fs_getattr,
	.setattr = fs_setattr,
	.open = fs_open,
	.read = fs_read,
	.write = fs_write,
	.flush = fs_flush,
	.release = fs_release,
	.opendir = fs_opendir,
	.readdir = fs_readdir,
	.releasedir = fs_releasedir,
	.statfs = fs_statfs,
	.getxattr = fs_getxattr,
	.listxattr = fs_listxattr,
	.ioctl = fs_ioctl,
	.poll = fs_poll,
};

void ue_fs_serve_text(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off,
		      int (*generate)(struct ue_daemon *d, struct ue_fh *fh))
{
	size_t o = off < 0 ? 0 : (size_t)off;
	char *slice = NULL;
	int r = 0;

	pthread_mutex_lock(&fh->lock);
	/* Like seq_file: reading from the start shows the current state. */
	if (o == 0 || !fh->have_text)
		r = generate(ue_req_daemon(req), fh);
	if (r == 0 && o < fh->text_len) {
		if (size > fh->text_len - o)
			size = fh->text_len - o;
		slice = malloc(size);
		if (slice)
			memcpy(slice, fh->text + o, size);
		else
			r = -ENOMEM;
	} else {
		size = 0;
	}
	pthread_mutex_unlock(&fh->lock);
	/*
	 * Replied only now: once the reply is out the caller may close the
	 * file, and its release may free @fh on another thread at once.
	 */
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_buf(req, slice, size);
	free(slice);
}

void ue_text_add(struct ue_text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t ncap = t->cap ? t->cap : 256;
		char *nb;

		while (ncap < t->len + n + 1)
			ncap *= 2;
		if (ncap > UE_TEXT_MAX) {
			t->failed = true;
			return;
		}
		nb = realloc(t->buf, ncap);
		if (!nb) {
			t->failed = true;
			return;
		}
		t->buf = nb;
		t->cap = ncap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

void ue_text_render(struct ue_text *t, int (*fn)(void *arg, char *buf, size_t len), void *arg)
{
	char small[512];
	int n;

	if (t->failed)
		return;
	n = fn(arg, small, sizeof(small));
	if (n < 0) {
		t->failed = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		ue_text_add(t, small, (size_t)n);
		return;
	}
	{
		char *big = malloc((size_t)n + 1);

		if (!big) {
			t->failed = true;
			return;
		}
		if (fn(arg, big, (size_t)n + 1) == n)
			ue_text_add(t, big, (size_t)n);
		else
			t->failed = true;
		free(big);
	}
}

/* ue_text_printf()'s arguments, for ue_text_render(). */
struct text_vfmt {
	const char *fmt;
	va_list ap;
};

static int text_vformat(void *arg, char *buf, size_t len)
{
	struct text_vfmt *v = arg;
	va_list ap;
	int n;

	/* Called again when the text did not fit: each call formats from a copy. */
	va_copy(ap, v->ap);
	n = vsnprintf(buf, len, v->fmt, ap);
	va_end(ap);
	return n;
}

void ue_text_printf(struct ue_text *t, const char *fmt, ...)
{
	struct text_vfmt v = { .fmt = fmt };

	va_start(v.ap, fmt);
	ue_text_render(t, text_vformat, &v);
	va_end(v.ap);
}

int ue_text_to_fh(struct ue_text *t, struct ue_fh *fh)
{
	struct ue_daemon *d = fh->d;
	size_t add = t->len + 1, held;

	if (!t->failed) {
		held = atomic_fetch_add(&d->text_bytes, add);
		/* The snapshot it replaces is still counted: be strict, not exact. */
		if (held + add > d->opts.max_text_bytes) {
			atomic_fetch_sub(&d->text_bytes, add);
			t->failed = true;
		}
	}
	if (t->failed) {
		free(t->buf);
		memset(t, 0, sizeof(*t));
		return -ENOMEM;
	}
	if (fh->have_text)
		atomic_fetch_sub(&d->text_bytes, fh->text_len + 1);
	free(fh->text);
	fh->text = t->buf;
	fh->text_len = t->len;
	fh->have_text = true;
	memset(t, 0, sizeof(*t));
	return 0;
}

int ue_parse_ulong(const char *buf, size_t size, unsigned long *ret)
{
	/* kstrtoul_from_user() looks at 66 bytes at most, up to a NUL. */
	char tmp[67];
	const char *s = tmp;
	unsigned long v = 0;
	bool digits = false;

	if (size > sizeof(tmp) - 1)
		size = sizeof(tmp) - 1;
	memcpy(tmp, buf, size);
	tmp[size] = '\0';
	if (*s == '+')
		s++;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned int digit = (unsigned int)(*s - '0');

		if (v > (~0UL - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
		digits = true;
	}
	if (!digits)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*ret = v;
	return 0;
}

bool ue_caller_capable(pid_t tid)
{
	/* CAP_SYS_ADMIN (21) or CAP_PERFMON (38), as perfmon_capable(). */
	const unsigned long long mask = (1ULL << 21) | (1ULL << 38);
	unsigned long long caps = 0;
	char path[64], line[256];
	bool found = false;
	FILE *f;

	if (tid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found && (caps & mask);
}
