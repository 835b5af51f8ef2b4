// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * provider: the public entry points of libuserevents.  Opening and closing
 * a provider, registering and unregistering events through the raw ABI
 * (DIAG_IOCSREG/DIAG_IOCSUNREG/DIAG_IOCSDEL) and writing them, through the
 * native path when there is one, else writev() on user_events_data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core.h"
#include "userevents/abi.h"
#include "lib.h"
#include "native-proto.h"

/*
 * Every open provider, so that fork() can leave their locks usable and the
 * watcher (reconnect.c) finds them.
 */
pthread_mutex_t ue__providers_lock = PTHREAD_MUTEX_INITIALIZER;
struct ue_provider *ue__providers;
#define providers_lock ue__providers_lock
#define providers ue__providers
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void fork_prepare(void)
{
	pthread_mutex_lock(&providers_lock);
	for (struct ue_provider *p = providers; p; p = p->next_open)
		pthread_mutex_lock(&p->lock);
}

static void fork_parent(void)
{
	for (struct ue_provider *p = providers; p; p = p->next_open)
		pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&providers_lock);
}

static void fork_child(void)
{
	int saved = errno;
	bool told = false;

	/*
	 * The descriptors are shared with the parent and the enable words are
	 * kept current in the child by the kernel (or the daemon): only the
	 * per-thread rings of the native path belong to the parent's threads.
	 * A daemon learns of the fork now, before fork() returns here, so the
	 * enable words follow from the child's first instruction on (its
	 * children poller would take up to 50 ms, the proc connector's path
	 * 20).  One ioctl, a system call: safe in the child of a threaded parent.
	 */
	for (struct ue_provider *p = providers; p; p = p->next_open) {
		ue__native_after_fork_child(p);
		if (p->backend == UE_BACKEND_DAEMON && !told)
			told = ioctl(p->fd, UE_IOC_FORKED, 0) == 0;
		pthread_mutex_unlock(&p->lock);
	}
	/* The watcher did not come with us: the child gets its own. */
	ue__watch_after_fork_child();
	pthread_mutex_unlock(&providers_lock);
	errno = saved;
}

