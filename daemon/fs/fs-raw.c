// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-raw: what binary tracers (trace-cmd, libtracefs) read besides events/:
 * per_cpu/cpuN/trace_pipe_raw (consuming reads of whole ring-buffer pages,
 * core/rbpage.c), trace_clock, saved_cmdlines, saved_cmdlines_size and
 * saved_tgids (the pid -> comm/tgid of records handed out or still buffered).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "snap.h"
#include "rbpage.h"
#include "tasks.h"

/* The kernel's clock names; usereventsd stamps with CLOCK_MONOTONIC: "mono". */
static const char *const clocks[] = { "local", "global", "counter", "uptime", "perf", "mono",
				      "mono_raw", "boot", "tai", "x86-tsc" };
#define CLOCK_MONO 5

/* saved_cmdlines_size as Linux 6.12 reports it by default. */
#define CMDLINES_SIZE 6552
/* Most saved_cmdlines_size takes (PID_MAX_DEFAULT), as the kernel. */
#define SAVED_CMDLINES_MAX 32768

/*
 * events/ftrace/print, as Linux 6.12 shows it (trace-cmd copies the ftrace
 * system into every recording); writes to trace_marker record it (fs-marker.c).
 */
#define FTRACE_PRINT_ID 5
static const char ftrace_print_format[] =
	"name: print\n"
	"ID: 5\n"
	"format:\n"
	UE_FTRACE_COMMON_FIELDS
	"\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

/*
 * A trace_pipe_raw reader: the page being read, a record that did not fit,
 * and records dropped as larger than its pages (the next page's missed count).
 */
struct ue_raw_reader {
	uint8_t page[UE_RB_PAGE_SIZE_MAX];
	size_t page_len;	/* 0: no page */
	size_t page_off;
	bool have_rec;
	uint64_t too_big;
	struct ue_buffer_rec rec;
	uint64_t rec_data[UE_BUFFER_MAX_RECORD / 8 + 1];
};

_Static_assert(UE_BUFFER_MAX_RECORD == UE_RB_PAGE_SIZE_MAX - UE_RB_PAGE_HDR - 8,
	       "the largest record fills a large page");

static int pipe_raw_open(fuse_req_t req, struct ue_fh *fh)
{
	(void)req;
	fh->raw = calloc(1, sizeof(*fh->raw));
	return fh->raw ? 0 : -ENOMEM;
}

/* The page a reader had begun and the record it held back. */
static int pipe_raw_save(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_w *w)
{
	struct ue_raw_reader *rr = fh->raw;

	(void)d;
	ue_mutex_lock(&fh->lock);
	ue_snapw_bytes(w, rr->page, rr->page_len);
	ue_snapw_u64(w, rr->page_off);
	ue_snapw_u64(w, rr->too_big);
	ue_snapw_bool(w, rr->have_rec);
	ue_snapw_bytes(w, &rr->rec.meta, sizeof(rr->rec.meta));
	ue_snapw_u64(w, rr->rec.seq);
	ue_snapw_u64(w, rr->rec.lost);
	ue_snapw_bytes(w, rr->rec_data, rr->have_rec ? rr->rec.len : 0);
	ue_mutex_unlock(&fh->lock);
	return w->err;
}

static int pipe_raw_restore(struct ue_daemon *d, struct ue_fh *fh, struct ue_snap_r *r)
{
	struct ue_raw_reader *rr;
	const void *p;
	size_t n;

	(void)d;
	rr = fh->raw = calloc(1, sizeof(*fh->raw));
	if (!rr)
		return -ENOMEM;
	p = ue_snapr_bytes(r, &n);
	if (n > sizeof(rr->page))
		return -EINVAL;
	memcpy(rr->page, p, n);
	rr->page_len = n;
	rr->page_off = ue_snapr_u64_max(r, n);
	rr->too_big = ue_snapr_u64(r);
	rr->have_rec = ue_snapr_bool(r);
	p = ue_snapr_bytes(r, &n);
	if (r->err || n != sizeof(rr->rec.meta))
		return -EINVAL;
	memcpy(&rr->rec.meta, p, n);
	rr->rec.seq = ue_snapr_u64(r);
	rr->rec.lost = ue_snapr_u64(r);
	p = ue_snapr_bytes(r, &n);
	if (r->err || n > sizeof(rr->rec_data))
		return -EINVAL;
	memcpy(rr->rec_data, p, n);
	rr->rec.len = n;
	rr->rec.data = rr->rec_data;
	return r->err;
}

static void pipe_raw_release(struct ue_daemon *d, struct ue_fh *fh)
{
	(void)d;
	free(fh->raw);
	fh->raw = NULL;
}

/* A sum of losses, where one of unknown count makes the sum unknown (the page says "some"). */
static uint64_t missed_add(uint64_t a, uint64_t b)
{
	return a == UE_BUFFER_LOST_UNKNOWN || b == UE_BUFFER_LOST_UNKNOWN || a + b < a ?
		       UE_BUFFER_LOST_UNKNOWN : a + b;
}

