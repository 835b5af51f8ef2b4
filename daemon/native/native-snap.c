// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * native-snap: the native path in a state snapshot (core/snap.h), for the
 * daemon that takes the mount over (usereventsd --upgrade).  The listening
 * socket keeps its abstract name (a name belongs to the socket, wherever its
 * descriptor is), each session its connected socket, so the library and the
 * interposer see nothing; each ring travels as its memfd, with its tail in
 * its own shared header, so what producers wrote while the daemons changed
 * is drained by the successor; a reader's channel travels as its memfd and
 * eventfd with its counters.  Sessions whose client had hung up are not
 * carried (their rings were drained by the pause).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "channel.h"
#include "native-int.h"
#include "registry.h"
#include "snap.h"

enum { TAG_NATIVE = 0x4e415431, TAG_SESSION = 0x4e534531, TAG_RING = 0x4e524731 };

static void save_ring(const struct nring *r, struct ue_snap_w *w)
{
	size_t at = ue_snapw_begin(w, TAG_RING);

	ue_snapw_fd(w, r->fd);
	ue_snapw_u64(w, (uint64_t)(uint32_t)r->tid);
	ue_snapw_bool(w, r->ended);
	ue_snapw_u64(w, r->cpu);
	ue_snapw_u64(w, r->dropped_seen);
	ue_snapw_bytes(w, r->comm, sizeof(r->comm));
	ue_snapw_end(w, at);
}

static void save_session(const struct nsession *s, struct ue_snap_w *w)
{
	size_t at = ue_snapw_begin(w, TAG_SESSION);

	ue_snapw_fd(w, s->sock);
	ue_snapw_bool(w, s->hello);
	ue_snapw_bool(w, s->preload);
	ue_snapw_u64(w, (uint64_t)(uint32_t)s->pid);
	ue_snapw_u64(w, s->nev);
	for (uint32_t i = 1; i <= s->nev; i++)
		ue_snapw_u64(w, ue_revent_id(s->ev[i].ev));
	ue_snapw_bool(w, s->chan != NULL);
	if (s->chan)
		ue_chan_save(s->chan, w);
	for (const struct nring *r = s->rings; r; r = r->next)
		save_ring(r, w);
	ue_snapw_end(w, at);
}

int ue_native_save(struct ue_native_server *nat, struct ue_snap_w *w)
{
	size_t at = ue_snapw_begin(w, TAG_NATIVE);

	ue_snapw_bool(w, nat != NULL);
	if (nat) {
		ue_mutex_lock(&nat->lock);
		ue_snapw_fd(w, nat->lsock);
		ue_snapw_bytes(w, &nat->addr, nat->addr_len);
		ue_snapw_u64(w, nat->records);
		ue_snapw_u64(w, nat->invalid);
		ue_snapw_u64(w, nat->dropped_gone);
		ue_snapw_u64(w, nat->sessions_total);
		ue_snapw_u64(w, nat->records_preload);
		for (const struct nsession *s = nat->sessions; s; s = s->next)
			if (!s->closing)
				save_session(s, w);
		ue_mutex_unlock(&nat->lock);
	}
	ue_snapw_end(w, at);
	return w->err;
}

