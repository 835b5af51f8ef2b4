// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Decodes a file of EventHeader events in the layout LinuxTracepoints'
 * interceptor writes (each record: u32 little-endian size including itself,
 * the tracepoint name and its NUL, the event) and prints them as JSON in the
 * layout of that project's decode-dat-utest, so that its output can be
 * compared with theirs byte for byte.
 * usage: dat-decode FILE [LABEL]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eventheader.h"

static char out[1 << 20];

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
	static unsigned char dat[1 << 22];
	size_t n, pos = 0;
	bool comma = false;

	if (!f) {
		fprintf(stderr, "usage: dat-decode FILE [LABEL]\n");
		return 2;
	}
	n = fread(dat, 1, sizeof(dat), f);
	fclose(f);
	printf("\xEF\xBB\xBF\n\"%s\": [", argc > 2 ? argv[2] : "EventHeaderInterceptorLE64.dat");
	while (n - pos >= 4) {
		unsigned size = dat[pos] | dat[pos + 1] << 8 | dat[pos + 2] << 16 | (unsigned)dat[pos + 3] << 24;
		struct ueh_event e;
		const char *name;
		size_t nl;
		int r;

		if (size <= 4 || size - 4 > n - pos - 4) {
			fprintf(stderr, "bad record size %u at %zu\n", size, pos);
			return 1;
		}
		pos += 4;
		size -= 4;
		name = (const char *)dat + pos;
		nl = strnlen(name, size);
		if (nl == size) {
			pos += size;
			continue;
		}
		printf(comma ? ",\n " : "\n ");
		comma = true;
		r = ueh_start(&e, name, nl, dat + pos + nl + 1, size - nl - 1);
		/* A fault: nothing in the JSON (as theirs), a note on stderr. */
		if (r < 0) {
			fprintf(stderr, "- StartEvent error %d.\n", -r);
		} else {
			int w;

			static char head[1 << 12];

			ueh_json_string(e.tp_name, e.n.provider_len, head, sizeof(head));
			head[strlen(head) - 1] = '\0';
			w = ueh_json_fields(&e, UEH_J_TAGS, out, sizeof(out));
			if (w < 0 || (size_t)w >= sizeof(out)) {
				fprintf(stderr, "- AppendEvent error.\n");
			} else {
				printf(" { \"n\": %s:", head);
				ueh_json_string(e.name, e.name_len, head, sizeof(head));
				printf("%s", head + 1);
				printf("%s", out);
				ueh_json_meta(&e, out, sizeof(out));
				printf(", \"meta\": {%s }", out[0] ? out + 1 : "");
				printf(" }");
			}
		}
		pos += size;
	}
	printf(" ]\n");
	return 0;
}
