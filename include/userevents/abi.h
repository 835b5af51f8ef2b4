/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * userevents ABI: the user_events interface of Linux 6.12
 * (include/uapi/linux/user_events.h), same layout, same values, same
 * include guard, so either header may come first and programs written
 * against the kernel's header compile unchanged against this one.
 */
#ifndef _UAPI_LINUX_USER_EVENTS_H
#define _UAPI_LINUX_USER_EVENTS_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define USER_EVENTS_SYSTEM "user_events"
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"
#define USER_EVENTS_PREFIX "u:"

/* A 32-bit dynamic location: length in the high half, offset in the low. */
#define DYN_LOC(offset, size) ((size) << 16 | (offset))

/* Flags accepted by DIAG_IOCSREG in user_reg.flags. */
enum user_reg_flag {
	/* The event outlives its last reference (needs CAP_PERFMON). */
	USER_EVENT_REG_PERSIST		= 1U << 0,

	/* Several formats may share one name (user_events_multi/NAME.ID). */
	USER_EVENT_REG_MULTI_FORMAT	= 1U << 1,

	/* This value and above are not ABI. */
	USER_EVENT_REG_MAX		= 1U << 2,
};

/* Argument of DIAG_IOCSREG; at least size and name_args must be set. */
struct user_reg {
	/* In: sizeof(struct user_reg) as the caller knows it. */
	__u32	size;

	/* In: bit of the enable word that mirrors the event's state. */
	__u8	enable_bit;

	/* In: size of the enable word, 4 or 8 bytes. */
	__u8	enable_size;

	/* In: enum user_reg_flag values. */
	__u16	flags;

	/* In: address of the enable word, naturally aligned. */
	__u64	enable_addr;

	/* In: address of "name[:flags] [field[;field]...]". */
	__u64	name_args;

	/* Out: index to prefix writes with on this file descriptor. */
	__u32	write_index;
} __attribute__((__packed__));

/* Argument of DIAG_IOCSUNREG: stop updating one address and bit. */
struct user_unreg {
	/* In: sizeof(struct user_unreg) as the caller knows it. */
	__u32	size;

	/* In: the bit given at registration. */
	__u8	disable_bit;

	/* In: must be 0. */
	__u8	__reserved;

	/* In: must be 0. */
	__u16	__reserved2;

	/* In: the address given at registration. */
	__u64	disable_addr;
} __attribute__((__packed__));

#define DIAG_IOC_MAGIC '*'

/* Register an event (or find the matching one) and an enabler. */
#define DIAG_IOCSREG _IOWR(DIAG_IOC_MAGIC, 0, struct user_reg *)

/* Delete an event by name once nothing references it. */
#define DIAG_IOCSDEL _IOW(DIAG_IOC_MAGIC, 1, char *)

/* Unregister an enabler: the bit is cleared and no longer updated. */
#define DIAG_IOCSUNREG _IOW(DIAG_IOC_MAGIC, 2, struct user_unreg *)

#endif /* _UAPI_LINUX_USER_EVENTS_H */
