// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * enabler-snap: the enablers in a state snapshot (core/snap.h), for the
 * daemon that takes the mount over (usereventsd --upgrade).  Each process
 * travels with its two /proc descriptors (they pin the address space that
 * was proven, so the successor never writes into a program that exec'd or
 * a pid given again), its identity and its enablers (event, address, bit,
 * the state to mirror).  Processes whose fork is not confirmed yet travel
 * as such (confirmed by the successor after its first read of the
 * connector), and so do fork records not verified yet (their enablers as
 * copied at the fork) and the processes found dead whose exec or exit is
 * not reported yet (their forks, still to be read, inherit from them):
 * with the connector's socket, which the successor reads on (upgrade.c),
 * no fork is missed.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "enabler-int.h"
#include "probe.h"
#include "snap.h"

/*
 * Sections: a process (TAG_PROC; not confirmed yet: TAG_PENDING), a fork
 * record (TAG_FORK), a process found dead before its report (TAG_GRAVE).
 */
enum {
	TAG_ENABLERS = 0x454e4231,
	TAG_PROC = 0x50524f31,
	TAG_PENDING = 0x50454e31,
	TAG_FORK = 0x464f5231,
	TAG_GRAVE = 0x47525631,
};

static void save_enabler(struct ue_snap_w *w, const struct enabler *e,
			 uint64_t (*event_key)(void *event))
{
	ue_snapw_u64(w, event_key(e->event));
	ue_snapw_u64(w, e->addr);
	ue_snapw_u64(w, e->byte_addr);
	ue_snapw_u64(w, e->bit);
	ue_snapw_u64(w, e->byte_bit);
	ue_snapw_bool(w, e->want);
	/* A write still to come (busy: under way) is made by the successor. */
	ue_snapw_bool(w, e->dirty || e->busy);
}

static void save_proc(struct proc *p, struct ue_snap_w *w, uint64_t (*event_key)(void *event))
{
	size_t at = ue_snapw_begin(w, p->pending ? TAG_PENDING : TAG_PROC);

	int mem_fd, maps_fd;
	bool text_maps;

	ue_procmem_fds(p->mem, &mem_fd, &maps_fd, &text_maps);
	ue_snapw_fd(w, mem_fd);
	ue_snapw_fd(w, maps_fd);
	ue_snapw_bool(w, text_maps);
	ue_snapw_u64(w, (uint64_t)(uint32_t)p->id.tgid);
	ue_snapw_u64(w, p->id.start_time);
	ue_snapw_u64(w, p->id.start_stack);
	ue_snapw_u64(w, p->nenablers);
	for (struct enabler *e = p->enablers; e; e = e->next)
		save_enabler(w, e, event_key);
	ue_snapw_end(w, at);
}

static void save_grave(struct proc *p, struct ue_snap_w *w, uint64_t (*event_key)(void *event))
{
	size_t at = ue_snapw_begin(w, TAG_GRAVE);

	ue_snapw_u64(w, (uint64_t)(uint32_t)p->id.tgid);
	ue_snapw_u64(w, p->id.start_time);
	ue_snapw_u64(w, p->id.start_stack);
	ue_snapw_u64(w, p->nenablers);
	for (struct enabler *e = p->enablers; e; e = e->next)
		save_enabler(w, e, event_key);
	ue_snapw_end(w, at);
}

/* Whether @f's child already has its enablers from the other record of the same fork. */
static bool fork_installed_locked(struct ue_enablers *set, const struct fork_rec *f)
{
	if (f->superseded || f->cancelled)
		return true;
	for (struct proc *p = set->procs; p; p = p->next)
		if (p->fork_seq == f->seq && !p->gone)
			return true;
	return false;
}

static void save_fork(struct fork_rec *f, bool exec_fork, struct ue_snap_w *w,
		      uint64_t (*event_key)(void *event))
{
	size_t at = ue_snapw_begin(w, TAG_FORK);

	ue_snapw_bool(w, exec_fork);
	ue_snapw_u64(w, (uint64_t)(uint32_t)f->parent_pid);
	ue_snapw_u64(w, (uint64_t)(uint32_t)f->parent_tgid);
	ue_snapw_u64(w, (uint64_t)(uint32_t)f->child);
	ue_snapw_u64(w, f->parent_stack);
	ue_snapw_u64(w, f->parent_start_time);
	ue_snapw_u64(w, f->nenablers);
	for (struct enabler *e = f->enablers; e; e = e->next) {
		save_enabler(w, e, event_key);
		ue_snapw_u64(w, e->asserted_ns);
	}
	ue_snapw_end(w, at);
}

