// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib-net: a provider written with libuserevents.  Declares two typed
 * events, registers them, and writes them while a tracer has them enabled.
 *
 *   lib-net [SECONDS]     (user_events found as ue_provider_open(3) says)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userevents/userevents.h"

UE_EVENT(net_rx, UE_U32(len), UE_STR(dev))
UE_EVENT(net_pkt, UE_U16(proto), UE_CHARS(tag, 8), UE_BYTES(hdr), UE_S64(delta))

int main(int argc, char **argv)
{
	static const unsigned char hdr[4] = { 0x45, 0x00, 0x00, 0x54 };
	unsigned long seconds = argc > 1 ? strtoul(argv[1], NULL, 10) : 5;
	struct ue_provider *p;
	int r;

	r = ue_provider_open(NULL, &p);
	if (r < 0) {
		fprintf(stderr, "lib-net: no user_events: %s\n", strerror(-r));
		return 1;
	}
	if ((r = ue_net_rx_register(p)) < 0 || (r = ue_net_pkt_register(p)) < 0) {
		fprintf(stderr, "lib-net: register: %s\n", strerror(-r));
		ue_provider_close(p);
		return 1;
	}
	printf("lib-net: %s via %s%s\n", ue_provider_backend(p) == UE_BACKEND_KERNEL ? "kernel" :
		"usereventsd", ue_provider_tracefs(p), ue_provider_native(p) ? " (native)" : "");
	for (unsigned long i = 0; i < seconds * 10; i++) {
		if (ue_net_rx_enabled())
			ue_net_rx_write((uint32_t)(64 + i), "eth0");
		if (ue_net_pkt_enabled())
			ue_net_pkt_write(0x0800, "ipv4", hdr, sizeof(hdr), -(int64_t)i);
		usleep(100000);
	}
	ue_provider_close(p);
	return 0;
}
