// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * conformance: the cases of trace_marker and trace_marker_raw.
 */
#include "conformance.h"

/* ---- section: trace_marker, trace_marker_raw ------------------------------------------ */

/*
 * Whether this caller can empty the trace (an unprivileged member cannot):
 * when not, the trace holds everything written before, and only the
 * results of writes are shown.
 */
static bool marker_traced;

/* Writes @n bytes of @data to the file @rel, opened for this write alone: bytes or -errno. */
static ssize_t marker_put(const char *rel, const void *data, size_t n)
{
	ssize_t r;
	int fd, err;

	fd = open(tpath(rel), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, data, n);
	err = errno;
	close(fd);
	return r < 0 ? -err : r;
}

/* "mark ID FILE HEX => RESULT" then the trace lines of a fresh buffer. */
static ssize_t mark_show(const char *id, const char *rel, const void *data, size_t n)
{
	ssize_t r;

	clear_trace();
	r = marker_put(rel, data, n);
	printf("mark %s %s ", id, rel);
	put_hex(data, n);
	printf(" => %s\n", res(r));
	if (marker_traced)
		show_trace_lines(id);
	return r;
}

/* Every line of trace that is not part of its header, as it is: lines without context. */
static void show_trace_body(const char *id)
{
	ssize_t n = slurp("trace", tracebuf, sizeof(tracebuf));
	char *p = tracebuf, *end;

	if (!marker_traced)
		return;
	if (n < 0) {
		printf("trace-body %s => %s\n", id, errname((int)-n));
		return;
	}
	end = tracebuf + n;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		if (*p != '#') {
			printf("trace-body %s ", id);
			put_esc(p, (size_t)(nl - p), false);
			putchar('\n');
		}
		p = nl + 1;
	}
}

/*
 * A large write of 'x's: its result and how many the trace line holds
 * ("tracing_mark_write: xxx...x\n" in full would be kilobytes).
 */
static void mark_big(const char *id, size_t n)
{
	static char xs[8192];
	const char *ev;
	ssize_t r, len;

	memset(xs, 'x', sizeof(xs));
	clear_trace();
	r = marker_put("trace_marker", xs, n);
	len = slurp("trace", tracebuf, sizeof(tracebuf));
	ev = len > 0 ? strstr(tracebuf, "tracing_mark_write: ") : NULL;
	printf("mark %s trace_marker x*%zu => %s", id, n, res(r));
	if (!marker_traced)
		putchar('\n');
	else if (ev)
		printf(" trace: tracing_mark_write: x*%zu%s\n", strspn(ev + 20, "x"),
		       ev[20 + strspn(ev + 20, "x")] == '\n' ? "\\x0a" : "");
	else
		printf(" trace: none\n");
}

/*
 * The raw_data lines: "# ID buf:" then every byte up to the record's end as
 * the ring reports it.  The kernel leaves older ring bytes after the written
 * ones: only the first @ndata bytes are compared, the count of the others
 * is ("+N").
 */
static void show_raw_lines(const char *id, size_t ndata)
{
	ssize_t n = slurp("trace", tracebuf, sizeof(tracebuf));
	char *p = tracebuf, *end;

	if (!marker_traced)
		return;
	if (n < 0) {
		printf("trace %s => %s\n", id, errname((int)-n));
		return;
	}
	end = tracebuf + n;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *ev, *buf;
		size_t shown = 0, rest = 0;

		if (!nl)
			nl = end;
		*nl = '\0';
		ev = *p == '#' ? NULL : event_part(p);
		buf = ev ? strstr(ev, " buf:") : NULL;
		if (buf) {
			printf("~trace-raw %s %s\n", id, ev);
			printf("trace %s %.*s buf:", id, (int)(buf - ev), ev);
			for (const char *b = buf + 5; *b == ' ' && b[1] && b[2]; b += 3) {
				if (shown < ndata) {
					printf(" %.2s", b + 1);
					shown++;
				} else {
					rest++;
				}
			}
			printf(" +%zu\n", rest);
		}
		p = nl + 1;
	}
}

