// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * preload-write: the write path of libuserevents-preload.so.  One native
 * session per process (a fork child opens its own), one ring per thread
 * (handed back when the thread ends), and writes checked in the writer in
 * the kernel's order, user memory read under a fault catcher so that a bad
 * pointer gives EFAULT as the kernel's copy would.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "native-msg.h"
#include "native-proto.h"
#include "preload.h"
#include "userevents/userevents.h"

#define PL_MAX_RINGS 256
#define PL_MAX_IOV 1024		/* UIO_MAXIOV */
#define PL_SNAP_IOV 8		/* vectors up to this long are read once, into a copy */
#define PL_MAX_RW 0x7ffff000ul	/* MAX_RW_COUNT */
#define PL_STALE_NS 500000000ull
#if defined(__x86_64__)
#define PL_USER_END 0x00007ffffffff000ull	/* what access_ok() takes, 4-level paging */
#else
#define PL_USER_END UINT64_MAX
#endif

__thread struct pl_thread pl_t __attribute__((tls_model("initial-exec")));

static struct {
	int lock;
	pid_t pid;
	uint32_t gen;
	int sock;
	bool dead;
	bool gone;			/* the daemon died; none serves yet (preload-reconnect.c) */
	uint64_t lost;			/* writes refused and ring records lost since it died */
	uint64_t lost_told;		/* of them, told to a daemon (UE_NATIVE_LOST) */
	int name_len;			/* 0: no daemon chosen yet */
	char name[UE_NATIVE_SOCK_NAME_MAX + 1];
	volatile int *wipe;		/* MADV_WIPEONFORK: 0 in a fork child */
	struct {
		void *hdr;
		size_t len;
	} rings[PL_MAX_RINGS];
	int nrings;
	bool faults;
	struct sigaction old[2];	/* the program's SIGSEGV and SIGBUS actions */
	pthread_key_t key;
	bool key_ok;
} S = { .sock = -1, .gen = 1 };

bool pl_lock(void)
{
	if (pl_t.holds)
		return false;
	while (__atomic_exchange_n(&S.lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	pl_t.holds = 1;
	return true;
}

void pl_unlock(void)
{
	pl_t.holds = 0;
	__atomic_store_n(&S.lock, 0, __ATOMIC_RELEASE);
}

uint32_t pl_process_gen(void)
{
	return __atomic_load_n(&S.gen, __ATOMIC_ACQUIRE);
}

static void thread_key_end(void *arg)
{
	(void)arg;
	pl_thread_end();
}

/* Once, from the first recognised file (lock held). */
static void process_init(void)
{
	void *p;

	if (S.wipe)
		return;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED && madvise(p, 4096, MADV_WIPEONFORK) == 0) {
		S.wipe = p;
		*S.wipe = 1;
	} else if (p != MAP_FAILED) {
		munmap(p, 4096);
	}
	S.pid = getpid();
	S.key_ok = pthread_key_create(&S.key, thread_key_end) == 0;
}

/* A fork child: the session and the rings are the parent's. */
static void after_fork(void)
{
	__atomic_store_n(&S.lock, 0, __ATOMIC_RELAXED);
	pl_t.holds = 0;
	S.pid = getpid();
	__atomic_add_fetch(&S.gen, 1, __ATOMIC_RELEASE);
	if (S.sock >= 0)
		close(S.sock);
	S.sock = -1;
	/* Our daemon died: the child waits for the next one as its parent does. */
	S.dead = S.gone;
	for (int i = 0; i < S.nrings; i++)
		munmap(S.rings[i].hdr, S.rings[i].len);
	S.nrings = 0;
	if (S.wipe)
		*S.wipe = 1;
}

void pl_check_fork(void)
{
	if (__builtin_expect(S.wipe && !*S.wipe, 0))
		after_fork();
}

/* From pthread_atfork(), for forks that run it (the lock may be held by a thread now gone). */
static void atfork_child(void)
{
	if (S.wipe)
		after_fork();
	else
		S.pid = getpid();
	pl_watch_after_fork();
}

__attribute__((constructor)) static void write_init(void)
{
	S.pid = getpid();
	pthread_atfork(NULL, NULL, atfork_child);
}

bool pl_own_process(void)
{
	pl_check_fork();
	return getpid() == S.pid;
}

bool pl_recognise(int fd)
{
	char name[UE_NATIVE_SOCK_NAME_MAX + 1];
	ssize_t len;

	len = fgetxattr(fd, UE_NATIVE_XATTR, name, UE_NATIVE_SOCK_NAME_MAX);
	if (len <= 0)
		return false;
	process_init();
	if (!S.name_len) {
		memcpy(S.name, name, (size_t)len);
		S.name_len = (int)len;
		return true;
	}
	/* One daemon per process: files of another mount keep the system call. */
	return len == S.name_len && memcmp(name, S.name, (size_t)len) == 0;
}

static int xchg(struct ue_native_msg *m, int *ret_fd)
{
	if (ue_native_xchg(S.sock, m, ret_fd) < 0) {
		S.dead = true;
		return -EPIPE;
	}
	return m->status;
}

/* The session, proven with @fd (lock held). */
static int session_open(int fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ue_native_msg m;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	struct stat st;
	int r;

	if (S.sock >= 0 || S.dead)
		return S.dead ? -EPIPE : 0;
	if (!S.name_len || fstat(fd, &st) < 0)
		return -ENOENT;
	memcpy(sa.sun_path + 1, S.name, (size_t)S.name_len);
	S.sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (S.sock < 0)
		return -errno;
	if (connect(S.sock, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)S.name_len)) < 0) {
		r = -errno;
		goto fail;
	}
	/* An abstract name anybody could bind: only the file's owner or root serve it. */
	if (getsockopt(S.sock, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 ||
	    (cred.uid != 0 && cred.uid != st.st_uid)) {
		r = -EPERM;
		goto fail;
	}
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_HELLO;
	m.id = UE_NATIVE_CLIENT_PRELOAD;
	m.write_index = (uint32_t)fd;
	r = xchg(&m, NULL);
	if (r == 0)
		return 0;
fail:
	close(S.sock);
	S.sock = -1;
	/* A daemon that refuses once refuses again: keep the system call. */
	S.dead = true;
	return r;
}

