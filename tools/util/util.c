// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What every part of the tool uses: messages, usage errors, files read and
 * written whole, clocks, signals, sleep, colour.
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

void uet_err(const char *fmt, ...)
{
	va_list ap;

	fputs(UET_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int uet_usage_err(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, cmd ? UET_PROG ": %s: " : UET_PROG ": ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: " UET_PROG " %s\n", usage);
	return UET_EXIT_USAGE;
}

int64_t uet_clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

clockid_t uet_clock_named(const char *name)
{
	if (name && strcmp(name, "boot") == 0)
		return CLOCK_BOOTTIME;
	if (name && strcmp(name, "mono_raw") == 0)
		return CLOCK_MONOTONIC_RAW;
	if (name && strcmp(name, "tai") == 0)
		return CLOCK_TAI;
	return CLOCK_MONOTONIC;	/* local, global, perf, mono: close enough */
}

int64_t uet_wall_offset_ns(clockid_t c)
{
	return uet_clock_ns(CLOCK_REALTIME) - uet_clock_ns(c);
}

int uet_usage_getopt(const char *cmd, const char *usage, int c, char **argv)
{
	const char *a = argv[optind - 1];
	int n = (int)strcspn(a, "=");

	/* A long option is argv's, up to its '='; a short one (maybe in a cluster) is optopt. */
	if (strncmp(a, "--", 2) != 0 && optopt)
		return uet_usage_err(cmd, usage, c == ':' ? "option '-%c' needs a value" :
				     "unknown option '-%c'", optopt);
	return uet_usage_err(cmd, usage, c == ':' ? "option '%.*s' needs a value" :
			     "unknown option '%.*s'", n, a);
}

char *uet_read(const char *dir, const char *rel, size_t *ret_len)
{
	char p[4096];
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, e;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		if (cap - len < 4097) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (!nb) {
				e = ENOMEM;
				goto fail;
			}
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	return buf;
fail:
	close(fd);
	free(buf);
	errno = e;
	return NULL;
}

int uet_write(const char *dir, const char *rel, const char *s)
{
	char p[4096];
	ssize_t n;
	int fd, r = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		r = -errno;
	else if ((size_t)n != strlen(s))
		r = -EIO;
	if (close(fd) < 0 && !r)
		r = -errno;
	return r;
}

volatile sig_atomic_t uet_signal;

int uet_color = -1;

static bool color_on(FILE *f)
{
	const char *no = getenv("NO_COLOR");

	if (uet_color >= 0)
		return uet_color;
	/* https://no-color.org: set and not empty, no colour. */
	return !(no && *no) && isatty(fileno(f));
}

const char *uet_bold(FILE *f)
{
	return color_on(f) ? "\033[1m" : "";
}

const char *uet_bold_end(FILE *f)
{
	return color_on(f) ? "\033[0m" : "";
}

static void on_signal(int sig)
{
	uet_signal = sig;
}

void uet_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	/* No SA_RESTART: a blocked read or poll returns EINTR and the loop looks. */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A reader that went away (| head): end as on SIGTERM, undoing what we set. */
	sigaction(SIGPIPE, &sa, NULL);
}

bool uet_output_gone(FILE *f)
{
	/* The write end of a pipe whose read end is closed polls as an error. */
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };

	return p.fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

void uet_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

uint64_t uet_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
