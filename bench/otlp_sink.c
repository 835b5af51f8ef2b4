// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * otlp_sink: the loopback OTLP/HTTP endpoint of the export benchmark
 * (bench/otlp).  "ok": every POST's body is read and answered 200 with an
 * empty body (keep-alive), the cheapest receiver there is, so the numbers
 * are the exporter's; "stall": connections are accepted and never read nor
 * answered (a collector that hangs), so the exporter's queue fills.
 *   otlp_sink ok|stall PORT
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static void *serve(void *arg)
{
	int fd = (int)(long)arg;
	static __thread char buf[1 << 16];
	size_t have = 0;

	for (;;) {
		char *end = memmem(buf, have, "\r\n\r\n", 4), *cl;
		size_t body = 0, need;
		ssize_t n;

		if (!end) {
			if (have == sizeof(buf))
				break;
			n = read(fd, buf + have, sizeof(buf) - have);
			if (n <= 0)
				break;
			have += (size_t)n;
			continue;
		}
		for (cl = buf; cl < end; cl++)
			if (strncasecmp(cl, "\r\nContent-Length:", 17) == 0)
				body = strtoul(cl + 17, NULL, 10);
		need = (size_t)(end + 4 - buf) + body;
		/* The body: read and thrown away. */
		while (have < need) {
			size_t keep = (size_t)(end + 4 - buf);
			size_t room = sizeof(buf) - have;

			if (!room) {
				need -= have - keep;
				have = keep;
				room = sizeof(buf) - have;
			}
			n = read(fd, buf + have, room < need - have ? room : need - have);
			if (n <= 0)
				goto out;
			have += (size_t)n;
		}
		memmove(buf, buf + need, have - need);
		have -= need;
		static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
					 "Content-Length: 0\r\n\r\n";
		if (write(fd, ok, sizeof(ok) - 1) < 0)
			break;
	}
out:
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, s;
	bool stall;

	if (argc != 3) {
		fprintf(stderr, "usage: otlp_sink ok|stall PORT\n");
		return 2;
	}
	stall = strcmp(argv[1], "stall") == 0;
	a.sin_port = htons((uint16_t)atoi(argv[2]));
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 64) < 0) {
		perror("otlp_sink");
		return 1;
	}
	for (;;) {
		int c = accept(s, NULL, NULL);
		pthread_t t;

		if (c < 0)
			continue;
		if (stall)
			continue;	/* kept open, never read */
		if (pthread_create(&t, NULL, serve, (void *)(long)c) == 0)
			pthread_detach(t);
		else
			close(c);
	}
}
