// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: DIAG_IOCSREG, DIAG_IOCSUNREG and DIAG_IOCSDEL as
 * usereventsd serves them (user_events_data's ioctl), their arguments read from a
 * caller whose memory is the input, interleaved with a tracer enabling and
 * disabling everything (enable bits written into that memory).
 *
 * Input: [flags][n ops][n x (op, u16 offset)][memory image at FZ_BASE].
 * flags bit 0: the caller has CAP_PERFMON; bit 1: its memory is read-only.
 */
#include <string.h>

#include "handler.h"
#include "userevents/abi.h"
#include "target.h"

#define MAX_OPS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int cmds[] = { DIAG_IOCSREG, DIAG_IOCSUNREG, DIAG_IOCSDEL,
					     DIAG_IOCSREG, 0x1234 };
	struct ue_daemon *d;
	struct ue_fh *fh;
	size_t nops, hdr;

	if (size < 2 || size > (1 << 16))
		return 0;
	nops = data[1] % MAX_OPS + 1;
	hdr = 2 + nops * 3;
	if (size < hdr)
		return 0;
	fz_capable(data[0] & 1);
	fz_image_set(data + hdr, size - hdr, !(data[0] & 2));
	d = fz_daemon_new();
	fh = fz_fh_open(d, "user_events_data", O_RDWR);
	for (size_t i = 0; i < nops; i++) {
		const uint8_t *op = data + 2 + i * 3;
		uint64_t arg = FZ_BASE + (uint64_t)(op[1] | op[2] << 8);

		switch (op[0] % 8) {
		case 5:
			fz_enable_all(d, true);
			break;
		case 6:
			fz_enable_all(d, false);
			break;
		case 7:
			/* A second file: references are per file. */
			fz_fh_close(d, fh);
			fh = fz_fh_open(d, "user_events_data", O_RDWR);
			break;
		default:
			fz_ioctl(d, fh, cmds[op[0] % 8], arg);
			break;
		}
	}
	fz_fh_close(d, fh);
	fz_daemon_free(d);
	return 0;
}
