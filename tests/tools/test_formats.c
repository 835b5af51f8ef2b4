// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of the formats a raw stream renders records with (tools/source/format-table.c,
 * uet_formats_lookup): the events of the tracefs are read again, once per
 * batch of records, for a type not known, and a type known from an earlier
 * reading (the autoenable tick's) does not use that reading up; a kept type
 * is used once the batch found it still its event's (types are reused).  The stall
 * of stream --format=text (3 of 41 records, then nothing) was that: the tick
 * had read the events while a provider was registering them, the batch's
 * first record had a known type, and every later record of an event
 * registered since was dropped as not a user event.
 *
 * The tracefs is a directory of format files, as uet_events_load reads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats.h"
#include "harness.h"
#include "tracefs.h"

#define COMMON_FIELDS                                                                    \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"            \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"            \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"    \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

static char tracefs[4096];

/* events/user_events/@name/format and id, of type @id, in the tracefs. */
static void add_event(const char *name, unsigned int id)
{
	char p[4200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/events/user_events/%s", tracefs, name);
	ASSERT_EQ(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/user_events/%s/format", tracefs, name);
	f = fopen(p, "w");
	ASSERT_TRUE(f);
	fprintf(f,
		"name: %s\nID: %u\nformat:\n" COMMON_FIELDS "\n"
		"\tfield:u32 x;\toffset:8;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"x=%%u\", REC->x\n",
		name, id);
	ASSERT_EQ(fclose(f), 0);
	snprintf(p, sizeof(p), "%s/events/user_events/%s/id", tracefs, name);
	f = fopen(p, "w");
	ASSERT_TRUE(f);
	fprintf(f, "%u\n", id);
	ASSERT_EQ(fclose(f), 0);
}

/* The event deleted: its directory goes. */
static void delete_event(const char *name)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/events/user_events/%s/format", tracefs, name);
	ASSERT_EQ(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/events/user_events/%s/id", tracefs, name);
	ASSERT_EQ(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/events/user_events/%s", tracefs, name);
	ASSERT_EQ(rmdir(p), 0);
}

/* A new batch of records. */
static void next_batch(struct uet_batch *b)
{
	b->n++;
	b->rescanned = false;
}

static void new_tracefs(void)
{
	const char *tmp = getenv("TMPDIR");
	char p[4200];

	snprintf(tracefs, sizeof(tracefs), "%s/ue-formats.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ASSERT_TRUE(mkdtemp(tracefs));
	snprintf(p, sizeof(p), "%s/events", tracefs);
	ASSERT_EQ(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/events/user_events", tracefs);
	ASSERT_EQ(mkdir(p, 0755), 0);
}

static void remove_tracefs(void)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tracefs);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tracefs);
}

/* What the autoenable tick does: keep the formats of the events there now. */
static void tick(struct uet_formats *f)
{
	struct uet_events evs;

	ASSERT_EQ(uet_events_load(tracefs, &evs), 0);
	ASSERT_EQ(uet_formats_add_events(f, &evs), 0);
	uet_events_free(&evs);
}

static const char *name_of(const struct uet_format *f)
{
	return f ? f->desc->name : "(none)";
}

/*
 * The interleaving of the stall: the tick reads A's format; B is registered;
 * a batch holds A's record, then B's.  B's must be found.
 */
TEST(known_type_first_leaves_the_rescan)
{
	struct uet_formats f = { 0 };
	struct uet_batch b = { 0 };

	new_tracefs();
	add_event("A", 1000);
	tick(&f);
	add_event("B", 1001);
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1000, &b)), "A");
	EXPECT_FALSE(b.rescanned);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1001, &b)), "B");
	EXPECT_TRUE(b.rescanned);
	/* Found once: kept for the batches after. */
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1001, &b)), "B");
	EXPECT_FALSE(b.rescanned);
	uet_formats_free(&f);
	remove_tracefs();
}

/*
 * Once per batch: after the batch's reading, a type still not known (not a
 * user event, as ftrace:print) costs no other; the next batch reads again.
 */
TEST(one_rescan_per_batch)
{
	struct uet_formats f = { 0 };
	struct uet_batch b = { 0 };

	new_tracefs();
	add_event("A", 1000);
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 5, &b)), "(none)");
	EXPECT_TRUE(b.rescanned);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1000, &b)), "A");
	add_event("C", 1002);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1002, &b)), "(none)");
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1002, &b)), "C");
	EXPECT_TRUE(b.rescanned);
	uet_formats_free(&f);
	remove_tracefs();
}

/*
 * A type reused: the tick saw Other with type 1000; Other is deleted and Zed
 * registered takes 1000 (the lowest free, as the kernel's ids).  Zed's
 * records are Zed's, not Other's (a stream -e 'Zed*' dropped them, one
 * without -e printed them as Other's), before any tick.
 */
TEST(reused_type_is_the_new_events)
{
	struct uet_formats f = { 0 };
	struct uet_batch b = { 0 };

	new_tracefs();
	add_event("Other", 1000);
	tick(&f);
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1000, &b)), "Other");
	delete_event("Other");
	add_event("Zed", 1000);
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1000, &b)), "Zed");
	EXPECT_TRUE(b.rescanned);
	/* Deleted with no other event on its type: no format. */
	delete_event("Zed");
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1000, &b)), "(none)");
	uet_formats_free(&f);
	remove_tracefs();
}

/* Checked once per batch: a type found still its event's is not read again in it. */
TEST(checked_once_per_batch)
{
	struct uet_formats f = { 0 };
	struct uet_batch b = { 0 };

	new_tracefs();
	add_event("A", 1000);
	tick(&f);
	next_batch(&b);
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1000, &b)), "A");
	/* Gone now, but this batch already found A there: its records were written before. */
	delete_event("A");
	EXPECT_STREQ(name_of(uet_formats_lookup(&f, tracefs, 1000, &b)), "A");
	EXPECT_FALSE(b.rescanned);
	uet_formats_free(&f);
	remove_tracefs();
}

/* A tracefs without events/: no format, and the batch does not read again. */
TEST(no_events_directory)
{
	struct uet_formats f = { 0 };
	struct uet_batch b = { 0 };

	next_batch(&b);
	EXPECT_TRUE(uet_formats_lookup(&f, "/nonexistent/ue-formats/x", 1000, &b) == NULL);
	EXPECT_TRUE(b.rescanned);
	uet_formats_free(&f);
}

UE_TEST_MAIN()
