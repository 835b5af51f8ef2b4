// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * upgrade: the mount handed from one usereventsd to the next (upgrade.h,
 * usereventsd(8) UPGRADE).
 *
 * The FUSE connection lives as long as someone holds its /dev/fuse
 * descriptor, so the predecessor sends it and the successor serves it
 * without a mount of its own.  libfuse 3.14 cannot adopt a connection whose
 * INIT is done, so every daemon reads through a custom io that keeps the
 * kernel's FUSE_INIT request, and a successor's first read returns that
 * request again (its unique number one the kernel never gave): libfuse
 * answers it as the predecessor's did, and the answer, which the kernel
 * must not see, is swallowed.  Requests the predecessor had read and not
 * answered (parked trace_pipe reads, a request caught by the loop's end)
 * the kernel sends again when the successor asks (FUSE_NOTIFY_RESEND,
 * Linux 6.9; older kernels keep them until the file is closed).
 *
 * The exchange, on a SOCK_SEQPACKET connection: the successor sends
 * struct msg {UPGRADE}; the predecessor answers struct msg {STATE} with the
 * snapshot's memfd and the FUSE descriptor, then the snapshot's other
 * descriptors in messages of at most FDS_PER_MSG; the successor answers
 * struct msg {DONE, status}.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "buffer.h"
#include "checkpoint.h"
#include "keeper.h"
#include "enabler.h"
#include "fdpass.h"
#include "fs.h"
#include "native.h"
#include "proc-events.h"
#include "registry.h"
#include "snap.h"
#include "upgrade.h"

#ifndef FUSE_NOTIFY_RESEND
#define FUSE_NOTIFY_RESEND 7
#endif

#define MSG_MAGIC 0x47505555u	/* "UUPG" */
#define FDS_PER_MSG 250
#define SNAP_MAX ((size_t)4 << 30)
/* The unique number of the FUSE_INIT a successor reads again: never one of the kernel's. */
#define FAKE_UNIQUE UINT64_C(0x7ffffffffffffffe)
/* How long a predecessor waits for its successor's answer. */
#define ANSWER_TIMEOUT_MS 30000

enum { MSG_UPGRADE = 1, MSG_STATE, MSG_FDS, MSG_DONE };
enum { TAG_DAEMON = 0x44414531, TAG_BUFFER = 0x42554631, TAG_PROCEV = 0x50455631 };

struct msg {
	uint32_t magic;
	uint32_t cmd;
	int32_t status;
	uint32_t nfds;		/* STATE: all that follow; FDS: in this message */
	uint64_t snap_len;
	int32_t pid;
	uint32_t version;
};

/* ---- FUSE io: FUSE_INIT kept, and read again by a successor ---- */

static ssize_t io_read(int fd, void *buf, size_t len, void *userdata)
{
	struct ue_daemon *d = userdata;
	ssize_t n;

	if (atomic_load(&d->init_fake) && atomic_exchange(&d->init_fake, false)) {
		struct fuse_in_header *h = buf;

		if (len < d->init_len) {
			atomic_store(&d->init_answering, false);
			return -1;
		}
		memcpy(buf, d->init_req, d->init_len);
		h->unique = FAKE_UNIQUE;
		return (ssize_t)d->init_len;
	}
	/*
	 * libfuse answers EIO to a request it processes before the INIT; the
	 * loop starts a second worker as the first takes the INIT: it waits.
	 */
	while (atomic_load(&d->init_answering))
		usleep(100);
	n = read(fd, buf, len);
	if (__builtin_expect(d->init_len == 0, 0) && n >= (ssize_t)sizeof(struct fuse_in_header) &&
	    ((struct fuse_in_header *)buf)->opcode == FUSE_INIT) {
		size_t keep = (size_t)n < sizeof(d->init_req) ? (size_t)n : sizeof(d->init_req);

		memcpy(d->init_req, buf, keep);
		d->init_len = keep;
		ue_state_changed(d);	/* a checkpoint has it from now on */
	}
	return n;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	const struct fuse_out_header *out = iov[0].iov_base;
	size_t total = 0;

	if (iov[0].iov_len >= sizeof(*out) && out->unique == FAKE_UNIQUE) {
		struct ue_daemon *d = userdata;

		for (int i = 0; i < count; i++)
			total += iov[i].iov_len;
		atomic_store(&d->init_answering, false);
		return (ssize_t)total;
	}
	return writev(fd, iov, count);
}

static const struct fuse_custom_io upgrade_io = {
	.read = io_read,
	.writev = io_writev,
};

int ue_upgrade_io(struct ue_daemon *d)
{
	return fuse_session_custom_io(d->se, &upgrade_io, fuse_session_fd(d->se)) == 0 ? 0 : -EIO;
}

/* ---- messages with descriptors ---- */

static int send_msg(int sock, const struct msg *m, const int *fds, unsigned int nfds)
{
	char cbuf[UE_FDPASS_SPACE(FDS_PER_MSG)];
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	ue_fdpass_attach(&mh, cbuf, fds, nfds);
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -errno;
}

/* A message and up to @max descriptors (appended at @fds + *@nfds). */
static int recv_msg(int sock, struct msg *m, int *fds, unsigned int *nfds, unsigned int max)
{
	char cbuf[UE_FDPASS_SPACE(FDS_PER_MSG)];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);

	if (n < 0)
		return -errno;
	ue_fdpass_take(&mh, fds, nfds, max, NULL);
	if (n != (ssize_t)sizeof(*m) || m->magic != MSG_MAGIC || (mh.msg_flags & MSG_CTRUNC))
		return -EPROTO;
	return 0;
}

