// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-tree: the tracefs-like tree.  Gathers the files of every fs-*.c's table
 * under the fixed directories, makes the directories of each event, CPU and
 * trace option, and maps inode numbers to nodes and back: fixed numbers for
 * the fixed nodes, numbers derived from an event's creation number for
 * events/<system>/<name>/, from the CPU for per_cpu/cpuN/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "userevents/abi.h"
#include "fs.h"

/* Fixed directories: INO_ROOT + enum ue_dir; then the fixed files, in table order. */
#define INO_ROOT FUSE_ROOT_ID
#define INO_FILES (INO_ROOT + UE_DIR_FIXED)

/* options/<name>: INO_OPT_BASE + enum ue_trace_option. */
#define INO_OPT_BASE 512
/* per_cpu/cpuN/: INO_CPU_BASE + N * INO_CPU_STRIDE + k, k = 0 the directory. */
#define INO_CPU_BASE (UINT64_C(1) << 40)
#define INO_CPU_STRIDE 8

/*
 * Events: INO_EV_BASE + (seq - 1) * INO_EV_STRIDE + k, k = 0 the directory,
 * then the event's files.  Creation numbers are never reused, so neither
 * are inode numbers: a stale inode can only answer ENOENT.
 */
#define INO_EV_BASE 1024
#define INO_EV_STRIDE 8

struct fixed_dir {
	enum ue_dir parent;
	const char *name;
	mode_t mode;
};

static const struct fixed_dir fixed_dirs[UE_DIR_FIXED] = {
	[UE_DIR_ROOT] = { UE_DIR_ROOT, "", 0700 },	/* mode=, as tracefs */
	[UE_DIR_EVENTS] = { UE_DIR_ROOT, "events", 0755 },
	[UE_DIR_OPTIONS] = { UE_DIR_ROOT, "options", 0750 },
	[UE_DIR_PER_CPU] = { UE_DIR_ROOT, "per_cpu", 0750 },
	[UE_DIR_USER_EVENTS] = { UE_DIR_EVENTS, USER_EVENTS_SYSTEM, 0755 },
	[UE_DIR_USER_EVENTS_MULTI] = { UE_DIR_EVENTS, USER_EVENTS_MULTI_SYSTEM, 0755 },
	/* trace-cmd record needs the ftrace system: print and raw_data are enough. */
	[UE_DIR_FTRACE] = { UE_DIR_EVENTS, "ftrace", 0755 },
	[UE_DIR_FTRACE_PRINT] = { UE_DIR_FTRACE, "print", 0755 },
	[UE_DIR_FTRACE_RAW_DATA] = { UE_DIR_FTRACE, "raw_data", 0755 },
};

/* Every fs-*.c's files; the order fixes inode numbers and listings. */
static const struct ue_fs_files *const areas[] = {
	&ue_text_files, &ue_trace_files,  &ue_pipe_files,   &ue_data_files,
	&ue_events_files, &ue_raw_files, &ue_marker_files, &ue_session_files,
};
#define N_AREAS (sizeof(areas) / sizeof(areas[0]))

/*
 * The files of a group, numbered from 0 in table order: UE_DIR_FIXED the
 * files of the fixed directories, UE_DIR_EVENT (UE_DIR_CPU) those of every
 * event's (CPU's) directory.
 */
struct row_iter {
	size_t area;
	size_t i;
	size_t k;
};

static const struct ue_fs_file *row_next(struct row_iter *it, enum ue_dir group, size_t *ret_k)
{
	while (it->area < N_AREAS) {
		const struct ue_fs_files *a = areas[it->area];
		const struct ue_fs_file *f;

		if (it->i >= a->n) {
			it->area++;
			it->i = 0;
			continue;
		}
		f = &a->file[it->i++];
		if (group == UE_DIR_FIXED ? f->parent < UE_DIR_FIXED : f->parent == group) {
			*ret_k = it->k++;
			return f;
		}
	}
	return NULL;
}

