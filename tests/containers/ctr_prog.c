// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ctr_prog: a raw-ABI user_events program (static: nothing from the host's
 * file system but /sys/kernel/tracing), for the containers test.  It
 * registers each NAME_ARGS, prints what it sees of the tracefs (events,
 * user_events_status), waits for GO.enabled, writes one record of each
 * event (payload: HEX), waits for GO.done and exits.
 *
 *   ctr_prog LABEL GO HEX NAME_ARGS...
 *
 * A NAME_ARGS starting with '+' is registered with USER_EVENT_REG_PERSIST
 * (without the '+'); its refusal is printed, its records are not written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <userevents/abi.h>

#define TRACEFS "/sys/kernel/tracing"
#define MAX_EV	8

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void wait_for(const char *go, const char *suffix)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s.%s", go, suffix);
	for (int i = 0; i < 3000 && stat(path, &st) < 0; i++)
		usleep(10000);
}

static void show_events(const char *label)
{
	char *names[256];
	int n = 0;
	DIR *d = opendir(TRACEFS "/events/user_events");
	struct dirent *e;

	if (!d) {
		printf("%s events: %s\n", label, strerror(errno));
		return;
	}
	while ((e = readdir(d)) && n < 256)
		if (e->d_type == DT_DIR && e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), cmp);
	printf("%s events:", label);
	for (int i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
}

/* The events user_events_status lists, sorted (it lists them in hash order). */
static void show_status(const char *label)
{
	char line[1024], *names[256];
	FILE *f = fopen(TRACEFS "/user_events_status", "re");
	int n = 0;

	if (!f) {
		printf("%s status: %s\n", label, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f) && n < 256)
		if (line[0] != '\n' && strncmp(line, "Active:", 7) && strncmp(line, "Busy:", 5) &&
		    strncmp(line, "Max:", 4))
			names[n++] = strdup(line);
	fclose(f);
	qsort(names, (size_t)n, sizeof(names[0]), cmp);
	printf("%s status:", label);
	for (int i = 0; i < n; i++) {
		names[i][strcspn(names[i], "\n")] = '\0';
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	static uint32_t words[MAX_EV];
	uint32_t idx[MAX_EV];
	unsigned char payload[256];
	size_t plen = 0;
	const char *label, *go, *hex;
	int fd, nev;

	if (argc < 5 || argc - 4 > MAX_EV)
		return 2;
	label = argv[1];
	go = argv[2];
	hex = argv[3];
	for (; hex[0] && hex[1] && plen < sizeof(payload); hex += 2) {
		unsigned int b;

		sscanf(hex, "%2x", &b);
		payload[plen++] = (unsigned char)b;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(TRACEFS "/user_events_data", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("%s open: %s\n", label, strerror(errno));
		return 1;
	}
	nev = argc - 4;
	for (int i = 0; i < nev; i++) {
		bool persist = argv[4 + i][0] == '+';
		struct user_reg reg = {
			.size = sizeof(reg),
			.enable_size = 4,
			.flags = persist ? USER_EVENT_REG_PERSIST : 0,
			.enable_addr = (uint64_t)(uintptr_t)&words[i],
			.name_args = (uint64_t)(uintptr_t)argv[4 + i] + persist,
		};
		int r = ioctl(fd, DIAG_IOCSREG, &reg);

		printf("%s reg \"%s\" => %s\n", label, argv[4 + i], r < 0 ? strerror(errno) : "0");
		idx[i] = r < 0 ? UINT32_MAX : reg.write_index;
	}
	show_events(label);
	show_status(label);
	printf("%s ready\n", label);
	wait_for(go, "enabled");
	for (int i = 0; i < nev; i++) {
		struct iovec io[2] = { { &idx[i], sizeof(idx[i]) }, { payload, plen } };
		ssize_t n;

		if (idx[i] == UINT32_MAX)
			continue;
		n = words[i] ? writev(fd, io, 2) : 0;
		printf("%s write %d enabled=%u => %s\n", label, i, words[i] ? 1 : 0,
		       n < 0 ? strerror(errno) : n ? "written" : "-");
	}
	printf("%s written\n", label);
	wait_for(go, "done");
	close(fd);
	return 0;
}
