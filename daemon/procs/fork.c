// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fork: what a fork child inherits.  Fork records copied when the proc
 * connector reports a fork (or the children poller finds one), the proof that a child's memory handle is the
 * forked child's (kcmp, identity, the parent's mappings and bytes), the
 * child's confirmation after a later read of the connector, and their
 * voiding on exec, exit or lost events.  See docs/processes.md.
 */
#include "enabler-int.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "probe.h"

/* A confirmed child: its dirty enablers are written now. */
static void confirm_locked(struct ue_enablers *set, struct proc *p)
{
	ue_mutex_assert_held(&set->lock);

	if (!p->pending || p->gone)
		return;
	p->pending = false;
	set->npending--;
	/*
	 * Only what is dirty: what changed since the fork (fork_install_locked())
	 * and the updates while it was pending.  Not every enabler: the kernel
	 * writes nothing into a child at fork, and a byte the child has reused
	 * since (a stack frame that held the parent's word) is its own.
	 */
	p->req_gen++;
	ue_en_schedule_locked(set, p);
}

/* What a forked child must show at an enable byte: the parent's mapping and byte. */
struct inherit {
	uint64_t byte_addr;
	uint8_t mask; /* every enable bit the fork or the parent has in this byte */
};

static bool vma_same(const struct ue_procmem_vma *a, const struct ue_procmem_vma *b)
{
	if (a->flags != b->flags || a->inode != b->inode || a->dev_major != b->dev_major ||
	    a->dev_minor != b->dev_minor)
		return false;
	/*
	 * Anonymous mappings grow and merge after a fork (brk, neighbouring
	 * mmaps), so their bounds may differ; a file mapping must map the
	 * same file page at the address.
	 */
	return !a->inode || a->offset - a->start == b->offset - b->start;
}

/*
 * Whether @child's memory looks like a fork of @parent's at every enable
 * byte: a writable mapping, of the same kind as the parent's, holding the
 * same byte outside the enable bits.  Without the parent's memory (NULL: it
 * has only a fork record; or it has exited since) only the first holds.
 */
static bool child_matches(struct ue_procmem *parent, struct ue_procmem *child,
			  const struct inherit *in, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct ue_procmem_vma pv, cv;
		uint8_t pb, cb;

		if (ue_procmem_vma(child, in[i].byte_addr, &cv) < 0 || !(cv.flags & UE_VMA_WRITE))
			return false;
		if (!parent)
			continue;
		if (ue_procmem_vma(parent, in[i].byte_addr, &pv) < 0 ||
		    ue_procmem_read(parent, in[i].byte_addr, &pb, 1) != 1) {
			/* A parent that exits right after forking is common (daemons). */
			if (ue_procmem_alive(parent) != 0)
				return false;
			parent = NULL;
			continue;
		}
		if (!vma_same(&pv, &cv) || ue_procmem_read(child, in[i].byte_addr, &cb, 1) != 1 ||
		    (pb & ~in[i].mask) != (cb & ~in[i].mask))
			return false;
	}
	return true;
}

struct fork_rec *ue_en_fork_find(struct fork_rec *list, pid_t child)
{
	while (list && (list->child != child || list->cancelled))
		list = list->next;
	return list;
}

/* Unlink @f from the list at @pp (set->forks or set->claimed). */
static void fork_unlink_locked(struct ue_enablers *set, struct fork_rec **pp, struct fork_rec *f)
{
	ue_mutex_assert_held(&set->lock);

	while (*pp != f)
		pp = &(*pp)->next;
	*pp = f->next;
	if (set->forks_tail == &f->next)
		set->forks_tail = pp;
	f->next = NULL;
}

/* @f (unlinked) is done with: its references are put by ue_en_release_graveyard(). */
static void fork_drop_locked(struct ue_enablers *set, struct fork_rec *f)
{
	ue_mutex_assert_held(&set->lock);

	f->next = set->dead_forks;
	set->dead_forks = f;
	set->nforks--;
}

void ue_en_forks_discard_locked(struct ue_enablers *set)
{
	struct fork_rec *f;

	ue_mutex_assert_held(&set->lock);

	while ((f = set->forks)) {
		fork_unlink_locked(set, &set->forks, f);
		fork_drop_locked(set, f);
	}
	while ((f = set->exec_forks)) {
		set->exec_forks = f->next;
		fork_drop_locked(set, f);
	}
}

