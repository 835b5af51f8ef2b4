// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Tests of core/slurp.c: a reader's bytes in one NUL-terminated buffer
 * however they come (short reads, EINTR, more than the first size), and a
 * reader's error returned as errno.
 */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slurp.h"

struct src {
	const char *text;
	size_t len, pos, chunk;
	int intr;	/* -EINTR before every read while > 0 */
	int fail;	/* -errno once pos reaches len / 2 */
};

static ssize_t rd(void *ctx, void *buf, size_t n)
{
	struct src *s = ctx;

	if (s->intr > 0) {
		s->intr--;
		return -EINTR;
	}
	if (s->fail && s->pos >= s->len / 2)
		return -s->fail;
	if (n > s->chunk)
		n = s->chunk;
	if (n > s->len - s->pos)
		n = s->len - s->pos;
	memcpy(buf, s->text + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

TEST(whole)
{
	static char big[100000];
	struct src s = { big, sizeof(big), 0, 3000, 3, 0 };
	size_t len = 0;
	char *b;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	b = ue_slurp(rd, &s, 8192, &len);
	EXPECT_TRUE(b != NULL);
	EXPECT_EQ(len, sizeof(big));
	EXPECT_TRUE(b && memcmp(b, big, sizeof(big)) == 0 && b[len] == '\0');
	free(b);
}

TEST(empty)
{
	struct src s = { "", 0, 0, 1, 0, 0 };
	char *b = ue_slurp(rd, &s, 16384, NULL);

	EXPECT_TRUE(b != NULL);
	EXPECT_STREQ(b, "");
	free(b);
}

TEST(reader_error)
{
	struct src s = { "0123456789", 10, 0, 2, 0, EIO };

	errno = 0;
	EXPECT_TRUE(ue_slurp(rd, &s, 8192, NULL) == NULL);
	EXPECT_EQ(errno, EIO);
}

UE_TEST_MAIN()
