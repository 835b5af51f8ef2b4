// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test support: processes and time (proc.h).  Used by the tests that run
 * usereventsd and by the daemon module tests; no harness, no mount.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/proc.h"

long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

unsigned int env_uint(const char *name, unsigned int def, unsigned int max)
{
	const char *s = getenv(name);
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, NULL, 10);
	return v == 0 || v > max ? def : (unsigned int)v;
}

long proc_status_kb(pid_t pid, const char *key)
{
	char p[64], line[256];
	long v = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			v = atol(line + strlen(key));
	fclose(f);
	return v;
}

long proc_fd_count(pid_t pid)
{
	char p[64];
	long n = 0;
	DIR *dir;

	snprintf(p, sizeof(p), "/proc/%d/fd", (int)pid);
	dir = opendir(p);
	if (!dir)
		return -1;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n - 2;	/* . and .. */
}

bool next_pid_is(pid_t pid)
{
	char buf[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC), n;
	bool ok;

	if (fd < 0)
		return false;
	n = snprintf(buf, sizeof(buf), "%d", (int)pid - 1);
	ok = write(fd, buf, (size_t)n) == n;
	close(fd);
	return ok;
}

int wait_for(pid_t pid, long ms)
{
	long end = now_ms() + ms;
	int status;

	while (now_ms() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

void asan_quarantine_bound(void)
{
	const char *asan = getenv("ASAN_OPTIONS");
	char opts[512];

	/*
	 * 4 MiB, below the stress test's RSS slack (8 MiB): a quarantine that
	 * fills only after the warm-up's baseline (16 MiB did, now and then:
	 * 24 MiB at the baseline, 39 at the end) is not a leak.
	 */
	snprintf(opts, sizeof(opts), "%s%squarantine_size_mb=4", asan ? asan : "",
		 asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
}
