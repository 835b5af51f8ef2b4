/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/channel: consumer channels (core/native-proto.h, "Consumer
 * channels"), one channel then their place on the trace buffer.  A channel:
 * per-CPU rings of sub-buffers in the kernel's ring-buffer page
 * format, in a memfd shared with one reader.  The trace buffer's writers
 * append records to every attached channel under the CPU lock they already
 * hold (buffer.c); the reader takes whole pages and gives them back.  A
 * record that finds no free sub-buffer is lost, counted, and marked in the
 * next page.  Nothing waits but ue_buffer_chan_wait_room() (a FUSE
 * writer): blocking mode is otherwise the drain's (native-drain.c), which
 * asks ue_buffer_chan_room() before it moves records.
 *
 * Everything the reader writes in the shared memory (its consumed
 * counters) is read as untrusted.
 */
#ifndef UE_DAEMON_CHANNEL_H
#define UE_DAEMON_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct ue_rbpage;

struct ue_chan;

/* Default and bounds of a channel's size per CPU (KiB). */
#define UE_CHAN_DEFAULT_KIB 16384
#define UE_CHAN_MIN_KIB 256
#define UE_CHAN_MAX_KIB (1024 * 1024)
/* Default hand-over age of a page holding records (ms); the tick runs at least every 20 ms. */
#define UE_CHAN_DEFAULT_FLUSH_MS 100

/* What a channel is made with (struct ue_chan_req, checked). */
struct ue_chan_opts {
	uint32_t kib_per_cpu;	/* 0: UE_CHAN_DEFAULT_KIB */
	uint32_t flags;		/* UE_CHAN_BLOCK */
	uint32_t block_ms;	/* at most UE_CHAN_BLOCK_MS_MAX */
	uint32_t flush_ms;	/* 0: UE_CHAN_DEFAULT_FLUSH_MS */
};

/**
 * ue_chan_new - make a channel and its shared memory
 * @ncpus: CPUs of the trace buffer
 * @o: the reader's request
 * @ret: the channel
 * @ret_memfd: its memfd, for the reader (the channel keeps its own mapping)
 * @ret_eventfd: a descriptor of the eventfd it signals hand-overs on, for
 *               the reader (the caller closes both once sent)
 *
 * Return: 0; -EINVAL on a bad request; -ENOMEM; -errno of memfd/eventfd.
 */
int ue_chan_new(unsigned int ncpus, const struct ue_chan_opts *o, struct ue_chan **ret,
		int *ret_memfd, int *ret_eventfd);

/** ue_chan_bytes_for - the shared memory ue_chan_new() would make for @o (its limit is checked first) */
size_t ue_chan_bytes_for(unsigned int ncpus, const struct ue_chan_opts *o);

/** ue_chan_free - release a channel no writer can reach any more (NULL ignored) */
void ue_chan_free(struct ue_chan *ch);

/** ue_chan_bytes - bytes of its shared memory (for the daemon's limit) */
size_t ue_chan_bytes(const struct ue_chan *ch);

/**
 * ue_chan_append - one record of CPU @cpu, with the CPU's buffer lock held
 * @ch: the channel
 * @cpu: below its ncpus
 * @ts: timestamp, ns; raised to the CPU's last when older
 * @iov: the record (struct trace_entry + payload), @iovcnt parts, @len bytes
 *
 * Return: true when written; false when lost (counted, marked later).
 */
bool ue_chan_append(struct ue_chan *ch, unsigned int cpu, uint64_t ts, const struct iovec *iov,
		    int iovcnt, size_t len);

/**
 * ue_chan_reserve - room for one record of CPU @cpu, to be built in place,
 * with the CPU's buffer lock held until ue_chan_commit() or the next call
 * @ch: the channel
 * @cpu: below its ncpus
 * @ts: timestamp, ns; raised to the CPU's last when older
 * @len: the record's bytes (struct trace_entry + payload)
 *
 * Return: where its @len bytes go, in the channel's shared page (the
 * reader sees them only once the page is handed over: they may be checked
 * there); NULL when lost (counted, marked later).  A reservation not
 * committed leaves nothing.
 */
uint8_t *ue_chan_reserve(struct ue_chan *ch, unsigned int cpu, uint64_t ts, size_t len);

/** ue_chan_commit - the record of the last ue_chan_reserve() on @cpu is written: it counts */
void ue_chan_commit(struct ue_chan *ch, unsigned int cpu);

/**
 * ue_chan_run_page - the page CPU @cpu is filling, for a writer that adds
 * records of its own one after another (the native drain's runs): each
 * with ue_rbpage_reserve() and ue_rbpage_commit() on it, with the CPU's
 * buffer lock held, and only while the page takes them at once (a record
 * it does not take goes through ue_chan_reserve(), after ue_chan_run_end())
 * @ch: the channel
 * @cpu: below its ncpus
 *
 * Return: the open page, NULL when none is open.
 */
struct ue_rbpage *ue_chan_run_page(struct ue_chan *ch, unsigned int cpu);

/** ue_chan_run_end - @n records were committed on ue_chan_run_page()'s page: they count */
void ue_chan_run_end(struct ue_chan *ch, unsigned int cpu, unsigned int n);

/**
 * ue_chan_can_take - whether CPU @cpu has a free sub-buffer besides the one
 * being filled (so the next record cannot be lost), with its buffer lock held
 */
bool ue_chan_can_take(struct ue_chan *ch, unsigned int cpu);

/** ue_chan_lost - @n records of CPU @cpu lost before they reached the buffer (a full producer ring) */
void ue_chan_lost(struct ue_chan *ch, unsigned int cpu, uint64_t n);

/**
 * ue_chan_tick - hand over CPU @cpu's page when it holds records @flush_ms old
 * @ch: the channel, with the CPU's buffer lock held
 * @now: the buffer clock
 * @all: hand over any page that holds records (a reader asked for everything)
 */
void ue_chan_tick(struct ue_chan *ch, unsigned int cpu, uint64_t now, bool all);

/**
 * ue_chan_room - whether a blocking channel can take a batch of records
 * @ch: the channel (one that does not block always can)
 * @now: the buffer clock
 *
 * False while some CPU has fewer than three free sub-buffers (besides the
 * one being filled) and the reader has not made writers wait for block_ms
 * yet; once block_ms pass without room, true (records are lost, as without
 * blocking) until the reader makes room again.  Races between callers (the
 * drain, FUSE writers) only move the moment a wait starts or ends.
 */
bool ue_chan_room(struct ue_chan *ch, uint64_t now);

/** ue_chan_blocks - its block_ms in ns when it blocks, else 0 */
uint64_t ue_chan_blocks(const struct ue_chan *ch);

/*
 * A channel in a state snapshot (usereventsd --upgrade): its options, its
 * memfd and eventfd, its counters; no page may be open with records (the
 * native path's pause hands them over first).  ue_chan_adopt() makes it
 * again from what ue_chan_save() wrote, for a buffer of @ncpus CPUs.
 */
struct ue_snap_w;
struct ue_snap_r;
int ue_chan_save(const struct ue_chan *ch, struct ue_snap_w *w);
int ue_chan_adopt(struct ue_snap_r *r, unsigned int ncpus, struct ue_chan **ret);

/*
 * Consumer channels (channel.h) attached to the buffer.  While one is,
 * every record a writer hands to the buffer goes to each channel instead
 * of the rings, under the same CPU lock: their readers consume the trace,
 * as readers of trace_pipe_raw do (the first one attached takes what the
 * rings held).  At most UE_BUFFER_MAX_CHANNELS.
 */
#define UE_BUFFER_MAX_CHANNELS 16
/* All channels of the daemon together: their shared memory. */
#define UE_CHAN_BYTES_ALL (UINT64_C(2) << 30)

struct ue_buffer;

/**
 * ue_buffer_chan_open - a reader's channel, made and attached
 * @buf: the trace buffer
 * @o: the reader's request
 * @ret: the channel (ue_buffer_chan_close())
 * @ret_memfd, @ret_eventfd: as ue_chan_new()
 *
 * Its memory is counted before it is made (and populated): the channels of
 * the buffer together stay within UE_CHAN_BYTES_ALL at every moment.
 *
 * Return: 0; -ENOSPC beyond UE_CHAN_BYTES_ALL or UE_BUFFER_MAX_CHANNELS;
 * what ue_chan_new() returns.
 */
int ue_buffer_chan_open(struct ue_buffer *buf, const struct ue_chan_opts *o, struct ue_chan **ret,
			int *ret_memfd, int *ret_eventfd);

/** ue_buffer_chan_close - detach, uncount and free a channel of ue_buffer_chan_open() or _adopt() (NULL ignored) */
void ue_buffer_chan_close(struct ue_buffer *buf, struct ue_chan *ch);

/**
 * ue_buffer_chan_adopt - a predecessor's channel (usereventsd --upgrade), from
 * what ue_chan_save() wrote, attached as ue_buffer_chan_open() does, but the
 * records the buffer holds are not its backlog (its reader had them from the
 * predecessor).
 */
int ue_buffer_chan_adopt(struct ue_buffer *buf, struct ue_snap_r *r, struct ue_chan **ret);

/** ue_buffer_chan_usage - how many channels are attached, and the memory of those opened or adopted */
void ue_buffer_chan_usage(struct ue_buffer *buf, unsigned int *ret_n, uint64_t *ret_bytes);

/** ue_buffer_attach - records from now on go to @ch too; -ENOSPC beyond the limit (uncounted: ue_buffer_chan_open() counts) */
int ue_buffer_attach(struct ue_buffer *buf, struct ue_chan *ch);

/** ue_buffer_detach - no writer reaches @ch once this returns (it may then be freed) */
void ue_buffer_detach(struct ue_buffer *buf, struct ue_chan *ch);

/**
 * ue_buffer_chan_tick - hand over the channels' pages that are old enough
 * @buf: the buffer
 * @now: the buffer clock
 * @only: NULL: every channel, pages older than its flush interval; else
 *        this channel, every page holding records (its reader asked)
 */
void ue_buffer_chan_tick(struct ue_buffer *buf, uint64_t now, const struct ue_chan *only);

/** ue_buffer_chan_lost - @n records of CPU @cpu were lost on their way here (every channel counts them) */
void ue_buffer_chan_lost(struct ue_buffer *buf, unsigned int cpu, uint64_t n);

/**
 * ue_buffer_chan_room - whether writers should wait for a blocking channel's reader
 * @buf: the buffer
 * @now: the buffer clock
 *
 * Return: 0 when every channel can take a batch of records (or none
 * blocks); else the longest block interval (ns) of those that cannot.
 */
uint64_t ue_buffer_chan_room(struct ue_buffer *buf, uint64_t now);

/**
 * ue_buffer_chan_wait_room - wait while a blocking channel's reader is behind
 * @buf: the buffer
 *
 * For a writer that holds no lock (a FUSE write): sleeps 100 us at a time
 * while ue_buffer_chan_room() says to wait, which is bounded by the
 * channels' block interval.  Returns at once when no channel blocks.
 */
void ue_buffer_chan_wait_room(struct ue_buffer *buf);

/** ue_buffer_chan_block_ns - the longest block interval of the attached channels, 0 when none blocks */
uint64_t ue_buffer_chan_block_ns(struct ue_buffer *buf);

#endif /* UE_DAEMON_CHANNEL_H */
