// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of daemon/procmem: process identity, the pinned memory handle (no
 * write may land in a program that exec'd or in a reused pid), protections
 * (read-only memory refused even where /proc/<pid>/mem would force it), and
 * the bit update.  Needs root: it opens other processes' /proc/<pid>/mem.
 */
#include <pthread.h>
#include <sys/stat.h>

#include "harness.h"
#include "procmem.h"
#include "target.h"

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Field 22 of /proc/<pid>/stat, parsed here independently of procmem. */
static unsigned long long start_time_of(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long v = 0;
	FILE *f;
	char *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* p + 2 is field 3; skip 19 fields to reach field 22. */
	p += 2;
	for (i = 3; i < 22 && p; i++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		sscanf(p, "%llu", &v);
	return v;
}

static pid_t thread_tid;
static pthread_mutex_t thread_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thread_cv = PTHREAD_COND_INITIALIZER;
static int thread_state;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&thread_mu);
	thread_tid = (pid_t)syscall(SYS_gettid);
	thread_state = 1;
	pthread_cond_broadcast(&thread_cv);
	while (thread_state != 2)
		pthread_cond_wait(&thread_cv, &thread_mu);
	pthread_mutex_unlock(&thread_mu);
	return NULL;
}

TEST(identify_self_and_thread)
{
	struct ue_procmem_id a, b;
	pthread_t th;

	ASSERT_EQ(ue_procmem_identify(getpid(), &a), 0);
	EXPECT_EQ(a.tgid, getpid());
	EXPECT_EQ(a.start_time, start_time_of(getpid()));
	EXPECT_NE(a.start_time, 0);

	ASSERT_EQ(pthread_create(&th, NULL, thread_main, NULL), 0);
	pthread_mutex_lock(&thread_mu);
	while (thread_state != 1)
		pthread_cond_wait(&thread_cv, &thread_mu);
	pthread_mutex_unlock(&thread_mu);
	EXPECT_NE(thread_tid, getpid());
	EXPECT_EQ(ue_procmem_identify(thread_tid, &b), 0);
	EXPECT_TRUE(ue_procmem_id_equal(&a, &b));
	pthread_mutex_lock(&thread_mu);
	thread_state = 2;
	pthread_cond_broadcast(&thread_cv);
	pthread_mutex_unlock(&thread_mu);
	pthread_join(th, NULL);
}

TEST(identify_other_process_differs)
{
	struct ue_procmem_id self, other;
	struct target t;

	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(ue_procmem_identify(getpid(), &self), 0);
	ASSERT_EQ(ue_procmem_identify(t.pid, &other), 0);
	EXPECT_EQ(other.tgid, t.pid);
	EXPECT_FALSE(ue_procmem_id_equal(&self, &other));
	target_exit(&t, 1);
	/* A reaped pid has no /proc entry. */
	EXPECT_ERRNO(ue_procmem_identify(other.tgid, &other), ESRCH);
	EXPECT_ERRNO(ue_procmem_open(other.tgid, &(struct ue_procmem *){ NULL }), ESRCH);
}

TEST(read_write_bytes_of_child)
{
	uint8_t *shm = target_shm((size_t)page_size());
	struct ue_procmem *pm;
	struct target t;
	uint8_t v = 0;

	ASSERT_TRUE(shm != NULL);
	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	EXPECT_EQ(ue_procmem_get_id(pm)->tgid, t.pid);
	EXPECT_EQ(ue_procmem_alive(pm), 1);

	shm[10] = 0x5a;
	EXPECT_EQ(ue_procmem_read_byte(pm, (uintptr_t)&shm[10], &v), 0);
	EXPECT_EQ(v, 0x5a);
	EXPECT_EQ(ue_procmem_write_byte(pm, (uintptr_t)&shm[11], 0xc3), 0);
	EXPECT_EQ(shm[11], 0xc3);
	/* Address 0 is not mapped: an access error, not "gone". */
	EXPECT_ERRNO(ue_procmem_read_byte(pm, 0, &v), EIO);
	EXPECT_ERRNO(ue_procmem_write_byte(pm, 0, 1), EIO);

	ue_procmem_close(pm);
	target_exit(&t, 1);
	munmap(shm, (size_t)page_size());
}