/* ---- the running daemon: its control socket ---- */

const char *ue_upgrade_name(const struct ue_daemon *d)
{
	return d->ctl_sock >= 0 ? d->ctl_name : NULL;
}

/* Root, or the daemon's own user, may take its mount (docs/SECURITY.md). */
static bool peer_may_take(int sock)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	return cr.uid == 0 || cr.uid == geteuid();
}

static void *ctl_main(void *arg)
{
	struct ue_daemon *d = arg;

	for (;;) {
		struct pollfd pfd[2] = { { .fd = d->ctl_sock, .events = POLLIN },
					 { .fd = d->ctl_stop, .events = POLLIN } };
		struct msg m;
		int c, expected = -1;

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return NULL;
		if (pfd[1].revents & POLLIN)
			return NULL;
		if (!(pfd[0].revents & POLLIN))
			continue;
		c = accept4(d->ctl_sock, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		if (!peer_may_take(c) || recv_msg(c, &m, NULL, NULL, 0) < 0 ||
		    m.cmd != MSG_UPGRADE) {
			struct msg no = { .magic = MSG_MAGIC, .cmd = MSG_STATE, .status = -EPERM };

			send_msg(c, &no, NULL, 0);
			close(c);
			continue;
		}
		if (m.version != UE_SNAP_VERSION) {
			struct msg no = { .magic = MSG_MAGIC, .cmd = MSG_STATE,
					  .status = -EPROTONOSUPPORT };

			send_msg(c, &no, NULL, 0);
			close(c);
			continue;
		}
		if (!atomic_compare_exchange_strong(&d->upgrade_conn, &expected, c)) {
			struct msg no = { .magic = MSG_MAGIC, .cmd = MSG_STATE, .status = -EBUSY };

			send_msg(c, &no, NULL, 0);
			close(c);
			continue;
		}
		/* The loop ends as on a signal; main.c hands over. */
		fuse_session_exit(d->se);
		pthread_kill(d->main_thread, SIGHUP);
	}
}

int ue_upgrade_listen(struct ue_daemon *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned long long rnd = 0;
	socklen_t len;
	int s, r;

	d->ctl_sock = -1;
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	d->ctl_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->ctl_stop < 0)
		return -errno;
	snprintf(d->ctl_name, sizeof(d->ctl_name), "usereventsd-control/%d/%016llx", (int)getpid(),
		 rnd);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memcpy(sa.sun_path + 1, d->ctl_name, strlen(d->ctl_name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(d->ctl_name));
	if (bind(s, (struct sockaddr *)&sa, len) < 0 || listen(s, 4) < 0) {
		r = -errno;
		close(s);
		return r;
	}
	d->ctl_sock = s;
	r = pthread_create(&d->ctl_thread, NULL, ctl_main, d);
	if (r) {
		close(s);
		d->ctl_sock = -1;
		return -r;
	}
	return 0;
}

void ue_upgrade_stop_listening(struct ue_daemon *d)
{
	if (d->ctl_sock >= 0) {
		(void)!write(d->ctl_stop, &(uint64_t){ 1 }, sizeof(uint64_t));
		pthread_join(d->ctl_thread, NULL);
		close(d->ctl_sock);
		d->ctl_sock = -1;
	}
	if (d->ctl_stop >= 0)
		close(d->ctl_stop);
	d->ctl_stop = -1;
}

bool ue_upgrade_requested(struct ue_daemon *d)
{
	return atomic_load(&d->upgrade_conn) >= 0;
}

/* ---- the state ---- */

static uint64_t event_key(void *event)
{
	return ue_revent_id(event);
}

static void *event_get(void *arg, uint64_t key)
{
	struct ue_daemon *d = arg;
	struct ue_revent *ev = key <= UINT32_MAX ? ue_registry_find_id(d->reg, (unsigned int)key) : NULL;

	if (!ev)
		return NULL;
	ue_revent_get(ev);
	ue_revent_release(ev);
	return ev;
}

static void save_opts(struct ue_snap_w *w, const struct ue_daemon_opts *o)
{
	ue_snapw_u64(w, o->uid);
	ue_snapw_u64(w, o->gid);
	ue_snapw_u64(w, o->root_mode);
	ue_snapw_u64(w, o->max_events);
	ue_snapw_u64(w, o->buffer_kb);
	ue_snapw_u64(w, o->max_threads);
	ue_snapw_u64(w, o->max_files);
	ue_snapw_u64(w, o->max_text_bytes);
	ue_snapw_u64(w, o->max_enablers);
	ue_snapw_u64(w, o->max_enabler_processes);
	ue_snapw_u64(w, o->max_file_events);
	ue_snapw_bool(w, o->owner_only);
}

static void read_opts(struct ue_snap_r *r, struct ue_daemon_opts *o)
{
	o->uid = (uid_t)ue_snapr_u64_max(r, UINT32_MAX);
	o->gid = (gid_t)ue_snapr_u64_max(r, UINT32_MAX);
	o->root_mode = (mode_t)ue_snapr_u64_max(r, 07777);
	o->max_events = (unsigned int)ue_snapr_u64_max(r, UINT32_MAX);
	o->buffer_kb = ue_snapr_u64_max(r, SIZE_MAX >> 10);
	o->max_threads = (unsigned int)ue_snapr_u64_max(r, UINT32_MAX);
	o->max_files = (unsigned int)ue_snapr_u64_max(r, 1u << 24);
	o->max_text_bytes = ue_snapr_u64(r);
	o->max_enablers = (unsigned int)ue_snapr_u64_max(r, UINT32_MAX);
	o->max_enabler_processes = (unsigned int)ue_snapr_u64_max(r, UINT32_MAX);
	o->max_file_events = (unsigned int)ue_snapr_u64_max(r, UINT32_MAX);
	o->owner_only = ue_snapr_bool(r);
	if (o->max_files == 0)
		r->err = -EINVAL;
}

static void save_daemon(struct ue_daemon *d, struct ue_snap_w *w)
{
	size_t at = ue_snapw_begin(w, TAG_DAEMON);

	save_opts(w, &d->opts);
	ue_snapw_str(w, d->fuse_opts);
	ue_snapw_bytes(w, d->init_req, d->init_len);
	ue_snapw_u64(w, d->max_write);
	ue_snapw_bool(w, d->stream_pos);
	ue_snapw_u64(w, (uint64_t)d->mount_time.tv_sec);
	ue_snapw_u64(w, (uint64_t)d->mount_time.tv_nsec);
	ue_snapw_u64(w, atomic_load(&d->trace_flags));
	ue_snapw_u64(w, atomic_load(&d->buffer_kb));
	ue_snapw_bool(w, ue_buffer_get_on(d->buf));
	ue_snapw_bool(w, ue_buffer_get_overwrite(d->buf));
	ue_snapw_u64(w, d->fuse_writes);
	ue_snapw_u64(w, d->upgrades + 1);
	ue_snapw_u64(w, UE_STATIC_NODES_MAX);
	for (unsigned int i = 0; i < UE_STATIC_NODES_MAX; i++) {
		ue_snapw_u64(w, atomic_load(&d->node_mode[i]));
		ue_snapw_u64(w, atomic_load(&d->node_uid[i]));
		ue_snapw_u64(w, atomic_load(&d->node_gid[i]));
	}
	ue_snapw_u64(w, d->fh_epoch);
	ue_snapw_u64(w, d->restarts);
	ue_snapw_str(w, d->notify_socket);
	ue_snapw_end(w, at);
}

/*
 * The records no reader took yet, oldest first per CPU, copied (not
 * consumed) into the successor's snapshot with their time stamps: when the
 * successor fails, this daemon serves on with every one of them still
 * unread; when it succeeds, this daemon exits without serving again.
 */
static int save_buffer(struct ue_daemon *d, struct ue_snap_w *w)
{
	unsigned int ncpus = ue_buffer_ncpus(d->buf);
	size_t at = ue_snapw_begin(w, TAG_BUFFER);
	struct ue_buffer_rec rec;

	ue_snapw_u64(w, ncpus);
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		struct ue_buffer_snap *snap;
		int err = ue_buffer_snapshot(d->buf, (int)cpu, &snap);

		if (err < 0)
			return err;
		while (ue_buffer_snap_next(snap, &rec) == 1) {
			ue_snapw_u64(w, 1);
			ue_snapw_bytes(w, &rec.meta, sizeof(rec.meta));
			ue_snapw_bytes(w, rec.data, rec.len);
		}
		ue_buffer_snap_free(snap);
		ue_snapw_u64(w, 0);
	}
	ue_snapw_end(w, at);
	return w->err;
}