static void atfork_init(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

UE_API int ue_provider_open(const struct ue_provider_opts *opts, struct ue_provider **ret_provider)
{
	struct ue_provider_opts o = { 0 };
	struct ue_provider *p;
	int fd;

	if (!ret_provider)
		return -EINVAL;
	if (opts) {
		if (opts->sz < sizeof(size_t))
			return -EINVAL;
		/* A newer caller's extra fields must be zero: we would ignore them. */
		for (size_t i = sizeof(o); i < opts->sz; i++)
			if (((const unsigned char *)opts)[i])
				return -E2BIG;
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	}
	if (o.flags & ~(UE_PROVIDER_NO_NATIVE | UE_PROVIDER_NO_KERNEL))
		return -EINVAL;
	pthread_once(&atfork_once, atfork_init);
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	fd = ue__find_tracefs(o.tracefs, o.flags & UE_PROVIDER_NO_KERNEL, p->tracefs, &p->backend);
	if (fd < 0) {
		free(p);
		return fd;
	}
	p->fd = fd;
	p->flags = o.flags;
	pthread_mutex_init(&p->lock, NULL);
	/* The native path is an optimisation: without it the provider works through writev. */
	if (p->backend == UE_BACKEND_DAEMON && !(o.flags & UE_PROVIDER_NO_NATIVE))
		ue__native_open(p);
	pthread_mutex_lock(&providers_lock);
	p->next_open = providers;
	providers = p;
	/* A daemon can die: a thread of ours watches for that, and for its successor. */
	if (p->backend == UE_BACKEND_DAEMON)
		ue__watch_start_locked();
	pthread_mutex_unlock(&providers_lock);
	*ret_provider = p;
	return 0;
}

static int unregister_locked(struct ue_tracepoint *tp)
{
	struct ue_provider *p = tp->provider;
	struct user_unreg u;
	int r = 0;

	ue__native_remove(tp);
	memset(&u, 0, sizeof(u));
	u.size = sizeof(u);
	u.disable_addr = (uintptr_t)&tp->enabled;
	u.disable_bit = 0;
	/* Not registered with the daemon serving now (or none serves): nothing to undo there. */
	if (!(tp->reserved & UE_TP_PENDING) && !__atomic_load_n(&p->gone, __ATOMIC_ACQUIRE) &&
	    ioctl(p->fd, DIAG_IOCSUNREG, &u) < 0 && errno != ENOTCONN)
		r = -errno;
	for (struct ue_tracepoint **pp = &p->events; *pp; pp = &(*pp)->next) {
		if (*pp == tp) {
			*pp = tp->next;
			break;
		}
	}
	tp->next = NULL;
	__atomic_store_n(&tp->provider, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&tp->enabled, 0, __ATOMIC_RELAXED);
	return r;
}

UE_API void ue_provider_close(struct ue_provider *provider)
{
	if (!provider)
		return;
	pthread_mutex_lock(&providers_lock);
	for (struct ue_provider **pp = &providers; *pp; pp = &(*pp)->next_open) {
		if (*pp == provider) {
			*pp = provider->next_open;
			break;
		}
	}
	ue__watch_forget_locked(provider);
	pthread_mutex_unlock(&providers_lock);
	pthread_mutex_lock(&provider->lock);
	while (provider->events)
		unregister_locked(provider->events);
	pthread_mutex_unlock(&provider->lock);
	ue__native_close(provider);
	close(provider->fd);
	pthread_mutex_destroy(&provider->lock);
	free(provider);
}

UE_API int ue_provider_backend(const struct ue_provider *provider)
{
	return provider ? provider->backend : -EINVAL;
}

UE_API const char *ue_provider_tracefs(const struct ue_provider *provider)
{
	return provider ? provider->tracefs : NULL;
}

UE_API bool ue_provider_native(const struct ue_provider *provider)
{
	return provider && __atomic_load_n(&provider->native, __ATOMIC_ACQUIRE);
}

UE_API uint64_t ue_provider_lost(const struct ue_provider *provider)
{
	return provider ? __atomic_load_n(&provider->lost, __ATOMIC_RELAXED) : 0;
}

UE_API int ue_provider_delete(struct ue_provider *provider, const char *name)
{
	if (!provider || !name)
		return -EINVAL;
	return ioctl(provider->fd, DIAG_IOCSDEL, name) < 0 ? -errno : 0;
}

int ue__tp_register(struct ue_provider *p, struct ue_tracepoint *tp)
{
	struct user_reg reg;

	/* None serves now: the next one gets it (reconnect.c). */
	if (__atomic_load_n(&p->gone, __ATOMIC_ACQUIRE))
		return -ENOTCONN;
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (uintptr_t)tp->name_args;
	reg.enable_addr = (uintptr_t)&tp->enabled;
	reg.enable_size = sizeof(tp->enabled);
	reg.enable_bit = 0;
	reg.flags = (uint16_t)(tp->reserved & UE_TP_FLAGS);
	if (ioctl(p->fd, DIAG_IOCSREG, &reg) < 0)
		return -errno;
	__atomic_store_n(&tp->write_index, reg.write_index, __ATOMIC_RELAXED);
	return 0;
}

UE_API int ue_tracepoint_register(struct ue_provider *provider, struct ue_tracepoint *tp,
				  const struct ue_register_opts *opts)
{
	struct ue_register_opts o = { 0 };
	struct ue_native *n;
	int r = 0;

	if (!provider || !tp || !tp->name_args)
		return -EINVAL;
	if (opts) {
		if (opts->sz < sizeof(size_t))
			return -EINVAL;
		memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	}
	pthread_mutex_lock(&provider->lock);
	if (__atomic_load_n(&tp->provider, __ATOMIC_RELAXED)) {
		r = -EBUSY;
		goto out;
	}
	tp->native_id = 0;
	tp->reserved = o.flags & UE_TP_FLAGS;
	r = ue__tp_register(provider, tp);
	if (r == -ENOTCONN) {
		/*
		 * The daemon died (its watcher may not know yet): the event is
		 * kept, disabled, and registered with the next daemon there,
		 * if the description is one a daemon takes.
		 */
		struct ue_event *desc;

		r = ue_event_parse(tp->name_args, &desc);
		if (r < 0)
			goto out;
		ue_event_free(desc);
		tp->reserved |= UE_TP_PENDING;
		__atomic_store_n(&tp->enabled, 0, __ATOMIC_RELAXED);
		ue__watch_kick(provider);
	} else if (r < 0) {
		goto out;
	}
	tp->next = provider->events;
	provider->events = tp;
	/* A multi-format event's name is not unique: those always go through writev. */
	n = __atomic_load_n(&provider->native, __ATOMIC_ACQUIRE);
	if (n && !(tp->reserved & (UE_TP_PENDING | USER_EVENT_REG_MULTI_FORMAT)))
		ue__native_add(n, tp);
	__atomic_store_n(&tp->provider, provider, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&provider->lock);
	return r;
}

UE_API int ue_tracepoint_unregister(struct ue_tracepoint *tp)
{
	struct ue_provider *p;
	int r;

	if (!tp)
		return -EINVAL;
	p = __atomic_load_n(&tp->provider, __ATOMIC_ACQUIRE);
	if (!p)
		return -ENOENT;
	pthread_mutex_lock(&p->lock);
	r = tp->provider == p ? unregister_locked(tp) : -ENOENT;
	pthread_mutex_unlock(&p->lock);
	return r;
}

UE_API int ue_tracepoint_writev(struct ue_tracepoint *tp, const struct iovec *iov, int iovcnt)
{
	struct ue_provider *p = __atomic_load_n(&tp->provider, __ATOMIC_ACQUIRE);
	struct iovec v[UE_MAX_IOV + 1];
	struct ue_native *nat;
	size_t len = 0;
	uint32_t id;
	ssize_t n;

	if (!p)
		return -ENOENT;
	if (iovcnt < 0 || iovcnt > UE_MAX_IOV || (iovcnt && !iov))
		return -EINVAL;
	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	/* The session, then the slot: a reconnection sets the slots before the session. */
	nat = __atomic_load_n(&p->native, __ATOMIC_ACQUIRE);
	id = __atomic_load_n(&tp->native_id, __ATOMIC_RELAXED);
	if (nat && id) {
		int r = ue__native_write(nat, id, tp, iov, iovcnt, len);

		/* No ring for this thread (limit reached, ...): the system call still works. */
		if (r == -EPIPE)
			goto gone;
		if (r != -EOPNOTSUPP)
			return r;
	}
	if (__builtin_expect(__atomic_load_n(&p->gone, __ATOMIC_ACQUIRE), 0))
		goto gone;
	/* Not registered with the daemon serving now: disabled, as its clear word says. */
	if (__builtin_expect(__atomic_load_n(&tp->reserved, __ATOMIC_RELAXED) & UE_TP_PENDING, 0))
		return -EBADF;
	v[0].iov_base = &tp->write_index;
	v[0].iov_len = sizeof(tp->write_index);
	if (iovcnt)
		memcpy(&v[1], iov, (size_t)iovcnt * sizeof(*iov));
	n = writev(p->fd, v, iovcnt + 1);
	if (n < 0) {
		/* A dead daemon's file (FUSE says ENOTCONN, the kernel never does). */
		if (errno == ENOTCONN) {
			ue__watch_kick(p);
			goto gone;
		}
		return -errno;
	}
	return 0;
gone:
	/* Counted, and told to the next daemon (reconnect.c). */
	__atomic_add_fetch(&p->lost, 1, __ATOMIC_RELAXED);
	return -EPIPE;
}
