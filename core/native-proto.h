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
	UE_NATIVE_CHANNEL,	/* a consumer channel (below): write_index names the peer's
				 * descriptor of our per_cpu/cpu0/trace_pipe_raw, open for
				 * reading; chan: the request -> its memfd and an eventfd
				 * (SCM_RIGHTS, in that order).  One per session; it ends
				 * with the session's socket. */
	UE_NATIVE_CHANNEL_FLUSH, /* the channel's reader asks for everything written so far:
				 * the producers' rings drained, every page holding
				 * records handed over, before the reply */
	UE_NATIVE_LOST,		/* after a HELLO: ring_bytes records this process could not
				 * write while no daemon served it (its last one died; it
				 * reconnected, lib/reconnect.c): counted as its losses */
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
	uint32_t id;		/* ADD_EVENT reply: the event's slot (1..); NEW_RING:
				 * UE_NATIVE_RING_CAN_* the producer can write */
	uint32_t write_index;	/* ADD_EVENT: the library's index; HELLO: its descriptor */
	int32_t tid;		/* NEW_RING: the writing thread */
	uint32_t ring_bytes;	/* NEW_RING reply: bytes of the ring's data area */
	union {
		char name_args[UE_NATIVE_NAME_MAX];
		struct ue_chan_req {
			uint32_t kib_per_cpu;	/* sub-buffers per CPU, in KiB; 0: the default */
			uint32_t flags;		/* UE_CHAN_* */
			uint32_t block_ms;	/* UE_CHAN_BLOCK: most writers wait for room */
			uint32_t flush_ms;	/* a page holding records is handed over this old; 0: default */
		} chan;
	};
};
_Static_assert(sizeof(struct ue_native_msg) == 544, "ue_native_msg is wire format");

/*
 * The records' clock (ue_native_ring.clock).  A producer that can read the
 * CPU's time-stamp counter says so in NEW_RING's id (UE_NATIVE_RING_CAN_TSC);
 * the daemon answers with a ring whose clock is UE_RING_CLOCK_TSC when the
 * kernel keeps time with that counter (clocksource "tsc"), and turns the
 * ticks into CLOCK_MONOTONIC as it drains (core/tscclock.h).  A daemon that
 * knows nothing of it leaves 0: CLOCK_MONOTONIC nanoseconds, as before.
 */
#define UE_NATIVE_RING_CAN_TSC 1u
#define UE_RING_CLOCK_MONO 0
#define UE_RING_CLOCK_TSC 1

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
	uint64_t full_wait_ns;	/* the daemon: how long a write that finds the ring full
				 * waits for the drain to make room before it gives up */
	uint32_t clock;		/* UE_RING_CLOCK_*: what the records' ts_ns hold (the daemon,
				 * at the ring's making; the counter only if asked) */
	uint32_t tsc_per_ms;	/* UE_RING_CLOCK_TSC: the counter's ticks in a millisecond */
	uint64_t heartbeat_tsc;	/* UE_RING_CLOCK_TSC: the counter at heartbeat_ns */
	uint8_t pad1[64 - 56];
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
	uint64_t ts_ns;		/* CLOCK_MONOTONIC at the write, or the counter's ticks
				 * (UE_RING_CLOCK_TSC) */
	uint32_t cpu;
	uint32_t payload_len;	/* bytes after the entry header */
	uint8_t entry[8];	/* struct trace_entry, filled in by the daemon */
};
_Static_assert(sizeof(struct ue_native_rec) == 32, "ue_native_rec is shared layout");

/*
 * Consumer channels.  A reader of the trace (userevents record, stream,
 * export) asks for one with UE_NATIVE_CHANNEL: from then on every record
 * the trace buffer takes is also written, by the same writer under the
 * same per-CPU lock, into the channel's own per-CPU rings of sub-buffers,
 * each a page in the kernel's ring-buffer format (core/rbpage.h) of
 * UE_CHAN_SUBBUF bytes.  The daemon hands a sub-buffer over when it is
 * full, or when it holds records older than flush_ms; the reader takes
 * whole pages from shared memory and gives them back by advancing
 * consumed.  Records that find no free sub-buffer are lost, counted, and
 * marked in the next page handed over (the kernel's missed-events flag and
 * count); with UE_CHAN_BLOCK the daemon first stops draining producers
 * (who wait for room in their own rings) for up to block_ms.
 *
 * Layout of the memfd: struct ue_chan_hdr at 0, struct ue_chan_cpu of CPU
 * c at UE_CHAN_CPU_OFF + c * sizeof(struct ue_chan_cpu), sub-buffer i of
 * CPU c at data_offset + (c * nsubbufs + i % nsubbufs) * subbuf_size.
 */
#define UE_CHAN_MAGIC 0x4e484355u	/* "UCHN" */
#define UE_CHAN_SUBBUF 65536		/* a sub-buffer: UE_RB_PAGE_SIZE_MAX */
#define UE_CHAN_CPU_OFF 128
#define UE_CHAN_BLOCK 1u		/* chan.flags: writers wait for room, up to block_ms */
#define UE_CHAN_BLOCK_MS_MAX 10000

struct ue_chan_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	uint32_t ncpus;
	uint32_t subbuf_size;
	uint32_t nsubbufs;	/* per CPU */
	uint32_t flags;		/* as asked */
	uint64_t data_offset;
	uint64_t map_bytes;	/* the memfd's size */
	uint8_t pad0[64 - 40];
	uint32_t waiting;	/* reader: 1 before it sleeps on the eventfd; the daemon
				 * clears it as it signals a hand-over */
	uint8_t pad1[64 - 4];
};
_Static_assert(sizeof(struct ue_chan_hdr) == UE_CHAN_CPU_OFF, "ue_chan_hdr is shared layout");

struct ue_chan_cpu {
	uint64_t produced;	/* daemon: sub-buffers handed over, ever */
	uint64_t records;	/* daemon: records written into them, ever */
	uint64_t lost;		/* daemon: records lost for want of room, ever */
	uint64_t lost_producer;	/* daemon: of lost, refused by a full producer ring */
	uint64_t open_ts;	/* daemon: timestamp of the first record of the page being
				 * filled, UINT64_MAX when none: every record not handed
				 * over yet is at least this recent (a reader that merges
				 * CPUs holds back later ones) */
	uint8_t pad0[64 - 40];
	uint64_t consumed;	/* reader: sub-buffers given back, ever */
	uint8_t pad1[64 - 8];
};
_Static_assert(sizeof(struct ue_chan_cpu) == 128, "ue_chan_cpu is shared layout");

#endif /* UE_NATIVE_PROTO_H */