static int restore_buffer(struct ue_daemon *d, struct ue_snap_r *snap)
{
	struct ue_snap_r r;
	uint32_t tag;
	uint64_t ncpus;

	if (!ue_snapr_section(snap, &tag, &r) || tag != TAG_BUFFER)
		return -EINVAL;
	ncpus = ue_snapr_u64_max(&r, 4096);
	for (uint64_t cpu = 0; cpu < ncpus && !r.err; cpu++) {
		while (ue_snapr_u64(&r) == 1) {
			struct ue_rec_meta meta;
			size_t mlen, len;
			const void *m = ue_snapr_bytes(&r, &mlen);
			const void *p = ue_snapr_bytes(&r, &len);
			struct iovec iov = { (void *)p, len };

			if (r.err || mlen != sizeof(meta) || len == 0)
				return -EINVAL;
			memcpy(&meta, m, sizeof(meta));
			/* A CPU this machine lacks: its records go to the last ring. */
			ue_buffer_write(d->buf, cpu < ue_buffer_ncpus(d->buf) ? (unsigned int)cpu :
						ue_buffer_ncpus(d->buf) - 1, &meta, &iov, 1, len);
		}
	}
	return r.err;
}

/* ---- the predecessor's side ---- */

int ue_upgrade_snapshot(struct ue_daemon *d, struct ue_snap_w *w, bool checkpoint)
{
	int err = ue_snapw_init(w, SNAP_MAX), procev = -1;

	if (err < 0)
		return err;
	w->fds_none = checkpoint;
	/*
	 * An upgrade: nothing reads the proc connector from here on, so the
	 * enablers saved below are what its socket's unread reports follow.
	 */
	if (!checkpoint) {
		procev = ue_proc_events_pause(d->procev);
		/* And no write of ours lands after the successor's (a stale state). */
		ue_enablers_freeze(d->enablers);
	}
	save_daemon(d, w);
	err = ue_registry_save(d->reg, w);
	if (!err)
		err = ue_fs_save(d, w);
	if (!err)
		err = ue_enablers_save(d->enablers, w, event_key);
	if (!err && !checkpoint)
		err = save_buffer(d, w);
	if (!err && !checkpoint)
		err = ue_native_save(ue_daemon_native(d), w);
	if (!err && !checkpoint) {
		size_t at = ue_snapw_begin(w, TAG_PROCEV);

		ue_snapw_fd(w, procev);
		ue_proc_seen_save(d->procev, w);
		ue_snapw_end(w, at);
	}
	return err ? err : w->err;
}

