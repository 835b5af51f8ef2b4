// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * daemon/events/counts.c: records, bytes and losses per (process, event),
 * what usereventsd_counts lists: sums, the process's name, the bound on
 * rows (beyond it, other processes in their event's tgid-0 row), an event
 * forgotten, and counting from several threads at once.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "counts.h"
#include "harness.h"

struct found {
	struct ue_counts_row rows[2 * UE_COUNTS_MAX_ROWS + 8];
	int n;
};

static void collect(void *arg, const struct ue_counts_row *row)
{
	struct found *f = arg;

	f->rows[f->n++] = *row;
}

static const struct ue_counts_row *find(const struct found *f, pid_t tgid, unsigned int id)
{
	for (int i = 0; i < f->n; i++)
		if (f->rows[i].tgid == tgid && f->rows[i].id == id)
			return &f->rows[i];
	return NULL;
}

static struct found found;

TEST(sums_per_process_and_event)
{
	const struct ue_counts_row *r;
	struct ue_counts *c;

	ASSERT_EQ(ue_counts_new(&c), 0);
	ue_counts_add(c, 100, 7, "worker", 0, 3, 120, 0);
	ue_counts_add(c, 100, 7, "main", 1, 2, 80, 1);
	ue_counts_add(c, 100, 7, "worker", 0, 1, 40, 0);
	ue_counts_add(c, 100, 8, "worker", 0, 5, 500, 0);
	ue_counts_add(c, 200, 7, "other", 1, 1, 40, 0);
	ue_counts_add(c, 200, 0, "other", 1, 0, 0, 9);
	ue_counts_add(c, 0, 7, "nobody", 1, 1, 1, 1);	/* no process: not counted */
	found.n = 0;
	ASSERT_EQ(ue_counts_foreach(c, collect, &found), 4);
	r = find(&found, 100, 7);
	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(r->records, 6);
	EXPECT_EQ(r->bytes, 240);
	EXPECT_EQ(r->lost, 1);
	/* The main thread's name wins over the first writer's. */
	EXPECT_STREQ(r->comm, "main");
	r = find(&found, 100, 8);
	ASSERT_TRUE(r != NULL);
	EXPECT_STREQ(r->comm, "worker");
	r = find(&found, 200, 0);
	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(r->records, 0);
	EXPECT_EQ(r->lost, 9);
	ue_counts_free(c);
}

TEST(bounded_beyond_the_rows_in_other_processes)
{
	const struct ue_counts_row *r;
	struct ue_counts *c;

	ASSERT_EQ(ue_counts_new(&c), 0);
	for (int p = 1; p <= UE_COUNTS_MAX_ROWS; p++)
		ue_counts_add(c, p, 1, "p", 1, 1, 10, 0);
	/* Full of busy rows: new processes count in their event's tgid-0 row. */
	for (int p = UE_COUNTS_MAX_ROWS + 1; p <= UE_COUNTS_MAX_ROWS + 100; p++) {
		ue_counts_add(c, p, 1, "q", 1, 2, 20, 1);
		ue_counts_add(c, p, 2, "q", 1, 1, 10, 0);
	}
	found.n = 0;
	ASSERT_EQ(ue_counts_foreach(c, collect, &found), UE_COUNTS_MAX_ROWS + 2);
	EXPECT_TRUE(find(&found, UE_COUNTS_MAX_ROWS + 1, 1) == NULL);
	r = find(&found, 0, 1);
	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(r->records, 200);
	EXPECT_EQ(r->bytes, 2000);
	EXPECT_EQ(r->lost, 100);
	r = find(&found, 0, 2);
	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(r->records, 100);
	/* A process already there still has its own row. */
	ue_counts_add(c, 5, 1, "p", 1, 1, 10, 0);
	found.n = 0;
	ue_counts_foreach(c, collect, &found);
	r = find(&found, 5, 1);
	ASSERT_TRUE(r != NULL);
	EXPECT_EQ(r->records, 2);
	ue_counts_free(c);
}

TEST(a_deleted_event_is_forgotten)
{
	struct ue_counts *c;

	ASSERT_EQ(ue_counts_new(&c), 0);
	for (int p = 1; p <= 300; p++) {
		ue_counts_add(c, p, 3, "a", 1, 1, 8, 0);
		ue_counts_add(c, p, 4, "a", 1, 1, 8, 0);
	}
	ue_counts_forget_event(c, 3);
	found.n = 0;
	ASSERT_EQ(ue_counts_foreach(c, collect, &found), 300);
	for (int i = 0; i < found.n; i++)
		EXPECT_EQ(found.rows[i].id, 4);
	/* The index was built again: every remaining row is still found and summed. */
	for (int p = 1; p <= 300; p++)
		ue_counts_add(c, p, 4, "a", 1, 1, 8, 0);
	found.n = 0;
	ASSERT_EQ(ue_counts_foreach(c, collect, &found), 300);
	for (int i = 0; i < found.n; i++)
		EXPECT_EQ(found.rows[i].records, 2);
	ue_counts_free(c);
}

struct adder {
	struct ue_counts *c;
	pid_t tgid;
};

static void *add_main(void *arg)
{
	struct adder *a = arg;

	for (int i = 0; i < 100000; i++)
		ue_counts_add(a->c, a->tgid, (unsigned int)(i % 4) + 1, "t", 0, 1, 3, 0);
	return NULL;
}

TEST(threads_at_once_lose_no_count)
{
	struct adder a[4];
	pthread_t th[4];
	struct ue_counts *c;
	uint64_t total = 0;

	ASSERT_EQ(ue_counts_new(&c), 0);
	for (int i = 0; i < 4; i++) {
		a[i] = (struct adder){ c, 10 + i % 2 };
		ASSERT_EQ(pthread_create(&th[i], NULL, add_main, &a[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	found.n = 0;
	ASSERT_EQ(ue_counts_foreach(c, collect, &found), 8);
	for (int i = 0; i < found.n; i++) {
		EXPECT_EQ(found.rows[i].records, 50000);
		EXPECT_EQ(found.rows[i].bytes, 150000);
		total += found.rows[i].records;
	}
	EXPECT_EQ(total, 400000);
	ue_counts_free(c);
}

UE_TEST_MAIN()
