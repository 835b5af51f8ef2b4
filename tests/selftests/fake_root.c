// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Linked into the copies of the kernel's self-tests that run as an
 * unprivileged user (-Wl,--wrap=getuid): their fixture refuses to start
 * unless getuid() is 0, so only their own getuid() calls answer 0.  The
 * process keeps its real identity everywhere else; what it may do on the
 * tracefs is still decided by its uid, groups and capabilities.
 */
#include <unistd.h>

uid_t __wrap_getuid(void);

uid_t __wrap_getuid(void)
{
	return 0;
}
