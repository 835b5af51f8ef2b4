// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core/arm.c: EventHeader tracepoint names (the rules of LinuxTracepoints'
 * EventHeaderEventNameIsValid()), armed patterns' text and what they match.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "core.h"

TEST(eventheader_names)
{
	static const struct {
		const char *name;
		int ok;
		size_t plen;
		unsigned int level;
		uint64_t keyword;
	} cases[] = {
		{ "MyProvider_L3K2a", 1, 10, 3, 0x2a },
		{ "OtherProvider_L5K0Gperf", 1, 13, 5, 0 },
		{ "My_Comp_Prov_L1K1", 1, 12, 1, 1 },
		{ "P_LffKffffffffffffffff", 1, 1, 255, UINT64_MAX },
		{ "P_L4K1Aa1Bz9", 1, 1, 4, 1 },
		{ "P_L100K1", 0 },			/* level above 0xff */
		{ "P_L4K10000000000000000", 0 },	/* keyword above 64 bits */
		{ "P_L4K1g", 0 },			/* an option starts uppercase */
		{ "P_L4K1G-x", 0 },
		{ "P_L4", 0 },	{ "P_LK1", 0 },	{ "P_L4K", 0 }, { "P_L4k1", 0 },
		{ "P_LAK1", 0 }, { "_L4K1", 0 }, { "PL4K1", 0 }, { "P_L4K1_x", 0 },
		{ "", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t plen = 99;
		unsigned int level = 99;
		uint64_t kw = 99;
		int r = ue_eventheader_name(cases[i].name, &plen, &level, &kw);

		if ((r == 0) != cases[i].ok)
			printf("# %s: %d\n", cases[i].name, r);
		EXPECT_EQ(r == 0, cases[i].ok);
		if (!cases[i].ok) {
			EXPECT_EQ(r, -EINVAL);
			EXPECT_EQ(plen, 99);
			continue;
		}
		EXPECT_EQ(plen, cases[i].plen);
		EXPECT_EQ(level, cases[i].level);
		EXPECT_TRUE(kw == cases[i].keyword);
	}
}

TEST(pattern_text)
{
	static const struct {
		enum ue_arm_kind kind;
		const char *text;
		int ok;
		unsigned int level;
		uint64_t keywords;
	} cases[] = {
		{ UE_ARM_GLOB, "user_events:*", 1 },	{ UE_ARM_GLOB, "net_*", 1 },
		{ UE_ARM_GLOB, "a:b:c", 0 },		{ UE_ARM_GLOB, ":a", 0 },
		{ UE_ARM_GLOB, "a:", 0 },		{ UE_ARM_GLOB, "a b", 0 },
		{ UE_ARM_GLOB, "a\tb", 0 },		{ UE_ARM_GLOB, "", 0 },
		{ UE_ARM_PROVIDER, "P", 1, 255, 0 },	{ UE_ARM_PROVIDER, "P:4", 1, 4, 0 },
		{ UE_ARM_PROVIDER, "P:0x10:ff", 1, 16, 0xff },
		{ UE_ARM_PROVIDER, "P::0x3", 1, 255, 3 },
		{ UE_ARM_PROVIDER, "P:255:FFFFFFFFFFFFFFFF", 1, 255, UINT64_MAX },
		{ UE_ARM_PROVIDER, "P:256", 0 },	{ UE_ARM_PROVIDER, "P:-1", 0 },
		{ UE_ARM_PROVIDER, "P:4:", 0 },	{ UE_ARM_PROVIDER, "P:4:0x", 0 },
		{ UE_ARM_PROVIDER, "P:4:g", 0 },	{ UE_ARM_PROVIDER, "P:4:1:2", 0 },
		{ UE_ARM_PROVIDER, ":4", 0 },		{ UE_ARM_PROVIDER, "P:4x", 0 },
		{ UE_ARM_PROVIDER, "P:4:10000000000000000", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_arm a;
		int r = ue_arm_parse(cases[i].kind, cases[i].text, strlen(cases[i].text), &a);

		if ((r == 0) != cases[i].ok)
			printf("# %s: %d\n", cases[i].text, r);
		EXPECT_EQ(r, cases[i].ok ? 0 : -EINVAL);
		if (r == 0 && cases[i].kind == UE_ARM_PROVIDER) {
			EXPECT_EQ(a.level, cases[i].level);
			EXPECT_TRUE(a.keywords == cases[i].keywords);
		}
	}
}

TEST(pattern_length)
{
	char text[UE_ARM_MAX_TEXT + 1];
	struct ue_arm a;

	memset(text, 'a', sizeof(text));
	EXPECT_EQ(ue_arm_parse(UE_ARM_GLOB, text, UE_ARM_MAX_TEXT - 1, &a), 0);
	EXPECT_EQ(strlen(a.text), UE_ARM_MAX_TEXT - 1);
	EXPECT_EQ(ue_arm_parse(UE_ARM_GLOB, text, UE_ARM_MAX_TEXT, &a), -EINVAL);
	EXPECT_EQ(ue_arm_parse(UE_ARM_GLOB, "a\0b", 3, &a), -EINVAL);
}

TEST(matching)
{
	static const struct {
		enum ue_arm_kind kind;
		const char *pattern, *system, *name;
		int match;
	} cases[] = {
		{ UE_ARM_GLOB, "user_events:*", "user_events", "x", 1 },
		{ UE_ARM_GLOB, "user_events:*", "user_events_multi", "x.0", 0 },
		{ UE_ARM_GLOB, "user_events*:*", "user_events_multi", "x.0", 1 },
		{ UE_ARM_GLOB, "net_*", "user_events", "net_rx", 1 },
		{ UE_ARM_GLOB, "net_rx", "user_events_multi", "net_rx.1f", 1 },
		{ UE_ARM_GLOB, "net_rx", "user_events", "net_tx", 0 },
		{ UE_ARM_PROVIDER, "P:4:1", "user_events", "P_L4K1", 1 },
		{ UE_ARM_PROVIDER, "P:4:1", "user_events", "P_L5K1", 0 },
		{ UE_ARM_PROVIDER, "P:4:1", "user_events", "P_L4K2", 0 },
		{ UE_ARM_PROVIDER, "P:4:1", "user_events", "P_L4K0", 1 },
		{ UE_ARM_PROVIDER, "P:4:1", "user_events", "P_L4K3Gx", 1 },
		{ UE_ARM_PROVIDER, "P:4:1", "user_events", "PX_L4K1", 0 },
		{ UE_ARM_PROVIDER, "P:4:1", "user_events", "P_L4K1 ", 0 },
		{ UE_ARM_PROVIDER, "P", "user_events", "P_LffK8000000000000000", 1 },
		{ UE_ARM_PROVIDER, "P", "user_events", "P_x", 0 },
		{ UE_ARM_PROVIDER, "A_*", "user_events", "A_B_L1K1", 1 },
		{ UE_ARM_PROVIDER, "A", "user_events", "A_B_L1K1", 0 },
		{ UE_ARM_PROVIDER, "P:4", "user_events_multi", "P_L4K1.1f", 1 },
		{ UE_ARM_PROVIDER, "P:4", "user_events_multi", "P_L5K1.1f", 0 },
		{ UE_ARM_PROVIDER, "P:4", "user_events", "P_L4K1.1f", 0 },
		{ UE_ARM_PROVIDER, "My.P:4", "user_events", "My.P_L4K1", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ue_arm a;

		ASSERT_EQ(ue_arm_parse(cases[i].kind, cases[i].pattern, strlen(cases[i].pattern),
				       &a), 0);
		if (ue_arm_match(&a, cases[i].system, cases[i].name) != cases[i].match)
			printf("# %s vs %s:%s\n", cases[i].pattern, cases[i].system, cases[i].name);
		EXPECT_EQ(ue_arm_match(&a, cases[i].system, cases[i].name), cases[i].match);
	}
}

UE_TEST_MAIN()