uint32_t pl_session_add(int fd, const struct pl_event *ev)
{
	struct ue_native_msg m;

	if (strlen(ev->name_args) >= UE_NATIVE_NAME_MAX || session_open(fd) < 0)
		return 0;
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_ADD_EVENT;
	strcpy(m.name_args, ev->name_args);
	if (xchg(&m, NULL) < 0 || m.id == 0 || m.id > 4096)
		return 0;
	return m.id;
}

/* This thread's ring, made now (lock held). */
static bool ring_new(struct pl_thread *t)
{
	struct ue_native_msg m;
	void *p;
	int fd = -1;

	if (S.sock < 0 || S.dead)
		return false;
	/* The thread's ring of a session gone (its daemon died): only this thread writes it. */
	for (int i = 0; t->hdr && i < S.nrings; i++) {
		if (S.rings[i].hdr == t->hdr) {
			munmap(t->hdr, t->map_len);
			S.rings[i] = S.rings[--S.nrings];
			t->hdr = NULL;
			break;
		}
	}
	if (S.nrings >= PL_MAX_RINGS)
		return false;
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_NEW_RING;
	m.tid = gettid();
	m.id = UE_TSC_AVAILABLE ? UE_NATIVE_RING_CAN_TSC : 0;
	if (xchg(&m, &fd) < 0 || fd < 0 || m.ring_bytes < 4096 ||
	    (m.ring_bytes & (m.ring_bytes - 1))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	p = mmap(NULL, UE_NATIVE_RING_HDR + (size_t)m.ring_bytes, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return false;
	t->hdr = p;
	t->data = (unsigned char *)p + UE_NATIVE_RING_HDR;
	t->mask = m.ring_bytes - 1;
	t->tail = __atomic_load_n(&t->hdr->tail, __ATOMIC_ACQUIRE);
	t->tsc = ue_ring_counter(t->hdr, PL_STALE_NS, &t->stale);
	t->map_len = UE_NATIVE_RING_HDR + (size_t)m.ring_bytes;
	t->gen = S.gen;
	S.rings[S.nrings].hdr = p;
	S.rings[S.nrings].len = t->map_len;
	S.nrings++;
	if (S.key_ok)
		pthread_setspecific(S.key, (void *)1);
	return true;
}

void pl_thread_end(void)
{
	struct pl_thread *t = &pl_t;
	struct ue_native_msg m;
	bool ours = false;

	pl_check_fork();
	if (!t->hdr || !pl_lock())
		return;
	if (t->gen == S.gen && S.sock >= 0 && !S.dead) {
		memset(&m, 0, sizeof(m));
		m.cmd = UE_NATIVE_END_RING;
		m.tid = gettid();
		xchg(&m, NULL);
	}
	/* A ring of this process (a fork child's are unmapped), even of a dead daemon's session. */
	for (int i = 0; i < S.nrings; i++) {
		if (S.rings[i].hdr == t->hdr) {
			S.rings[i] = S.rings[--S.nrings];
			ours = true;
			break;
		}
	}
	if (ours)
		munmap(t->hdr, t->map_len);
	t->hdr = NULL;
	pl_unlock();
}

/* ---- reconnection: the daemon died, a new one serves (preload-reconnect.c) ---- */

int pl_session_sock(void)
{
	return __atomic_load_n(&S.dead, __ATOMIC_RELAXED) ? -1 : __atomic_load_n(&S.sock, __ATOMIC_RELAXED);
}

bool pl_gone(void)
{
	return __atomic_load_n(&S.gone, __ATOMIC_ACQUIRE);
}

void pl_count_lost(void)
{
	__atomic_add_fetch(&S.lost, 1, __ATOMIC_RELAXED);
}

/* Records a ring holds that its daemon did not take. */
static uint64_t ring_unread(const struct ue_native_ring *h)
{
	const unsigned char *data = (const unsigned char *)h + UE_NATIVE_RING_HDR;
	uint64_t head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE), k = 0, size = h->size;

	if (!size || (size & (size - 1)) || head - tail > size)
		return 0;
	while (tail < head) {
		const struct ue_native_rec *rec = (const struct ue_native_rec *)(data + (tail & (size - 1)));

		if (rec->len < sizeof(*rec) || rec->len % 8 || rec->len > head - tail)
			break;
		k += rec->id != 0;
		tail += rec->len;
	}
	return k;
}

void pl_gone_locked(void)
{
	uint64_t lost = 0;

	for (int i = 0; i < S.nrings; i++)
		lost += ring_unread(S.rings[i].hdr);
	__atomic_add_fetch(&S.lost, lost, __ATOMIC_RELAXED);
	__atomic_store_n(&S.gone, true, __ATOMIC_RELEASE);
	__atomic_store_n(&S.dead, true, __ATOMIC_RELAXED);
	/* Slots and rings are the dead session's: the next one makes its own. */
	__atomic_add_fetch(&S.gen, 1, __ATOMIC_RELEASE);
	if (S.sock >= 0)
		close(S.sock);
	S.sock = -1;
}

void pl_gone_end_locked(void)
{
	__atomic_store_n(&S.gone, false, __ATOMIC_RELEASE);
}

void pl_session_again_locked(int fd, const char *name, int len)
{
	struct ue_native_msg m;
	uint64_t lost;

	memcpy(S.name, name, (size_t)len);
	S.name_len = len;
	if (S.sock >= 0)
		close(S.sock);
	S.sock = -1;
	__atomic_store_n(&S.dead, false, __ATOMIC_RELAXED);
	__atomic_add_fetch(&S.gen, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&S.gone, false, __ATOMIC_RELEASE);
	/* At once, not at the next write: its hang-up is how the next death is seen. */
	if (session_open(fd) < 0)
		return;
	lost = __atomic_load_n(&S.lost, __ATOMIC_RELAXED);
	if (lost <= S.lost_told)
		return;
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_LOST;
	m.ring_bytes = lost - S.lost_told > UINT32_MAX ? UINT32_MAX : (uint32_t)(lost - S.lost_told);
	if (xchg(&m, NULL) == 0)
		S.lost_told += m.ring_bytes;
}

/* ---- faults: the copy of user memory jumps back instead of crashing ---- */

static struct sigaction *old_action(int sig)
{
	return sig == SIGSEGV ? &S.old[0] : &S.old[1];
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	pl_jmp_buf *jb = pl_t.catch;
	struct sigaction *old;

	if (jb) {
		pl_t.catch = NULL;
		pl_longjmp(*jb);
	}
	/* Not ours: the program's action, as if we were not there. */
	old = old_action(sig);
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler == SIG_IGN || old->sa_handler == SIG_DFL) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		/* Sent, and ignored: nothing.  A fault comes back at once and kills. */
		if (old->sa_handler == SIG_IGN && si->si_code <= 0)
			return;
		pl_real_sigaction(sig, &dfl, NULL);
		if (si->si_code <= 0)
			raise(sig);
	} else {
		old->sa_handler(sig);
	}
}

