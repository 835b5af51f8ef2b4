/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuserevents: the provider API.  A program opens a provider (the kernel's
 * user_events_data or a usereventsd mount), declares typed events with
 * UE_EVENT(), registers them, checks ue_NAME_enabled() (one relaxed load)
 * and writes them with ue_NAME_write(typed arguments...).
 */
#ifndef USEREVENTS_USEREVENTS_H
#define USEREVENTS_USEREVENTS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UE_API __attribute__((visibility("default")))

/*
 * Longest payload one event write may carry: usereventsd records up to this
 * (a 64 KiB ring page less its headers); the kernel records no more than 4064
 * bytes (a longer write succeeds there and records nothing).
 */
#define UE_MAX_PAYLOAD 65504
/* Most iovecs ue_tracepoint_writev() takes (one more is used for write_index). */
#define UE_MAX_IOV 32

struct ue_provider;

/* Which implementation of user_events a provider talks to. */
enum ue_backend {
	UE_BACKEND_KERNEL = 1,	/* the kernel's tracefs (CONFIG_USER_EVENTS) */
	UE_BACKEND_DAEMON = 2,	/* a usereventsd mount */
};

/* Flags of struct ue_provider_opts. */
#define UE_PROVIDER_NO_NATIVE (1u << 0)	/* never use the shared-memory path */
#define UE_PROVIDER_NO_KERNEL (1u << 1)	/* skip the kernel's tracefs in the search */

/*
 * Options of ue_provider_open(); extensible: set @sz to sizeof(the struct).
 * Fields added later are appended; the library treats missing ones as 0.
 */
struct ue_provider_opts {
	size_t sz;
	const char *tracefs;	/* directory holding user_events_data, or NULL to search */
	unsigned int flags;	/* UE_PROVIDER_* */
};

/*
 * One event of a provider.  UE_EVENT() defines one per event; a program
 * that builds name_args at run time declares its own and sets @name_args.
 * @enabled is the enable word the tracing side writes (bit 0); everything
 * after it belongs to the library.
 */
struct ue_tracepoint {
	uint32_t enabled;
	uint32_t write_index;
	const char *name_args;
	struct ue_provider *provider;
	struct ue_tracepoint *next;
	uint32_t native_id;	/* slot of the event in the native session, 0: none */
	uint32_t reserved;
};

/* Options of ue_tracepoint_register(); extensible as ue_provider_opts. */
struct ue_register_opts {
	size_t sz;
	uint16_t flags;		/* USER_EVENT_REG_PERSIST, USER_EVENT_REG_MULTI_FORMAT */
};

/**
 * ue_provider_open - connect to user_events
 * @opts: options, or NULL for the defaults
 * @ret_provider: the new provider (close with ue_provider_close())
 *
 * Finds user_events_data in @opts->tracefs, else $USEREVENTS_TRACEFS, else
 * the kernel's /sys/kernel/tracing and /sys/kernel/debug/tracing, else the
 * first usereventsd mount of /proc/self/mountinfo, and opens it.
 *
 * Return: 0; -EINVAL on bad options; -ENOENT when no user_events is found;
 * -EACCES when one was found but may not be opened; -ENOMEM.
 * *@ret_provider is untouched on failure.
 */
UE_API int ue_provider_open(const struct ue_provider_opts *opts, struct ue_provider **ret_provider);

/**
 * ue_provider_close - unregister every event of @provider and close it
 * @provider: the provider (NULL is ignored); no other thread may use it
 */
UE_API void ue_provider_close(struct ue_provider *provider);

/**
 * ue_provider_backend - what @provider talks to
 * @provider: the provider
 *
 * Return: UE_BACKEND_KERNEL or UE_BACKEND_DAEMON.
 */
UE_API int ue_provider_backend(const struct ue_provider *provider);

/**
 * ue_provider_tracefs - the directory whose user_events_data @provider opened
 * @provider: the provider
 *
 * Return: the path, valid until ue_provider_close().
 */
UE_API const char *ue_provider_tracefs(const struct ue_provider *provider);

/**
 * ue_provider_native - whether @provider writes through shared memory
 * @provider: the provider
 *
 * Return: true when the daemon granted the native path to this provider.
 */
UE_API bool ue_provider_native(const struct ue_provider *provider);

