// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * arm-provider: a producer as the real ones are (LinuxTracepoints,
 * EventHeader): it registers its tracepoints with raw DIAG_IOCSREG at
 * start-up and writes at once, each write only while the enable bit is set,
 * then exits.  Only events enabled inside their registration (armed) are
 * recorded whole.
 *
 *   arm-provider [-n N] [-f FORKS] [-r ROUNDS] NAME...
 *
 * Each NAME (an EventHeader tracepoint name such as Prov_L4K1) is registered
 * with the EventHeader fields and written N times right after its
 * registration.  Then, ROUNDS times, FORKS children are forked at once;
 * each writes N more on every inherited registration, registers every NAME
 * again on enable words of its own and writes N on each at once.  Exit 0
 * when every write found its bit set, 3 when some did not, 1 on errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "userevents/abi.h"

#define MAX_NAMES 16
#define FIELDS " u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"

struct ev {
	volatile uint32_t enabled;
	uint32_t index;
	unsigned int level;
};

static unsigned long skipped, written;

static int reg(int fd, const char *name, struct ev *e)
{
	char name_args[512];
	struct user_reg r;
	const char *l = strrchr(name, '_');

	snprintf(name_args, sizeof(name_args), "%s" FIELDS, name);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.enable_addr = (uintptr_t)&e->enabled;
	r.enable_size = sizeof(e->enabled);
	r.name_args = (uintptr_t)name_args;
	if (ioctl(fd, DIAG_IOCSREG, &r) < 0) {
		fprintf(stderr, "arm-provider: register %s: %s\n", name, strerror(errno));
		return -1;
	}
	e->index = r.write_index;
	e->level = l && l[1] == 'L' ? (unsigned int)strtoul(l + 2, NULL, 16) : 0;
	return 0;
}

/* N EventHeader records (no extension), as fast as the bit allows. */
static void burst(int fd, struct ev *e, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		/* flags: pointer64 | little-endian; id counts; level as the name's. */
		uint8_t hdr[8] = { 3, 0, (uint8_t)i, (uint8_t)(i >> 8), 0, 0, 0, (uint8_t)e->level };
		struct iovec io[2] = { { &e->index, sizeof(e->index) }, { hdr, sizeof(hdr) } };

		if (!(__atomic_load_n(&e->enabled, __ATOMIC_RELAXED) & 1)) {
			skipped++;
			continue;
		}
		if (writev(fd, io, 2) < 0)
			fprintf(stderr, "arm-provider: write: %s\n", strerror(errno));
		else
			written++;
	}
}

int main(int argc, char **argv)
{
	const char *tracefs = getenv("USEREVENTS_TRACEFS");
	unsigned long n = 1, forks = 0, rounds = 1;
	static struct ev evs[MAX_NAMES], own[MAX_NAMES];
	char path[4096];
	int c, fd, nnames, bad = 0;

	while ((c = getopt(argc, argv, "n:f:r:")) != -1) {
		if (c == 'n')
			n = strtoul(optarg, NULL, 10);
		else if (c == 'f')
			forks = strtoul(optarg, NULL, 10);
		else if (c == 'r')
			rounds = strtoul(optarg, NULL, 10);
		else
			return 1;
	}
	nnames = argc - optind;
	if (nnames < 1 || nnames > MAX_NAMES) {
		fprintf(stderr, "usage: arm-provider [-n N] [-f FORKS] [-r ROUNDS] NAME...\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/user_events_data", tracefs ? tracefs : "/sys/kernel/tracing");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "arm-provider: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (int i = 0; i < nnames; i++) {
		if (reg(fd, argv[optind + i], &evs[i]) < 0)
			return 1;
		burst(fd, &evs[i], n);
	}
	for (unsigned long r = 0; forks && r < rounds; r++) {
		for (unsigned long k = 0; k < forks; k++) {
			pid_t pid = fork();

			if (pid < 0)
				return 1;
			if (pid > 0)
				continue;
			skipped = written = 0;
			for (int i = 0; i < nnames; i++)
				burst(fd, &evs[i], n);
			for (int i = 0; i < nnames; i++) {
				if (reg(fd, argv[optind + i], &own[i]) < 0)
					_exit(1);
				burst(fd, &own[i], n);
			}
			_exit(skipped ? 3 : 0);
		}
		for (unsigned long k = 0; k < forks; k++) {
			int st;

			if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				bad = 1;
		}
	}
	fprintf(stderr, "arm-provider: written %lu, not enabled %lu%s\n", written, skipped,
		bad ? ", a child failed" : "");
	return skipped || bad ? 3 : 0;
}
