// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * enabler-snap: the enablers in a state snapshot (core/snap.h), for the
 * daemon that takes the mount over (usereventsd --upgrade).  Each process
 * travels with its two /proc descriptors (they pin the address space that
 * was proven, so the successor never writes into a program that exec'd or
 * a pid given again), its identity and its enablers (event, address, bit,
 * the state to mirror).  Fork records not verified yet, the graveyard and
 * processes whose fork is not confirmed are not carried: the successor's
 * children poller or connector finds their children again, and a process
 * found by a request is proven then.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "enabler-int.h"
#include "snap.h"

enum { TAG_ENABLERS = 0x454e4231, TAG_PROC = 0x50524f31 };

static void save_proc(struct proc *p, struct ue_snap_w *w, uint64_t (*event_key)(void *event))
{
	size_t at = ue_snapw_begin(w, TAG_PROC);

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
	for (struct enabler *e = p->enablers; e; e = e->next) {
		ue_snapw_u64(w, event_key(e->event));
		ue_snapw_u64(w, e->addr);
		ue_snapw_u64(w, e->byte_addr);
		ue_snapw_u64(w, e->bit);
		ue_snapw_u64(w, e->byte_bit);
		ue_snapw_bool(w, e->want);
		ue_snapw_bool(w, e->dirty);
	}
	ue_snapw_end(w, at);
}

int ue_enablers_save(struct ue_enablers *set, struct ue_snap_w *w,
		     uint64_t (*event_key)(void *event))
{
	size_t at = ue_snapw_begin(w, TAG_ENABLERS);

	ue_mutex_lock(&set->lock);
	for (struct proc *p = set->procs; p; p = p->next)
		if (!p->gone && !p->pending && p->nenablers)
			save_proc(p, w, event_key);
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

static int restore_proc(struct ue_enablers *set, struct ue_snap_r *r,
			void *(*event_get)(void *arg, uint64_t key), void *arg)
{
	struct ue_procmem_id id;
	struct ue_procmem *mem;
	struct enabler **tail;
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
		if (ue_procmem_open(id.tgid, &mem) < 0)
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
	tail = &p->enablers;
	for (uint64_t i = 0; i < n && !err; i++) {
		uint64_t key = ue_snapr_u64(r);
		struct enabler *e = calloc(1, sizeof(*e));

		if (!e) {
			err = -ENOMEM;
			break;
		}
		e->addr = ue_snapr_u64(r);
		e->byte_addr = ue_snapr_u64(r);
		e->bit = (uint8_t)ue_snapr_u64_max(r, 63);
		e->byte_bit = (uint8_t)ue_snapr_u64_max(r, 7);
		e->want = ue_snapr_bool(r);
		e->dirty = ue_snapr_bool(r);
		/*
		 * After a crash the word may be older than the checkpoint or
		 * the checkpoint older than the word: each is written again,
		 * from the event's state now (a registered enabler, never a
		 * fork's unproven copy).
		 */
		e->dirty = e->dirty || reopened;
		e->asserted_ns = ue_en_boot_ns();
		e->event = r->err ? NULL : event_get(arg, key);
		if (!e->event) {
			free(e);
			err = r->err ? r->err : -EINVAL;
			break;
		}
		if (reopened && set->ops.is_enabled)
			e->want = set->ops.is_enabled(e->event);
		*tail = e;
		tail = &e->next;
		p->nenablers++;
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
	/* A dirty one (a change the predecessor had not written yet) is written now. */
	for (struct enabler *e = p->enablers; e; e = e->next)
		if (e->dirty) {
			p->req_gen++;
			ue_en_schedule_locked(set, p);
			break;
		}
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
		err = tag == TAG_PROC ? restore_proc(set, &sub, event_get, arg) : -EINVAL;
	return err ? err : r.err;
}
