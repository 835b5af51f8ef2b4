// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target for the state snapshot's reader (core/snap.c), the bytes
 * a successor takes from its predecessor (usereventsd --upgrade).  Input:
 * byte 0 says how values are read (a bit per kind, in turn), the rest is
 * the snapshot.  Every section is walked, nested ones too; the reader
 * never goes past its input, an error sticks, and a descriptor is handed
 * out once at most.
 */
#include <errno.h>
#include <string.h>

#include "snap.h"
#include "target.h"

static void walk(struct ue_snap_r *r, uint8_t how, int depth)
{
	struct ue_snap_r sub;
	uint32_t tag;
	char str[64];
	size_t n;

	for (int k = 0; k < 64 && !r->err && r->off < r->len; k++) {
		switch ((how >> (k % 4 * 2)) & 3) {
		case 0:
			ue_snapr_u64(r);
			break;
		case 1:
			ue_snapr_str(r, str, sizeof(str));
			CHECK(r->err || memchr(str, '\0', sizeof(str)) != NULL);
			break;
		case 2:
			ue_snapr_bytes(r, &n);
			break;
		case 3: {
			int fd = ue_snapr_fd(r);

			CHECK(fd == -1 || (fd >= 100 && fd < 104));
			break;
		}
		}
		CHECK(r->off <= r->len);
	}
	if (depth < 4) {
		r->off = 0;
		r->err = 0;
		while (ue_snapr_section(r, &tag, &sub)) {
			CHECK(sub.len <= r->len);
			walk(&sub, (uint8_t)(how ^ tag), depth + 1);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fds[4] = { 100, 101, 102, 103 };
	struct ue_snap_r r, s;
	uint32_t tag;

	if (size < 1 || size > 65536)
		return 0;
	if (ue_snapr_init(&r, data + 1, size - 1, fds, 4) < 0) {
		CHECK(r.err == -EINVAL);
		return 0;
	}
	while (ue_snapr_section(&r, &tag, &s))
		walk(&s, data[0], 0);
	CHECK(r.off <= r.len);
	/* Each descriptor at most once: a slot handed out is -1 from then on. */
	for (int i = 0; i < 4; i++)
		CHECK(fds[i] == -1 || fds[i] == 100 + i);
	return 0;
}
