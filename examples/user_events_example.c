// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * user_events_example: a program that uses the raw user_events ABI, as it
 * would on a kernel with CONFIG_USER_EVENTS: it registers three events with
 * struct user_reg and DIAG_IOCSREG, and while a tracer keeps an event's
 * enable bit set, writes it with writev() prefixed by its write_index.
 *
 *   user_events_example [TRACEFS [SECONDS]]
 *
 * TRACEFS defaults to $USEREVENTS_TRACEFS, then /sys/kernel/tracing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "userevents/abi.h"

/* One enable word per event; the tracer's state lands in bit 0. */
static volatile uint32_t tick_enabled;
static volatile uint32_t request_enabled;
static volatile uint32_t message_enabled;

static int reg_event(int fd, const char *name_args, volatile uint32_t *enabled,
		     uint32_t *write_index)
{
	struct user_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.name_args = (uintptr_t)name_args;
	reg.enable_addr = (uintptr_t)enabled;
	reg.enable_size = sizeof(*enabled);
	reg.enable_bit = 0;
	if (ioctl(fd, DIAG_IOCSREG, &reg) < 0) {
		fprintf(stderr, "user_events_example: registering \"%s\": %s\n", name_args,
			strerror(errno));
		return -1;
	}
	*write_index = reg.write_index;
	return 0;
}

int main(int argc, char **argv)
{
	const char *tracefs = getenv("USEREVENTS_TRACEFS");
	uint32_t tick_idx, request_idx, message_idx;
	unsigned long seconds = 5;
	char path[4096];
	struct timespec start, now;
	uint64_t count = 0, written = 0;
	int fd;

	if (argc > 1)
		tracefs = argv[1];
	if (!tracefs)
		tracefs = "/sys/kernel/tracing";
	if (argc > 2)
		seconds = strtoul(argv[2], NULL, 10);

	snprintf(path, sizeof(path), "%s/user_events_data", tracefs);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "user_events_example: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (reg_event(fd, "example_tick u64 count", &tick_enabled, &tick_idx) ||
	    reg_event(fd, "example_request u32 status; u64 bytes; __rel_loc char[] path",
		      &request_enabled, &request_idx) ||
	    reg_event(fd, "example_message char[16] text; s32 level", &message_enabled,
		      &message_idx))
		return 1;
	printf("registered example_tick, example_request, example_message; writing for %lu s\n",
	       seconds);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		/* The hot path: one load per event; a system call only when traced. */
		if (tick_enabled) {
			struct iovec io[2] = {
				{ &tick_idx, sizeof(tick_idx) },
				{ &count, sizeof(count) },
			};

			if (writev(fd, io, 2) > 0)
				written++;
		}
		if (request_enabled) {
			static const char p[] = "/index.html";
			uint32_t status = count % 7 ? 200 : 404;
			uint64_t bytes = 512 + count;
			/* __rel_loc: length << 16 | offset from the end of the field. */
			uint32_t loc = (uint32_t)sizeof(p) << 16;
			struct iovec io[5] = {
				{ &request_idx, sizeof(request_idx) },
				{ &status, sizeof(status) },
				{ &bytes, sizeof(bytes) },
				{ &loc, sizeof(loc) },
				{ (void *)p, sizeof(p) },
			};

			if (writev(fd, io, 5) > 0)
				written++;
		}
		if (message_enabled) {
			char text[16];
			int32_t level = (int32_t)(count % 3);
			struct iovec io[3] = {
				{ &message_idx, sizeof(message_idx) },
				{ text, sizeof(text) },
				{ &level, sizeof(level) },
			};

			snprintf(text, sizeof(text), "hello #%llu", (unsigned long long)count);
			if (writev(fd, io, 3) > 0)
				written++;
		}
		count++;
		usleep(100 * 1000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((unsigned long)(now.tv_sec - start.tv_sec) < seconds);

	printf("wrote %llu records in %llu rounds\n", (unsigned long long)written,
	       (unsigned long long)count);
	close(fd);
	return 0;
}