void ue_en_exec_forks_end_locked(struct ue_enablers *set, pid_t tgid)
{
	struct fork_rec *f;

	ue_mutex_assert_held(&set->lock);

	/* Kept for the children it forked before its exec: they have been read. */
	for (struct fork_rec **pp = &set->exec_forks; (f = *pp);) {
		if (f->child != tgid) {
			pp = &f->next;
			continue;
		}
		*pp = f->next;
		fork_drop_locked(set, f);
	}
}

void ue_en_forks_cancel_locked(struct ue_enablers *set, pid_t tgid)
{
	struct fork_rec *f;

	ue_mutex_assert_held(&set->lock);

	while ((f = ue_en_fork_find(set->forks, tgid))) {
		fork_unlink_locked(set, &set->forks, f);
		set->gone_forks++;
		fork_drop_locked(set, f);
	}
	for (f = set->claimed; f; f = f->next)
		if (f->child == tgid)
			f->cancelled = true;
	ue_en_exec_forks_end_locked(set, tgid);
}

int ue_enablers_fork(struct ue_enablers *set, pid_t parent_pid, pid_t parent_tgid, pid_t child)
{
	struct enabler *src = NULL, *e, *c;
	struct fork_rec *f;
	struct proc *parent;
	int r = 1;

	if (!set || parent_pid <= 0 || parent_tgid <= 0 || child <= 0)
		return -EINVAL;
	if (!set->ops.dup)
		return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->parent_pid = parent_pid;
	f->parent_tgid = parent_tgid;
	f->child = child;

	ue_mutex_lock(&set->lock);
	f->seq = ++set->fork_seq;
	parent = ue_en_find_tgid_locked(set, parent_tgid);
	if (!parent) {
		/*
		 * Found dead (by a writer, say) after it forked and exec'd or
		 * exited, before this fork was read: the child still inherits.
		 */
		for (struct proc *q = set->graveyard; q; q = q->next)
			if (q->id.tgid == parent_tgid && q->unreported &&
			    (!parent || q->id.start_time > parent->id.start_time))
				parent = q;
	}
	if (parent) {
		src = parent->enablers;
		f->parent_stack = parent->id.start_stack;
		f->parent_start_time = parent->id.start_time;
	} else {
		/* A child of a child not verified yet inherits what its parent will. */
		struct fork_rec *pf = ue_en_fork_find(set->forks, parent_tgid);

		if (!pf)
			pf = ue_en_fork_find(set->claimed, parent_tgid);
		if (!pf)
			pf = ue_en_fork_find(set->exec_forks, parent_tgid);
		if (pf) {
			src = pf->enablers;
			f->parent_stack = pf->parent_stack;
			f->parent_start_time = pf->parent_start_time;
		}
	}
	if (!src || set->nprocs + set->nforks >= set->opts.max_processes) {
		if (src)
			set->refused++;
		ue_mutex_unlock(&set->lock);
		free(f);
		return 0;
	}
	for (e = src; e; e = e->next) {
		c = malloc(sizeof(*c));
		if (!c) {
			r = -ENOMEM;
			break;
		}
		*c = *e;
		/* A write to the parent still to come: the child may have the old byte. */
		c->dirty = e->dirty || e->busy;
		c->busy = false;
		c->next = f->enablers;
		f->enablers = c;
		f->nenablers++;
		set->ops.dup(e->event);
	}
	set->nforks++;
	if (r < 0) {
		set->refused++;
		fork_drop_locked(set, f);
	} else {
		*set->forks_tail = f;
		set->forks_tail = &f->next;
	}
	ue_mutex_unlock(&set->lock);
	return r;
}

/* Add @f's enablers to @p (the child's handle, or its own registrations' handle). */
static void fork_install_locked(struct ue_enablers *set, struct proc *p, struct fork_rec *f)
{
	struct enabler *e, *left = NULL;
	struct fork_rec *g;
	long tck = sysconf(_SC_CLK_TCK);
	/* The start of the tick the child was forked in (its start time is in ticks). */
	uint64_t forked_ns = p->id.start_time * (uint64_t)(1000000000L / (tck > 0 ? tck : 100));
	bool now;

	ue_mutex_assert_held(&set->lock);

	for (g = set->claimed; g; g = g->next)
		if (g != f && g->seq == f->seq)
			g->superseded = true;
	for (g = set->forks; g; g = g->next)
		if (g->seq == f->seq)
			g->superseded = true;

	while ((e = f->enablers)) {
		f->enablers = e->next;
		if (ue_en_enabler_find_locked(set, p, e->addr, e->bit) ||
		    p->nenablers >= set->opts.max_per_process) {
			/* Registered again by the child itself meanwhile: that one wins. */
			e->next = left;
			left = e;
			continue;
		}
		/*
		 * The child has the parent's byte as it was at the fork.  As the
		 * kernel, which copies enablers at fork and writes nothing then, it
		 * is written only when the state was asserted since the fork (on
		 * the parent's handle: updates since went to handles only), changed
		 * since the record was copied, or the parent's write was still to
		 * come.  Otherwise the byte is left alone: the child may have
		 * reused it (a stack frame), and the kernel would not touch it.
		 */
		now = set->ops.is_enabled ? set->ops.is_enabled(e->event) : e->want;
		e->dirty = e->dirty || !set->ops.is_enabled || now != e->want ||
			   e->asserted_ns >= forked_ns;
		e->want = now;
		e->next = p->enablers;
		p->enablers = e;
		p->nenablers++;
	}
	f->enablers = left;
	p->req_gen++;
	ue_en_schedule_locked(set, p);
}

