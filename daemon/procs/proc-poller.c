// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * proc-poller: the children poller, when the proc connector is unavailable (no
 * CAP_NET_ADMIN: an unprivileged daemon).  A fork is found in
 * /proc/<tgid>/task/<tid>/children of a known process (one with enablers,
 * or a child with a fork record): by a pass every POLL_MS, and before every
 * request, of the caller (before its request can change what a child
 * forked earlier inherits: so the set copied is the one of fork time) and
 * of its nearest known ancestor when the caller is unknown (so a child's
 * first request finds what it inherits).  What the child then inherits is
 * proven exactly as a fork the connector reports (fork.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc-events-int.h"

/* Fields 4 (ppid) and 22 (start time) of /proc/<pid>/stat. */
static int read_stat(pid_t pid, pid_t *ppid, uint64_t *start_time)
{
	char path[64], buf[1024];
	unsigned long long st;
	const char *p;
	ssize_t n;
	int fd, pp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* After the name, which may hold anything: state, then field 4 on. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &pp, &st) != 2)
		return -EIO;
	*ppid = pp;
	*start_time = st;
	return 0;
}

static struct seen_child *seen_find(struct ue_proc_events *pe, pid_t tgid, size_t *at)
{
	size_t lo = 0, hi = pe->nseen;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pe->seen[mid].tgid < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < pe->nseen && pe->seen[lo].tgid == tgid ? &pe->seen[lo] : NULL;
}

/*
 * What tells a child from a later process given its pid: the inode number
 * of a pidfd of it, unique to a process while the system runs where pidfds
 * live in pidfs (Linux 6.9, pe->pidfs), or 0 (older kernels, no
 * pidfd_open, or the child gone).  Neither call reads a /proc file of the
 * child, which may wait for an exec that waits for this daemon.
 */
static uint64_t child_key(struct ue_proc_events *pe, pid_t child)
{
	uint64_t key = 0;
#ifdef SYS_pidfd_open
	struct stat st;
	int fd;

	if (!pe->pidfs)
		return 0;
	fd = (int)syscall(SYS_pidfd_open, child, 0);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0)
		key = (uint64_t)st.st_ino;
	close(fd);
#else
	(void)pe;
	(void)child;
#endif
	return key;
}

/* Whether pidfds live in pidfs, their inode numbers unique (see child_key()). */
bool ue_poller_pidfs(void)
{
	bool yes = false;
#ifdef SYS_pidfd_open
	struct statfs sfs;
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd >= 0) {
		yes = fstatfs(fd, &sfs) == 0 && sfs.f_type == PIDFS_MAGIC;
		close(fd);
	}
#endif
	return yes;
}

static bool seen_add(struct ue_proc_events *pe, size_t at, pid_t tgid, uint64_t ino)
{
	if (pe->nseen == pe->capseen) {
		size_t ncap = pe->capseen ? pe->capseen * 2 : 64;
		struct seen_child *n;

		if (pe->capseen >= MAX_SEEN_CHILDREN)
			return false;
		if (ncap > MAX_SEEN_CHILDREN)
			ncap = MAX_SEEN_CHILDREN;
		n = realloc(pe->seen, ncap * sizeof(*n));
		if (!n)
			return false;
		pe->seen = n;
		pe->capseen = ncap;
	}
	memmove(&pe->seen[at + 1], &pe->seen[at], (pe->nseen - at) * sizeof(*pe->seen));
	pe->seen[at] = (struct seen_child){ .tgid = tgid, .mark = true, .ino = ino };
	pe->nseen++;
	return true;
}

static void queue_add(struct ue_proc_events *pe, pid_t tgid)
{
	if (pe->nqueue == pe->capqueue) {
		size_t ncap = pe->capqueue ? pe->capqueue * 2 : 64;
		pid_t *n = realloc(pe->queue, ncap * sizeof(*n));

		if (!n)
			return; /* its children are scanned at its own request, or next pass */
		pe->queue = n;
		pe->capqueue = ncap;
	}
	pe->queue[pe->nqueue++] = tgid;
}

