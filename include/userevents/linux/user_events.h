/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <linux/user_events.h> for systems whose kernel headers predate 6.4:
 * put include/userevents on the include path and unmodified user_events
 * programs (the kernel self-tests among them) build against our ABI.
 */
#include "../abi.h"