int ue_enablers_save(struct ue_enablers *set, struct ue_snap_w *w,
		     uint64_t (*event_key)(void *event))
{
	size_t at = ue_snapw_begin(w, TAG_ENABLERS);

	ue_mutex_lock(&set->lock);
	for (struct proc *p = set->procs; p; p = p->next)
		if (!p->gone && p->nenablers)
			save_proc(p, w, event_key);
	/*
	 * Records being verified (claimed) are a request's copies or the
	 * listener's, which the caller stopped first (ue_proc_events_pause()):
	 * their originals are among these.
	 */
	for (struct fork_rec *f = set->forks; f; f = f->next)
		if (!fork_installed_locked(set, f))
			save_fork(f, false, w, event_key);
	for (struct fork_rec *f = set->exec_forks; f; f = f->next)
		if (!f->cancelled)
			save_fork(f, true, w, event_key);
	for (struct proc *p = set->graveyard; p; p = p->next)
		if (p->unreported)
			save_grave(p, w, event_key);
	ue_mutex_unlock(&set->lock);
	ue_snapw_end(w, at);
	return w->err;
}

static void free_enablers(struct ue_enablers *set, struct enabler *e)
{
	while (e) {
		struct enabler *next = e->next;

		set->ops.put(e->event);
		free(e);
		e = next;
	}
}

/* One enabler as save_enabler() wrote it; its event's reference taken. */
static struct enabler *read_enabler(struct ue_snap_r *r, void *(*event_get)(void *arg, uint64_t key),
				    void *arg, int *err)
{
	uint64_t key = ue_snapr_u64(r);
	struct enabler *e = calloc(1, sizeof(*e));

	if (!e) {
		*err = -ENOMEM;
		return NULL;
	}
	e->addr = ue_snapr_u64(r);
	e->byte_addr = ue_snapr_u64(r);
	e->bit = (uint8_t)ue_snapr_u64_max(r, 63);
	e->byte_bit = (uint8_t)ue_snapr_u64_max(r, 7);
	e->want = ue_snapr_bool(r);
	e->dirty = ue_snapr_bool(r);
	e->event = r->err ? NULL : event_get(arg, key);
	if (!e->event) {
		free(e);
		*err = r->err ? r->err : -EINVAL;
		return NULL;
	}
	return e;
}

/*
 * @n enablers as save_enabler() wrote them, each followed by its
 * asserted_ns when @asserted (a fork record's), in order at *@tail.
 */
static int read_enablers(struct ue_snap_r *r, uint64_t n, bool asserted,
			 void *(*event_get)(void *arg, uint64_t key), void *arg,
			 struct enabler **tail, unsigned int *count)
{
	int err = 0;

	for (uint64_t i = 0; i < n && !err && !r->err; i++) {
		struct enabler *e = read_enabler(r, event_get, arg, &err);

		if (!e)
			break;
		e->asserted_ns = asserted ? ue_snapr_u64(r) : ue_en_boot_ns();
		*tail = e;
		tail = &e->next;
		(*count)++;
	}
	return err ? err : r->err;
}

static int restore_proc(struct ue_enablers *set, struct ue_snap_r *r, bool pending,
			void *(*event_get)(void *arg, uint64_t key), void *arg)
{
	struct ue_procmem_id id;
	struct ue_procmem *mem;
	struct proc *p;
	uint64_t n;
	int err = 0;

	int mem_fd = ue_snapr_fd(r), maps_fd = ue_snapr_fd(r);
	bool text_maps = ue_snapr_bool(r), reopened = false;

	id.tgid = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
	id.start_time = ue_snapr_u64(r);
	id.start_stack = ue_snapr_u64(r);
	n = ue_snapr_u64_max(r, set->opts.max_per_process);
	if (r->err || (mem_fd < 0) != (maps_fd < 0)) {
		if (mem_fd >= 0)
			close(mem_fd);
		if (maps_fd >= 0)
			close(maps_fd);
		return -EINVAL;
	}
	if (mem_fd < 0) {
		/*
		 * A crash checkpoint carries no descriptors: the process is
		 * opened again, and kept only when it is still the one that was
		 * proven (same start time and stack: no pid given again, no
		 * exec since).  One that went is simply not restored.
		 */
		reopened = true;
		/* Bounded: one in an exec may wait for this daemon (its FLUSH); it is gone then. */
		if (ue_probe_procmem_open(id.tgid, UE_PROBE_MS, &mem) < 0)
			return 0;
		if (!ue_procmem_id_equal(ue_procmem_get_id(mem), &id)) {
			ue_procmem_close(mem);
			return 0;
		}
		if (text_maps)
			ue_procmem_use_text_maps(mem);
	} else {
		err = ue_procmem_adopt(mem_fd, maps_fd, text_maps, &id, &mem);
		if (err < 0)
			return err;
	}
	p = ue_en_proc_alloc(mem);
	if (!p)
		return -ENOMEM;
	p->opened_ns = ue_enablers_clock_ns();
	err = read_enablers(r, n, false, event_get, arg, &p->enablers, &p->nenablers);
	/*
	 * After a crash the word may be older than the checkpoint or the
	 * checkpoint older than the word: each is written again, from the
	 * event's state now (a registered enabler, never a fork's unproven
	 * copy).
	 */
	for (struct enabler *e = reopened ? p->enablers : NULL; e; e = e->next) {
		e->dirty = true;
		if (set->ops.is_enabled)
			e->want = set->ops.is_enabled(e->event);
	}
	if (err) {
		free_enablers(set, p->enablers);
		ue_procmem_close(mem);
		ue_mutex_destroy(&p->io);
		free(p);
		return err;
	}
	ue_mutex_lock(&set->lock);
	p->refs = 1;
	ue_en_proc_list_add(&set->procs, p);
	set->nprocs++;
	if (pending) {
		/*
		 * A fork child not confirmed yet: confirmed (its dirty enablers
		 * written) after the successor's first reads of the connector,
		 * which would show an exec since, as before the upgrade.
		 */
		p->pending = true;
		set->npending++;
		ue_mutex_unlock(&set->lock);
		return 0;
	}
	/* A dirty one (a change the predecessor had not written yet) is written now. */
	ue_en_schedule_dirty_locked(set, p);
	ue_mutex_unlock(&set->lock);
	return 0;
}

