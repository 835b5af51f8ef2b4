// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * owner_probe: one user_events request as whoever runs it, for the
 * ownership test (run-owner).  Prints one line: the request and its answer.
 *
 *   owner_probe TRACEFS reg [-m] NAME_ARGS    register, unregister, close
 *   owner_probe TRACEFS hold [-m] NAME_ARGS   register, print, wait for SIGTERM
 *   owner_probe TRACEFS del NAME              DIAG_IOCSDEL
 *   owner_probe TRACEFS dyn LINE              a line appended to dynamic_events
 *
 * -m: USER_EVENT_REG_MULTI_FORMAT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <userevents/abi.h>

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case EADDRINUSE: return "EADDRINUSE";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	static uint32_t word;
	struct user_reg reg = { .size = sizeof(reg), .enable_size = 4 };
	const char *cmd, *arg;
	int fd, r, a = 3;

	if (argc < 4)
		return 2;
	cmd = argv[2];
	if (!strcmp(argv[a], "-m")) {
		reg.flags = USER_EVENT_REG_MULTI_FORMAT;
		a++;
	}
	if (a >= argc)
		return 2;
	arg = argv[a];
	if (chdir(argv[1]) < 0) {
		printf("%s %s => chdir %s\n", cmd, arg, err_name(errno));
		return 1;
	}
	if (!strcmp(cmd, "dyn")) {
		fd = open("dynamic_events", O_WRONLY | O_APPEND | O_CLOEXEC);
		r = fd < 0 ? -1 : (int)write(fd, arg, strlen(arg));
		printf("dyn %s => %s\n", arg, err_name(r < 0 ? errno : 0));
		return 0;
	}
	fd = open("user_events_data", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("%s %s => open %s\n", cmd, arg, err_name(errno));
		return 1;
	}
	if (!strcmp(cmd, "del")) {
		r = ioctl(fd, DIAG_IOCSDEL, arg);
		printf("del %s => %s\n", arg, err_name(r < 0 ? errno : 0));
		return 0;
	}
	reg.enable_addr = (uint64_t)(uintptr_t)&word;
	reg.name_args = (uint64_t)(uintptr_t)arg;
	r = ioctl(fd, DIAG_IOCSREG, &reg);
	printf("%s%s %s => %s\n", cmd, reg.flags ? " -m" : "", arg, err_name(r < 0 ? errno : 0));
	fflush(stdout);
	if (!strcmp(cmd, "hold")) {
		for (;;)
			pause();
	}
	if (r == 0) {
		struct user_unreg u = { .size = sizeof(u), .disable_addr = reg.enable_addr };

		ioctl(fd, DIAG_IOCSUNREG, &u);
	}
	close(fd);
	return 0;
}