/*
 * Check @f's child (claimed by the caller) and give it a handle, or drop it.
 * @child_waits: the caller serves the child's own request (the child is
 * blocked in it: no exec of its own).
 */
static int fork_verify(struct ue_enablers *set, struct fork_rec *f, bool child_waits)
{
	struct ue_procmem *mem = NULL, *pmem = NULL;
	const struct ue_procmem_id *cid;
	struct inherit *in = NULL;
	struct proc *parent, *p;
	struct enabler *e;
	unsigned int n = 0, i;
	bool proven;
	int r = 0;

	/* CLONE_VM: the parent's handle already writes the memory they share. */
	r = ue_probe_kcmp_vm(f->parent_pid, f->child, UE_PROBE_MS);
	if (r == 0 && f->parent_tgid != f->parent_pid)
		r = ue_probe_kcmp_vm(f->parent_tgid, f->child, UE_PROBE_MS);
	if (r == 1) {
		ue_mutex_lock(&set->lock);
		set->shared_vm++;
		goto drop_locked;
	}
	/*
	 * Held up while the child waits in its request: the parent is in an
	 * exec, which gives it new memory; the memory they might have shared
	 * is the child's alone, to be proven as a fork's.
	 */
	if (r == -ETIMEDOUT && child_waits)
		r = 0;
	/* A child waiting in its request is in no exec: its open waits for nothing. */
	if (r != -ETIMEDOUT)
		r = child_waits ? ue_procmem_open(f->child, &mem) :
				  ue_probe_procmem_open(f->child, UE_PROBE_MS, &mem);
	if (r == -ETIMEDOUT) {
		/*
		 * One of them is in the middle of an exec, which may wait for
		 * this daemon (the FLUSH of a close-on-exec descriptor): the
		 * record goes back, to be tried once that is answered.
		 */
		ue_mutex_lock(&set->lock);
		set->probe_retries++;
		fork_unlink_locked(set, &set->claimed, f);
		if (f->cancelled || f->superseded) {
			fork_drop_locked(set, f);
		} else {
			f->not_before_ns = ue_enablers_clock_ns() + UE_PROBE_MS * 1000000ull;
			f->next = NULL;
			*set->forks_tail = f;
			set->forks_tail = &f->next;
		}
		ue_mutex_unlock(&set->lock);
		return 0;
	}
	if (r < 0) {
		ue_mutex_lock(&set->lock);
		if (r == -ESRCH)
			set->gone_forks++;
		else
			set->refused++;
		r = 0;
		goto drop_locked;
	}
	cid = ue_procmem_get_id(mem);

	in = calloc(f->nenablers, sizeof(*in));
	ue_mutex_lock(&set->lock);
	/* The parent's handle, if it still has the memory the child was forked from. */
	parent = ue_en_find_tgid_locked(set, f->parent_tgid);
	if (parent && parent->id.start_stack != f->parent_stack)
		parent = NULL;
	if (parent)
		parent->refs++;
	for (e = in ? f->enablers : NULL; e; e = e->next) {
		for (i = 0; i < n && in[i].byte_addr != e->byte_addr; i++)
			;
		in[i].byte_addr = e->byte_addr;
		in[i].mask |= (uint8_t)(1u << e->byte_bit);
		n += i == n;
	}
	/* The parent's bits may have come or gone since the fork: they are not compared. */
	for (e = parent && !parent->gone ? parent->enablers : NULL; e; e = e->next)
		for (i = 0; i < n; i++)
			if (in[i].byte_addr == e->byte_addr)
				in[i].mask |= (uint8_t)(1u << e->byte_bit);
	pmem = parent ? parent->mem : NULL;
	ue_mutex_unlock(&set->lock);

	/*
	 * Not the process the event named, older than its parent (a reused
	 * pid), or with another stack start: a fork copies the parent's
	 * mm->start_stack, an exec sets a new one before it is reported.
	 */
	proven = in && cid->tgid == f->child && cid->start_time >= f->parent_start_time &&
		 cid->start_stack == f->parent_stack && child_matches(pmem, mem, in, n);
	ue_mutex_lock(&set->lock);
	if (parent)
		ue_en_proc_unref_locked(set, parent);
	if (f->superseded) {
		/* Installed by the other verifier, perhaps unregistered from since. */
		r = 1;
		goto drop_locked;
	}
	if (!proven) {
		/*
		 * Another stack start, or memory no task uses any more: the child
		 * exec'd (or exited) before its fork was verified.
		 */
		if (in && cid->tgid == f->child &&
		    (cid->start_stack != f->parent_stack || ue_procmem_alive(mem) == 0)) {
			set->gone_forks++;
			if (set->keep_exec_forks && !f->cancelled) {
				/* Its children forked before the exec inherit from it. */
				fork_unlink_locked(set, &set->claimed, f);
				f->next = set->exec_forks;
				set->exec_forks = f;
				ue_mutex_unlock(&set->lock);
				goto out;
			}
		} else {
			set->refused++;
		}
		goto drop_locked;
	}
	if (f->cancelled) {
		set->gone_forks++;
		goto drop_locked;
	}
	p = ue_en_proc_find_locked(set, cid);
	if (p && p->fork_seq == f->seq) {
		/* The other verifier of this fork (listener or child's request) was first. */
		r = 1;
		goto drop_locked;
	}
	if (p) {
		/* The child registered on its own before its fork was verified: merge, under io. */
		p->refs++;
		ue_mutex_unlock(&set->lock);
		ue_mutex_lock(&p->io);
		ue_mutex_lock(&set->lock);
		if (!p->gone && !f->cancelled && p->fork_seq != f->seq) {
			p->fork_seq = f->seq;
			fork_install_locked(set, p, f);
			set->inherited++;
			r = 1;
		}
		ue_en_proc_unref_locked(set, p);
		fork_unlink_locked(set, &set->claimed, f);
		fork_drop_locked(set, f);
		ue_mutex_unlock(&set->lock);
		ue_mutex_unlock(&p->io);
		goto out;
	}
	p = calloc(1, sizeof(*p));
	if (!p || set->nprocs >= set->opts.max_processes) {
		free(p);
		set->refused++;
		goto drop_locked;
	}
	ue_mutex_init(&p->io, UE_LOCK_PROC_IO);
	p->mem = mem;
	mem = NULL;
	p->id = *cid;
	p->pending = true;
	set->npending++;
	/* Taken after the open: a read of the connector that starts later sees an exec before it. */
	p->opened_ns = ue_enablers_clock_ns();
	p->fork_seq = f->seq;
	p->refs = 1;
	ue_en_proc_list_add(&set->procs, p);
	set->nprocs++;
	set->inherited++;
	/* No worker runs for a pending handle: install only marks the enablers dirty. */
	fork_install_locked(set, p, f);
	r = 1;
drop_locked:
	fork_unlink_locked(set, &set->claimed, f);
	fork_drop_locked(set, f);
	ue_mutex_unlock(&set->lock);
out:
	free(in);
	ue_procmem_close(mem);
	ue_en_release_graveyard(set);
	return r;
}