int ue_upgrade_give(struct ue_daemon *d)
{
	int sock = atomic_exchange(&d->upgrade_conn, -1);
	struct msg m = { .magic = MSG_MAGIC, .cmd = MSG_STATE, .pid = getpid() };
	struct ue_snap_w w;
	int memfd = -1, err, first[3];
	unsigned int sent;

	/*
	 * The native path's threads stop between requests; what its rings
	 * held is in the buffer, and the channels' pages with their readers.
	 * The checkpoint's thread stops: the successor writes it from now on.
	 */
	ue_native_pause(ue_daemon_native(d));
	ue_ckpt_stop(d);
	err = ue_upgrade_snapshot(d, &w, false);
	if (!err) {
		memfd = memfd_create("usereventsd-state", MFD_CLOEXEC);
		if (memfd < 0 || write(memfd, w.buf, w.len) != (ssize_t)w.len)
			err = errno ? -errno : -EIO;
	}
	if (err) {
		m.status = err;
		send_msg(sock, &m, NULL, 0);
		goto out;
	}
	m.snap_len = w.len;
	m.nfds = w.nfds;
	first[0] = memfd;
	first[1] = fuse_session_fd(d->se);
	first[2] = ue_ckpt_fd(d);
	err = send_msg(sock, &m, first, first[2] >= 0 ? 3 : 2);
	for (sent = 0; !err && sent < w.nfds; sent += m.nfds) {
		m.cmd = MSG_FDS;
		m.nfds = w.nfds - sent < FDS_PER_MSG ? w.nfds - sent : FDS_PER_MSG;
		err = send_msg(sock, &m, w.fds + sent, m.nfds);
	}
	if (!err) {
		struct timeval tv = { ANSWER_TIMEOUT_MS / 1000, 0 };

		setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		err = recv_msg(sock, &m, NULL, NULL, 0);
		if (!err)
			err = m.cmd == MSG_DONE ? m.status : -EPROTO;
	}
	/* A keeper watches the successor from now on (it may not have our NOTIFY_SOCKET). */
	if (!err)
		ue_keeper_main_pid(d->notify_socket, m.pid);
out:
	if (err) {
		fprintf(stderr, UE_DAEMON_NAME ": the upgrade failed (%s); serving on\n",
			strerror(-err));
		ue_native_resume(ue_daemon_native(d));
		ue_enablers_thaw(d->enablers);
		ue_proc_events_resume(d->procev);
		ue_ckpt_start(d);
	}
	if (memfd >= 0)
		close(memfd);
	ue_snapw_free(&w);
	close(sock);
	return err;
}

