// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: writes to dynamic_events and set_event as usereventsd
 * serves them (dynamic_events' write: line cutting, u: and -: commands against
 * the registry, enable patterns), and dynamic_events opened with O_TRUNC.
 *
 * Input: [flags][chunks separated by 0xff]; a chunk starting with 0x01 goes
 * to set_event, an empty one reopens dynamic_events with O_TRUNC.
 * flags bit 0: the caller has CAP_PERFMON.
 */
#include <string.h>

#include "handler.h"
#include "target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ue_daemon *d;
	struct ue_fh *dyn, *set;
	size_t at = 1;

	if (size < 1 || size > (1 << 16))
		return 0;
	fz_capable(data[0] & 1);
	d = fz_daemon_new();
	dyn = fz_fh_open(d, "dynamic_events", O_WRONLY);
	set = fz_fh_open(d, "set_event", O_WRONLY);
	while (at <= size) {
		const uint8_t *end = memchr(data + at, 0xff, size - at);
		size_t n = end ? (size_t)(end - (data + at)) : size - at;

		if (n == 0) {
			fz_fh_close(d, dyn);
			dyn = fz_fh_open(d, "dynamic_events", O_WRONLY | O_TRUNC);
		} else if (data[at] == 0x01) {
			fz_write(d, set, data + at + 1, n - 1, 0);
		} else {
			fz_write(d, dyn, data + at, n, 0);
		}
		at += n + 1;
	}
	fz_fh_close(d, dyn);
	fz_fh_close(d, set);
	fz_daemon_free(d);
	return 0;
}
