// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A recording read, whichever file it is: a perf.data (perfdata-read.c,
 * its samples as a trace.dat's pages would hold them) or a trace.dat v7
 * (tracedat-read.c), told apart by their first bytes.  Above both readers,
 * so that neither calls the other's way up: perfdata-read.c reads into
 * tracedat.h's struct uet_dat, and tracedat-read.c knows nothing of perf.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"
#include "tracedat.h"

/* A trace.dat in @d's buffer (its own) indexed into *@ret; released on failure. */
static int read_tracedat(struct uet_dat *d, struct uet_dat *ret, char *err, size_t errlen)
{
	int e = uet_dat_parse(d, err, errlen);

	if (e < 0) {
		uet_dat_free(d);
		return e;
	}
	*ret = *d;
	return 0;
}

int uet_dat_read_mem(const void *buf, size_t len, struct uet_dat *ret, char *err, size_t errlen)
{
	struct uet_dat d = { 0 };

	/* perf's file: its samples as this file's pages would hold them. */
	if (uet_perf_is(buf, len))
		return uet_perf_read_mem(buf, len, ret, err, errlen);
	d.buf = malloc(len ? len : 1);
	if (!d.buf) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (len)
		memcpy(d.buf, buf, len);
	d.len = len;
	return read_tracedat(&d, ret, err, errlen);
}

int uet_dat_read(const char *path, struct uet_dat *ret, char *err, size_t errlen)
{
	struct uet_dat d = { 0 };
	struct stat st;
	size_t got = 0;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		return e;
	}
	if (fstat(fd, &st) < 0 || !(d.buf = malloc((size_t)st.st_size + 1))) {
		e = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
		close(fd);
		return e;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, d.buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			e = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "read: %s", strerror(-e));
			close(fd);
			free(d.buf);
			return e;
		}
		got += (size_t)n;
	}
	close(fd);
	d.len = got;
	if (uet_perf_is(d.buf, got)) {
		e = uet_perf_read_mem(d.buf, got, ret, err, errlen);
		free(d.buf);
		return e;
	}
	return read_tracedat(&d, ret, err, errlen);
}
