// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Pins include/userevents/abi.h to the layout and values of Linux 6.12's
 * include/uapi/linux/user_events.h: struct sizes and offsets, flag values,
 * ioctl numbers and the names the kernel exports.
 */
#include <stddef.h>
#include <sys/ioctl.h>

#include "userevents/abi.h"
#include "harness.h"

_Static_assert(sizeof(struct user_reg) == 28, "struct user_reg is 28 bytes");
_Static_assert(sizeof(struct user_unreg) == 16, "struct user_unreg is 16 bytes");

TEST(user_reg_layout)
{
	EXPECT_EQ(offsetof(struct user_reg, size), 0);
	EXPECT_EQ(offsetof(struct user_reg, enable_bit), 4);
	EXPECT_EQ(offsetof(struct user_reg, enable_size), 5);
	EXPECT_EQ(offsetof(struct user_reg, flags), 6);
	EXPECT_EQ(offsetof(struct user_reg, enable_addr), 8);
	EXPECT_EQ(offsetof(struct user_reg, name_args), 16);
	EXPECT_EQ(offsetof(struct user_reg, write_index), 24);
	EXPECT_EQ(sizeof(struct user_reg), 28);
}

TEST(user_unreg_layout)
{
	EXPECT_EQ(offsetof(struct user_unreg, size), 0);
	EXPECT_EQ(offsetof(struct user_unreg, disable_bit), 4);
	EXPECT_EQ(offsetof(struct user_unreg, __reserved), 5);
	EXPECT_EQ(offsetof(struct user_unreg, __reserved2), 6);
	EXPECT_EQ(offsetof(struct user_unreg, disable_addr), 8);
	EXPECT_EQ(sizeof(struct user_unreg), 16);
}

TEST(ioctl_numbers)
{
	/* _IOC(dir, '*', nr, sizeof(pointer)) on x86-64: the kernel's values. */
	EXPECT_EQ(DIAG_IOC_MAGIC, '*');
	EXPECT_EQ(DIAG_IOCSREG, 0xc0082a00UL);
	EXPECT_EQ(DIAG_IOCSDEL, 0x40082a01UL);
	EXPECT_EQ(DIAG_IOCSUNREG, 0x40082a02UL);
	EXPECT_EQ(_IOC_SIZE(DIAG_IOCSREG), sizeof(void *));
	EXPECT_EQ(_IOC_DIR(DIAG_IOCSREG), _IOC_READ | _IOC_WRITE);
	EXPECT_EQ(_IOC_DIR(DIAG_IOCSDEL), _IOC_WRITE);
	EXPECT_EQ(_IOC_DIR(DIAG_IOCSUNREG), _IOC_WRITE);
}

TEST(flags_and_names)
{
	EXPECT_EQ(USER_EVENT_REG_PERSIST, 1);
	EXPECT_EQ(USER_EVENT_REG_MULTI_FORMAT, 2);
	EXPECT_EQ(USER_EVENT_REG_MAX, 4);
	EXPECT_STREQ(USER_EVENTS_SYSTEM, "user_events");
	EXPECT_STREQ(USER_EVENTS_MULTI_SYSTEM, "user_events_multi");
	EXPECT_STREQ(USER_EVENTS_PREFIX, "u:");
	EXPECT_EQ(DYN_LOC(8, 5), 0x50008);
}

TEST(kernel_header_name)
{
	/* <linux/user_events.h> from include/userevents resolves to abi.h. */
	struct user_reg reg = { .size = sizeof(reg) };
	EXPECT_EQ(reg.size, 28);
}

UE_TEST_MAIN()