TEST(update_bit_changes_one_bit)
{
	static const uint8_t patterns[] = { 0x00, 0xff, 0xa5, 0x5a };
	uint8_t *shm = target_shm((size_t)page_size());
	struct ue_procmem *pm;
	struct target t;
	unsigned int i, bit;

	ASSERT_TRUE(shm != NULL);
	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	for (i = 0; i < sizeof(patterns); i++) {
		for (bit = 0; bit < 8; bit++) {
			uint8_t m = (uint8_t)(1u << bit);

			shm[0] = patterns[i];
			shm[1] = (uint8_t)~patterns[i];
			EXPECT_EQ(ue_procmem_update_bit(pm, (uintptr_t)shm, bit, true), 0);
			EXPECT_EQ(shm[0], patterns[i] | m);
			EXPECT_EQ(ue_procmem_update_bit(pm, (uintptr_t)shm, bit, false), 0);
			EXPECT_EQ(shm[0], patterns[i] & (uint8_t)~m);
			EXPECT_EQ(shm[1], (uint8_t)~patterns[i]);
		}
	}
	EXPECT_ERRNO(ue_procmem_update_bit(pm, (uintptr_t)shm, 8, true), EINVAL);
	ue_procmem_close(pm);
	target_exit(&t, 1);
	munmap(shm, (size_t)page_size());
}

/* Mappings made before the fork, so the target has them at the same address. */
struct prot_case {
	const char *name;
	int prot;
	int flags;
	bool unmap;	/* unmapped in the target: nothing at the address */
	int expect;	/* of ue_procmem_writable() and ue_procmem_update_bit() */
};

static const struct prot_case prot_cases[] = {
	{ "rw private", PROT_READ | PROT_WRITE, MAP_PRIVATE, false, 0 },
	{ "rw shared", PROT_READ | PROT_WRITE, MAP_SHARED, false, 0 },
	{ "ro private", PROT_READ, MAP_PRIVATE, false, -EFAULT },
	{ "ro shared", PROT_READ, MAP_SHARED, false, -EFAULT },
	{ "rx private", PROT_READ | PROT_EXEC, MAP_PRIVATE, false, -EFAULT },
	{ "none", PROT_NONE, MAP_PRIVATE, false, -EFAULT },
	{ "unmapped", PROT_READ | PROT_WRITE, MAP_PRIVATE, true, -EFAULT },
};
#define NCASES (sizeof(prot_cases) / sizeof(prot_cases[0]))