static void ring_free(struct nring *r)
{
	if (r->hdr)
		munmap(r->hdr, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

static void session_drop(struct ue_native_server *nat, struct nsession *s)
{
	while (s->rings) {
		struct nring *r = s->rings;

		s->rings = r->next;
		ring_free(r);
	}
	ue_buffer_chan_close(nat->buf, s->chan);
	for (uint32_t i = 1; i <= s->nev; i++)
		ue_revent_release(s->ev[i].ev);
	if (s->sock >= 0)
		close(s->sock);
	free(s);
}

static int restore_ring(struct nsession *s, struct ue_snap_r *r)
{
	struct nring *g = calloc(1, sizeof(*g));
	size_t n;
	const void *comm;

	if (!g)
		return -ENOMEM;
	g->fd = ue_snapr_fd(r);
	g->tid = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
	g->ended = ue_snapr_bool(r);
	g->cpu = (unsigned int)ue_snapr_u64_max(r, UE_BUFFER_MAX_CPUS);
	g->dropped_seen = ue_snapr_u64(r);
	comm = ue_snapr_bytes(r, &n);
	if (r->err || g->fd < 0 || n != sizeof(g->comm)) {
		ring_free(g);
		return -EINVAL;
	}
	memcpy(g->comm, comm, n);
	g->map_len = UE_NATIVE_RING_HDR + RING_BYTES;
	g->hdr = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
	if (g->hdr == MAP_FAILED) {
		g->hdr = NULL;
		ring_free(g);
		return -ENOMEM;
	}
	g->data = (unsigned char *)g->hdr + UE_NATIVE_RING_HDR;
	g->size = RING_BYTES;
	/* Ours: the size is what we made it, whatever the shared header says now. */
	if (g->hdr->size != RING_BYTES) {
		ring_free(g);
		return -EINVAL;
	}
	/*
	 * The clock its maker chose, read back from the shared header: a
	 * producer that changed it only misdates its own records, which it
	 * stamps anyway.
	 */
	g->tsc = g->hdr->clock == UE_RING_CLOCK_TSC && s->nat->tsc.ready;
	g->next = s->rings;
	s->rings = g;
	s->nrings++;
	return 0;
}

static int restore_session(struct ue_native_server *nat, struct ue_snap_r *r)
{
	struct nsession *s = calloc(1, sizeof(*s));
	struct ue_snap_r sub;
	uint32_t tag;
	uint64_t nev;
	int err = 0;

	if (!s)
		return -ENOMEM;
	s->nat = nat;
	s->sock = ue_snapr_fd(r);
	s->hello = ue_snapr_bool(r);
	s->preload = ue_snapr_bool(r);
	s->pid = (pid_t)(uint32_t)ue_snapr_u64_max(r, INT32_MAX);
	nev = ue_snapr_u64_max(r, MAX_EVENTS);
	for (uint64_t i = 1; i <= nev && !r->err; i++) {
		struct ue_revent *ev = ue_registry_find_id(nat->reg, (unsigned int)ue_snapr_u64_max(r, UINT32_MAX));

		if (!ev) {
			err = -EINVAL;
			break;
		}
		s->ev[i].ev = ev;	/* the memory reference find_id took */
		s->ev[i].type = (uint16_t)ue_revent_id(ev);
		s->nev = (uint32_t)i;
	}
	if (!err && !r->err && ue_snapr_bool(r))
		err = ue_buffer_chan_adopt(nat->buf, r, &s->chan);
	while (!err && !r->err && ue_snapr_section(r, &tag, &sub))
		err = tag == TAG_RING ? restore_ring(s, &sub) : -EINVAL;
	if (!err && (r->err || s->sock < 0))
		err = -EINVAL;
	if (err) {
		session_drop(nat, s);
		return err;
	}
	nat->nrings += s->nrings;
	s->next = nat->sessions;
	nat->sessions = s;
	nat->nsessions++;
	return 0;
}

int ue_native_restore(const struct ue_native_deps *deps, const char *mountpoint,
		      struct ue_snap_r *snap, struct ue_native_server **ret)
{
	struct ue_snap_r r, sub;
	struct ue_native_server *nat;
	const void *addr;
	size_t alen;
	uint32_t tag;
	int err;

	*ret = NULL;
	if (!ue_snapr_section(snap, &tag, &r) || tag != TAG_NATIVE)
		return -EINVAL;
	if (!ue_snapr_bool(&r))
		return r.err;	/* the predecessor had no native path: nor do we */
	nat = ue_native_alloc(deps);
	if (!nat)
		return -ENOMEM;
	err = ue_native_find_data_path(mountpoint, nat->data_path);
	nat->lsock = ue_snapr_fd(&r);
	addr = ue_snapr_bytes(&r, &alen);
	if (!err && (r.err || nat->lsock < 0 || alen > sizeof(nat->addr) ||
		     alen <= offsetof(struct sockaddr_un, sun_path) + 1))
		err = -EINVAL;
	if (!err) {
		memcpy(&nat->addr, addr, alen);
		nat->addr_len = (socklen_t)alen;
		nat->records = ue_snapr_u64(&r);
		nat->invalid = ue_snapr_u64(&r);
		nat->dropped_gone = ue_snapr_u64(&r);
		nat->sessions_total = ue_snapr_u64(&r);
		nat->records_preload = ue_snapr_u64(&r);
	}
	ue_mutex_lock(&nat->lock);
	while (!err && ue_snapr_section(&r, &tag, &sub))
		err = tag == TAG_SESSION ? restore_session(nat, &sub) : -EINVAL;
	ue_mutex_unlock(&nat->lock);
	if (!err)
		err = r.err;
	for (struct nsession *s = nat->sessions; s && !err; s = s->next)
		if (pthread_create(&s->thread, NULL, ue_native_session_main, s) != 0)
			err = -EAGAIN;
	if (!err)
		err = ue_native_threads_start(nat);
	if (err) {
		/* Nothing started reads the sockets: they go with the memory. */
		while (nat->sessions) {
			struct nsession *s = nat->sessions;

			nat->sessions = s->next;
			session_drop(nat, s);
		}
		ue_native_free(nat);
		return err;
	}
	*ret = nat;
	return 0;
}
