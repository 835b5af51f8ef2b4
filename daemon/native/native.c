// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * native: the native path of one daemon (struct ue_native_server), its
 * socket, life and counters.  A session of each client is
 * native-session.c's, the drain of their rings native-drain.c's, the lot in
 * a state snapshot native-snap.c's.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "lock.h"
#include "native.h"
#include "native-int.h"
#include "native-proto.h"

/* MOUNTPOINT/user_events_data as /proc shows a descriptor of it. */
int ue_native_find_data_path(const char *mountpoint, char *ret_data_path)
{
	char real[PATH_MAX];

	/* Not stat(): the FUSE loop does not run yet, our own mount would not answer. */
	if (!realpath(mountpoint, real))
		return -errno;
	if (strlen(real) + sizeof("/user_events_data") > PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(ret_data_path, real);
	strcat(ret_data_path, "/user_events_data");
	return 0;
}

/*
 * A name of our own: the previous daemon of this mount may live on (stopped,
 * dumping core, exiting) and hold any name derived from the mount, and
 * nobody can take an abstract name from a live socket.  An unguessable name
 * cannot be taken first either.  Clients learn it from the mount itself
 * (UE_NATIVE_XATTR on user_events_data).
 */
static int bind_unique(struct ue_native_server *nat)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned long long rnd;
		int len;

		if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			rnd = ue_buffer_clock_ns() ^ ((unsigned long long)tries << 48);
		memset(nat->addr.sun_path, 0, sizeof(nat->addr.sun_path));
		len = snprintf(nat->addr.sun_path + 1, sizeof(nat->addr.sun_path) - 1,
			       UE_NATIVE_SOCK_FMT, (int)getpid(), rnd);
		nat->addr_len =
			(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
		if (bind(nat->lsock, (struct sockaddr *)&nat->addr, nat->addr_len) == 0)
			return listen(nat->lsock, 64) < 0 ? -errno : 0;
		if (errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

/* The listener's socket closed and @nat freed: a start that failed, or the stop. */
void ue_native_free(struct ue_native_server *nat)
{
	if (nat->lsock >= 0)
		close(nat->lsock);
	if (nat->pause_fd >= 0)
		close(nat->pause_fd);
	free(nat->stage);
	pthread_cond_destroy(&nat->wake);
	ue_mutex_destroy(&nat->wake_lock);
	ue_mutex_destroy(&nat->lock);
	free(nat);
}

/* Whether new rings may be stamped with the counter: the kernel's clocksource is it. */
bool ue_native_tsc_offered(void)
{
	const char *env = getenv("USEREVENTSD_TSC");
	char cs[16] = "";
	FILE *f;

	if (!UE_TSC_AVAILABLE || (env && !strcmp(env, "0")))
		return false;
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (!f)
		return false;
	if (!fgets(cs, sizeof(cs), f))
		cs[0] = 0;
	fclose(f);
	return !strcmp(cs, "tsc\n");
}

void ue_native_tsc_init(struct ue_native_server *nat, bool offer)
{
	if (!UE_TSC_AVAILABLE)
		return;
	/* Two anchors a millisecond apart make the first slope; the drain's passes refine it. */
	ue_native_tsc_anchor(nat);
	for (int i = 0; i < 100 && !nat->tsc.ready; i++) {
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		ue_native_tsc_anchor(nat);
	}
	if (offer && nat->tsc.ready) {
		uint64_t per_ms = ue_tsc_clock_per_ms(&nat->tsc);

		nat->tsc_per_ms = per_ms && per_ms <= UINT32_MAX ? (uint32_t)per_ms : 0;
		nat->tsc_offer = nat->tsc_per_ms;
	}
}

struct ue_native_server *ue_native_alloc(const struct ue_native_deps *deps)
{
	struct ue_native_server *nat = calloc(1, sizeof(*nat));
	pthread_condattr_t ca;

	if (!nat)
		return NULL;
	nat->lsock = -1;
	nat->pause_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ue_mutex_init(&nat->lock, UE_LOCK_NATIVE);
	ue_mutex_init(&nat->wake_lock, UE_LOCK_NATIVE_WAKE);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&nat->wake, &ca);
	pthread_condattr_destroy(&ca);
	nat->reg = deps->reg;
	nat->buf = deps->buf;
	nat->cmdlines = deps->cmdlines;
	nat->counts = deps->counts;
	nat->addr.sun_family = AF_UNIX;
	nat->stage = calloc(1, sizeof(*nat->stage));
	if (!nat->stage || nat->pause_fd < 0) {
		ue_native_free(nat);
		return NULL;
	}
	ue_native_tsc_init(nat, ue_native_tsc_offered());
	return nat;
}

/* The listener and the drain. */
int ue_native_threads_start(struct ue_native_server *nat)
{
	nat->stop = false;
	if (pthread_create(&nat->listener, NULL, ue_native_listener_main, nat) != 0)
		return -EAGAIN;
	if (pthread_create(&nat->drain, NULL, ue_native_drain_main, nat) != 0) {
		nat->stop = true;
		pthread_join(nat->listener, NULL);
		return -EAGAIN;
	}
	return 0;
}

int ue_native_start(const struct ue_native_deps *deps, const char *mountpoint,
		    struct ue_native_server **ret)
{
	struct ue_native_server *nat = ue_native_alloc(deps);
	int r;

	if (!nat)
		return -ENOMEM;
	r = ue_native_find_data_path(mountpoint, nat->data_path);
	if (r < 0)
		goto fail;
	nat->lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (nat->lsock < 0) {
		r = -errno;
		goto fail;
	}
	r = bind_unique(nat);
	if (r < 0)
		goto fail;
	r = ue_native_threads_start(nat);
	if (r < 0)
		goto fail;
	*ret = nat;
	return 0;
fail:
	ue_native_free(nat);
	return r;
}

void ue_native_pause(struct ue_native_server *nat)
{
	if (!nat || nat->paused)
		return;
	nat->stop = true;
	ue_native_drain_wake(nat);
	/* The listener, and each session thread between two requests, return. */
	(void)!write(nat->pause_fd, &(uint64_t){ 1 }, sizeof(uint64_t));
	pthread_join(nat->listener, NULL);
	pthread_join(nat->drain, NULL);
	for (struct nsession *s = nat->sessions; s; s = s->next) {
		pthread_join(s->thread, NULL);
		s->done = true;
	}
	/* What the rings hold now, into the buffer (and the channels)... */
	ue_native_sync(nat);
	/* ...and every page of the readers' channels holding records goes to them. */
	for (struct nsession *s = nat->sessions; s; s = s->next)
		if (s->chan)
			ue_buffer_chan_tick(nat->buf, ue_buffer_clock_ns(), s->chan);
	nat->paused = true;
}

int ue_native_resume(struct ue_native_server *nat)
{
	int r = 0;

	if (!nat || !nat->paused)
		return 0;
	(void)!read(nat->pause_fd, &(uint64_t){ 0 }, sizeof(uint64_t));
	for (struct nsession *s = nat->sessions; s && !r; s = s->next) {
		if (pthread_create(&s->thread, NULL, ue_native_session_main, s) != 0)
			r = -EAGAIN;
		else
			s->done = false;
	}
	if (!r)
		r = ue_native_threads_start(nat);
	nat->paused = r < 0;
	return r;
}

void ue_native_stop(struct ue_native_server *nat)
{
	if (!nat)
		return;
	nat->stop = true;
	ue_native_drain_wake(nat);
	pthread_join(nat->listener, NULL);
	pthread_join(nat->drain, NULL);
	ue_mutex_lock(&nat->lock);
	for (struct nsession *s = nat->sessions; s; s = s->next)
		shutdown(s->sock, SHUT_RDWR);
	ue_mutex_unlock(&nat->lock);
	while (nat->sessions) {
		struct nsession *s = nat->sessions;

		nat->sessions = s->next;
		ue_native_session_free(s);
	}
	ue_native_free(nat);
}

const char *ue_native_name(const struct ue_native_server *nat)
{
	return nat ? nat->addr.sun_path + 1 : NULL;
}

int ue_native_stats_text(struct ue_native_server *nat, char *buf, size_t len)
{
	uint64_t rings = 0, rings_tsc = 0, dropped = 0, pending = 0, total = 0, records = 0, invalid = 0;
	uint64_t interposed = 0, chan_bytes = 0, lost_reconnect = 0;
	unsigned int sessions = 0, chans = 0;

	if (nat) {
		ue_mutex_lock(&nat->lock);
		dropped = nat->dropped_gone;
		sessions = nat->nsessions;
		total = nat->sessions_total;
		records = nat->records;
		invalid = nat->invalid;
		interposed = nat->records_preload;
		lost_reconnect = nat->lost_reconnect;
		for (struct nsession *s = nat->sessions; s; s = s->next) {
			for (struct nring *g = s->rings; g; g = g->next) {
				rings++;
				rings_tsc += g->tsc;
				dropped += __atomic_load_n(&g->hdr->dropped, __ATOMIC_RELAXED);
				pending += __atomic_load_n(&g->hdr->head, __ATOMIC_RELAXED) -
					   g->hdr->tail;
			}
		}
		ue_mutex_unlock(&nat->lock);
		ue_buffer_chan_usage(nat->buf, &chans, &chan_bytes);
	}
	return snprintf(buf, len,
			"native_sessions: %u\nnative_sessions_total: %llu\nnative_rings: %llu\n"
			"native_rings_tsc: %llu\nnative_records: %llu\nnative_dropped_ring_full: %llu\n"
			"native_invalid: %llu\nnative_pending_bytes: %llu\n"
			"native_records_interposed: %llu\n"
			"native_lost_reconnect: %llu\n"
			"consumer_channels: %u\nconsumer_channel_bytes: %llu\n",
			sessions, (unsigned long long)total, (unsigned long long)rings,
			(unsigned long long)rings_tsc, (unsigned long long)records, (unsigned long long)dropped,
			(unsigned long long)invalid, (unsigned long long)pending,
			(unsigned long long)interposed, (unsigned long long)lost_reconnect, chans,
			(unsigned long long)chan_bytes);
}
