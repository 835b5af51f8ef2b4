// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: writes to user_events_data as usereventsd serves them
 * (user_events_data's write: write_index, minimum size, payload validation, the ring),
 * after the caller registered one event whose name_args come from the input
 * and one of a few fixed ones with dynamic fields.
 *
 * Input: [flags][name_args length L][L bytes][writes: u16 length, bytes]...
 * flags bit 0: enable the events; bit 1: tracing off; bits 2-3: fixed event.
 */
#include <string.h>

#include "handler.h"
#include "userevents/abi.h"
#include "target.h"

static const char *const fixed[] = {
	"fz_a u32 a; u64 b",
	"fz_b __rel_loc char[] s; __data_loc u8[] d; u16 n",
	"fz_c char s[16]; s32 v",
	"fz_d struct fz_s x 12; __rel_loc u32[] arr",
};

/* The caller's memory: a struct user_reg at 0 and its name_args at 64. */
static void reg(struct ue_daemon *d, struct ue_fh *fh, const char *name_args, size_t len,
		unsigned int bit)
{
	uint8_t mem[64 + 600] = { 0 };
	struct user_reg r = { 0 };

	if (len > sizeof(mem) - 65)
		len = sizeof(mem) - 65;
	r.size = sizeof(r);
	r.enable_size = 4;
	r.enable_bit = (uint8_t)bit;
	r.enable_addr = FZ_BASE + 56;
	r.name_args = FZ_BASE + 64;
	memcpy(mem, &r, sizeof(r));
	memcpy(mem + 64, name_args, len);
	fz_image_set(mem, sizeof(mem), true);
	fz_ioctl(d, fh, DIAG_IOCSREG, FZ_BASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ue_daemon *d;
	struct ue_fh *fh;
	size_t at, len;
	off_t off = 0;

	if (size < 2 || size > (1 << 16))
		return 0;
	len = data[1];
	at = 2 + len;
	if (size < at)
		return 0;
	fz_capable(false);
	d = fz_daemon_new();
	fh = fz_fh_open(d, "user_events_data", O_RDWR);
	/* write_index 0: a fixed event; 1: the input's, when it parses. */
	reg(d, fh, fixed[(data[0] >> 2) % 4], strlen(fixed[(data[0] >> 2) % 4]), 0);
	reg(d, fh, (const char *)data + 2, len, 1);
	if (data[0] & 1)
		fz_enable_all(d, true);
	if (data[0] & 2)
		ue_buffer_set_on(d->buf, false);
	while (at + 2 <= size) {
		size_t n = (size_t)(data[at] | data[at + 1] << 8);

		at += 2;
		if (n > size - at)
			n = size - at;
		fz_write(d, fh, data + at, n, off);
		off += (off_t)n;
		at += n;
	}
	fz_fh_close(d, fh);
	fz_daemon_free(d);
	return 0;
}