void pl_catch_faults(void)
{
	struct sigaction sa;

	if (S.faults)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (pl_real_sigaction(SIGSEGV, &sa, &S.old[0]) == 0 &&
	    pl_real_sigaction(SIGBUS, &sa, &S.old[1]) == 0)
		__atomic_store_n(&S.faults, true, __ATOMIC_RELEASE);
}

int pl_sigaction_hook(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev;

	if ((sig != SIGSEGV && sig != SIGBUS) || !__atomic_load_n(&S.faults, __ATOMIC_ACQUIRE))
		return -1;
	prev = *old_action(sig);
	if (act)
		*old_action(sig) = *act;
	if (old)
		*old = prev;
	return 0;
}

/* ---- the write ---- */

/* Copies @n bytes of the iovecs from (*i, *off) on. */
static size_t iov_take(const struct iovec *iov, int cnt, int *i, size_t *off, void *dst, size_t n)
{
	unsigned char *d = dst;
	size_t done = 0;

	while (done < n && *i < cnt) {
		size_t len = iov[*i].iov_len, k;

		if (*off >= len) {
			(*i)++;
			*off = 0;
			continue;
		}
		k = len - *off < n - done ? len - *off : n - done;
		ue_copy_exact(d + done, (const unsigned char *)iov[*i].iov_base + *off, k);
		done += k;
		*off += k;
	}
	return done;
}