/*
 * Fill a page of @size bytes from the ring of @cpu: records go in while they
 * fit; one that does not is kept for the next page, one larger than any page
 * of that size is dropped and counted as missed in the next page (a reader of
 * 4 KiB pages, as trace-cmd, cannot take the records above 4072 bytes that
 * usereventsd keeps).  Return: bytes of the page, or 0.
 */
static size_t fill_page(struct ue_daemon *d, unsigned int cpu, struct ue_raw_reader *rr,
			size_t size)
{
	struct ue_rbpage p;
	uint64_t missed = rr->too_big;

	ue_rbpage_init(&p, rr->page, size);
	for (;;) {
		if (!rr->have_rec) {
			int n = ue_buffer_consume(d->buf, (int)cpu, &rr->rec, rr->rec_data,
						  sizeof(rr->rec_data));

			if (n < 0)
				break;
			rr->have_rec = true;
			ue_cmdlines_remember(d->cmdlines, &rr->rec.meta);
		}
		if (rr->rec.lost && p.events)
			break;	/* the loss belongs at the head of the next page */
		if (ue_rbpage_add(&p, rr->rec.meta.ts_ns, rr->rec.data, rr->rec.len) < 0) {
			if (!p.events) {
				/* cannot fit any page: dropped, and said so */
				rr->have_rec = false;
				missed = missed_add(missed, missed_add(rr->rec.lost, 1));
				continue;
			}
			break;
		}
		missed = missed_add(missed, rr->rec.lost);
		rr->have_rec = false;
	}
	if (!p.events) {
		rr->too_big = missed;
		return 0;
	}
	rr->too_big = 0;
	return ue_rbpage_finish(&p, missed);
}

#define RAW_WAIT_SLICE_MS 200
/* Most bytes one read of trace_pipe_raw returns: whole pages, as many as are ready. */
#define RAW_READ_MAX (1u << 20)

static void pipe_raw_read(fuse_req_t req, struct ue_fh *fh, size_t size, off_t off, int flags)
{
	struct ue_daemon *d = ue_req_daemon(req);
	struct ue_raw_reader *rr = fh->raw;
	/* The kernel's 4 KiB pages, unless the reader asks for a large page at once. */
	size_t page = size >= UE_RB_PAGE_SIZE_MAX ? UE_RB_PAGE_SIZE_MAX : UE_RB_PAGE_SIZE;
	size_t cap = size < RAW_READ_MAX ? size : RAW_READ_MAX;
	uint8_t one[UE_RB_PAGE_SIZE_MAX], *out = one;
	size_t n;

	(void)off;
	ue_mutex_lock(&fh->lock);
	for (;;) {
		if (rr->page_off < rr->page_len)
			break;
		rr->page_len = fill_page(d, fh->option, rr, page);
		rr->page_off = 0;
		if (rr->page_len)
			break;
		if (flags & O_NONBLOCK) {
			ue_mutex_unlock(&fh->lock);
			fuse_reply_err(req, EAGAIN);
			return;
		}
		/*
		 * Blocking readers wait on this request's thread: trace-cmd keeps
		 * one per CPU, well within the FUSE thread limit.
		 */
		ue_mutex_unlock(&fh->lock);
		int r = ue_buffer_wait(d->buf, (int)fh->option, RAW_WAIT_SLICE_MS);

		if (fuse_req_interrupted(req) || r == -EINTR) {
			fuse_reply_err(req, EINTR);
			return;
		}
		ue_mutex_lock(&fh->lock);
	}
	n = rr->page_len - rr->page_off;
	if (n > size)
		n = size;
	/* A read with room for more pages takes as many as are ready (up to RAW_READ_MAX). */
	if (n == rr->page_len && cap >= n + page && (out = malloc(cap)) == NULL)
		out = one;
	/* Once the reply is out the file may be released at once: no touching @fh after it. */
	memcpy(out, rr->page + rr->page_off, n);
	rr->page_off += n;
	while (out != one && cap - n >= page) {
		rr->page_len = fill_page(d, fh->option, rr, page);
		rr->page_off = 0;
		if (!rr->page_len)
			break;
		memcpy(out + n, rr->page, rr->page_len);
		n += rr->page_len;
		rr->page_off = rr->page_len;
	}
	ue_mutex_unlock(&fh->lock);
	fuse_reply_buf(req, (const char *)out, n);
	if (out != one)
		free(out);
}

static int generate_clock(struct ue_text *t)
{
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		ue_text_printf(t, i == CLOCK_MONO ? "%s[%s]" : "%s%s", i ? " " : "", clocks[i]);
	ue_text_add(t, "\n", 1);
	return 0;
}

