/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The benchmark's event as an LTTng-UST tracepoint: four u32 and a string. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ue_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_lttng_tp.h"

#if !defined(BENCH_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ue_bench, ev,
	LTTNG_UST_TP_ARGS(uint32_t, a, uint32_t, b, uint32_t, c, uint32_t, d, const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint32_t, a, a)
		lttng_ust_field_integer(uint32_t, b, b)
		lttng_ust_field_integer(uint32_t, c, c)
		lttng_ust_field_integer(uint32_t, d, d)
		lttng_ust_field_string(s, s)))

#endif

#include <lttng/tracepoint-event.h>