/* A child @child of thread @tid of @tgid, listed by the kernel: note its fork once. */
static void child_found(struct ue_proc_events *pe, pid_t tid, pid_t tgid, pid_t child)
{
	struct seen_child *sc;
	uint64_t key;
	size_t at;

	/*
	 * Nothing of the child is read here, under pe->lock: a read of its
	 * /proc files may wait for an exec that waits for this daemon.
	 */
	key = child_key(pe, child);
	sc = seen_find(pe, child, &at);
	if (sc && (!sc->ino || !key || sc->ino == key)) {
		sc->mark = true;
		return;
	}
	if (sc) {
		/*
		 * The pid of a child met before, reaped since and given again
		 * before a pass forgot it: another child, whose fork is noted
		 * like any other's (it used to inherit nothing).
		 */
		sc->ino = key;
		sc->mark = true;
	} else if (!seen_add(pe, at, child, key)) {
		pe->unseen_forks++;
		return;
	}
	if (pe->aslr_off) {
		/* An exec would keep the stack start: no proof holds without exec reports. */
		pe->unseen_forks++;
		return;
	}
	if (ue_enablers_fork(pe->set, tid, tgid, child) > 0) {
		__atomic_add_fetch(&pe->forks, 1, __ATOMIC_RELAXED);
		pe->polled_forks++;
		pe->new_forks++;
		/* Its own children inherit what it will: scanned in the same pass. */
		queue_add(pe, child);
	}
}

/* The whole of a children file into @buf (grown as needed); its length, or -1. */
static ssize_t read_children(const char *path, char **buf, size_t *cap)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (;;) {
		if (*cap - len < 256) {
			size_t ncap = *cap ? *cap * 2 : 4096;
			char *b = ncap <= (1u << 22) ? realloc(*buf, ncap) : NULL;

			if (!b)
				break;
			*buf = b;
			*cap = ncap;
		}
		n = read(fd, *buf + len, *cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/*
 * Every child of every thread of @tgid.  The kernel's list is walked by
 * position, so a sibling that exits during the read can hide another child
 * (proc(5): not reliable unless the children are stopped): the file is
 * read until two reads in a row agree (at most 4), every child of every
 * read taken.
 */
static void scan_children(struct ue_proc_events *pe, pid_t tgid)
{
	char path[96], *buf = NULL, *prev = NULL;
	size_t cap = 0, pcap = 0;
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);
		ssize_t n, pn = -1;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)tgid, (int)tid);
		for (int tries = 0; tries < 4; tries++) {
			char *p, *end, *t;
			size_t tc;

			n = read_children(path, &buf, &cap);
			if (n < 0 || (n == pn && memcmp(buf, prev, (size_t)n) == 0))
				break;
			for (p = buf;; p = end) {
				long c = strtol(p, &end, 10);

				if (end == p)
					break;
				if (c > 0)
					child_found(pe, tid, tgid, (pid_t)c);
			}
			/* This read becomes the one the next is compared with. */
			t = prev, prev = buf, buf = t;
			tc = pcap, pcap = cap, cap = tc;
			pn = n;
		}
	}
	closedir(dir);
	free(buf);
	free(prev);
}

/* Scan @tgid and, in the same pass, every child found to inherit. */
void ue_poller_scan_from(struct ue_proc_events *pe, pid_t tgid)
{
	pe->nqueue = 0;
	queue_add(pe, tgid);
	for (size_t i = 0; i < pe->nqueue; i++) {
		__atomic_add_fetch(&pe->progress, 1, __ATOMIC_RELAXED);
		scan_children(pe, pe->queue[i]);
	}
}

/* The tgids @list() gives, in a buffer of their own (NULL: out of memory). */
static pid_t *tgids(struct ue_enablers *set, size_t (*list)(struct ue_enablers *, pid_t *, size_t),
		    size_t *ret_n)
{
	size_t cap = 256;
	pid_t *buf = NULL;

	for (;;) {
		pid_t *b = realloc(buf, cap * sizeof(*b));

		if (!b) {
			free(buf);
			return NULL;
		}
		buf = b;
		*ret_n = list(set, buf, cap);
		if (*ret_n < cap)
			return buf;
		cap *= 2;
	}
}

/*
 * The periodic pass: children of every known process; then of every
 * process found dead since the last pass (its children forked before it
 * died are still listed, an exec'd one's as its pid's), which is then
 * reported, as the connector would; forget children that are gone.
 */
void ue_poller_pass_locked(struct ue_proc_events *pe)
{
	size_t n = 0, ndead = 0, i, j;
	pid_t *known, *dead;

	ue_mutex_assert_held(&pe->lock);

	known = tgids(pe->set, ue_enablers_known, &n);
	dead = tgids(pe->set, ue_enablers_unreported, &ndead);
	for (i = 0; i < pe->nseen; i++)
		pe->seen[i].mark = false;
	for (i = 0; known && i < n; i++)
		ue_poller_scan_from(pe, known[i]);
	for (i = 0; dead && i < ndead; i++) {
		ue_poller_scan_from(pe, dead[i]);
		ue_enablers_report_dead(pe->set, dead[i]);
	}
	free(known);
	free(dead);
	/*
	 * A child no scan listed has exited, or its parent has (or is no longer
	 * known): forgotten once its pid is free.  A pid given again before
	 * that is told apart from the child met before by child_key().
	 */
	for (i = j = 0; i < pe->nseen; i++) {
		char path[32];

		snprintf(path, sizeof(path), "/proc/%d", (int)pe->seen[i].tgid);
		if (!pe->seen[i].mark && access(path, F_OK) < 0)
			continue;
		pe->seen[j++] = pe->seen[i];
	}
	pe->nseen = j;
}

