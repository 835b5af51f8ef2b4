// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * refkernel_lib: libuserevents on the reference kernel (Linux 6.12, CONFIG_USER_EVENTS=y).
 * Built static from the library sources; its output (refkernel_lib.out) is the ground
 * truth for the trace lines and errno tests/lib expects.  See tests/lib/ref/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "userevents/userevents.h"

UE_EVENT(lt_net_rx, UE_U32(len), UE_STR(dev))
UE_EVENT(lt_ints, UE_U8(a), UE_S8(b), UE_U16(c), UE_S16(d), UE_U32(e), UE_S32(f), UE_U64(g), UE_S64(h))
UE_EVENT(lt_mix, UE_CHARS(tag, 8), UE_BYTES(blob), UE_STR(s), UE_U16(n))

static void wr(const char *p, const char *s) { int fd = open(p, O_WRONLY|O_TRUNC); if (fd >= 0) { if (write(fd, s, strlen(s)) < 0) perror(p); close(fd);} else perror(p); }
int main(void)
{
	static const unsigned char blob[3] = { 0x0a, 0x0b, 0x0c };
	struct ue_provider *p; char buf[65536]; int fd; ssize_t n;
	int r = ue_provider_open(NULL, &p);
	printf("open %d backend %d tracefs %s native %d\n", r, r ? -1 : ue_provider_backend(p), r ? "" : ue_provider_tracefs(p), r ? 0 : ue_provider_native(p));
	if (r) return 1;
	printf("reg %d %d %d\n", ue_lt_net_rx_register(p), ue_lt_ints_register(p), ue_lt_mix_register(p));
	printf("write disabled %d\n", ue_lt_net_rx_write(1, "x"));
	wr("/sys/kernel/tracing/events/user_events/lt_net_rx/enable", "1");
	wr("/sys/kernel/tracing/events/user_events/lt_ints/enable", "1");
	wr("/sys/kernel/tracing/events/user_events/lt_mix/enable", "1");
	printf("enabled %d\n", ue_lt_net_rx_enabled());
	printf("w %d %d\n", ue_lt_net_rx_write(1500, "eth0"), ue_lt_net_rx_write(60, NULL));
	printf("w %d\n", ue_lt_ints_write(65, 66, 65535, -2, 4000000000u, -3, UINT64_MAX, INT64_MIN));
	printf("w %d %d\n", ue_lt_mix_write("abc", blob, 3, "str", 7), ue_lt_mix_write("abcdefghij", blob, 0, "", 8));
	struct iovec io = { "xx", 2 };
	printf("short %d\n", ue_tracepoint_writev(&ue_lt_net_rx_tp, &io, 1));
	uint32_t fx[2] = { 1, (9u << 16) }; struct iovec io2 = { fx, 8 };
	printf("efault %d\n", ue_tracepoint_writev(&ue_lt_net_rx_tp, &io2, 1));
	printf("busy %d addrinuse ", ue_lt_net_rx_register(p));
	struct ue_tracepoint other = { .name_args = "lt_net_rx u64 len" };
	printf("%d\n", ue_tracepoint_register(p, &other, NULL));
	fd = open("/sys/kernel/tracing/trace", O_RDONLY); n = read(fd, buf, sizeof(buf) - 1); buf[n > 0 ? n : 0] = 0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) if (l[0] != '#') printf("%s\n", strstr(l, ": lt_") ? strstr(l, ": lt_") + 2 : l);
	printf("unreg %d enabled-after %d again %d\n", ue_lt_net_rx_unregister(), ue_lt_net_rx_enabled(), ue_lt_net_rx_unregister());
	ue_provider_close(p);
	return 0;
}