/* A second record of @f's fork for the child's own request (references duplicated). */
static struct fork_rec *fork_copy_locked(struct ue_enablers *set, const struct fork_rec *f)
{
	struct fork_rec *g = calloc(1, sizeof(*g));
	struct enabler *e, *c;

	ue_mutex_assert_held(&set->lock);

	if (!g)
		return NULL;
	*g = *f;
	g->enablers = NULL;
	g->nenablers = 0;
	for (e = f->enablers; e; e = e->next) {
		c = malloc(sizeof(*c));
		if (!c)
			break;
		*c = *e;
		c->next = g->enablers;
		g->enablers = c;
		g->nenablers++;
		set->ops.dup(e->event);
	}
	set->nforks++;
	if (e) {
		fork_drop_locked(set, g);
		return NULL;
	}
	return g;
}

/* Prove the fork records of @child (the caller of a request), or of every child (0). */
static int verify_forks(struct ue_enablers *set, pid_t child)
{
	int done = 0;

	uint64_t now = ue_enablers_clock_ns();

	ue_mutex_lock(&set->lock);
	for (;;) {
		struct fork_rec *f = child > 0 ? ue_en_fork_find(set->forks, child) : set->forks;

		/* The listener's pass skips the records whose look timed out a moment ago. */
		while (child <= 0 && f && f->not_before_ns > now)
			f = f->next;

		if (f) {
			fork_unlink_locked(set, &set->forks, f);
		} else if (child > 0 && (f = ue_en_fork_find(set->claimed, child))) {
			/*
			 * The listener is on it, perhaps slowed down: the child's
			 * request does not wait for it but proves a copy itself
			 * (the child is blocked in that request, so nothing it
			 * does can hold it up); the second to install drops its own.
			 */
			f = fork_copy_locked(set, f);
			if (!f)
				break;
		} else {
			break;
		}
		f->next = set->claimed;
		set->claimed = f;
		ue_mutex_unlock(&set->lock);
		done += fork_verify(set, f, child > 0) > 0;
		ue_mutex_lock(&set->lock);
		if (child > 0)
			break;
	}
	ue_mutex_unlock(&set->lock);
	return done;
}