/* ---- the successor's side ---- */

int ue_upgrade_take_head(struct ue_taken *t)
{
	struct ue_snap_r r, sub;
	char opts[4096];
	const void *init;
	uint32_t tag;
	size_t n;

	if (ue_snapr_init(&r, t->snap, t->snap_len, t->fds, t->nfds) < 0 ||
	    !ue_snapr_section(&r, &tag, &sub) || tag != TAG_DAEMON)
		return -EINVAL;
	read_opts(&sub, &t->opts);
	if (ue_snapr_str(&sub, opts, sizeof(opts)))
		t->fuse_opts = strdup(opts);
	init = ue_snapr_bytes(&sub, &n);
	/* A checkpoint written before the kernel's FUSE_INIT came has none: it is still queued. */
	if (sub.err || !t->fuse_opts || n > sizeof(t->init) ||
	    (n < sizeof(struct fuse_in_header) && !(t->crash && n == 0)))
		return -EINVAL;
	memcpy(t->init, init, n);
	t->init_len = n;
	t->daemon_rest = sub;
	t->next_off = r.off;
	return 0;
}

static int find_control(const char *mountpoint, char *name, size_t size)
{
	char path[4096];
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/user_events_data", mountpoint) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	n = getxattr(path, UE_CONTROL_XATTR, name, size - 1);
	if (n < 0)
		return errno == ENODATA || errno == EOPNOTSUPP ? -ENOENT : -errno;
	name[n] = 0;
	return 0;
}

