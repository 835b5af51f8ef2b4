// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A user's program as the README writes one, compiled by header-matrix.sh
 * under every C and C++ standard with -Wall -Wextra -Wpedantic -Werror:
 * the public headers must build clean in whatever a user compiles with.
 * UE_EVENT() both as users write it, with a semicolon, and without (the
 * form the repo's own examples use).
 */
#include <userevents/abi.h>
#include <userevents/userevents.h>

UE_EVENT(hm_ints, UE_U8(a), UE_S8(b), UE_U16(c), UE_S16(d), UE_U32(e), UE_S32(f), UE_U64(g),
	 UE_S64(h))
UE_EVENT(hm_text, UE_STR(name), UE_CHARS(tag, 8), UE_BYTES(blob));
UE_EVENT(hm_semi, UE_U32(n));
UE_EVENT(hm_bare, UE_U32(n))

int hm_use(struct ue_provider *p);

int hm_use(struct ue_provider *p)
{
	static const unsigned char blob[3] = { 1, 2, 3 };
	struct user_reg reg;
	int r;

	reg.size = sizeof(reg);
	(void)reg;
	r = ue_hm_ints_register(p);
	if (r < 0)
		return r;
	r = ue_hm_text_register(p);
	if (r < 0)
		return r;
	if (ue_hm_ints_enabled())
		ue_hm_ints_write(1, -1, 2, -2, 3, -3, 4, -4);
	if (ue_hm_text_enabled())
		ue_hm_text_write("name", "tag", blob, (uint32_t)sizeof(blob));
	ue_hm_text_unregister();
	return ue_hm_ints_unregister();
}
