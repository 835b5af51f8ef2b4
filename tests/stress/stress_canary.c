// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The stress test's canary: a new program exec'd by a process that held
 * enablers, mapping a fresh page at the very address those enablers named.
 * Any byte that turns non-zero while it watches is a stray write (exit 3).
 * Usage: stress_canary ADDRESS MILLISECONDS
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile const uint8_t *page;
	uintptr_t addr;
	long ms;
	void *p;

	if (argc != 3)
		return 2;
	addr = (uintptr_t)strtoull(argv[1], NULL, 0);
	ms = strtol(argv[2], NULL, 10);
	p = mmap((void *)addr, 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || (uintptr_t)p != addr)
		return 2;
	page = p;
	for (long t = 0; t <= ms; t++) {
		for (int i = 0; i < 4096; i++)
			if (page[i])
				return 3;
		usleep(1000);
	}
	return 0;
}