/**
 * ue_provider_lost - what @provider could not write because its daemon died
 * @provider: the provider
 * Writes refused with -EPIPE while no daemon served it, and records its
 * shared-memory rings held that the dead daemon never took, since
 * ue_provider_open().  The library reconnects by itself when a new daemon
 * serves where the last one did, and tells it this count (its
 * usereventsd_stats, native_lost_reconnect).
 * Return: the count; 0 for the kernel's user_events, which never goes away.
 */
UE_API uint64_t ue_provider_lost(const struct ue_provider *provider);

/**
 * ue_provider_delete - delete an event by name (DIAG_IOCSDEL)
 * @provider: the provider
 * @name: the event's name
 *
 * Return: 0; -ENOENT, -EBUSY, -EPERM as the kernel.
 */
UE_API int ue_provider_delete(struct ue_provider *provider, const char *name);

/**
 * ue_tracepoint_register - register @tp with @provider (DIAG_IOCSREG)
 * @provider: the provider
 * @tp: the event; @tp->name_args set, not registered yet
 * @opts: registration flags, or NULL
 *
 * On success @tp->enabled follows the event's state from now on.
 *
 * Return: 0; -EBUSY when @tp is registered already; -EINVAL, -EADDRINUSE,
 * -EMFILE, ... as the kernel's DIAG_IOCSREG.
 */
UE_API int ue_tracepoint_register(struct ue_provider *provider, struct ue_tracepoint *tp,
				  const struct ue_register_opts *opts);

/**
 * ue_tracepoint_unregister - stop @tp's enable word being updated (DIAG_IOCSUNREG)
 * @tp: a registered event
 *
 * @tp->enabled is cleared; @tp may be registered again.
 *
 * Return: 0; -ENOENT when @tp is not registered.
 */
UE_API int ue_tracepoint_unregister(struct ue_tracepoint *tp);

/**
 * ue_tracepoint_writev - write one event: its payload in pieces
 * @tp: a registered event
 * @iov: the payload (the write_index is added by the library)
 * @iovcnt: number of pieces, 0 to UE_MAX_IOV
 *
 * Through the native path when the provider has one (no system call),
 * else writev() on user_events_data.  Never blocks on a full buffer.
 *
 * Return: 0; -ENOENT when @tp is not registered; -EBADF when the event is
 * disabled; -EINVAL / -EFAULT as the kernel validates the payload;
 * -E2BIG when a dynamic field is too long; -ENOBUFS when the native ring
 * was full (the record is dropped and counted); -EPIPE when the daemon
 * went away (counted in ue_provider_lost(); the library registers every
 * event again with the next daemon serving at the same place, and the
 * event's enable word is clear meanwhile).
 */
UE_API int ue_tracepoint_writev(struct ue_tracepoint *tp, const struct iovec *iov, int iovcnt);

/**
 * ue_tracepoint_enabled - whether a tracer has @tp enabled (one relaxed load)
 * @tp: the event
 */
static inline bool ue_tracepoint_enabled(const struct ue_tracepoint *tp)
{
	return __atomic_load_n(&tp->enabled, __ATOMIC_RELAXED) != 0;
}

/*
 * Typed events.
 *
 *   UE_EVENT(net_rx, UE_U32(len), UE_STR(dev))
 *
 * defines, in the including file (all static):
 *   struct ue_tracepoint ue_net_rx_tp         name_args "net_rx u32 len; __rel_loc char[] dev"
 *   int  ue_net_rx_register(struct ue_provider *p)
 *   int  ue_net_rx_unregister(void)
 *   bool ue_net_rx_enabled(void)             one relaxed load
 *   int  ue_net_rx_write(uint32_t len, const char *dev)
 *
 * Field types: UE_U8 .. UE_U64, UE_S8 .. UE_S64 (integers), UE_STR (a
 * NUL-terminated string, "__rel_loc char[]"), UE_CHARS(name, N) (a fixed
 * "char[N]", cut or NUL-padded to N), UE_BYTES(name) (a blob, "__rel_loc
 * u8[]": two arguments, pointer and length).  One to 16 fields.
 */
#define UE_U8(n) (INT, uint8_t, "u8", n, 0)
#define UE_S8(n) (INT, int8_t, "s8", n, 0)
#define UE_U16(n) (INT, uint16_t, "u16", n, 0)
#define UE_S16(n) (INT, int16_t, "s16", n, 0)
#define UE_U32(n) (INT, uint32_t, "u32", n, 0)
#define UE_S32(n) (INT, int32_t, "s32", n, 0)
#define UE_U64(n) (INT, uint64_t, "u64", n, 0)
#define UE_S64(n) (INT, int64_t, "s64", n, 0)
#define UE_STR(n) (STR, const char *, "__rel_loc char[]", n, 0)
#define UE_CHARS(n, N) (CHARS, const char *, "char[" #N "]", n, N)
#define UE_BYTES(n) (BYTES, const void *, "__rel_loc u8[]", n, 0)