static const struct ue_fs_file *row_at(enum ue_dir group, size_t k)
{
	struct row_iter it = { 0 };
	const struct ue_fs_file *f;
	size_t i;

	while ((f = row_next(&it, group, &i))) {
		if (i == k)
			return f;
	}
	return NULL;
}

static size_t row_count(enum ue_dir group)
{
	struct row_iter it = { 0 };
	size_t i, n = 0;

	while (row_next(&it, group, &i))
		n++;
	return n;
}

int ue_tree_check(void)
{
	if (UE_DIR_FIXED + row_count(UE_DIR_FIXED) > UE_STATIC_NODES_MAX ||
	    INO_FILES + row_count(UE_DIR_FIXED) > INO_OPT_BASE ||
	    row_count(UE_DIR_EVENT) >= INO_EV_STRIDE || row_count(UE_DIR_CPU) >= INO_CPU_STRIDE)
		return -E2BIG;
	return 0;
}

static bool is_system(enum ue_dir dir)
{
	return dir == UE_DIR_USER_EVENTS || dir == UE_DIR_USER_EVENTS_MULTI;
}

/* A system's directory and files exist while it holds events, as with eventfs. */
static bool fixed_exists(struct ue_daemon *d, enum ue_dir dir)
{
	if (is_system(dir))
		return ue_registry_count(d->reg, dir == UE_DIR_USER_EVENTS_MULTI) > 0;
	return true;
}

static fuse_ino_t event_ino(const struct ue_revent *ev, size_t k)
{
	return INO_EV_BASE + (ue_revent_seq(ev) - 1) * INO_EV_STRIDE + k;
}

static fuse_ino_t cpu_ino(unsigned int cpu, size_t k)
{
	return INO_CPU_BASE + (fuse_ino_t)cpu * INO_CPU_STRIDE + k;
}

static void set_dir(struct ue_node *n, enum ue_dir dir, mode_t mode)
{
	n->dir = dir;
	n->mode = S_IFDIR | mode;
}

static void set_file(struct ue_node *n, const struct ue_fs_file *f)
{
	n->ops = f->ops;
	n->mode = S_IFREG | f->mode;
}

static int resolve_fixed(struct ue_daemon *d, fuse_ino_t ino, struct ue_node *n)
{
	const struct ue_fs_file *f;
	enum ue_dir in;

	if (ino < INO_FILES) {
		in = (enum ue_dir)(ino - INO_ROOT);
		set_dir(n, in, in == UE_DIR_ROOT ? d->opts.root_mode & 07777 : fixed_dirs[in].mode);
	} else {
		f = row_at(UE_DIR_FIXED, ino - INO_FILES);
		if (!f)
			return -ENOENT;
		in = f->parent;
		set_file(n, f);
	}
	if (!fixed_exists(d, in))
		return -ENOENT;
	n->multi = in == UE_DIR_USER_EVENTS_MULTI;
	n->dynamic = is_system(in);
	return 0;
}

int ue_tree_resolve(struct ue_daemon *d, fuse_ino_t ino, struct ue_node *n)
{
	const struct ue_fs_file *f;
	struct ue_revent *ev;
	uint64_t seq;
	size_t k;

	memset(n, 0, sizeof(*n));
	n->ino = ino;
	if (ino >= INO_ROOT && ino < INO_OPT_BASE)
		return resolve_fixed(d, ino, n);
	if (ino >= INO_CPU_BASE) {
		uint64_t cpu = (ino - INO_CPU_BASE) / INO_CPU_STRIDE;

		k = (ino - INO_CPU_BASE) % INO_CPU_STRIDE;
		if (cpu >= ue_buffer_ncpus(d->buf))
			return -ENOENT;
		n->option = (unsigned int)cpu;
		if (!k) {
			set_dir(n, UE_DIR_CPU, 0750);
			return 0;
		}
		f = row_at(UE_DIR_CPU, k - 1);
		if (!f)
			return -ENOENT;
		set_file(n, f);
		return 0;
	}
	if (ino >= INO_OPT_BASE && ino < INO_OPT_BASE + UE_OPT_COUNT) {
		n->ops = &ue_option_fops;
		n->option = (unsigned int)(ino - INO_OPT_BASE);
		n->mode = S_IFREG | 0640;
		return 0;
	}
	if (ino < INO_EV_BASE)
		return -ENOENT;
	seq = (ino - INO_EV_BASE) / INO_EV_STRIDE + 1;
	k = (ino - INO_EV_BASE) % INO_EV_STRIDE;
	f = k ? row_at(UE_DIR_EVENT, k - 1) : NULL;
	if (k && !f)
		return -ENOENT;
	ev = ue_registry_find_seq(d->reg, seq);
	if (!ev)
		return -ENOENT;
	n->ev = ev;
	n->multi = ue_revent_multi(ev);
	n->dynamic = true;
	if (f)
		set_file(n, f);
	else
		set_dir(n, UE_DIR_EVENT, 0755);
	return 0;
}

