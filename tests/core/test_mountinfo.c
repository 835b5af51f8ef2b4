// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/mountinfo.c: mountinfo's octal escapes (space, tab,
 * newline, backslash as \ooo, as the kernel's show_mountinfo() writes them),
 * lines cut into fields, and which mounts are usereventsd's.
 */
#include "harness.h"

#include <string.h>

#include "core.h"

static void check(const char *in, const char *want)
{
	char buf[256];

	strcpy(buf, in);
	ue_mountinfo_unescape(buf);
	EXPECT_STREQ(buf, want);
}

TEST(escapes)
{
	check("/tmp/with\\040space", "/tmp/with space");
	check("/a\\011tab\\012nl\\134bs", "/a\ttab\nnl\\bs");
	check("/plain/path", "/plain/path");
	check("", "");
}

TEST(not_escapes)
{
	/* Only three octal digits starting 0-3 make an escape. */
	check("/x\\04", "/x\\04");
	check("/x\\400", "/x\\400");
	check("/x\\08a", "/x\\08a");
	check("\\", "\\");
}

struct split_case {
	const char *line;
	int ret;
	const char *mount_point, *fstype, *source;
	bool usereventsd;
};

TEST(split)
{
	static const struct split_case cases[] = {
		{ "36 25 0:32 / /run/usereventsd rw,nosuid shared:1 - fuse.usereventsd usereventsd rw,user_id=0\n",
		  0, "/run/usereventsd", "fuse.usereventsd", "usereventsd", true },
		/* No optional fields; fuse with the source naming the daemon (older libfuse). */
		{ "40 25 0:40 / /tmp/a\\040b rw - fuse usereventsd rw", 0, "/tmp/a\\040b", "fuse",
		  "usereventsd", true },
		{ "41 25 0:41 / /sys/kernel/tracing rw,relatime shared:7 master:2 - tracefs tracefs rw\n",
		  0, "/sys/kernel/tracing", "tracefs", "tracefs", false },
		/* Another FUSE file system; a FUSE subtype whose source names the daemon; a non-FUSE type. */
		{ "42 25 0:42 / /mnt rw - fuse.sshfs host:/ rw", 0, "/mnt", "fuse.sshfs", "host:/", false },
		{ "42 25 0:42 / /mnt rw - fuse.other usereventsd rw", 0, "/mnt", "fuse.other",
		  "usereventsd", true },
		{ "43 25 0:43 / /mnt rw - tmpfs usereventsd rw", 0, "/mnt", "tmpfs", "usereventsd", false },
		/* A "-" among the first six fields is not the separator. */
		{ "44 25 0:44 / - rw - fuse.usereventsd x rw", 0, "-", "fuse.usereventsd", "x", true },
		{ "45 25 0:45 / /only-type rw - fuse.usereventsd", 0, "/only-type", "fuse.usereventsd",
		  NULL, true },
		{ "46 25 0:46 / /no-dash rw", -EINVAL, NULL, NULL, NULL, false },
		{ "46 25", -EINVAL, NULL, NULL, NULL, false },
		{ "", -EINVAL, NULL, NULL, NULL, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct split_case *c = &cases[i];
		struct ue_mount_entry m = { 0 };
		char buf[256];

		strcpy(buf, c->line);
		EXPECT_EQ(ue_mountinfo_split(buf, &m), c->ret);
		if (c->ret < 0)
			continue;
		EXPECT_STREQ(m.mount_point, c->mount_point);
		EXPECT_STREQ(m.fstype, c->fstype);
		if (c->source)
			EXPECT_STREQ(m.source, c->source);
		else
			EXPECT_TRUE(m.source == NULL);
		EXPECT_EQ(ue_mount_is_usereventsd(&m), c->usereventsd);
	}
}

UE_TEST_MAIN()
