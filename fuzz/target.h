/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every libFuzzer target of fuzz/ shares: the entry point's prototype
 * (libFuzzer and fuzz/replay.c call it) and CHECK(), an invariant whose
 * failure stops the run where it happened, sanitizer or not.
 */
#ifndef UE_FUZZ_TARGET_H
#define UE_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                  \
	do {                                                                         \
		if (!(cond))                                                         \
			__builtin_trap();                                            \
	} while (0)

#endif /* UE_FUZZ_TARGET_H */
