// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-session: usereventsd_session, ours (no tracefs has it).  What a tool
 * enables or filters through an open descriptor of it is undone when that
 * file is released, however the tool ends (SIGKILL included): one command
 * per write ("enable SYSTEM/NAME", "disable SYSTEM/NAME", "filter
 * SYSTEM/NAME EXPR", "arm GLOB [EXPR]", "arm-provider SPEC", "disarm GLOB",
 * "disarm-provider SPEC"); a read lists what the descriptor holds.  Armed
 * patterns enable the events they name inside their registration (the
 * registry's hook), and the events there already; an EXPR an event refuses
 * is kept for the read ("refused"), since that event may be gone before
 * the tool looks.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userevents/abi.h"
#include "fs.h"
#include "lock.h"
#include "snap.h"

/* What one session set on one event. */
struct hold {
	struct ue_revent *ev;	/* memory reference */
	bool enable;		/* turned on by a session, to turn off at the end */
	bool filter;		/* its filter set by this session, cleared at the end */
};

/* One armed pattern; its filter (a "filter" command's text) is set before the enable. */
struct arm {
	struct ue_arm pat;
	char *filter;		/* NULL: none */
};

struct ue_session {
	struct ue_session *prev, *next;
	struct hold *v;
	size_t n;
	struct arm *arms;	/* in the order armed: the first that matches gives the filter */
	size_t narms;
	char *refused;		/* the first armed filter an event refused: "SYSTEM/NAME ERRNO\nTEXT" */
	unsigned long nrefused;	/* how many refusals, that one included */
};

/* Every open session of the daemon (ue_daemon.sessions). */
struct ue_sessions {
	struct ue_mutex lock;		/* the list, every session's holds and arms */
	struct ue_session *list;
	atomic_uint narms;		/* of all sessions: registrations look without the lock */
	atomic_ullong arm_enables;	/* events enabled by an armed pattern, ever */
};

static struct hold *find_hold(struct ue_session *s, const struct ue_revent *ev)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].ev == ev)
			return &s->v[i];
	return NULL;
}

/* Whether a session other than @self holds @ev's enable (or filter). */
static bool held_elsewhere(struct ue_daemon *d, struct ue_session *self,
			   const struct ue_revent *ev, bool filter)
{
	for (struct ue_session *s = d->sessions->list; s; s = s->next) {
		struct hold *h = s == self ? NULL : find_hold(s, ev);

		if (h && (filter ? h->filter : h->enable))
			return true;
	}
	return false;
}

static struct hold *add_hold(struct ue_session *s, struct ue_revent *ev)
{
	struct hold *h = find_hold(s, ev), *nv;

