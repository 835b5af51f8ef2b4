/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/native-proto: the native protocol between libuserevents and usereventsd: fixed-size
 * messages over a SOCK_SEQPACKET Unix socket (an abstract name unique to the
 * daemon instance, read from the UE_NATIVE_XATTR attribute of the mount's
 * user_events_data) and the layout of the per-thread shared-memory rings the
 * daemon hands out as memfds.
 */
#ifndef UE_NATIVE_PROTO_H
#define UE_NATIVE_PROTO_H

#include <linux/ioctl.h>
#include <stdint.h>

#define UE_NATIVE_MAGIC 0x3155454eu	/* "NEU1" */
#define UE_NATIVE_MAJOR 1
#define UE_NATIVE_MINOR 0
/* The daemon's pid and 64 random bits (a 16-digit hex number). */
#define UE_NATIVE_SOCK_FMT "usereventsd-native/%d/%016llx"
/* Extended attribute of user_events_data whose value is that name. */
#define UE_NATIVE_XATTR "user.usereventsd.native"
#define UE_NATIVE_SOCK_NAME_MAX 107	/* sun_path without its leading NUL */

/*
 * An ioctl of usereventsd's user_events_data (the kernel's answers ENOTTY),
 * no argument: "I was just forked".  Made by a fork child of a process with
 * enablers (pthread_atfork() in libuserevents and its interposer) before
 * fork() returns to it: the daemon reads its fork and proves it at once, as
 * at any request of the child, so it gets what it inherits, and every later
 * update, without waiting for the children poller or the grace of a fork
 * read from the proc connector.  Answers 0.
 */
#define UE_IOC_FORKED _IO('*', 0x40)

/* Requests; each gets one reply of the same struct (status 0 or -errno). */
enum ue_native_cmd {
	UE_NATIVE_HELLO = 1,	/* write_index: the peer's user_events_data descriptor number;
				 * id: UE_NATIVE_CLIENT_* */
	UE_NATIVE_ADD_EVENT,	/* name_args + write_index -> id (the same event: the same id) */
	UE_NATIVE_NEW_RING,	/* tid -> a ring memfd (SCM_RIGHTS) */
	UE_NATIVE_END_RING,	/* tid: its thread ends; the daemon drains the ring, then frees it */
};

/* Who opens a session (HELLO's id), for usereventsd_stats. */
#define UE_NATIVE_CLIENT_LIB 0		/* libuserevents */
#define UE_NATIVE_CLIENT_PRELOAD 1	/* libuserevents-preload.so */

#define UE_NATIVE_NAME_MAX 512

struct ue_native_msg {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	uint32_t cmd;
	int32_t status;
	uint32_t id;		/* ADD_EVENT reply: the event's slot (1..) */
	uint32_t write_index;	/* ADD_EVENT: the library's index; HELLO: its descriptor */
	int32_t tid;		/* NEW_RING: the writing thread */
	uint32_t ring_bytes;	/* NEW_RING reply: bytes of the ring's data area */
	char name_args[UE_NATIVE_NAME_MAX];
};
_Static_assert(sizeof(struct ue_native_msg) == 544, "ue_native_msg is wire format");

/* Ring states (ue_native_ring.state). */
#define UE_RING_LIVE 1
#define UE_RING_DEAD 2		/* the daemon closed the session: writes fail */

#define UE_NATIVE_RING_HDR 4096	/* the header page, then the data area */

/*
 * The header page of a ring.  head is the producer's, tail the daemon's,
 * each on its own cache line; positions are byte counts that only grow.
 */
struct ue_native_ring {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	uint32_t size;		/* data bytes, a power of two */
	uint32_t state;		/* UE_RING_* */
	int32_t tid;
	uint32_t pad0;
	uint64_t heartbeat_ns;	/* the daemon's clock at its last drain pass */
	uint8_t pad1[64 - 32];
	uint64_t head;		/* producer: bytes committed */
	uint64_t dropped;	/* producer: records refused as the ring was full */
	uint8_t pad2[64 - 16];
	uint64_t tail;		/* daemon: bytes consumed */
	uint8_t pad3[64 - 8];
};
_Static_assert(sizeof(struct ue_native_ring) == 192, "ue_native_ring is shared layout");

/*
 * One record in the data area, 8-byte aligned; a record never wraps: the
 * producer pads to the end with a record of id 0.  The 8 bytes of
 * struct trace_entry precede the payload so validation sees the record as
 * the kernel would; the daemon fills them in.
 */
struct ue_native_rec {
	uint32_t len;		/* bytes of this record, header included, multiple of 8 */
	uint32_t id;		/* event slot; 0: padding */
	uint64_t ts_ns;		/* CLOCK_MONOTONIC at the write */
	uint32_t cpu;
	uint32_t payload_len;	/* bytes after the entry header */
	uint8_t entry[8];	/* struct trace_entry, filled in by the daemon */
};
_Static_assert(sizeof(struct ue_native_rec) == 32, "ue_native_rec is shared layout");

#endif /* UE_NATIVE_PROTO_H */