/* The rest of @v (read once: its lengths add up to what was reserved) from (@i, @off) on. */
static inline void snap_take(const struct iovec *v, int cnt, int i, size_t off, unsigned char *d)
{
	for (; i < cnt; i++, off = 0) {
		size_t k = v[i].iov_len - off;

		ue_copy_exact(d, (const unsigned char *)v[i].iov_base + off, k);
		d += k;
	}
}

/*
 * The kernel's copy of the vector: any negative length first, then
 * access_ok().  Vectors of up to PL_SNAP_IOV are read once, into @snap.
 * Return: 0 and *@total (at most PL_MAX_RW), -EINVAL or -EFAULT.
 */
static inline int vec_check(const struct iovec *iov, int cnt, struct iovec *snap, uint64_t *total)
{
	uint64_t sum = 0, any = 0, last = 0;
	int k;

	/*
	 * access_ok() of each: b + l <= PL_USER_END without wrapping.  Where
	 * neither b nor l is over PL_USER_END (@any says), b + l cannot wrap
	 * and the highest end decides; nor can the sum of 1024 lengths, clamped once.
	 */
	for (k = 0; k < cnt; k++) {
		uint64_t b = (uint64_t)(uintptr_t)iov[k].iov_base, l = iov[k].iov_len;

		if (snap) {
			snap[k].iov_base = (void *)(uintptr_t)b;
			snap[k].iov_len = l;
		}
		any |= b | l;
		last = b + l > last ? b + l : last;
		sum += l;
	}
	if (__builtin_expect(any > PL_USER_END || last > PL_USER_END, 0)) {
		const struct iovec *v = snap ? snap : iov;

		for (k = 0; k < cnt; k++)
			if ((ssize_t)v[k].iov_len < 0)
				return -EINVAL;
		return -EFAULT;
	}
	*total = sum > PL_MAX_RW ? PL_MAX_RW : sum;
	return 0;
}