	if (h)
		return h;
	nv = realloc(s->v, (s->n + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	s->v = nv;
	h = &s->v[s->n++];
	ue_revent_hold(ev);
	*h = (struct hold){ .ev = ev };
	return h;
}

/* Undo what @h set, unless another session holds the same; @h is then empty. */
static void undo_hold(struct ue_daemon *d, struct ue_session *s, struct hold *h)
{
	if (h->enable && !held_elsewhere(d, s, h->ev, false) && !ue_revent_dead(h->ev))
		ue_revent_set_enabled(d->reg, h->ev, false);
	if (h->filter && !held_elsewhere(d, s, h->ev, true) && !ue_revent_dead(h->ev))
		ue_revent_set_filter(h->ev, NULL, NULL);
	h->enable = false;
	h->filter = false;
}

/* "SYSTEM/NAME" or "SYSTEM:NAME" of a live event, with a memory reference. */
static struct ue_revent *lookup(struct ue_daemon *d, const char *key, size_t len)
{
	static const size_t sys_len = sizeof(USER_EVENTS_SYSTEM) - 1;
	static const size_t msys_len = sizeof(USER_EVENTS_MULTI_SYSTEM) - 1;
	char name[UE_EVENT_BUF_SIZE + 1];
	bool multi;
	size_t skip;

	if (len > msys_len && memcmp(key, USER_EVENTS_MULTI_SYSTEM, msys_len) == 0 &&
	    (key[msys_len] == '/' || key[msys_len] == ':')) {
		multi = true;
		skip = msys_len + 1;
	} else if (len > sys_len && memcmp(key, USER_EVENTS_SYSTEM, sys_len) == 0 &&
		   (key[sys_len] == '/' || key[sys_len] == ':')) {
		multi = false;
		skip = sys_len + 1;
	} else {
		return NULL;
	}
	if (len - skip >= sizeof(name) || len == skip)
		return NULL;
	memcpy(name, key + skip, len - skip);
	name[len - skip] = '\0';
	return ue_registry_find_tp(d->reg, multi, name);
}

static int session_enable(struct ue_daemon *d, struct ue_session *s, struct ue_revent *ev)
{
	struct hold *h = find_hold(s, ev);
	int r;

	if (h && h->enable)
		return 0;
	/* On by hand (not by a session): not ours to turn off later. */
	if (ue_revent_enabled(ev) && !held_elsewhere(d, s, ev, false))
		return 0;
	h = add_hold(s, ev);
	if (!h)
		return -ENOMEM;
	if (!ue_revent_enabled(ev)) {
		r = ue_revent_set_enabled(d->reg, ev, true);
		if (r < 0)
			return r;
	}
	h->enable = true;
	return 0;
}

static int session_filter(struct ue_session *s, struct ue_revent *ev, const char *text,
			  size_t len)
{
	struct ue_filter *f = NULL;
	char *shown = NULL;
	struct hold *h;
	int r;

	if (len >= UE_FILTER_MAX_WRITE)
		return -EINVAL;
	h = add_hold(s, ev);
	if (!h)
		return -ENOMEM;
	r = ue_filter_parse(ue_revent_desc(ev), text, len, &f, &shown);
	/* As the filter file: one that does not compile shows why, unfiltered. */
	if (r >= 0 || shown) {
		ue_revent_set_filter(ev, f, shown);
		h->filter = true;
	}
	return r;
}

/* Keep the first refusal of an armed filter, with what the filter file showed then. */
static void arm_refused(struct ue_session *s, struct ue_revent *ev, int err)
{
	char *shown;

	if (s->nrefused++ || !(shown = ue_revent_filter_text(ev)))
		return;
	if (asprintf(&s->refused, "%s/%s %d\n%s", ue_revent_system(ev), ue_revent_tp_name(ev),
		     -err, strcmp(shown, "none") ? shown : "") < 0)
		s->refused = NULL;
	free(shown);
}

/*
 * What @a does to @ev: its filter first (one that does not compile for
 * this event's fields leaves the event alone, the reason kept for a read
 * of the session), then the enable, held by @s.
 */
static int arm_apply(struct ue_daemon *d, struct ue_session *s, const struct arm *a,
		     struct ue_revent *ev)
{
	struct hold *h = find_hold(s, ev);
	bool was_on = ue_revent_enabled(ev);
	int r;

	if (h && h->enable)
		return 0;
	if (a->filter && !(was_on && !held_elsewhere(d, s, ev, false))) {
		r = session_filter(s, ev, a->filter, strlen(a->filter));
		if (r < 0) {
			if (r != -ENOMEM)
				arm_refused(s, ev, r);
			return r;
		}
	}
	r = session_enable(d, s, ev);
	if (r == 0 && !was_on && ue_revent_enabled(ev))
		atomic_fetch_add(&d->sessions->arm_enables, 1);
	return r;
}

/* The first pattern of @s naming @ev, or NULL. */
static const struct arm *arm_find(const struct ue_session *s, const struct ue_revent *ev)
{
	const char *sys = ue_revent_system(ev), *name = ue_revent_tp_name(ev);

	for (size_t i = 0; i < s->narms; i++)
		if (ue_arm_match(&s->arms[i].pat, sys, name))
			return &s->arms[i];
	return NULL;
}

/* The registry's hook: each registration, before it returns. */
static void arm_on_register(void *arg, struct ue_revent *ev)
{
	struct ue_daemon *d = arg;
	struct ue_sessions *all = d->sessions;

	if (!atomic_load_explicit(&all->narms, memory_order_acquire))
		return;
	ue_mutex_lock(&all->lock);
	for (struct ue_session *s = all->list; s; s = s->next) {
		const struct hold *h = s->narms ? find_hold(s, ev) : NULL;
		const struct arm *a = s->narms && !(h && h->enable) ? arm_find(s, ev) : NULL;

		if (a)
			arm_apply(d, s, a, ev);
	}
	ue_mutex_unlock(&all->lock);
}

static int collect_event(struct ue_revent *ev, void *arg)
{
	struct { struct ue_revent **v; size_t n, cap; } *c = arg;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct ue_revent **nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	ue_revent_hold(ev);
	c->v[c->n++] = ev;
	return 0;
}

/* A new pattern also names the events there already. */
static int arm_existing(struct ue_daemon *d, struct ue_session *s, const struct arm *a)
{
	struct { struct ue_revent **v; size_t n, cap; } c = { 0 };
	int r = ue_registry_foreach(d->reg, UE_ORDER_CREATED, collect_event, &c);

	for (size_t i = 0; i < c.n; i++) {
		if (r == 0 && !ue_revent_dead(c.v[i]) &&
		    ue_arm_match(&a->pat, ue_revent_system(c.v[i]), ue_revent_tp_name(c.v[i])) &&
		    arm_apply(d, s, a, c.v[i]) == -ENOMEM)
			r = -ENOMEM;
		ue_revent_release(c.v[i]);
	}
	free(c.v);
	return r;
}

static void arm_free(struct arm *a)
{
	free(a->filter);
	a->filter = NULL;
}

/* "arm TEXT [EXPR]" or "arm-provider TEXT": a pattern more, if new. */
static int session_arm(struct ue_daemon *d, struct ue_session *s, enum ue_arm_kind kind,
		       const char *text, size_t len, const char *expr, size_t expr_len)
{
	struct ue_sessions *all = d->sessions;
	struct arm a = { 0 }, *nv;
	int r;

	r = ue_arm_parse(kind, text, len, &a.pat);
	if (r < 0)
		return r;
	if (expr && (expr_len == 0 || expr_len >= UE_FILTER_MAX_WRITE))
		return -EINVAL;
	for (size_t i = 0; i < s->narms; i++) {
		const struct arm *o = &s->arms[i];

		/* The same line again: nothing more. */
		if (o->pat.kind == kind && strcmp(o->pat.text, a.pat.text) == 0 &&
		    (o->filter ? expr && strlen(o->filter) == expr_len &&
					 memcmp(o->filter, expr, expr_len) == 0
			       : !expr))
			return 0;
	}
	if (s->narms >= UE_SESSION_MAX_ARMS || atomic_load(&all->narms) >= UE_SESSIONS_MAX_ARMS)
		return -ENOSPC;
	if (expr && !(a.filter = strndup(expr, expr_len)))
		return -ENOMEM;
	nv = realloc(s->arms, (s->narms + 1) * sizeof(*nv));
	if (!nv) {
		arm_free(&a);
		return -ENOMEM;
	}
	s->arms = nv;
	s->arms[s->narms++] = a;
	atomic_fetch_add(&all->narms, 1);
	return arm_existing(d, s, &s->arms[s->narms - 1]);
}

/* "disarm TEXT", "disarm-provider TEXT": no more enables by it (what it enabled stays held). */
static int session_disarm(struct ue_daemon *d, struct ue_session *s, enum ue_arm_kind kind,
			  const char *text, size_t len)
{
	bool found = false;

	for (size_t i = 0; i < s->narms;) {
		struct arm *a = &s->arms[i];

		if (a->pat.kind != kind || strlen(a->pat.text) != len ||
		    memcmp(a->pat.text, text, len) != 0) {
			i++;
			continue;
		}
		arm_free(a);
		memmove(a, a + 1, (s->narms - i - 1) * sizeof(*a));
		s->narms--;
		atomic_fetch_sub(&d->sessions->narms, 1);
		found = true;
	}
	return found ? 0 : -ENOENT;
}

static int session_command(struct ue_daemon *d, struct ue_session *s, const char *buf,
			   size_t size)
{
	const char *end = memchr(buf, '\0', size), *key, *arg;
	size_t len = end ? (size_t)(end - buf) : size, cmd_len, key_len, arg_len;
	struct ue_revent *ev;
	struct hold *h;
	int r;

	if (len && buf[len - 1] == '\n')
		len--;
	arg = memchr(buf, ' ', len);
	if (!arg)
		return -EINVAL;
	cmd_len = (size_t)(arg - buf);
	key = arg + 1;
	arg = memchr(key, ' ', len - (size_t)(key - buf));
	key_len = arg ? (size_t)(arg - key) : len - (size_t)(key - buf);
	arg_len = arg ? len - (size_t)(arg + 1 - buf) : 0;
#define CMD(c) (cmd_len == sizeof(c) - 1 && memcmp(buf, c, cmd_len) == 0)
	if (CMD("arm"))
		return session_arm(d, s, UE_ARM_GLOB, key, key_len, arg ? arg + 1 : NULL, arg_len);
	if (CMD("arm-provider") || CMD("disarm") || CMD("disarm-provider")) {
		if (arg)
			return -EINVAL;
		if (CMD("arm-provider"))
			return session_arm(d, s, UE_ARM_PROVIDER, key, key_len, NULL, 0);
		return session_disarm(d, s, CMD("disarm") ? UE_ARM_GLOB : UE_ARM_PROVIDER, key,
				      key_len);
	}
	if (!(CMD("enable") || CMD("disable") || CMD("filter")) || (CMD("filter") != !!arg))
		return -EINVAL;
	ev = lookup(d, key, key_len);
	if (!ev)
		return -ENOENT;
	if (CMD("enable")) {
		r = session_enable(d, s, ev);
	} else if (CMD("disable")) {
		h = find_hold(s, ev);
		if (h)
			undo_hold(d, s, h);
		r = 0;
	} else {
		r = session_filter(s, ev, arg + 1, arg_len);
	}
#undef CMD
	ue_revent_release(ev);
	return r;
}

static int session_open(fuse_req_t req, struct ue_fh *fh)
{
	struct ue_sessions *all = fh->d->sessions;
	struct ue_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	ue_mutex_lock(&all->lock);
	s->next = all->list;
	if (all->list)
		all->list->prev = s;
	all->list = s;
	ue_mutex_unlock(&all->lock);
	fh->session = s;
	(void)req;
	return 0;
}

static void session_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
			  off_t off)
{
	struct ue_daemon *d = ue_req_daemon(req);
	int r;

	(void)off;
	ue_mutex_lock(&d->sessions->lock);
	r = session_command(d, fh->session, buf, size);
	ue_mutex_unlock(&d->sessions->lock);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}

static int session_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_session *s = fh->session;
	struct ue_text t = { 0 };