/* Records still in the buffer count too: their tasks are the ones a reader asks about. */
static void remember_buffered(struct ue_daemon *d)
{
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;

	if (ue_buffer_snapshot(d->buf, -1, &snap) < 0)
		return;
	while (ue_buffer_snap_next(snap, &rec) == 1)
		ue_cmdlines_remember(d->cmdlines, &rec.meta);
	ue_buffer_snap_free(snap);
}

static void add_cmdline(void *arg, pid_t pid, pid_t tgid, const char *comm)
{
	(void)tgid;
	ue_text_printf(arg, "%d %s\n", pid, comm);
}

static void add_tgid(void *arg, pid_t pid, pid_t tgid, const char *comm)
{
	(void)comm;
	ue_text_printf(arg, "%d %d\n", pid, tgid);
}

static int generate_cmdlines(struct ue_daemon *d, struct ue_text *t, bool tgids)
{
	remember_buffered(d);
	ue_cmdlines_foreach(d->cmdlines, tgids ? add_tgid : add_cmdline, t);
	return 0;
}

static int clock_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	(void)d;
	generate_clock(&t);
	return ue_text_to_fh(&t, fh);
}

static int cmdlines_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	generate_cmdlines(d, &t, false);
	return ue_text_to_fh(&t, fh);
}

static int tgids_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	generate_cmdlines(d, &t, true);
	return ue_text_to_fh(&t, fh);
}

static int cmdlines_size_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	(void)d;
	ue_text_printf(&t, "%d\n", CMDLINES_SIZE);
	return ue_text_to_fh(&t, fh);
}

static int print_id_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };

	(void)d;
	ue_text_printf(&t, "%d\n", FTRACE_PRINT_ID);
	return ue_text_to_fh(&t, fh);
}

/* Strip one trailing newline and surrounding blanks of a written word. */
static size_t word(const char *buf, size_t size, const char **start)
{
	while (size && (*buf == ' ' || *buf == '\t')) {
		buf++;
		size--;
	}
	while (size && (buf[size - 1] == '\n' || buf[size - 1] == ' ' || buf[size - 1] == '\t' ||
			buf[size - 1] == '\0'))
		size--;
	*start = buf;
	return size;
}

/* Only the clock the buffer really has can be chosen (docs/compat.md). */
static void clock_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off)
{
	const char *w;
	size_t n = word(buf, size, &w);

	(void)fh;
	(void)off;
	if (n == strlen(clocks[CLOCK_MONO]) && !memcmp(w, clocks[CLOCK_MONO], n)) {
		fuse_reply_write(req, size);
		return;
	}
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (n == strlen(clocks[i]) && !memcmp(w, clocks[i], n)) {
			fuse_reply_err(req, EOPNOTSUPP);
			return;
		}
	}
	fuse_reply_err(req, EINVAL);
}

/* Accepted and ignored: the table has a fixed size. */
static void cmdlines_size_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
				off_t off)
{
	unsigned long v;

	(void)fh;
	(void)off;
	if (ue_parse_ulong(buf, size, &v) < 0 || v == 0 || v > SAVED_CMDLINES_MAX)
		fuse_reply_err(req, EINVAL);
	else
		fuse_reply_write(req, size);
}

/* Consuming reads of whole pages of one CPU's ring; O_NONBLOCK makes an empty ring EAGAIN. */
static const struct ue_file_ops pipe_raw_fops = {
	.open = pipe_raw_open,
	.read = pipe_raw_read,
	.release = pipe_raw_release,
	.save = pipe_raw_save,
	.restore = pipe_raw_restore,
	.nonseekable = true,
};
static const struct ue_file_ops clock_fops = { .show = clock_show, .write = clock_write };
static const struct ue_file_ops cmdlines_fops = { .show = cmdlines_show };
static const struct ue_file_ops cmdlines_size_fops = {
	.show = cmdlines_size_show,
	.write = cmdlines_size_write,
};
static const struct ue_file_ops tgids_fops = { .show = tgids_show };
static const struct ue_file_ops print_format_fops = { .text = ftrace_print_format };
static const struct ue_file_ops print_id_fops = { .show = print_id_show };

static const struct ue_fs_file files[] = {
	{ UE_DIR_ROOT, "trace_clock", 0640, &clock_fops },
	{ UE_DIR_ROOT, "saved_cmdlines", 0440, &cmdlines_fops },
	{ UE_DIR_ROOT, "saved_cmdlines_size", 0640, &cmdlines_size_fops },
	{ UE_DIR_ROOT, "saved_tgids", 0440, &tgids_fops },
	{ UE_DIR_FTRACE_PRINT, "format", 0440, &print_format_fops },
	{ UE_DIR_FTRACE_PRINT, "id", 0440, &print_id_fops },
	{ UE_DIR_CPU, "trace_pipe_raw", 0440, &pipe_raw_fops },
};

const struct ue_fs_files ue_raw_files = UE_FS_FILES(files);