int ue_upgrade_receive(const char *mountpoint, struct ue_taken *t)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct msg m = { .magic = MSG_MAGIC, .cmd = MSG_UPGRADE, .version = UE_SNAP_VERSION,
			 .pid = getpid() };
	int first[3], err;
	unsigned int nfirst = 0;
	char name[108];
	socklen_t len;

	ue_taken_init(t);
	err = find_control(mountpoint, name, sizeof(name));
	if (err < 0) {
		fprintf(stderr, UE_DAEMON_NAME ": %s: no usereventsd that hands over its mount serves there (%s)\n",
			mountpoint, strerror(-err));
		return err;
	}
	t->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (t->sock < 0)
		return -errno;
	memcpy(sa.sun_path + 1, name, strlen(name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
	if (connect(t->sock, (struct sockaddr *)&sa, len) < 0 || send_msg(t->sock, &m, NULL, 0) < 0) {
		err = -errno;
		goto fail;
	}
	err = recv_msg(t->sock, &m, first, &nfirst, 3);
	if (!err && (m.cmd != MSG_STATE || (m.status == 0 && nfirst < 2)))
		err = -EPROTO;
	if (!err && m.status < 0)
		err = m.status;
	if (err)
		goto fail_msg;
	t->from_pid = m.pid;
	t->fuse_fd = first[1];
	t->ckpt_fd = nfirst == 3 ? first[2] : -1;
	t->snap_len = m.snap_len;
	t->snap = mmap(NULL, t->snap_len ? t->snap_len : 1, PROT_READ, MAP_PRIVATE, first[0], 0);
	close(first[0]);
	nfirst = 0;
	if (t->snap == MAP_FAILED) {
		t->snap = NULL;
		err = -errno;
		goto fail;
	}
	if (m.nfds > UE_SNAP_MAX_FDS) {
		err = -EPROTO;
		goto fail;
	}
	t->fds = calloc(m.nfds ? m.nfds : 1, sizeof(int));
	if (!t->fds) {
		err = -ENOMEM;
		goto fail;
	}
	while (t->nfds < m.nfds) {
		struct msg f;
		unsigned int before = t->nfds;

		err = recv_msg(t->sock, &f, t->fds, &t->nfds, m.nfds);
		if (!err && (f.cmd != MSG_FDS || t->nfds - before != f.nfds))
			err = -EPROTO;
		if (err)
			goto fail;
	}
	err = ue_upgrade_take_head(t);
	if (err < 0)
		goto fail;
	return 0;
fail_msg:
	fprintf(stderr, UE_DAEMON_NAME ": the daemon at %s did not hand over: %s\n", mountpoint,
		strerror(-err));
fail:
	for (unsigned int i = 0; i < nfirst; i++)
		close(first[i]);
	ue_taken_free(t);
	return err;
}

int ue_upgrade_restore(struct ue_daemon *d, struct ue_taken *t, const char *mountpoint)
{
	struct ue_snap_r r, sub;
	int err;
	uint64_t n;

	/* Where ue_upgrade_receive() stopped: the daemon section's options were taken. */
	ue_snapr_init(&r, t->snap, t->snap_len, t->fds, t->nfds);
	r.off = t->next_off;
	sub = t->daemon_rest;
	d->max_write = ue_snapr_u64(&sub);
	d->stream_pos = ue_snapr_bool(&sub);
	d->mount_time.tv_sec = (time_t)ue_snapr_u64(&sub);
	d->mount_time.tv_nsec = (long)ue_snapr_u64_max(&sub, 999999999);
	atomic_store(&d->trace_flags, (unsigned int)ue_snapr_u64_max(&sub, UINT32_MAX));
	atomic_store(&d->buffer_kb, ue_snapr_u64(&sub));
	ue_buffer_set_on(d->buf, ue_snapr_bool(&sub));
	ue_buffer_set_overwrite(d->buf, ue_snapr_bool(&sub));
	d->fuse_writes = ue_snapr_u64(&sub);
	d->upgrades = ue_snapr_u64(&sub);
	n = ue_snapr_u64_max(&sub, UE_STATIC_NODES_MAX);
	for (uint64_t i = 0; i < n; i++) {
		atomic_store(&d->node_mode[i], ue_snapr_u64(&sub));
		atomic_store(&d->node_uid[i], ue_snapr_u64(&sub));
		atomic_store(&d->node_gid[i], ue_snapr_u64(&sub));
	}
	/* Files this daemon opens are of an epoch none before it used. */
	d->fh_epoch = (uint32_t)ue_snapr_u64_max(&sub, UINT32_MAX - 1) + 1;
	d->restarts = ue_snapr_u64(&sub) + (t->crash ? 1 : 0);
	{
		char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];

		/* A keeper's: told of this daemon from now on (keeper.h). */
		if (ue_snapr_str(&sub, path, sizeof(path)) && !d->notify_socket)
			d->notify_socket = strdup(path);
	}
	if (t->crash)
		d->upgrades--;	/* counted by save_daemon() for an upgrade */
	if (sub.err)
		return sub.err;
	if (atomic_load(&d->buffer_kb) != d->opts.buffer_kb) {
		err = ue_buffer_resize(d->buf, atomic_load(&d->buffer_kb) << 10);
		if (err < 0)
			return err;
	}
	err = ue_registry_restore(d->reg, &r);
	if (!err)
		err = ue_fs_restore(d, &r);
	if (!err)
		err = ue_enablers_restore(d->enablers, &r, event_get, d);
	/*
	 * A crash kept neither the buffer nor the native path: main.c starts
	 * a new one, its producers come back by themselves (lib/reconnect.c),
	 * and the events only they held wait for them (main.c's sweeper).
	 */
	if (t->crash)
		return err ? err : r.err;
	if (!err)
		err = restore_buffer(d, &r);
	if (!err) {
		struct ue_native_server *nat = NULL;

		/* After the buffer: a reader's channel already had what the buffer holds. */
		err = ue_native_restore(&(struct ue_native_deps){ .reg = d->reg, .buf = d->buf,
								  .cmdlines = d->cmdlines,
								  .counts = d->counts },
					mountpoint, &r, &nat);
		__atomic_store_n(&d->native, nat, __ATOMIC_RELEASE);
	}
	if (!err) {
		struct ue_snap_r pev;
		uint32_t tag;

		/* A predecessor of before this section kept its socket: a new one is opened. */
		if (ue_snapr_section(&r, &tag, &pev) && tag == TAG_PROCEV) {
			d->taken_procev = ue_snapr_fd(&pev);
			d->taken_seen = ue_proc_seen_read(&pev);
		}
	}
	ue_registry_restore_done(d->reg);
	return err ? err : r.err;
}