void ue_node_put(struct ue_node *n)
{
	ue_revent_release(n->ev);
	n->ev = NULL;
}

static fuse_ino_t parent_ino(const struct ue_node *n)
{
	switch (n->dir) {
	case UE_DIR_CPU:
		return INO_ROOT + UE_DIR_PER_CPU;
	case UE_DIR_EVENT:
		return INO_ROOT + (n->multi ? UE_DIR_USER_EVENTS_MULTI : UE_DIR_USER_EVENTS);
	default:
		return INO_ROOT + fixed_dirs[n->dir].parent;
	}
}

/* The inode of the @k-th file of @dir's group, for directory node @n. */
static fuse_ino_t file_ino(const struct ue_node *n, size_t k)
{
	if (n->dir == UE_DIR_EVENT)
		return event_ino(n->ev, k + 1);
	if (n->dir == UE_DIR_CPU)
		return cpu_ino(n->option, k + 1);
	return INO_FILES + k;
}

/* The entries a directory makes itself: events, CPUs, options.  -ENOENT: none of that name. */
static int lookup_made(struct ue_daemon *d, const struct ue_node *p, const char *name,
		       struct ue_node *n)
{
	if (is_system(p->dir)) {
		struct ue_revent *ev = ue_registry_find_tp(d->reg, p->multi, name);
		fuse_ino_t ino;

		if (!ev)
			return -ENOENT;
		ino = event_ino(ev, 0);
		ue_revent_release(ev);
		return ue_tree_resolve(d, ino, n);
	}
	if (p->dir == UE_DIR_OPTIONS) {
		for (unsigned int i = 0; i < UE_OPT_COUNT; i++) {
			if (strcmp(name, ue_trace_options[i].name) == 0)
				return ue_tree_resolve(d, INO_OPT_BASE + i, n);
		}
	} else if (p->dir == UE_DIR_PER_CPU) {
		unsigned int cpu;
		char tail, canon[32];

		if (sscanf(name, "cpu%u%c", &cpu, &tail) == 1 && cpu < ue_buffer_ncpus(d->buf)) {
			snprintf(canon, sizeof(canon), "cpu%u", cpu);
			if (strcmp(canon, name) == 0)
				return ue_tree_resolve(d, cpu_ino(cpu, 0), n);
		}
	}
	return -ENOENT;
}

int ue_tree_lookup(struct ue_daemon *d, fuse_ino_t parent, const char *name, struct ue_node *n)
{
	enum ue_dir group = UE_DIR_FIXED;
	const struct ue_fs_file *f;
	struct row_iter it = { 0 };
	struct ue_node p;
	size_t k;
	int err;

	err = ue_tree_resolve(d, parent, &p);
	if (err < 0)
		return err;
	err = -ENOENT;
	if (p.ops)
		goto out;
	/* An event named like a system's file hides it, as before eventfs. */
	err = lookup_made(d, &p, name, n);
	if (err != -ENOENT)
		goto out;
	if (p.dir < UE_DIR_FIXED) {
		for (unsigned int i = 1; i < UE_DIR_FIXED; i++) {
			if (fixed_dirs[i].parent == p.dir && strcmp(fixed_dirs[i].name, name) == 0) {
				err = ue_tree_resolve(d, INO_ROOT + i, n);
				goto out;
			}
		}
	} else {
		group = p.dir;
	}
	while ((f = row_next(&it, group, &k))) {
		if (f->parent == p.dir && strcmp(f->name, name) == 0) {
			err = ue_tree_resolve(d, file_ino(&p, k), n);
			break;
		}
	}
out:
	ue_node_put(&p);
	return err;
}

