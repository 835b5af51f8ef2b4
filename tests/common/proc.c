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

/* The lines of @path, each after @prefix, as TAP comments. */
static void print_lines(const char *path, const char *prefix)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# %s%s%s", prefix, line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
}

void proc_dump_threads(pid_t pid)
{
	char p[320], comm[64], state[128], cmd[160];
	struct dirent *de;
	DIR *dir;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	dir = opendir(p);
	if (!dir)
		return;
	printf("# threads of %d:\n", (int)pid);
	while ((de = readdir(dir))) {
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		comm[0] = state[0] = '\0';
		snprintf(p, sizeof(p), "/proc/%d/task/%s/comm", (int)pid, de->d_name);
		if ((f = fopen(p, "re"))) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		snprintf(p, sizeof(p), "/proc/%d/task/%s/wchan", (int)pid, de->d_name);
		if ((f = fopen(p, "re"))) {
			if (fgets(state, sizeof(state), f))
				state[strcspn(state, "\n")] = '\0';
			fclose(f);
		}
		printf("#  %s %s waits in %s\n", de->d_name, comm, state[0] ? state : "?");
		snprintf(p, sizeof(p), "/proc/%d/task/%s/stack", (int)pid, de->d_name);
		print_lines(p, "     ");
	}
	closedir(dir);
	fflush(stdout);
	if (access("/usr/bin/gdb", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd),
			 "/usr/bin/gdb -batch -nx -p %d -ex 'thread apply all bt' 2>&1 | sed 's/^/#   /'",
			 (int)pid);
		(void)!system(cmd);
	}
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
