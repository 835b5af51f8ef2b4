// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-session: usereventsd_session, ours (no tracefs has it).  What a tool
 * enables or filters through an open descriptor of it is undone when that
 * file is released, however the tool ends (SIGKILL included): one command
 * per write ("enable SYSTEM/NAME", "disable SYSTEM/NAME", "filter
 * SYSTEM/NAME EXPR"); a read lists what the descriptor holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userevents/abi.h"
#include "fs.h"

/* What one session set on one event. */
struct hold {
	struct ue_revent *ev;	/* memory reference */
	bool enable;		/* turned on by a session, to turn off at the end */
	bool filter;		/* its filter set by this session, cleared at the end */
};

struct ue_session {
	struct ue_session *prev, *next;
	struct hold *v;
	size_t n;
};

/* Every open session: one mount per daemon, so one list per process. */
static pthread_mutex_t sessions_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ue_session *sessions;

static struct hold *find_hold(struct ue_session *s, const struct ue_revent *ev)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].ev == ev)
			return &s->v[i];
	return NULL;
}

/* Whether a session other than @self holds @ev's enable (or filter). */
static bool held_elsewhere(struct ue_session *self, const struct ue_revent *ev, bool filter)
{
	for (struct ue_session *s = sessions; s; s = s->next) {
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
	if (h->enable && !held_elsewhere(s, h->ev, false) && !ue_revent_dead(h->ev))
		ue_revent_set_enabled(d->reg, h->ev, false);
	if (h->filter && !held_elsewhere(s, h->ev, true) && !ue_revent_dead(h->ev))
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
	struct hold *h;
	int r;

	/* On by hand (not by a session): not ours to turn off later. */
	if (ue_revent_enabled(ev) && !held_elsewhere(s, ev, false))
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

static int session_command(struct ue_daemon *d, struct ue_session *s, const char *buf,
			   size_t size)
{
	const char *end = memchr(buf, '\0', size), *key, *arg;
	size_t len = end ? (size_t)(end - buf) : size, cmd_len, key_len;
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
#define CMD(c) (cmd_len == sizeof(c) - 1 && memcmp(buf, c, cmd_len) == 0)
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
		arg++;
		r = session_filter(s, ev, arg, len - (size_t)(arg - buf));
	}
#undef CMD
	ue_revent_release(ev);
	return r;
}

static int session_open(fuse_req_t req, struct ue_fh *fh)
{
	struct ue_session *s = calloc(1, sizeof(*s));

	(void)req;
	if (!s)
		return -ENOMEM;
	pthread_mutex_lock(&sessions_lock);
	s->next = sessions;
	if (sessions)
		sessions->prev = s;
	sessions = s;
	pthread_mutex_unlock(&sessions_lock);
	fh->session = s;
	return 0;
}

static void session_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
			  off_t off)
{
	int r;

	(void)off;
	pthread_mutex_lock(&sessions_lock);
	r = session_command(ue_req_daemon(req), fh->session, buf, size);
	pthread_mutex_unlock(&sessions_lock);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}

static int session_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_session *s = fh->session;
	struct ue_text t = { 0 };

	(void)d;
	pthread_mutex_lock(&sessions_lock);
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
	pthread_mutex_unlock(&sessions_lock);
	return ue_text_to_fh(&t, fh);
}

static void session_release(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_session *s = fh->session;

	if (!s)
		return;
	pthread_mutex_lock(&sessions_lock);
	for (size_t i = 0; i < s->n; i++) {
		undo_hold(d, s, &s->v[i]);
		ue_revent_release(s->v[i].ev);
	}
	if (s->prev)
		s->prev->next = s->next;
	else
		sessions = s->next;
	if (s->next)
		s->next->prev = s->prev;
	pthread_mutex_unlock(&sessions_lock);
	free(s->v);
	free(s);
	fh->session = NULL;
}

/* A session ends with its file's release: whatever ends the opener. */
static const struct ue_file_ops session_fops = {
	.open = session_open,
	.show = session_show,
	.write = session_write,
	.release = session_release,
};

static const struct ue_fs_file files[] = {
	/* Ours: enables and filters that end with the descriptor that set them. */
	{ UE_DIR_ROOT, "usereventsd_session", 0640, &session_fops },
};

const struct ue_fs_files ue_session_files = UE_FS_FILES(files);