/* "mark ID trace_marker_raw HEX => RESULT" and its raw_data line. */
static void mark_raw(const char *id, const void *data, size_t n)
{
	ssize_t r;

	clear_trace();
	r = marker_put("trace_marker_raw", data, n);
	printf("mark %s trace_marker_raw ", id);
	put_hex(data, n);
	printf(" => %s\n", res(r));
	show_raw_lines(id, n > 4 ? n - 4 : 0);
}

/*
 * The records trace_pipe_raw carries (its pages, all CPUs, consumed):
 * "rawrec ID type=T len=L pid=self|other BYTES", L the length the ring
 * stores, BYTES the record from offset 8 (print: the text after the ip,
 * which is a kernel address there) up to @nbytes of them, the rest being
 * whatever the ring held before.
 */
static void show_pipe_raw(const char *id, size_t nbytes)
{
	static unsigned char page[4096];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	if (!marker_traced)
		return;
	for (long cpu = 0; cpu < ncpu && cpu < 1024; cpu++) {
		char rel[64];
		ssize_t n;
		uint64_t commit;
		size_t off = 16, end;
		int fd;

		snprintf(rel, sizeof(rel), "per_cpu/cpu%ld/trace_pipe_raw", cpu);
		fd = open(tpath(rel), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, page, sizeof(page));
		close(fd);
		if (n < 16)
			continue;
		memcpy(&commit, page + 8, sizeof(commit));
		end = 16 + (size_t)(commit & 0xfffff);
		if (end > (size_t)n)
			end = (size_t)n;
		while (off + 4 <= end) {
			uint32_t h, type_len, len;
			const unsigned char *data;
			uint16_t type;
			int32_t pid;
			size_t skip;

			memcpy(&h, page + off, 4);
			type_len = h & 31;
			if (type_len == 29 || type_len == 0) {
				if (off + 8 > end)
					break;
				memcpy(&len, page + off + 4, 4);
			}
			if (type_len == 30 || type_len == 31) {
				off += 8;
				continue;
			}
			if (type_len == 29) {
				off += 4 + len;
				continue;
			}
			if (type_len == 0) {
				len -= 4;
				data = page + off + 8;
				off += 8 + len;
			} else {
				len = type_len * 4;
				data = page + off + 4;
				off += 4 + len;
			}
			if (off > end || len < 8)
				break;
			memcpy(&type, data, 2);
			memcpy(&pid, data + 4, 4);
			skip = type == 5 ? 16 : 8;
			printf("rawrec %s type=%u len=%u pid=%s ", id, type, len,
			       pid == getpid() ? "self" : "other");
			put_hex(data + skip, nbytes < len - skip ? nbytes : len - skip);
			putchar('\n');
		}
	}
}

