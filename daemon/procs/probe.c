// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * probe: the looks at another process that may wait for its exec, made on
 * a few worker threads and waited for with a bound.  kcmp() and the open
 * of /proc/<pid>/mem take the process's exec_update_lock; an exec holds it
 * while it closes the close-on-exec descriptors, and the FLUSH of one on
 * this daemon's mount waits for this daemon.  A proof that waited plainly
 * could wait for itself (a request handler, or the listener an upgrade
 * pauses for).  See docs/processes.md.
 */
#include "probe.h"

#include <errno.h>
#include <linux/kcmp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"

/*
 * Each look gets a worker of its own at once: a queue behind workers held
 * up by one exec would hold up every other look too, and with them the
 * request handlers that could answer that exec's FLUSH.  At most
 * PROBE_THREADS (more looks wait for one, within their bound); at most
 * PROBE_IDLE wait for work, the others end.
 */
#define PROBE_THREADS 64
#define PROBE_IDLE 4

enum probe_kind { PROBE_KCMP_VM, PROBE_PROCMEM_OPEN };

struct job {
	enum probe_kind kind;
	pid_t a, b;
	int result;
	struct ue_procmem *mem;
	bool done, abandoned;
	struct job *next;
};

static struct {
	struct ue_mutex lock;
	pthread_cond_t work, done;
	struct job *head, **tail;
	unsigned int threads, idle, queued;
	uint64_t timeouts;
} pool = { .tail = &pool.head };

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

static void pool_init(void)
{
	pthread_condattr_t ca;

	ue_mutex_init(&pool.lock, UE_LOCK_PROBES);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pool.work, NULL);
	pthread_cond_init(&pool.done, &ca);
	pthread_condattr_destroy(&ca);
}

static void run(struct job *j)
{
	if (j->kind == PROBE_KCMP_VM) {
		long r = syscall(SYS_kcmp, j->a, j->b, KCMP_VM, 0, 0);

		j->result = r < 0 ? -errno : r == 0;
	} else {
		j->result = ue_procmem_open(j->a, &j->mem);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	ue_mutex_lock(&pool.lock);
	for (;;) {
		struct job *j;

		if (!pool.head && pool.idle >= PROBE_IDLE)
			break;
		while (!pool.head) {
			pool.idle++;
			ue_cond_wait(&pool.work, &pool.lock);
			pool.idle--;
		}
		j = pool.head;
		pool.queued--;
		pool.head = j->next;
		if (!pool.head)
			pool.tail = &pool.head;
		ue_mutex_unlock(&pool.lock);
		run(j);
		ue_mutex_lock(&pool.lock);
		j->done = true;
		if (j->abandoned) {
			/* Its caller gave up: what it found goes. */
			ue_procmem_close(j->mem);
			free(j);
		} else {
			pthread_cond_broadcast(&pool.done);
		}
	}
	pool.threads--;
	ue_mutex_unlock(&pool.lock);
	return NULL;
}

/* Run @j on a worker; 0 when it ran within @ms (and @j is the caller's), else -ETIMEDOUT or -errno. */
static int submit(struct job *j, unsigned int ms)
{
	struct timespec deadline;
	int r = 0;

	pthread_once(&pool_once, pool_init);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += ms / 1000;
	deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	ue_mutex_lock(&pool.lock);
	/* Idle workers are for the looks queued already: this one may need another. */
	if (pool.idle <= pool.queued && pool.threads < PROBE_THREADS) {
		pthread_attr_t at;
		pthread_t t;

		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&at, 64 * 1024);
		if (pthread_create(&t, &at, worker, NULL) == 0)
			pool.threads++;
		pthread_attr_destroy(&at);
	}
	if (!pool.threads) {
		ue_mutex_unlock(&pool.lock);
		return -EAGAIN;
	}
	j->next = NULL;
	*pool.tail = j;
	pool.tail = &j->next;
	pool.queued++;
	pthread_cond_signal(&pool.work);
	while (!j->done && r == 0)
		r = ue_cond_timedwait(&pool.done, &pool.lock, &deadline);
	if (!j->done) {
		struct job **pp;

		pool.timeouts++;

		for (pp = &pool.head; *pp && *pp != j; pp = &(*pp)->next)
			;
		if (*pp) {
			/* Still queued: behind workers that all wait. */
			*pp = j->next;
			if (!*pp)
				pool.tail = pp;
			pool.queued--;
			free(j);
		} else {
			j->abandoned = true;
		}
		ue_mutex_unlock(&pool.lock);
		return -ETIMEDOUT;
	}
	ue_mutex_unlock(&pool.lock);
	return 0;
}

/* One look of @kind, its handle (an open's) at *@ret_pm. */
static int probe(enum probe_kind kind, pid_t a, pid_t b, unsigned int ms, struct ue_procmem **ret_pm)
{
	struct job *j = calloc(1, sizeof(*j));
	int r;

	if (!j)
		return -ENOMEM;
	j->kind = kind;
	j->a = a;
	j->b = b;
	r = submit(j, ms);
	if (r == -ETIMEDOUT)
		return r;	/* the job is the worker's now */
	if (r == 0) {
		r = j->result;
		if (r >= 0 && ret_pm)
			*ret_pm = j->mem;
	}
	free(j);
	return r;
}

int ue_probe_kcmp_vm(pid_t a, pid_t b, unsigned int ms)
{
	return probe(PROBE_KCMP_VM, a, b, ms, NULL);
}

int ue_probe_procmem_open(pid_t pid, unsigned int ms, struct ue_procmem **ret_pm)
{
	return probe(PROBE_PROCMEM_OPEN, pid, 0, ms, ret_pm);
}

uint64_t ue_probe_timeouts(void)
{
	uint64_t n;

	pthread_once(&pool_once, pool_init);
	ue_mutex_lock(&pool.lock);
	n = pool.timeouts;
	ue_mutex_unlock(&pool.lock);
	return n;
}