static int restore_fork(struct ue_enablers *set, struct ue_snap_r *r,
			void *(*event_get)(void *arg, uint64_t key), void *arg)
{
	struct fork_rec *f = calloc(1, sizeof(*f));
	bool exec_fork;
	uint64_t n;
	int err = 0;

	if (!f)
		return -ENOMEM;
	exec_fork = ue_snapr_bool(r);
	f->parent_pid = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
	f->parent_tgid = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
	f->child = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
	f->parent_stack = ue_snapr_u64(r);
	f->parent_start_time = ue_snapr_u64(r);
	n = ue_snapr_u64_max(r, set->opts.max_per_process);
	err = read_enablers(r, n, true, event_get, arg, &f->enablers, &f->nenablers);
	if (!err && (f->parent_pid <= 0 || f->parent_tgid <= 0 || f->child <= 0))
		err = -EINVAL;
	ue_mutex_lock(&set->lock);
	if (!err && set->nprocs + set->nforks >= set->opts.max_processes) {
		set->refused++;
		err = 1;
	}
	if (err) {
		/* Its references go with it (ue_en_release_graveyard()). */
		f->next = set->dead_forks;
		set->dead_forks = f;
		ue_mutex_unlock(&set->lock);
		ue_en_release_graveyard(set);
		return err < 0 ? err : 0;
	}
	f->seq = ++set->fork_seq;
	/* Counted as the predecessor counted it: an exec fork too is dropped by fork_drop_locked(). */
	set->nforks++;
	if (exec_fork) {
		/* Kept for its children, forked before its exec (ue_en_exec_forks_end_locked()). */
		f->next = set->exec_forks;
		set->exec_forks = f;
	} else {
		*set->forks_tail = f;
		set->forks_tail = &f->next;
	}
	ue_mutex_unlock(&set->lock);
	return 0;
}

/* A process found dead whose report is still to be read: kept for its forks (fork.c). */
static int restore_grave(struct ue_enablers *set, struct ue_snap_r *r,
			 void *(*event_get)(void *arg, uint64_t key), void *arg)
{
	struct proc *p = calloc(1, sizeof(*p));
	uint64_t n;
	int err = 0;

	if (!p)
		return -ENOMEM;
	ue_mutex_init(&p->io, UE_LOCK_PROC_IO);
	p->id.tgid = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
	p->id.start_time = ue_snapr_u64(r);
	p->id.start_stack = ue_snapr_u64(r);
	n = ue_snapr_u64_max(r, set->opts.max_per_process);
	err = read_enablers(r, n, false, event_get, arg, &p->enablers, &p->nenablers);
	if (err) {
		free_enablers(set, p->enablers);
		ue_mutex_destroy(&p->io);
		free(p);
		return err;
	}
	ue_mutex_lock(&set->lock);
	p->refs = 1;
	p->gone = true;
	p->unreported = true;
	p->dead_ns = ue_enablers_clock_ns();
	ue_en_proc_list_add(&set->graveyard, p);
	ue_mutex_unlock(&set->lock);
	return 0;
}

int ue_enablers_restore(struct ue_enablers *set, struct ue_snap_r *snap,
			void *(*event_get)(void *arg, uint64_t key), void *arg)
{
	struct ue_snap_r r, sub;
	uint32_t tag;
	int err = 0;

	if (!ue_snapr_section(snap, &tag, &r) || tag != TAG_ENABLERS)
		return -EINVAL;
	while (!err && ue_snapr_section(&r, &tag, &sub))
		err = tag == TAG_PROC	   ? restore_proc(set, &sub, false, event_get, arg) :
		      tag == TAG_PENDING ? restore_proc(set, &sub, true, event_get, arg) :
		      tag == TAG_FORK	   ? restore_fork(set, &sub, event_get, arg) :
		      tag == TAG_GRAVE	   ? restore_grave(set, &sub, event_get, arg) :
					     -EINVAL;
	return err ? err : r.err;
}