int ue_upgrade_adopt_fuse(struct ue_daemon *d, struct ue_taken *t)
{
	memcpy(d->init_req, t->init, t->init_len);
	d->init_len = t->init_len;
	/* None: the predecessor died before the kernel's came, which is still queued. */
	atomic_store(&d->init_answering, t->init_len > 0);
	atomic_store(&d->init_fake, t->init_len > 0);
	if (fuse_session_custom_io(d->se, &upgrade_io, t->fuse_fd) != 0)
		return -EIO;
	t->fuse_fd = -1;	/* the session's now */
	return 0;
}

int ue_upgrade_detach(struct ue_taken *t, bool foreground)
{
	t->status_fd = -1;
	/* The command's status is whether this process took over. */
	return foreground ? 0 : ue_keeper_detach(&t->status_fd);
}

void ue_upgrade_answer(struct ue_taken *t, int err)
{
	struct msg m = { .magic = MSG_MAGIC, .cmd = MSG_DONE, .status = err, .pid = getpid() };
	char st = err ? 1 : 0;

	/*
	 * Under systemd or usereventsd --keep the service's main process is
	 * this one from now on: said before the predecessor exits, so the
	 * service never looks ended.
	 */
	if (!err)
		ue_keeper_main_pid(getenv("NOTIFY_SOCKET"), getpid());
	if (t->sock >= 0)
		send_msg(t->sock, &m, NULL, 0);
	if (t->status_fd >= 0) {
		(void)!write(t->status_fd, &st, 1);
		close(t->status_fd);
		t->status_fd = -1;
	}
}

void ue_upgrade_resend(struct ue_daemon *d)
{
	struct fuse_out_header h = { .len = sizeof(h), .error = FUSE_NOTIFY_RESEND, .unique = 0 };

	/* Linux before 6.9 says EINVAL: what the predecessor held stays unanswered. */
	if (write(fuse_session_fd(d->se), &h, sizeof(h)) < 0 && errno != EINVAL)
		fprintf(stderr, UE_DAEMON_NAME ": asking for requests again: %s\n", strerror(errno));
}

void ue_taken_free(struct ue_taken *t)
{
	if (t->sock >= 0)
		close(t->sock);
	if (t->fuse_fd >= 0)
		close(t->fuse_fd);
	if (t->snap)
		munmap(t->snap, t->snap_len ? t->snap_len : 1);
	for (unsigned int i = 0; i < t->nfds; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	free(t->fds);
	free(t->fuse_opts);
	if (t->status_fd >= 0)
		close(t->status_fd);
	if (t->ckpt_fd >= 0)
		close(t->ckpt_fd);
	ue_taken_init(t);
}

void ue_taken_init(struct ue_taken *t)
{
	memset(t, 0, sizeof(*t));
	t->sock = t->fuse_fd = t->status_fd = t->ckpt_fd = -1;
}