/* Whether one of @x's enable words says the event is on. */
static bool index_enabled(const struct pl_index *x)
{
	uint32_t n = __atomic_load_n(&x->nen, __ATOMIC_ACQUIRE);

	for (uint32_t k = 0; k < n && k < PL_MAX_EN; k++) {
		const struct pl_enabler *e = &x->en[k];
		uint64_t w;

		if (e->size == 8)
			w = __atomic_load_n((const uint64_t *)(uintptr_t)e->addr, __ATOMIC_RELAXED);
		else
			w = __atomic_load_n((const uint32_t *)(uintptr_t)e->addr, __ATOMIC_RELAXED);
		if (w >> e->bit & 1)
			return true;
	}
	return false;
}

/* The slot of @x in this process's session and this thread's ring, made if need be. */
static bool ready(struct pl_index *x, int fd, struct pl_thread *t)
{
	uint32_t gen = pl_process_gen();
	bool ok = true;

	if (__builtin_expect(x->gen == gen && t->hdr && t->gen == gen, 1))
		return true;
	if (!pl_lock())
		return false;
	if (x->gen != S.gen) {
		uint32_t slot = pl_session_add(fd, x->ev);

		if (slot) {
			x->slot = slot;
			__atomic_store_n(&x->gen, S.gen, __ATOMIC_RELEASE);
		} else {
			ok = false;
		}
	}
	if (ok && (!t->hdr || t->gen != S.gen))
		ok = ring_new(t);
	pl_unlock();
	return ok;
}

