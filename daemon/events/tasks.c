// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tasks: the tid -> comm/tgid cache records are stored with (fs-data.c,
 * fs-marker.c), and the saved_cmdlines table of tasks whose records were
 * stored (fs-data.c, fs-marker.c, native-drain.c) or read (fs-raw.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"
#include "tasks.h"

/* Seconds a cached comm is trusted before it is read again. */
#define TASK_REFRESH_NS 1000000000ull
#define TASK_SLOTS 1024

struct task_slot {
	pid_t tid;
	pid_t tgid;
	uint64_t stamp_ns;
	char comm[16];
};

struct ue_tasks {
	struct ue_mutex lock;
	struct task_slot slots[TASK_SLOTS];
};

/* A table whose first member is its lock, zeroed; NULL: no memory. */
static void *table_new(size_t size, enum ue_lock_rank rank)
{
	struct ue_mutex *lock = calloc(1, size);

	if (lock)
		ue_mutex_init(lock, rank);
	return lock;
}

static void table_free(void *table)
{
	if (!table)
		return;
	ue_mutex_destroy(table);
	free(table);
}

_Static_assert(offsetof(struct ue_tasks, lock) == 0, "a table's lock comes first");

int ue_tasks_new(struct ue_tasks **ret)
{
	struct ue_tasks *t = table_new(sizeof(*t), UE_LOCK_TASKS);

	if (t)
		*ret = t;
	return t ? 0 : -ENOMEM;
}

void ue_tasks_free(struct ue_tasks *tasks)
{
	table_free(tasks);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static ssize_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

void ue_task_lookup(struct ue_tasks *tasks, pid_t tid, struct ue_rec_meta *meta)
{
	struct task_slot *slot = &tasks->slots[(unsigned int)tid % TASK_SLOTS];
	uint64_t now = now_ns();
	char path[64], buf[1024];
	struct task_slot fresh;
	const char *p;

	meta->tid = tid;
	meta->tgid = tid;
	meta->comm[0] = '\0';
	if (tid <= 0)
		return;
	ue_mutex_lock(&tasks->lock);
	if (slot->tid == tid && now - slot->stamp_ns < TASK_REFRESH_NS) {
		meta->tgid = slot->tgid;
		memcpy(meta->comm, slot->comm, sizeof(meta->comm));
		ue_mutex_unlock(&tasks->lock);
		return;
	}
	ue_mutex_unlock(&tasks->lock);

	memset(&fresh, 0, sizeof(fresh));
	fresh.tid = tid;
	fresh.tgid = tid;
	fresh.stamp_ns = now;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	if (read_small(path, buf, sizeof(buf)) > 0) {
		size_t n = strcspn(buf, "\n");

		if (n > sizeof(fresh.comm) - 1)
			n = sizeof(fresh.comm) - 1;
		memcpy(fresh.comm, buf, n);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_small(path, buf, sizeof(buf)) > 0) {
		p = strstr(buf, "\nTgid:");
		if (p)
			fresh.tgid = (pid_t)strtol(p + 6, NULL, 10);
	}
	ue_mutex_lock(&tasks->lock);
	*slot = fresh;
	ue_mutex_unlock(&tasks->lock);
	meta->tgid = fresh.tgid;
	memcpy(meta->comm, fresh.comm, sizeof(meta->comm));
}

struct cmd_slot {
	int32_t pid;		/* 0: free */
	int32_t tgid;
	char comm[16];
};

struct ue_cmdlines {
	struct ue_mutex lock;
	struct cmd_slot slots[UE_CMDLINES_SLOTS];
};

_Static_assert(offsetof(struct ue_cmdlines, lock) == 0, "a table's lock comes first");

int ue_cmdlines_new(struct ue_cmdlines **ret)
{
	struct ue_cmdlines *c = table_new(sizeof(*c), UE_LOCK_CMDLINES);

	if (c)
		*ret = c;
	return c ? 0 : -ENOMEM;
}

void ue_cmdlines_free(struct ue_cmdlines *c)
{
	table_free(c);
}

void ue_cmdlines_remember(struct ue_cmdlines *c, const struct ue_rec_meta *m)
{
	struct cmd_slot *s;

	if (m->tid <= 0 || !m->comm[0])
		return;
	s = &c->slots[(unsigned int)m->tid % UE_CMDLINES_SLOTS];
	ue_mutex_lock(&c->lock);
	s->pid = m->tid;
	s->tgid = m->tgid;
	memcpy(s->comm, m->comm, sizeof(s->comm));
	s->comm[sizeof(s->comm) - 1] = '\0';
	ue_mutex_unlock(&c->lock);
}

void ue_cmdlines_foreach(struct ue_cmdlines *c,
			 void (*fn)(void *arg, pid_t pid, pid_t tgid, const char *comm), void *arg)
{
	ue_mutex_lock(&c->lock);
	for (unsigned int i = 0; i < UE_CMDLINES_SLOTS; i++) {
		const struct cmd_slot *s = &c->slots[i];

		if (s->pid)
			fn(arg, s->pid, s->tgid, s->comm);
	}
	ue_mutex_unlock(&c->lock);
}
