// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * regfail.c: what a failed DIAG_IOCSREG leaves behind.  For each way it
 * fails (name unreadable, a name without the fields of the event that has
 * them, as a reader sees a name half written, a new event that does not
 * parse, a bad enable size or address, an address and bit in use, an
 * enable word that cannot be written) the errno, then an unregistration at
 * the same address (ENOENT: no enabler) and a good registration there (0).
 * A failed enable write keeps the event in the file's write_index table
 * (the next event gets the next index, DIAG_IOCSDEL is EBUSY until close).
 * Static; its output on the reference kernel is regfail.out (README.md);
 * the test daemon-regfail runs it against usereventsd:
 *
 *   regfail [TRACEFS]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "userevents/abi.h"

static const char *root = "/sys/kernel/tracing";
static long page_size;

static const char *en(int r)
{
	return r ? strerrorname_np(r) : "0";
}

/* DIAG_IOCSREG: 0 or the errno; *@idx is write_index as the call left it. */
static int reg(int fd, const char *name_args, void *word, uint32_t size, uint32_t *idx)
{
	struct user_reg r = {
		.size = sizeof(r),
		.enable_size = size,
		.enable_addr = (uintptr_t)word,
		.name_args = (uintptr_t)name_args,
		.write_index = UINT32_MAX,
	};
	int rc = ioctl(fd, DIAG_IOCSREG, &r) ? errno : 0;

	if (idx)
		*idx = r.write_index;
	return rc;
}

static int unreg(int fd, void *word)
{
	struct user_unreg u = { .size = sizeof(u), .disable_addr = (uintptr_t)word };

	return ioctl(fd, DIAG_IOCSUNREG, &u) ? errno : 0;
}

static int del(int fd, const char *name)
{
	return ioctl(fd, DIAG_IOCSDEL, name) ? errno : 0;
}

static int data_open(void)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/user_events_data", root);
	fd = open(p, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(p);
		exit(2);
	}
	return fd;
}

static void *page(int prot)
{
	void *p = mmap(NULL, (size_t)page_size, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* After a failure at @word: whether an enabler is there, and whether @good registers there. */
static void after(const char *id, int fd, void *word, const char *good)
{
	uint32_t idx;
	int r;

	printf("%s: unreg-after => %s", id, en(unreg(fd, word)));
	r = reg(fd, good, word, 4, &idx);
	printf("; reg-again => %s", en(r));
	if (!r)
		printf(" write_index=%u; unreg => %s", idx, en(unreg(fd, word)));
	printf("\n");
}

int main(int argc, char **argv)
{
	uint64_t *w;
	uint32_t *ro, idx;
	int fd, fd2, r;

	if (argc > 1)
		root = argv[1];
	page_size = sysconf(_SC_PAGESIZE);
	fd = data_open();
	w = page(PROT_READ | PROT_WRITE);

	r = reg(fd, page(PROT_NONE), &w[0], 4, NULL);
	printf("name-fault: reg => %s\n", en(r));
	after("name-fault", fd, &w[0], "cfx_a u32 a");

	r = reg(fd, "cfx_b u32 a", &w[1], 4, &idx);
	printf("half: first => %s write_index=%u\n", en(r), idx);
	printf("half: reg => %s\n", en(reg(fd, "cfx_b", &w[2], 4, NULL)));
	after("half", fd, &w[2], "cfx_b u32 a");

	printf("parse: reg => %s\n", en(reg(fd, "cfx_c u32", &w[3], 4, NULL)));
	after("parse", fd, &w[3], "cfx_c u32 a");

	printf("size: reg => %s\n", en(reg(fd, "cfx_d u32 a", &w[4], 2, NULL)));
	after("size", fd, &w[4], "cfx_d u32 a");
	r = reg(fd, "cfx_d u32 a", (void *)(uintptr_t)0xffff800000000000ull, 4, NULL);
	printf("kaddr: reg => %s\n", en(r));

	printf("inuse: reg => %s", en(reg(fd, "cfx_e u32 a", &w[1], 4, NULL)));
	printf("; unreg => %s", en(unreg(fd, &w[1])));
	printf("; unreg again => %s\n", en(unreg(fd, &w[1])));

	/* The enable word read-only, in a file of its own. */
	fd2 = data_open();
	ro = page(PROT_READ);
	r = reg(fd2, "cfx_f u32 a", ro, 4, &idx);
	printf("word: reg => %s write_index=%d\n", en(r), (int)idx);
	printf("word: unreg-after => %s\n", en(unreg(fd2, ro)));
	r = reg(fd2, "cfx_g u32 a", &w[5], 4, &idx);
	printf("word: next event => %s write_index=%u\n", en(r), idx);
	printf("word: del while the file is open => %s\n", en(del(fd2, "cfx_f")));
	mprotect(ro, (size_t)page_size, PROT_READ | PROT_WRITE);
	r = reg(fd2, "cfx_f u32 a", ro, 4, &idx);
	printf("word: reg-again => %s write_index=%u", en(r), idx);
	printf("; unreg => %s\n", en(unreg(fd2, ro)));
	r = reg(fd2, "cfx_h u32 a", ro, 4, &idx);
	printf("word: other event at the address => %s write_index=%u", en(r), idx);
	printf("; unreg => %s\n", en(unreg(fd2, ro)));
	unreg(fd2, &w[5]);
	close(fd2);
	/* Its last reference gone, the event deletes itself (after the release). */
	for (int i = 0; i < 100 && (r = del(fd, "cfx_f")) == EBUSY; i++)
		usleep(20000);
	printf("word: del after close => %s\n", en(r));
	close(fd);
	return 0;
}