void sec_marker(void)
{
	static const struct {
		const char *id;
		const char *text;
		size_t n;
	} texts[] = {
		{ "marker.line", "phase 2\n", 8 },
		{ "marker.no-newline", "abc", 3 },
		{ "marker.newline", "\n", 1 },
		{ "marker.newlines", "x\n\n", 3 },
		{ "marker.lines", "one\ntwo\n", 8 },
		{ "marker.nul-inside", "a\0b", 3 },
		{ "marker.nul-after-newline", "abc\n\0", 5 },
		{ "marker.nul", "\0", 1 },
		{ "marker.bytes", "a\tb\r\x7f\xff", 6 },
		{ "marker.nine", "123456789", 9 },
		{ "marker.ten", "1234567890", 10 },
	};
	static const size_t big_sizes[] = { 4000, 4053, 4054, 4055, 4072, 4096, 4097, 5000, 8192 };
	static const struct {
		const char *id;
		const char *data;
		size_t n;
	} raws[] = {
		{ "marker.raw.3", "\1\2\3", 3 },
		{ "marker.raw.id", "\x34\x12\0\0", 4 },
		{ "marker.raw.id-1", "\x34\x12\0\0\xaa", 5 },
		{ "marker.raw.id-9", "\x78\x56\x34\x12" "abcdefghi", 13 },
		{ "marker.raw.id-12", "\x78\x56\x34\x12" "abcdefghijkl", 16 },
	};
	static char zeros[4096];
	struct ctx c;
	uint32_t idx;
	ssize_t r;
	int fd;

	begin("marker");
	fd = open(tpath("trace"), O_WRONLY | O_TRUNC | O_CLOEXEC);
	marker_traced = fd >= 0;
	printf("open marker.trace trace O_TRUNC => %s\n", fd < 0 ? errname(errno) : "0");
	if (fd >= 0)
		close(fd);
	show_stat("marker.files", "trace_marker");
	show_stat("marker.files", "trace_marker_raw");
	show_dir("marker.files", "events/ftrace/print");
	show_dir("marker.files", "events/ftrace/raw_data");
	show_file("marker.format", "events/ftrace/print/format", NULL);
	show_file("marker.format", "events/ftrace/print/id", NULL);
	show_file("marker.format", "events/ftrace/raw_data/format", NULL);
	show_file("marker.format", "events/ftrace/print/trigger", NULL);
	fwrite_show("marker.defaults", "options/markers", "1", O_WRONLY);
	fwrite_show("marker.defaults", "tracing_on", "1", O_WRONLY);

	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		mark_show(texts[i].id, "trace_marker", texts[i].text, texts[i].n);
	/* The kernel records an empty write; FUSE sends none (docs/compat.md). */
	mark_show("marker.zero-length", "trace_marker", "", 0);
	for (size_t i = 0; i < ARRAY_SIZE(big_sizes); i++) {
		char id[32];

		snprintf(id, sizeof(id), "marker.big-%zu", big_sizes[i]);
		mark_big(id, big_sizes[i]);
	}

	/* trace_pipe shows the same line and consumes it. */
	clear_trace();
	r = marker_put("trace_marker", "piped\n", 6);
	printf("mark marker.pipe trace_marker \"piped\\x0a\" => %s\n", res(r));
	fd = marker_traced ? open(tpath("trace_pipe"), O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd >= 0) {
		ssize_t n = read(fd, tracebuf, sizeof(tracebuf) - 1);
		const char *ev;

		tracebuf[n > 0 ? n : 0] = '\0';
		ev = n > 0 ? event_part(tracebuf) : NULL;
		printf("pipe marker.pipe ");
		if (ev)
			put_esc(ev, strlen(ev), false);
		else
			printf("=> %s", n < 0 ? errname(errno) : "EOF");
		putchar('\n');
		close(fd);
	}
	if (marker_traced)
		show_trace_lines("marker.pipe-after");

	/*
	 * What trace_pipe_raw carries: the entry, the ip, the text, its NUL
	 * (one record at a time: records of one process may land on any CPU).
	 */
	clear_trace();
	marker_put("trace_marker", "phase 2\n", 8);
	show_pipe_raw("marker.pipe-raw", 9);
	marker_put("trace_marker", "hi", 2);
	show_pipe_raw("marker.pipe-raw", 4);
	marker_put("trace_marker", "a\0b", 3);
	show_pipe_raw("marker.pipe-raw", 5);
	marker_put("trace_marker_raw", "\x78\x56\x34\x12" "abcdefghi", 13);
	show_pipe_raw("marker.pipe-raw", 13);
	if (marker_traced)
		show_trace_lines("marker.pipe-raw-after");

	/* Markers and user events share the buffer, in the order written. */
	ctx_open(&c);
	if (ctx_reg(&c, "marker.ev", "cfm_ev u32 a", 0, &idx, NULL) == 0) {
		uint32_t v = 7;

		enable_event("user_events", "cfm_ev", "1");
		clear_trace();
		write_event(c.fd, (int32_t)idx, &v, sizeof(v), HOW_WRITE);
		marker_put("trace_marker", "between\n", 8);
		v = 8;
		write_event(c.fd, (int32_t)idx, &v, sizeof(v), HOW_WRITE);
		if (marker_traced)
			show_trace_lines("marker.mixed");
		/* events/enable does not gate markers. */
		fwrite_show("marker.events-off", "events/enable", "0", O_WRONLY);
		mark_show("marker.events-off", "trace_marker", "still\n", 6);
	}
	ctx_close(&c);

	/* Raw markers: a u32 id, then bytes. */
	for (size_t i = 0; i < ARRAY_SIZE(raws); i++)
		mark_raw(raws[i].id, raws[i].data, raws[i].n);
	mark_show("marker.raw.empty", "trace_marker_raw", "", 0);
	/* Bytes the kernel can copy without a fault: it copies with faults disabled. */
	memset(zeros, 0, sizeof(zeros));
	for (size_t n = 4056; n <= 4064; n += 2) {
		char id[32];

		snprintf(id, sizeof(id), "marker.raw.big-%zu", n);
		clear_trace();
		r = marker_put("trace_marker_raw", zeros, n);
		printf("mark %s trace_marker_raw z%zu => %s\n", id, n, res(r));
	}
	/*
	 * A page never touched: the kernel's copy fails (EFAULT) and records
	 * "<faulted>"; FUSE copies the bytes as any write (docs/compat.md).
	 */
	{
		void *fresh = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (fresh != MAP_FAILED) {
			clear_trace();
			r = marker_put("trace_marker", fresh, 4);
			printf("mark marker.unfaulted trace_marker z4 => %s\n", res(r));
			if (marker_traced)
				show_trace_lines("marker.unfaulted");
			munmap(fresh, (size_t)page_size);
		}
	}

	/* Tracing off: the ring takes nothing. */
	fwrite_show("marker.off", "tracing_on", "0", O_WRONLY);
	mark_show("marker.off", "trace_marker", "off\n", 4);
	mark_show("marker.off", "trace_marker_raw", "\x01\0\0\0ab", 6);
	mark_show("marker.off-short", "trace_marker_raw", "\1\2\3", 3);
	fwrite_show("marker.off", "tracing_on", "1", O_WRONLY);
	/* options/markers 0: refused before anything else. */
	fwrite_show("marker.nomarkers", "options/markers", "0", O_WRONLY);
	mark_show("marker.nomarkers", "trace_marker", "no\n", 3);
	mark_show("marker.nomarkers", "trace_marker_raw", "\x01\0\0\0ab", 6);
	fwrite_show("marker.nomarkers", "options/markers", "1", O_WRONLY);
	mark_show("marker.markers-again", "trace_marker", "yes\n", 4);

	/* Output options that change a print record's line. */
	fwrite_show("marker.msg-only", "options/printk-msg-only", "1", O_WRONLY);
	clear_trace();
	marker_put("trace_marker", "only\n", 5);
	marker_put("trace_marker", "two\n", 4);
	show_trace_body("marker.msg-only");
	fwrite_show("marker.msg-only", "options/trace_printk", "0", O_WRONLY);
	if (marker_traced)
		show_trace_lines("marker.msg-only-no-printk");
	fwrite_show("marker.msg-only", "options/trace_printk", "1", O_WRONLY);
	fwrite_show("marker.msg-only", "options/printk-msg-only", "0", O_WRONLY);
	fwrite_show("marker.no-context", "options/context-info", "0", O_WRONLY);
	clear_trace();
	marker_put("trace_marker", "noctx\n", 6);
	show_trace_body("marker.no-context");
	fwrite_show("marker.no-context", "options/context-info", "1", O_WRONLY);

	/* The file itself: no read method, no position. */
	fd = open(tpath("trace_marker"), O_RDONLY | O_CLOEXEC);
	printf("open marker.read trace_marker O_RDONLY => %s\n", fd < 0 ? errname(errno) : "0");
	if (fd >= 0) {
		r = read(fd, big, 16);
		printf("read marker.read trace_marker => %s\n", res(r < 0 ? -errno : r));
		close(fd);
	}
	fd = open(tpath("trace_marker"), O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		clear_trace();
		r = pwrite(fd, "pw\n", 3, 100);
		printf("pwrite marker.pwrite trace_marker => %s\n", res(r < 0 ? -errno : r));
		if (marker_traced)
			show_trace_lines("marker.pwrite");
		close(fd);
	}
	fd = open(tpath("trace_marker"), O_WRONLY | O_TRUNC | O_CLOEXEC);
	printf("open marker.trunc trace_marker O_TRUNC => %s\n", fd < 0 ? errname(errno) : "0");
	if (fd >= 0)
		close(fd);
	clear_trace();
}
