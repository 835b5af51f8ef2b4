/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One request and its reply on the native path's socket, shared by
 * libuserevents (native.c) and the interposer (preload-write.c).
 */
#ifndef UE_LIB_NATIVE_MSG_H
#define UE_LIB_NATIVE_MSG_H

#include "native-proto.h"

/**
 * ue_native_xchg - send @m on @sock and read the daemon's reply into @m
 * @sock: the connected SOCK_SEQPACKET socket
 * @m: the request; the reply on return (its status in m->status)
 * @ret_fd: NULL, or where a descriptor sent with the reply goes if *@ret_fd
 *          is still negative (others are closed)
 *
 * Async-signal-safe (the interposer calls it from any context).
 *
 * Return: 0 with the reply in @m; -EPIPE when the daemon is gone or answered
 * with something that is not a reply of this protocol.
 */
int ue_native_xchg(int sock, struct ue_native_msg *m, int *ret_fd);

#endif /* UE_LIB_NATIVE_MSG_H */