TEST(protections_checked_query_and_text)
{
	size_t pg = (size_t)page_size();
	uint8_t *maps[NCASES];
	struct ue_procmem *pm;
	struct target t;
	unsigned int i, mode;

	for (i = 0; i < NCASES; i++) {
		maps[i] = mmap(NULL, pg, prot_cases[i].prot, prot_cases[i].flags | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(maps[i] != MAP_FAILED);
	}
	ASSERT_EQ(target_start(&t), 0);
	/* Unmapped in the target itself: here the address could be reused. */
	for (i = 0; i < NCASES; i++)
		if (prot_cases[i].unmap)
			ASSERT_EQ(target_op(&t, T_MUNMAP, (uintptr_t)maps[i], pg, 0), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	for (mode = 0; mode < 2; mode++) {
		if (mode == 1)
			ue_procmem_use_text_maps(pm);
		for (i = 0; i < NCASES; i++) {
			int r = ue_procmem_writable(pm, (uintptr_t)maps[i] + 100);

			if (r != prot_cases[i].expect)
				printf("# %s (%s maps): %d, expected %d\n", prot_cases[i].name,
				       mode ? "text" : "query", r, prot_cases[i].expect);
			EXPECT_EQ(r, prot_cases[i].expect);
			EXPECT_EQ(ue_procmem_update_bit(pm, (uintptr_t)maps[i] + 100, 3, true),
				  prot_cases[i].expect);
		}
		/* The highest and lowest addresses: no mapping. */
		EXPECT_ERRNO(ue_procmem_writable(pm, 0), EFAULT);
		EXPECT_ERRNO(ue_procmem_writable(pm, 0x7ffffffff000ull), EFAULT);
	}
	ue_procmem_close(pm);
	target_exit(&t, 1);
	for (i = 0; i < NCASES; i++)
		munmap(maps[i], pg);
}

TEST(readonly_page_not_forced)
{
	size_t pg = (size_t)page_size();
	struct ue_procmem *pm;
	struct target t;
	uint8_t *ro;
	uint64_t v = 1;
	int forced;

	ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(ro != MAP_FAILED);
	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	EXPECT_ERRNO(ue_procmem_update_bit(pm, (uintptr_t)ro, 0, true), EFAULT);
	EXPECT_EQ(target_read8(&t, (uintptr_t)ro, &v), 0);
	EXPECT_EQ(v, 0);
	/* Why the check exists: the raw mem file may force the write through. */
	forced = ue_procmem_write_byte(pm, (uintptr_t)ro + 8, 1) == 0;
	printf("# /proc/<pid>/mem %s a read-only page\n", forced ? "writes into" : "refuses");
	ue_procmem_close(pm);
	target_exit(&t, 1);
	munmap(ro, pg);
}

/* Reads of ioctl arguments stop where the process's own load would fault. */
TEST(read_user_follows_protections)
{
	size_t pg = (size_t)page_size();
	struct ue_procmem *pm;
	struct target t;
	unsigned int mode;
	uint8_t *p, buf[64];

	p = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	memset(p, 'x', 4 * pg);
	ASSERT_EQ(mprotect(p + pg, pg, PROT_NONE), 0);
	ASSERT_EQ(mprotect(p + 2 * pg, pg, PROT_WRITE), 0);
	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(target_op(&t, T_MUNMAP, (uintptr_t)p + 3 * pg, pg, 0), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	for (mode = 0; mode < 2; mode++) {
		if (mode == 1)
			ue_procmem_use_text_maps(pm);
		/* The raw handle reads through PROT_NONE: why the check exists. */
		EXPECT_EQ(ue_procmem_read(pm, (uintptr_t)p + pg, buf, 8), 8);
		EXPECT_ERRNO(ue_procmem_read_user(pm, (uintptr_t)p + pg, buf, 8), EFAULT);
		/* Up to the PROT_NONE page, not into it. */
		EXPECT_EQ(ue_procmem_read_user(pm, (uintptr_t)p + pg - 8, buf, 16), 8);
		EXPECT_EQ(ue_procmem_read_user(pm, (uintptr_t)p, buf, 16), 16);
		/* Write-only: readable on x86, as the reference kernel reads it. */
#if defined(__x86_64__) || defined(__i386__)
		EXPECT_EQ(ue_procmem_read_user(pm, (uintptr_t)p + 2 * pg, buf, 16), 16);
#endif
		EXPECT_ERRNO(ue_procmem_read_user(pm, (uintptr_t)p + 3 * pg, buf, 8), EFAULT);
		EXPECT_EQ(ue_procmem_read_user(pm, (uintptr_t)p + 4 * pg - 8, buf, 0), 0);
	}
	ue_procmem_close(pm);
	target_exit(&t, 1);
	munmap(p, 4 * pg);
}

/* A long path puts a maps line across the text scanner's reads. */
TEST(text_maps_long_path)
{
	size_t pg = (size_t)page_size();
	char dir[4096], path[4096];
	struct ue_procmem *pm;
	struct target t;
	uint8_t *after;
	size_t len;
	int fd, i;

	snprintf(dir, sizeof(dir), "/tmp/ue-procmem-XXXXXX");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s", dir);
	for (i = 0; i < 15; i++) {
		len = strlen(path);
		path[len] = '/';
		memset(path + len + 1, 'a' + i, 250);
		path[len + 251] = '\0';
		ASSERT_EQ(mkdir(path, 0700), 0);
	}
	len = strlen(path);
	snprintf(path + len, sizeof(path) - len, "/f");
	fd = open(path, O_RDWR | O_CREAT, 0600);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(ftruncate(fd, (off_t)pg), 0);
	close(fd);

	after = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(after != MAP_FAILED);
	ASSERT_EQ(target_start(&t), 0);
	/* Read-only shared file mapping just below the anonymous page. */
	{
		struct target_cmd c;

		memset(&c, 0, sizeof(c));
		c.op = T_MMAP_FILE;
		c.addr = (uintptr_t)after - pg;
		c.len = pg;
		c.prot = PROT_READ;
		snprintf(c.path, sizeof(c.path), "%s", path);
		EXPECT_EQ(target_do(&t, &c, NULL), 0);
	}
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	ue_procmem_use_text_maps(pm);
	EXPECT_ERRNO(ue_procmem_writable(pm, (uintptr_t)after - pg + 5), EFAULT);
	EXPECT_EQ(ue_procmem_writable(pm, (uintptr_t)after + 5), 0);
	ue_procmem_close(pm);
	target_exit(&t, 1);
	munmap(after, pg);

	/* Remove the tree, deepest first. */
	unlink(path);
	for (i = 15; i > 0; i--) {
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
	rmdir(dir);
}

TEST(exec_pins_the_old_memory)
{
	size_t pg = (size_t)page_size();
	struct ue_procmem *old, *cur;
	struct ue_procmem_id before;
	uint8_t *page, v;
	uint64_t word = 1;
	struct target t;
	int r;

	page = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(page != MAP_FAILED);
	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &old), 0);
	before = *ue_procmem_get_id(old);
	EXPECT_EQ(ue_procmem_write_byte(old, (uintptr_t)page, 0x11), 0);

	r = target_exec(&t, (uintptr_t)page);
	if (r == -EEXIST)
		printf("# the canary could not map the old address; checking the handle only\n");
	else
		ASSERT_EQ(r, 0);

	EXPECT_EQ(ue_procmem_alive(old), 0);
	EXPECT_ERRNO(ue_procmem_write_byte(old, (uintptr_t)page, 0x22), ESRCH);
	EXPECT_ERRNO(ue_procmem_read_byte(old, (uintptr_t)page, &v), ESRCH);
	EXPECT_ERRNO(ue_procmem_update_bit(old, (uintptr_t)page, 1, true), ESRCH);
	EXPECT_ERRNO(ue_procmem_writable(old, (uintptr_t)page), ESRCH);
	ue_procmem_use_text_maps(old);
	EXPECT_ERRNO(ue_procmem_writable(old, (uintptr_t)page), ESRCH);
	if (r == 0) {
		/* The canary's fresh page at the same address got nothing. */
		EXPECT_EQ(target_read8(&t, (uintptr_t)page, &word), 0);
		EXPECT_EQ(word, 0);
	}

	/* A new handle sees the new program: same pid and start time. */
	ASSERT_EQ(ue_procmem_open(t.pid, &cur), 0);
	EXPECT_EQ(ue_procmem_get_id(cur)->tgid, before.tgid);
	EXPECT_EQ(ue_procmem_get_id(cur)->start_time, before.start_time);
	if (r == 0) {
		EXPECT_EQ(ue_procmem_write_byte(cur, (uintptr_t)page, 0x33), 0);
		EXPECT_EQ(target_read8(&t, (uintptr_t)page, &word), 0);
		EXPECT_EQ(word, 0x33);
	}
	ue_procmem_close(cur);
	ue_procmem_close(old);
	target_exit(&t, 1);
	munmap(page, pg);
}

TEST(dup_pins_the_same_memory)
{
	size_t pg = (size_t)page_size();
	struct ue_procmem *pm, *dup;
	uint8_t *page, v;
	uint64_t word = 1;
	struct target t;
	int r;

	page = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(page != MAP_FAILED);
	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	ASSERT_EQ(ue_procmem_dup(pm, &dup), 0);
	EXPECT_TRUE(ue_procmem_id_equal(ue_procmem_get_id(pm), ue_procmem_get_id(dup)));
	EXPECT_EQ(ue_procmem_write_byte(dup, (uintptr_t)page, 0x11), 0);
	EXPECT_EQ(ue_procmem_read_byte(pm, (uintptr_t)page, &v), 0);
	EXPECT_EQ(v, 0x11);
	/* Each closes on its own. */
	ue_procmem_close(pm);
	EXPECT_EQ(ue_procmem_alive(dup), 1);

	/* After an exec the copy, like the original, reaches nothing. */
	r = target_exec(&t, (uintptr_t)page);
	if (r == -EEXIST)
		printf("# the canary could not map the old address; checking the handle only\n");
	else
		ASSERT_EQ(r, 0);
	EXPECT_EQ(ue_procmem_alive(dup), 0);
	EXPECT_ERRNO(ue_procmem_update_bit(dup, (uintptr_t)page, 1, true), ESRCH);
	if (r == 0) {
		EXPECT_EQ(target_read8(&t, (uintptr_t)page, &word), 0);
		EXPECT_EQ(word, 0);
	}
	ue_procmem_close(dup);
	target_exit(&t, 1);
	munmap(page, pg);
}

TEST(exit_zombie_and_reaped)
{
	uint8_t *shm = target_shm((size_t)page_size());
	struct ue_procmem *pm;
	struct target t;

	ASSERT_TRUE(shm != NULL);
	ASSERT_EQ(target_start(&t), 0);
	ASSERT_EQ(ue_procmem_open(t.pid, &pm), 0);
	target_exit(&t, 0);
	EXPECT_EQ(ue_procmem_alive(pm), 0);
	EXPECT_ERRNO(ue_procmem_write_byte(pm, (uintptr_t)shm, 1), ESRCH);
	target_reap(&t);
	EXPECT_ERRNO(ue_procmem_write_byte(pm, (uintptr_t)shm, 1), ESRCH);
	EXPECT_ERRNO(ue_procmem_update_bit(pm, (uintptr_t)shm, 0, true), ESRCH);
	EXPECT_EQ(shm[0], 0);
	ue_procmem_close(pm);
	munmap(shm, (size_t)page_size());
}

TEST(reused_pid_gets_nothing)
{
	uint8_t *shm = target_shm((size_t)page_size());
	struct ue_procmem *pm;
	struct target a, b = { 0, -1, -1 };
	pid_t old;
	int r;

	ASSERT_TRUE(shm != NULL);
	ASSERT_EQ(target_start(&a), 0);
	ASSERT_EQ(ue_procmem_open(a.pid, &pm), 0);
	old = a.pid;
	target_exit(&a, 1);
	r = target_start_on_pid(&b, old);
	if (r == -ESRCH) {
		NOT_EXERCISED("could not get the pid again (ns_last_pid): reuse not exercised");
	} else {
		ASSERT_EQ(r, 0);
		printf("# pid %d reused\n", (int)old);
		EXPECT_EQ(ue_procmem_alive(pm), 0);
		EXPECT_ERRNO(ue_procmem_write_byte(pm, (uintptr_t)shm, 0x77), ESRCH);
		EXPECT_EQ(shm[0], 0);
		target_exit(&b, 1);
	}
	ue_procmem_close(pm);
	munmap(shm, (size_t)page_size());
}

UE_TEST_MAIN()
