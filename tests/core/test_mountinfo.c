// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/mountinfo.c: mountinfo's octal escapes (space, tab,
 * newline, backslash as \ooo, as the kernel's show_mountinfo() writes them).
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

UE_TEST_MAIN()