/* The daemon's heartbeat is old: whether its end of the session is gone. */
static bool daemon_gone(struct pl_thread *t)
{
	char c;
	ssize_t k;

	if (__atomic_load_n(&t->hdr->state, __ATOMIC_ACQUIRE) == UE_RING_DEAD)
		return true;
	k = recv(S.sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* Whether @need bytes fit in a ring of @size from @head, the consumer at @tail. */
static inline bool room(uint64_t head, uint64_t tail, uint64_t size, uint64_t need)
{
	return head - tail <= size && need <= size - (head - tail);
}

enum { PH_USER, PH_ENABLE };

/*
 * The write, with pl_writev()'s fault catcher armed in @jb: user memory is
 * read with t->catch = @jb, a fault comes back in pl_writev() with
 * t->phase saying what was read.
 */
static __attribute__((noinline)) ssize_t write_in(struct pl_thread *t, pl_jmp_buf *jb,
						  struct pl_file *f, int fd,
						  const struct iovec *iov, int iovcnt)
{
	struct iovec snap[PL_SNAP_IOV];
	const struct iovec *v;
	struct ue_native_rec *rec;
	const struct ue_check *check;
	struct pl_index *x;
	uint64_t total, head, pos, need, pad, now, beat, size;
	size_t payload, off;
	ssize_t ret;
	uint32_t idx;
	int i;

	t->phase = PH_USER;
	t->catch = jb;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	v = iovcnt <= PL_SNAP_IOV ? snap : iov;
	ret = vec_check(iov, iovcnt, v == snap ? snap : NULL, &total);
	if (ret || total == 0)
		goto out;
	/* The common shape, [write_index][payload...]: the index is the first vector. */
	if (__builtin_expect(v[0].iov_len >= sizeof(idx), 1)) {
		__builtin_memcpy(&idx, v[0].iov_base, sizeof(idx));
		i = 0;
		off = sizeof(idx);
	} else {
		i = 0;
		off = 0;
		if (iov_take(v, iovcnt, &i, &off, &idx, sizeof(idx)) != sizeof(idx)) {
			ret = -EFAULT;
			goto out;
		}
	}
	if (idx > INT32_MAX) {
		ret = -EINVAL;
		goto out;
	}
	/* An index this process did not see registered: the system call knows it. */
	x = idx / PL_CHUNK < PL_CHUNKS ? __atomic_load_n(&f->chunks[idx / PL_CHUNK],
							 __ATOMIC_ACQUIRE) : NULL;
	if (x)
		x += idx % PL_CHUNK;
	if (!x || !__atomic_load_n(&x->ev, __ATOMIC_ACQUIRE)) {
		ret = -ENOSYS;
		goto out;
	}
	check = x->ev->check;
	payload = (size_t)total - sizeof(idx);
	if (payload < check->min_size) {
		ret = -EINVAL;
		goto out;
	}
	/* Disabled (or no enable word known): the daemon answers, EBADF or the write. */
	t->phase = PH_ENABLE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!index_enabled(x) || payload > UE_MAX_PAYLOAD) {
		ret = -ENOSYS;
		goto out;
	}
	t->catch = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->phase = PH_USER;
	pl_check_fork();
	if (S.dead || !ready(x, fd, t)) {
		ret = -ENOSYS;
		goto out;
	}
	now = ue_ring_stamp(t->hdr, t->tsc, &beat);
	/* Signed: another CPU's counter may be a little behind the daemon's. */
	if (__builtin_expect((int64_t)(now - beat) > (int64_t)t->stale, 0) && daemon_gone(t)) {
		S.dead = true;
		ret = -ENOSYS;
		goto out;
	}
	need = (sizeof(*rec) + payload + 7) & ~7ull;
	size = (uint64_t)t->mask + 1;
	head = t->hdr->head;
	pos = head & t->mask;
	pad = pos + need > size ? size - pos : 0;
	/*
	 * The daemon's tail as last read: the shared one (a line the daemon
	 * writes) only when that is not room enough.  Full: the daemon's
	 * buffer still takes it, through the system call.
	 */
	if (!room(head, t->tail, size, need + pad)) {
		t->tail = __atomic_load_n(&t->hdr->tail, __ATOMIC_ACQUIRE);
		/* The drain is behind: wait for it (bounded by the daemon), then the system call. */
		if (!room(head, t->tail, size, need + pad))
			t->tail = ue_native_ring_wait(t->hdr, head, need + pad);
		if (!room(head, t->tail, size, need + pad)) {
			ret = -ENOSYS;
			goto out;
		}
	}
	if (pad) {
		rec = (struct ue_native_rec *)(t->data + pos);
		rec->len = (uint32_t)pad;
		rec->id = 0;
		head += pad;
		pos = 0;
	}
	rec = (struct ue_native_rec *)(t->data + pos);
	t->catch = jb;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* Bounded by what was reserved, whatever another thread does to the vector meanwhile. */
	if (v == snap) {
		snap_take(snap, iovcnt, i, off, (unsigned char *)(rec + 1));
	} else if (iov_take(iov, iovcnt, &i, &off, rec + 1, payload) != payload) {
		ret = -EFAULT;
		goto out;
	}
	t->catch = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/*
	 * A record the validator refuses: the kernel says EFAULT only when it
	 * would store it (recording on, the event not soft-disabled), which
	 * the daemon knows.  Rare: it answers, nothing is committed here.
	 */
	if (check->nlocs && ue_check_record(check, rec->entry, UE_ENTRY_HDR_SIZE + payload) < 0) {
		ret = -ENOSYS;
		goto out;
	}
	rec->len = (uint32_t)need;
	rec->id = x->slot;
	rec->ts_ns = now;
	rec->cpu = ue_this_cpu();
	rec->payload_len = (uint32_t)payload;
	__atomic_store_n(&t->hdr->head, head + need, __ATOMIC_RELEASE);
	ret = (ssize_t)total;
out:
	t->catch = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return ret;
}

/*
 * The fault catcher's jump buffer lives here, in a function that does
 * nothing else: __builtin_setjmp() makes GCC keep every value of its
 * function in memory across it (and save every callee-saved register),
 * which in the write itself cost ~5 ns of its ~47 (bench_raw interposed,
 * producer and daemon pinned apart).
 */
ssize_t pl_writev(struct pl_file *f, int fd, const struct iovec *iov, int iovcnt)
{
	struct pl_thread *t = &pl_t;
	pl_jmp_buf jb;
	ssize_t ret;

	/* The kernel checks the vector before anything else. */
	if (iovcnt < 0 || iovcnt > PL_MAX_IOV)
		return -EINVAL;
	if (iovcnt == 0)
		return 0;
	/* A signal handler on top of our own write: its write takes the system call. */
	if (t->busy || !f->writable || !__atomic_load_n(&S.faults, __ATOMIC_ACQUIRE))
		return -ENOSYS;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (pl_setjmp(jb))
		ret = t->phase == PH_ENABLE ? -ENOSYS : -EFAULT;
	else
		ret = write_in(t, &jb, f, fd, iov, iovcnt);
	t->catch = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
	return ret;
}
