// SPDX-License-Identifier: LGPL-2.1-or-later
/* core/tscclock: anchors, the long slope and the chord between the last two (tscclock.h). */
#include "tscclock.h"

static uint64_t slope(uint64_t tsc0, uint64_t ns0, uint64_t tsc1, uint64_t ns1)
{
	return (uint64_t)(((unsigned __int128)(ns1 - ns0) << 32) / (tsc1 - tsc0));
}

bool ue_tsc_clock_anchor(struct ue_tsc_clock *c, uint64_t tsc0, uint64_t ns, uint64_t tsc1)
{
	uint64_t tsc = tsc0 + (tsc1 - tsc0) / 2, width = tsc1 - tsc0;

	if (tsc1 < tsc0 || width > UE_TSC_MAX_BRACKET || !ns)
		return false;
	if (c->min_bracket && width > 2 * c->min_bracket && width > 64) {
		if (++c->wide < UE_TSC_WIDE_RESET)
			return false;
		c->min_bracket = 0;
	}
	c->wide = 0;
	if (!c->min_bracket || width < c->min_bracket)
		c->min_bracket = width ? width : 1;
	if (!c->base_ns) {
		c->base_tsc = c->prev_tsc = c->tsc = tsc;
		c->base_ns = c->prev_ns = c->ns = ns;
		return true;
	}
	/* Neither may go back: a reading out of order is left out. */
	if (tsc <= c->tsc || ns <= c->ns)
		return false;
	if (ns - c->base_ns >= UE_TSC_MIN_BASE_NS) {
		c->mult = slope(c->base_tsc, c->base_ns, tsc, ns);
		c->ready = true;
	}
	c->prev_tsc = c->tsc;
	c->prev_ns = c->ns;
	c->tsc = tsc;
	c->ns = ns;
	c->chord = slope(c->prev_tsc, c->prev_ns, tsc, ns);
	if (!c->next_ns && ns - c->base_ns >= UE_TSC_MAX_BASE_NS / 2) {
		c->next_tsc = tsc;
		c->next_ns = ns;
	} else if (c->next_ns && ns - c->base_ns >= UE_TSC_MAX_BASE_NS) {
		c->base_tsc = c->next_tsc;
		c->base_ns = c->next_ns;
		c->next_ns = 0;
	}
	return true;
}

uint64_t ue_tsc_clock_per_ms(const struct ue_tsc_clock *c)
{
	if (!c->ready || !c->mult)
		return 0;
	return (uint64_t)((((unsigned __int128)1000000u << 32) + c->mult / 2) / c->mult);
}