struct list_events_arg {
	int (*add)(void *arg, const char *name, fuse_ino_t ino, mode_t mode);
	void *arg;
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
	a->err = a->add(a->arg, ue_revent_tp_name(ev), event_ino(ev, 0), S_IFDIR | 0755);
	return a->err;
}

int ue_tree_list(struct ue_daemon *d, const struct ue_node *n,
		 int (*add)(void *arg, const char *name, fuse_ino_t ino, mode_t mode), void *arg)
{
	enum ue_dir group = n->dir < UE_DIR_FIXED ? UE_DIR_FIXED : n->dir;
	const struct ue_fs_file *f;
	struct row_iter it = { 0 };
	size_t k;
	int err;

	err = add(arg, ".", n->ino, S_IFDIR);
	if (!err)
		err = add(arg, "..", parent_ino(n), S_IFDIR);
	for (unsigned int i = 1; i < UE_DIR_FIXED && !err; i++) {
		if (fixed_dirs[i].parent == n->dir && fixed_exists(d, (enum ue_dir)i))
			err = add(arg, fixed_dirs[i].name, INO_ROOT + i, S_IFDIR | fixed_dirs[i].mode);
	}
	while (!err && (f = row_next(&it, group, &k))) {
		if (f->parent == n->dir && (group != UE_DIR_FIXED || fixed_exists(d, f->parent)))
			err = add(arg, f->name, file_ino(n, k), S_IFREG | f->mode);
	}
	if (err)
		return err;
	/* Then the entries the directory makes itself. */
	if (is_system(n->dir)) {
		struct list_events_arg a = { add, arg, n->multi, 0 };

		ue_registry_foreach(d->reg, UE_ORDER_NEWEST, list_event_dir, &a);
		err = a.err;
	} else if (n->dir == UE_DIR_OPTIONS) {
		for (unsigned int i = 0; i < UE_OPT_COUNT && !err; i++)
			err = add(arg, ue_trace_options[i].name, INO_OPT_BASE + i, S_IFREG | 0640);
	} else if (n->dir == UE_DIR_PER_CPU) {
		for (unsigned int i = 0; i < ue_buffer_ncpus(d->buf) && !err; i++) {
			char name[32];

			snprintf(name, sizeof(name), "cpu%u", i);
			err = add(arg, name, cpu_ino(i, 0), S_IFDIR | 0750);
		}
	}
	return err;
}

/* The index of a fixed node in the daemon's chmod/chown arrays, or -1. */
static long fixed_index(fuse_ino_t ino)
{
	if (ino < INO_ROOT || ino >= INO_FILES + row_count(UE_DIR_FIXED))
		return -1;
	return (long)(ino - INO_ROOT);
}

void ue_tree_attr(struct ue_daemon *d, const struct ue_node *n, struct stat *st)
{
	long i = fixed_index(n->ino);

	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_mode = n->mode;
	st->st_nlink = S_ISDIR(n->mode) ? 2 : 1;
	st->st_uid = d->opts.uid;
	st->st_gid = d->opts.gid;
	if (i >= 0) {
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

void ue_tree_setattr(struct ue_daemon *d, fuse_ino_t ino, const struct stat *attr, int to_set)
{
	long i = fixed_index(ino);

	if (i < 0)
		return;
	if (to_set & FUSE_SET_ATTR_MODE)
		atomic_store(&d->node_mode[i], UE_ATTR_SET | (attr->st_mode & 07777));
	if (to_set & FUSE_SET_ATTR_UID)
		atomic_store(&d->node_uid[i], UE_ATTR_SET | attr->st_uid);
	if (to_set & FUSE_SET_ATTR_GID)
		atomic_store(&d->node_gid[i], UE_ATTR_SET | attr->st_gid);
}
