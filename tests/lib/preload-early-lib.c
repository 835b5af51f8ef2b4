// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A library initialised before libuserevents-preload.so, as libselinux is
 * for ls(1): its constructor calls every interposed function before the
 * interposer's own constructor has run (the interposer used to call a NULL
 * function pointer there: `LD_PRELOAD=... ls` crashed).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

int early_done;

__attribute__((constructor)) static void early(void)
{
	struct iovec v = { "", 0 };
	struct sigaction sa;
	int p[2], fd, d;
	FILE *f;

	fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || write(fd, "x", 1) != 1 || writev(fd, &v, 1) != 0)
		return;
	d = dup(fd);
	if (d < 0 || dup2(fd, d) != d || dup3(fd, d, O_CLOEXEC) != d)
		return;
	if (fcntl(d, F_GETFD) != FD_CLOEXEC || ioctl(d, FIONCLEX) != 0)
		return;
	if (close(d) != 0 || pipe(p) != 0 || close(p[0]) != 0 || close(p[1]) != 0)
		return;
	if (pipe2(p, O_CLOEXEC) != 0 || close(p[0]) != 0 || close(p[1]) != 0)
		return;
	d = socket(AF_UNIX, SOCK_STREAM, 0);
	if (d < 0 || close(d) != 0)
		return;
	d = openat(AT_FDCWD, "/dev/null", O_RDONLY);
	if (d < 0 || close(d) != 0)
		return;
	f = fopen("/dev/null", "r");
	if (!f || fclose(f) != 0)
		return;
	if (sigaction(SIGUSR1, NULL, &sa) != 0 || signal(SIGUSR2, SIG_DFL) == SIG_ERR)
		return;
	if (close(fd) != 0)
		return;
	early_done = 1;
}
