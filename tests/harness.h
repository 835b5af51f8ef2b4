/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A small test harness: TEST(name) { ... } registers a test case;
 * ASSERT_* stop the case with a message, EXPECT_* record a failure and go
 * on.  Output is TAP, so meson's test runner shows each case.
 */
#ifndef UE_TEST_HARNESS_H
#define UE_TEST_HARNESS_H

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ue_test {
	const char *name;
	void (*fn)(void);
	struct ue_test *next;
};

extern struct ue_test *ue_tests_head;
extern int ue_test_failed;
extern const char *ue_test_skipped;
extern jmp_buf ue_test_jmp;

#define TEST(name_)                                                                      \
	static void test_##name_(void);                                                  \
	static struct ue_test ue_test_rec_##name_ = { #name_, test_##name_, NULL };      \
	__attribute__((constructor)) static void ue_test_reg_##name_(void)               \
	{                                                                                \
		struct ue_test **p = &ue_tests_head;                                     \
		while (*p)                                                               \
			p = &(*p)->next;                                                 \
		*p = &ue_test_rec_##name_;                                               \
	}                                                                                \
	static void test_##name_(void)

#define UE_FAIL_(stop, ...)                                                              \
	do {                                                                             \
		printf("# %s:%d: ", __FILE__, __LINE__);                                 \
		printf(__VA_ARGS__);                                                     \
		printf("\n");                                                            \
		ue_test_failed = 1;                                                      \
		if (stop)                                                                \
			longjmp(ue_test_jmp, 1);                                         \
	} while (0)

#define UE_CMP_INT_(stop, a, op, b)                                                      \
	do {                                                                             \
		long long ue_a_ = (long long)(a), ue_b_ = (long long)(b);                \
		if (!(ue_a_ op ue_b_))                                                   \
			UE_FAIL_(stop, "%s %s %s: %lld vs %lld", #a, #op, #b, ue_a_, ue_b_); \
	} while (0)

/*
 * Ends the case as skipped: TAP "ok N - name # SKIP why", which meson
 * reports as a skipped subtest, never as a pass.
 */
#define SKIP(why)                                                                        \
	do {                                                                             \
		ue_test_skipped = (why);                                                 \
		longjmp(ue_test_jmp, 1);                                                 \
	} while (0)

/* Marks the case skipped (a part could not be exercised) and goes on. */
#define NOT_EXERCISED(why) (ue_test_skipped = (why))

#define ASSERT_EQ(a, b) UE_CMP_INT_(1, a, ==, b)
#define ASSERT_NE(a, b) UE_CMP_INT_(1, a, !=, b)
#define ASSERT_GE(a, b) UE_CMP_INT_(1, a, >=, b)
#define ASSERT_LT(a, b) UE_CMP_INT_(1, a, <, b)
#define EXPECT_EQ(a, b) UE_CMP_INT_(0, a, ==, b)
#define EXPECT_NE(a, b) UE_CMP_INT_(0, a, !=, b)
#define EXPECT_GE(a, b) UE_CMP_INT_(0, a, >=, b)
#define EXPECT_LT(a, b) UE_CMP_INT_(0, a, <, b)
#define ASSERT_TRUE(c) UE_CMP_INT_(1, !!(c), ==, 1)
#define ASSERT_FALSE(c) UE_CMP_INT_(1, !!(c), ==, 0)
#define EXPECT_TRUE(c) UE_CMP_INT_(0, !!(c), ==, 1)
#define EXPECT_FALSE(c) UE_CMP_INT_(0, !!(c), ==, 0)

/* A call returning 0 or -errno must return -err. */
#define ASSERT_ERRNO(expr, err) UE_CMP_INT_(1, (expr), ==, -(err))
#define EXPECT_ERRNO(expr, err) UE_CMP_INT_(0, (expr), ==, -(err))

#define UE_CMP_STR_(stop, a, b)                                                          \
	do {                                                                             \
		const char *ue_sa_ = (a), *ue_sb_ = (b);                                 \
		if (!ue_sa_ || !ue_sb_ || strcmp(ue_sa_, ue_sb_) != 0)                   \
			UE_FAIL_(stop, "%s == %s:\n#   got:      \"%s\"\n#   expected: \"%s\"", \
				 #a, #b, ue_sa_ ? ue_sa_ : "(null)",                     \
				 ue_sb_ ? ue_sb_ : "(null)");                            \
	} while (0)

#define ASSERT_STREQ(a, b) UE_CMP_STR_(1, a, b)
#define EXPECT_STREQ(a, b) UE_CMP_STR_(0, a, b)

#define UE_TEST_MAIN()                                                                   \
	struct ue_test *ue_tests_head;                                                   \
	int ue_test_failed;                                                              \
	const char *ue_test_skipped;                                                     \
	jmp_buf ue_test_jmp;                                                             \
	static int ue_test_run_one(const struct ue_test *t)                              \
	{                                                                                \
		ue_test_failed = 0;                                                      \
		ue_test_skipped = NULL;                                                  \
		if (!setjmp(ue_test_jmp))                                                \
			t->fn();                                                         \
		return ue_test_failed;                                                   \
	}                                                                                \
	int main(void)                                                                   \
	{                                                                                \
		int n = 0, i = 0, bad = 0;                                               \
		struct ue_test *t;                                                       \
		setvbuf(stdout, NULL, _IOLBF, 0);                                        \
		for (t = ue_tests_head; t; t = t->next)                                  \
			n++;                                                             \
		printf("1..%d\n", n);                                                   \
		for (t = ue_tests_head; t; t = t->next) {                                \
			int failed = ue_test_run_one(t);                                 \
			if (ue_test_skipped && !failed) {                                \
				printf("ok %d - %s # SKIP %s\n", ++i, t->name,          \
				       ue_test_skipped);                                 \
				continue;                                                \
			}                                                                \
			printf("%s %d - %s\n", failed ? "not ok" : "ok", ++i, t->name);  \
			bad += failed;                                                   \
		}                                                                        \
		return bad ? 1 : 0;                                                      \
	}

#endif /* UE_TEST_HARNESS_H */