/*
 * Before a request of @tgid: its own children (forked before this request
 * changes its enablers), and, when it is not known itself, the chain from
 * its nearest known ancestor down to it.
 */
void ue_poller_caller_locked(struct ue_proc_events *pe, pid_t tgid, pid_t ancestor)
{
	ue_mutex_assert_held(&pe->lock);

	/* From the known ancestor down: a child that inherits is scanned in turn. */
	if (ancestor > 0)
		ue_poller_scan_from(pe, ancestor);
	ue_poller_scan_from(pe, tgid);
}

/*
 * The nearest known ancestor of the caller when the caller is not known
 * itself, else 0.  The caller is known by its own memory (a live handle on
 * it, or a fork record of its pid not proven yet): a handle of an earlier
 * process that had its pid, not swept yet or in the graveyard, is not the
 * caller, and must not keep the caller's parent from being read (it would
 * inherit nothing).  Read without pe->lock: an ancestor in the middle of an
 * exec may make its /proc files wait (the caller cannot: it waits in our
 * request).
 */
pid_t ue_poller_known_ancestor(struct ue_proc_events *pe, struct ue_proc *caller)
{
	unsigned int n = 0;
	pid_t p = ue_proc_tgid(caller);

	if (ue_enablers_knows_caller(pe->set, caller))
		return 0;
	for (;;) {
		uint64_t start;
		pid_t pp;

		if (n++ == MAX_ANCESTORS || read_stat(p, &pp, &start) < 0 || pp <= 1)
			return 0;
		p = pp;
		if (ue_enablers_knows(pe->set, p))
			return p;
	}
}

/* Whether address-space randomization is off for every process. */
bool ue_poller_aslr_off(void)
{
	char c = '2';
	int fd = open("/proc/sys/kernel/randomize_va_space", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '2';
		close(fd);
	}
	return c == '0';
}

/* Whether the kernel lists a task's children (CONFIG_PROC_CHILDREN). */
bool ue_poller_children_listed(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
	return access(path, R_OK) == 0;
}

/* ---- the children met, across an upgrade ---- */

struct ue_proc_seen {
	size_t n;
	struct seen_child *v;	/* sorted by tgid, as pe->seen */
};

void ue_proc_seen_save(struct ue_proc_events *pe, struct ue_snap_w *w)
{
	size_t n = pe && pe->polling ? pe->nseen : 0;

	ue_snapw_u64(w, n);
	for (size_t i = 0; i < n; i++) {
		ue_snapw_u64(w, (uint64_t)(uint32_t)pe->seen[i].tgid);
		ue_snapw_u64(w, pe->seen[i].ino);
	}
}

struct ue_proc_seen *ue_proc_seen_read(struct ue_snap_r *r)
{
	uint64_t n = ue_snapr_u64_max(r, MAX_SEEN_CHILDREN);
	struct ue_proc_seen *seen;

	if (r->err || !n)
		return NULL;
	seen = calloc(1, sizeof(*seen));
	if (!seen || !(seen->v = calloc(n, sizeof(*seen->v)))) {
		free(seen);
		return NULL;
	}
	for (uint64_t i = 0; i < n; i++) {
		pid_t tgid = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
		uint64_t ino = ue_snapr_u64(r);

		/* Sorted and distinct, as they were written: anything else is not taken. */
		if (r->err || tgid <= 0 || (seen->n && tgid <= seen->v[seen->n - 1].tgid))
			break;
		seen->v[seen->n++] = (struct seen_child){ .tgid = tgid, .mark = true, .ino = ino };
	}
	return seen;
}

void ue_proc_seen_free(struct ue_proc_seen *seen)
{
	if (!seen)
		return;
	free(seen->v);
	free(seen);
}

void ue_poller_seen_adopt(struct ue_proc_events *pe, struct ue_proc_seen *seen)
{
	if (!seen)
		return;
	free(pe->seen);
	pe->seen = seen->v;
	pe->nseen = seen->n;
	pe->capseen = seen->n;
	free(seen);
}