int ue_enablers_verify_forks(struct ue_enablers *set)
{
	if (!set)
		return -EINVAL;
	return verify_forks(set, 0);
}

/* Confirm the pending handles of @tgid (0: of every process) opened before @opened_before_ns. */
static int confirm(struct ue_enablers *set, pid_t tgid, uint64_t opened_before_ns)
{
	struct proc **list = NULL, *p;
	unsigned int n = 0, i;
	int done = 0;

	ue_mutex_lock(&set->lock);
	/* Called before every request: nothing to walk most of the time. */
	if (set->npending)
		list = malloc(set->npending * sizeof(*list));
	for (p = list ? set->procs : NULL; p; p = p->next) {
		if (!p->pending || p->opened_ns > opened_before_ns || (tgid > 0 && p->id.tgid != tgid))
			continue;
		p->refs++;
		list[n++] = p;
	}
	ue_mutex_unlock(&set->lock);
	for (i = 0; i < n; i++) {
		int alive = ue_procmem_alive(list[i]->mem);

		ue_mutex_lock(&set->lock);
		if (alive > 0 && list[i]->pending && !list[i]->gone) {
			confirm_locked(set, list[i]);
			done++;
		} else if (alive == 0) {
			ue_en_proc_kill_locked(set, list[i], true);
		}
		ue_en_proc_unref_locked(set, list[i]);
		ue_mutex_unlock(&set->lock);
	}
	free(list);
	ue_en_release_graveyard(set);
	return done;
}

int ue_enablers_confirm(struct ue_enablers *set, struct ue_proc *caller, uint64_t opened_before_ns)
{
	if (!set)
		return -EINVAL;
	return confirm(set, caller ? ue_proc_tgid(caller) : 0, opened_before_ns);
}

/* Whether @tgid has an unconfirmed handle opened at or after @since_ns. */
static bool pending_since(struct ue_enablers *set, pid_t tgid, uint64_t since_ns)
{
	bool found = false;

	ue_mutex_lock(&set->lock);
	for (struct proc *p = set->npending ? set->procs : NULL; p && !found; p = p->next)
		found = p->pending && !p->gone && p->id.tgid == tgid && p->opened_ns >= since_ns;
	ue_mutex_unlock(&set->lock);
	return found;
}

int ue_enablers_prove_caller(struct ue_enablers *set, struct ue_proc *caller, uint64_t read_ns)
{
	pid_t tgid;

	if (!set || !caller)
		return -EINVAL;
	tgid = ue_proc_tgid(caller);
	/*
	 * The listener may have proved the fork and opened the handle since
	 * the read: then too the caller reads again first.
	 */
	if (verify_forks(set, tgid) > 0 || pending_since(set, tgid, read_ns))
		return 1;
	confirm(set, tgid, read_ns);
	return 0;
}

int ue_enablers_refuse_unconfirmed(struct ue_enablers *set)
{
	struct proc *p, *next;
	struct fork_rec *f;
	int n = 0;

	if (!set)
		return -EINVAL;
	ue_mutex_lock(&set->lock);
	for (p = set->procs; p; p = next) {
		next = p->next;
		if (p->pending && !p->gone) {
			set->refused++;
			ue_en_proc_kill_locked(set, p, true);
			n++;
		}
	}
	while ((f = set->forks)) {
		fork_unlink_locked(set, &set->forks, f);
		set->refused++;
		fork_drop_locked(set, f);
		n++;
	}
	for (f = set->claimed; f; f = f->next)
		f->cancelled = true;
	/* Their reports may be among the lost events. */
	for (p = set->graveyard; p; p = p->next)
		p->unreported = false;
	ue_mutex_unlock(&set->lock);
	ue_en_release_graveyard(set);
	return n;
}