/* Plumbing (not API). */

/* strnlen() is POSIX, not ISO C: -std=c11 does not declare it. */
static inline __attribute__((unused)) size_t ue__strnlen(const char *s, size_t max)
{
	const char *z = (const char *)memchr(s, 0, max);

	return z ? (size_t)(z - s) : max;
}

#define UE__CAT_(a, b) a##b
#define UE__CAT(a, b) UE__CAT_(a, b)
#define UE__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, \
		  ...)                                                                    \
	N
#define UE__NARG(...) \
	UE__NARG_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define UE__FE_1(m, s, a) m a
#define UE__FE_2(m, s, a, ...) m a s() UE__FE_1(m, s, __VA_ARGS__)
#define UE__FE_3(m, s, a, ...) m a s() UE__FE_2(m, s, __VA_ARGS__)
#define UE__FE_4(m, s, a, ...) m a s() UE__FE_3(m, s, __VA_ARGS__)
#define UE__FE_5(m, s, a, ...) m a s() UE__FE_4(m, s, __VA_ARGS__)
#define UE__FE_6(m, s, a, ...) m a s() UE__FE_5(m, s, __VA_ARGS__)
#define UE__FE_7(m, s, a, ...) m a s() UE__FE_6(m, s, __VA_ARGS__)
#define UE__FE_8(m, s, a, ...) m a s() UE__FE_7(m, s, __VA_ARGS__)
#define UE__FE_9(m, s, a, ...) m a s() UE__FE_8(m, s, __VA_ARGS__)
#define UE__FE_10(m, s, a, ...) m a s() UE__FE_9(m, s, __VA_ARGS__)
#define UE__FE_11(m, s, a, ...) m a s() UE__FE_10(m, s, __VA_ARGS__)
#define UE__FE_12(m, s, a, ...) m a s() UE__FE_11(m, s, __VA_ARGS__)
#define UE__FE_13(m, s, a, ...) m a s() UE__FE_12(m, s, __VA_ARGS__)
#define UE__FE_14(m, s, a, ...) m a s() UE__FE_13(m, s, __VA_ARGS__)
#define UE__FE_15(m, s, a, ...) m a s() UE__FE_14(m, s, __VA_ARGS__)
#define UE__FE_16(m, s, a, ...) m a s() UE__FE_15(m, s, __VA_ARGS__)
#define UE__FOREACH(m, s, ...) UE__CAT(UE__FE_, UE__NARG(__VA_ARGS__))(m, s, __VA_ARGS__)
#define UE__NOSEP()
#define UE__COMMA() ,
#define UE__SEMI() ;
#define UE__SEMISTR() "; "

/* name_args text of one field: "u32 len" */
#define UE__DECL(k, ct, kt, n, N) kt " " #n
/* the write function's parameter(s) */
#define UE__PARAM(k, ct, kt, n, N) UE__CAT(UE__PARAM_, k)(ct, n)
#define UE__PARAM_INT(ct, n) ct n
#define UE__PARAM_STR(ct, n) ct n
#define UE__PARAM_CHARS(ct, n) ct n
#define UE__PARAM_BYTES(ct, n) ct n, uint32_t n##_len
/* bytes of the fixed part */
#define UE__SIZE(k, ct, kt, n, N) +UE__CAT(UE__SIZE_, k)(ct, N)
#define UE__SIZE_INT(ct, N) sizeof(ct)
#define UE__SIZE_STR(ct, N) 4
#define UE__SIZE_CHARS(ct, N) (N)
#define UE__SIZE_BYTES(ct, N) 4
/* pieces of a write */
#define UE__NDYN(k, ct, kt, n, N) +UE__CAT(UE__NDYN_, k)
#define UE__NDYN_INT 0
#define UE__NDYN_STR 1
#define UE__NDYN_CHARS 0
#define UE__NDYN_BYTES 1
/* store one field */
#define UE__PUT(k, ct, kt, n, N) UE__CAT(UE__PUT_, k)(ct, n, N)
#define UE__PUT_INT(ct, n, N)                                  \
	do {                                                   \
		ct ue__v = (n);                                \
		memcpy(ue__fx + ue__off, &ue__v, sizeof(ue__v)); \
		ue__off += sizeof(ue__v);                      \
	} while (0)
