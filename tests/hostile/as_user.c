// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * as_user: runs a command as an unprivileged user made up on the spot (no
 * /etc/passwd entry): uid 4321, in group 1234 or in no group at all, with no
 * capability and no way to gain one.  Static, so the same binary runs on the
 * reference kernel (busybox, no libc) and here.
 *
 *   as_user member|outsider [-v] [--] COMMAND [ARG...]
 *
 *   member    gid 1234, supplementary groups {1234}
 *   outsider  gid 4321, no supplementary group
 *   -v        print the identity and capability sets before the exec (stderr)
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define AS_UID 4321
#define MEMBER_GID 1234
#define OUTSIDER_GID 4321

static void die(const char *what)
{
	fprintf(stderr, "as_user: %s: %s\n", what, strerror(errno));
	exit(126);
}

static void show_status(void)
{
	static const char *const keys[] = { "Uid:", "Gid:", "Groups:", "CapInh:", "CapPrm:",
					    "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:" };
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strncmp(line, keys[i], strlen(keys[i])) == 0)
				fprintf(stderr, "as_user: %s", line);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2];
	int verbose = 0, member, opt;
	gid_t g;

	if (argc < 2 || (strcmp(argv[1], "member") && strcmp(argv[1], "outsider"))) {
		fprintf(stderr, "usage: as_user member|outsider [-v] [--] COMMAND [ARG...]\n");
		return 2;
	}
	member = strcmp(argv[1], "member") == 0;
	optind = 2;
	while ((opt = getopt(argc, argv, "+v")) != -1) {
		if (opt != 'v')
			return 2;
		verbose = 1;
	}
	if (optind >= argc) {
		fprintf(stderr, "as_user: no command\n");
		return 2;
	}

	g = member ? MEMBER_GID : OUTSIDER_GID;
	if (setgroups(member ? 1 : 0, &g) < 0)
		die("setgroups");
	if (setresgid(g, g, g) < 0)
		die("setresgid");
	/* While we still have CAP_SETPCAP: no capability can come back by exec. */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			die("PR_CAPBSET_DROP");
	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
				     SECBIT_NO_CAP_AMBIENT_RAISE |
				     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0) < 0)
		die("PR_SET_SECUREBITS");
	if (setresuid(AS_UID, AS_UID, AS_UID) < 0)
		die("setresuid");
	/* Leaving uid 0 emptied them already; say so rather than rely on it. */
	memset(none, 0, sizeof(none));
	if (syscall(SYS_capset, &h, none) < 0)
		die("capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("PR_SET_NO_NEW_PRIVS");
	if (verbose)
		show_status();
	execvp(argv[optind], argv + optind);
	die(argv[optind]);
}