	ue_mutex_lock(&d->sessions->lock);
	for (size_t i = 0; i < s->narms; i++)
		ue_text_printf(&t, "%s %s%s%s\n",
			       s->arms[i].pat.kind == UE_ARM_GLOB ? "arm" : "arm-provider",
			       s->arms[i].pat.text, s->arms[i].filter ? " " : "",
			       s->arms[i].filter ? s->arms[i].filter : "");
	for (size_t i = 0; i < s->n; i++) {
		const struct ue_revent *ev = s->v[i].ev;

		if (ue_revent_dead(ev))
			continue;
		if (s->v[i].enable)
			ue_text_printf(&t, "enable %s/%s\n", ue_revent_system(ev),
				       ue_revent_tp_name(ev));
		if (s->v[i].filter)
			ue_text_printf(&t, "filter %s/%s\n", ue_revent_system(ev),
				       ue_revent_tp_name(ev));
	}
	/* "refused SYSTEM/NAME ERRNO COUNT", then the filter file's text then, each line after a tab. */
	if (s->refused) {
		const char *nl = strchr(s->refused, '\n');

		ue_text_printf(&t, "refused %.*s %lu\n", (int)(nl - s->refused), s->refused,
			       s->nrefused);
		for (const char *l = nl + 1; *l;) {
			size_t n = strcspn(l, "\n");

			ue_text_printf(&t, "\t%.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
	}
	ue_mutex_unlock(&d->sessions->lock);
	return ue_text_to_fh(&t, fh);
}

static void session_release(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_session *s = fh->session;

	if (!s)
		return;
	ue_mutex_lock(&d->sessions->lock);
	/* The patterns first: nothing armed re-enables what is undone below. */
	atomic_fetch_sub(&d->sessions->narms, (unsigned int)s->narms);
	for (size_t i = 0; i < s->narms; i++)
		arm_free(&s->arms[i]);
	for (size_t i = 0; i < s->n; i++) {
		undo_hold(d, s, &s->v[i]);
		ue_revent_release(s->v[i].ev);
	}
	if (s->prev)
		s->prev->next = s->next;
	else
		d->sessions->list = s->next;
	if (s->next)
		s->next->prev = s->prev;
	ue_mutex_unlock(&d->sessions->lock);
	free(s->arms);
	free(s->v);
	free(s->refused);
	free(s);
	fh->session = NULL;
}

int ue_sessions_new(struct ue_daemon *d)
{
	struct ue_sessions *all = calloc(1, sizeof(*all));

	if (!all)
		return -ENOMEM;
	ue_mutex_init(&all->lock, UE_LOCK_SESSIONS);
	atomic_init(&all->narms, 0);
	atomic_init(&all->arm_enables, 0);
	d->sessions = all;
	ue_registry_set_register_hook(d->reg, arm_on_register, d);
	return 0;
}

void ue_sessions_free(struct ue_daemon *d)
{
	if (!d->sessions)
		return;
	ue_registry_set_register_hook(d->reg, NULL, NULL);
	ue_mutex_destroy(&d->sessions->lock);
	free(d->sessions);
	d->sessions = NULL;
}

void ue_sessions_stats_text(struct ue_daemon *d, struct ue_text *t)
{
	ue_text_printf(t, "armed_patterns: %u\narmed_enables: %llu\n",
		       atomic_load(&d->sessions->narms),
		       (unsigned long long)atomic_load(&d->sessions->arm_enables));
}

/* A session ends with its file's release: whatever ends the opener. */
static int session_save(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_w *w)
{
	struct ue_session *s = fh->session;

	ue_mutex_lock(&d->sessions->lock);
	ue_snapw_u64(w, s->n);
	for (size_t i = 0; i < s->n; i++) {
		ue_snapw_u64(w, ue_revent_id(s->v[i].ev));
		ue_snapw_bool(w, ue_revent_dead(s->v[i].ev));
		ue_snapw_bool(w, s->v[i].enable);
		ue_snapw_bool(w, s->v[i].filter);
	}
	ue_snapw_u64(w, s->narms);
	for (size_t i = 0; i < s->narms; i++) {
		ue_snapw_u64(w, s->arms[i].pat.kind);
		ue_snapw_str(w, s->arms[i].pat.text);
		ue_snapw_str(w, s->arms[i].filter);
	}
	ue_snapw_str(w, s->refused);
	ue_snapw_u64(w, s->nrefused);
	ue_mutex_unlock(&d->sessions->lock);
	return w->err;
}

/*
 * The session as it was: its holds on the events restored (a hold on an
 * event that was already deleted is dropped: nothing is left to undo), its
 * armed patterns parsed again.
 */
static int session_restore(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_r *r)
{
	struct ue_session *s;
	char text[UE_ARM_MAX_TEXT], filter[8192];
	uint64_t n;
	int err;

	err = session_open(NULL, fh);
	if (err < 0)
		return err;
	s = fh->session;
	ue_mutex_lock(&d->sessions->lock);
	n = ue_snapr_u64_max(r, UINT32_MAX);
	for (uint64_t i = 0; i < n && !r->err; i++) {
		unsigned int id = (unsigned int)ue_snapr_u64_max(r, UINT32_MAX);
		bool dead = ue_snapr_bool(r), enable = ue_snapr_bool(r), filt = ue_snapr_bool(r);
		struct ue_revent *ev;
		struct hold *h;

		if (dead || r->err)
			continue;
		ev = ue_registry_find_id(d->reg, id);
		if (!ev) {
			r->err = -EINVAL;
			break;
		}
		h = add_hold(s, ev);
		ue_revent_release(ev);
		if (!h) {
			err = -ENOMEM;
			break;
		}
		h->enable = enable;
		h->filter = filt;
	}
	n = ue_snapr_u64_max(r, 4096);
	for (uint64_t i = 0; i < n && !r->err && !err; i++) {
		enum ue_arm_kind kind = (enum ue_arm_kind)ue_snapr_u64_max(r, UE_ARM_PROVIDER);
		bool has_filter;
		struct arm a = { 0 };
		struct arm *nv;

		ue_snapr_str(r, text, sizeof(text));
		has_filter = ue_snapr_str(r, filter, sizeof(filter));
		if (r->err)
			break;
		err = ue_arm_parse(kind, text, strlen(text), &a.pat);
		if (!err && has_filter && !(a.filter = strdup(filter)))
			err = -ENOMEM;
		nv = err ? NULL : realloc(s->arms, (s->narms + 1) * sizeof(*nv));
		if (!nv) {
			arm_free(&a);
			err = err ? err : -ENOMEM;
			break;
		}
		s->arms = nv;
		s->arms[s->narms++] = a;
		atomic_fetch_add(&d->sessions->narms, 1);
	}
	if (!err && ue_snapr_str(r, filter, sizeof(filter)) && !(s->refused = strdup(filter)))
		err = -ENOMEM;
	s->nrefused = (unsigned long)ue_snapr_u64(r);
	ue_mutex_unlock(&d->sessions->lock);
	return err ? err : r->err;
}

static const struct ue_file_ops session_fops = {
	.open = session_open,
	.show = session_show,
	.write = session_write,
	.release = session_release,
	.save = session_save,
	.restore = session_restore,
};

static const struct ue_fs_file files[] = {
	/* Ours: enables and filters that end with the descriptor that set them. */
	{ UE_DIR_ROOT, "usereventsd_session", 0640, &session_fops },
};

const struct ue_fs_files ue_session_files = UE_FS_FILES(files);