#define UE__PUT_CHARS(ct, n, N)                                \
	do {                                                   \
		const char *ue__s = (n);                       \
		size_t ue__l = ue__s ? ue__strnlen(ue__s, (N)) : 0; \
		memcpy(ue__fx + ue__off, ue__s, ue__l);        \
		memset(ue__fx + ue__off + ue__l, 0, (N) - ue__l); \
		ue__off += (N);                                \
	} while (0)
#define UE__PUT_STR(ct, n, N)                                        \
	do {                                                         \
		const char *ue__s = (n) ? (n) : "(null)";            \
		UE__PUT_DYN(ue__s, strlen(ue__s) + 1);               \
	} while (0)
#define UE__PUT_BYTES(ct, n, N) UE__PUT_DYN((n), (n##_len))
/*
 * A __rel_loc: length in the high half, offset from the end of the field in
 * the low half; the data follows the fixed part, in field order.
 */
#define UE__PUT_DYN(ptr, len)                                                        \
	do {                                                                         \
		size_t ue__dl = (len);                                               \
		uint32_t ue__loc;                                                    \
		if (ue__dl > 0xffff)                                                 \
			return -E2BIG;                                               \
		ue__loc = (uint32_t)ue__dl << 16 |                                   \
			  (uint32_t)(sizeof(ue__fx) - ue__off - 4 + ue__dyn);        \
		memcpy(ue__fx + ue__off, &ue__loc, 4);                               \
		ue__off += 4;                                                        \
		ue__iov[ue__n].iov_base = (void *)(ptr);                             \
		ue__iov[ue__n++].iov_len = ue__dl;                                   \
		ue__dyn += ue__dl;                                                   \
	} while (0)

/**
 * UE_EVENT - define a typed event and its functions (see above)
 * @name: the event's name (an identifier)
 * @...: one to 16 fields: UE_U32(len), UE_STR(dev), ...
 *
 * Write it with or without a semicolon after it.  It ends in __extension__,
 * which takes the next file-scope declaration -- the ";" if there is one,
 * which ISO C otherwise refuses under -Wpedantic -- with pedantic warnings
 * off; so without a semicolon it must not be the last thing in the file.
 */
#define UE_EVENT(name, ...)                                                                   \
	static struct ue_tracepoint ue_##name##_tp __attribute__((unused)) = {               \
		0, 0, #name " " UE__FOREACH(UE__DECL, UE__SEMISTR, __VA_ARGS__), 0, 0, 0, 0,  \
	};                                                                                    \
	static inline __attribute__((unused)) bool ue_##name##_enabled(void)                  \
	{                                                                                     \
		return __atomic_load_n(&ue_##name##_tp.enabled, __ATOMIC_RELAXED) != 0;       \
	}                                                                                     \
	static inline __attribute__((unused)) int ue_##name##_register(struct ue_provider *p) \
	{                                                                                     \
		return ue_tracepoint_register(p, &ue_##name##_tp, NULL);                      \
	}                                                                                     \
	static inline __attribute__((unused)) int ue_##name##_unregister(void)                \
	{                                                                                     \
		return ue_tracepoint_unregister(&ue_##name##_tp);                             \
	}                                                                                     \
	static inline __attribute__((unused)) int ue_##name##_write(                          \
		UE__FOREACH(UE__PARAM, UE__COMMA, __VA_ARGS__))                               \
	{                                                                                     \
		unsigned char ue__fx[0 UE__FOREACH(UE__SIZE, UE__NOSEP, __VA_ARGS__)];        \
		struct iovec ue__iov[1 UE__FOREACH(UE__NDYN, UE__NOSEP, __VA_ARGS__)];        \
		size_t ue__off = 0;                                                           \
		uint32_t ue__dyn = 0;                                                         \
		int ue__n = 1;                                                                \
		UE__FOREACH(UE__PUT, UE__SEMI, __VA_ARGS__);                                  \
		(void)ue__dyn;                                                                \
		ue__iov[0].iov_base = ue__fx;                                                 \
		ue__iov[0].iov_len = sizeof(ue__fx);                                          \
		return ue_tracepoint_writev(&ue_##name##_tp, ue__iov, ue__n);                 \
	}                                                                                     \
	__extension__

#ifdef __cplusplus
}
#endif

#endif /* USEREVENTS_USEREVENTS_H */
