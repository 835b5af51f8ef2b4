// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-marker: trace_marker and trace_marker_raw, through which any program
 * annotates the trace.  A write becomes an ftrace:print or ftrace:raw_data
 * record (built by core/marker.c) in the same rings as user events; also
 * events/ftrace/raw_data/format.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/uio.h>

#include "fs.h"
#include "tasks.h"

/*
 * The kernel stores the address of its write function in a print record's
 * ip.  A daemon has no such address (nor should it show the kernel's
 * layout): 0, which trace-cmd prints as 0x0 (docs/compat.md).
 */
#define MARKER_IP 0

_Static_assert(UE_MARKER_MAX_RECORD <= UE_BUFFER_MAX_RECORD, "every marker record fits the ring");

static const char raw_data_format[] =
	"name: raw_data\n"
	"ID: 18\n"
	"format:\n"
	UE_FTRACE_COMMON_FIELDS
	"\n"
	"\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"id:%04x %08x\", REC->id, (int)REC->buf[0]\n";

/*
 * A write to trace_marker (an ftrace:print record) or trace_marker_raw (an
 * ftrace:raw_data record), with the kernel's limits and errnos: EINVAL when
 * options/markers is off, EBADF when the buffer takes nothing (tracing_on
 * 0, a full ring in discard mode).
 */
static void marker_write(fuse_req_t req, const char *buf, size_t size, bool raw)
{
	struct ue_daemon *d = ue_req_daemon(req);
	_Alignas(8) unsigned char rec[UE_MARKER_MAX_RECORD];
	pid_t pid = fuse_req_ctx(req)->pid;
	struct ue_rec_meta meta;
	struct iovec iov;
	size_t taken = size;
	int len, cpu;

	if (!(atomic_load(&d->trace_flags) & (1u << UE_OPT_MARKERS))) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (!raw)
		len = ue_print_record(buf, size, pid, MARKER_IP, rec, sizeof(rec), &taken);
	else
		len = ue_raw_data_record(buf, size, pid, rec, sizeof(rec));
	if (len < 0) {
		fuse_reply_err(req, -len);
		return;
	}
	ue_task_lookup(d->tasks, pid, &meta);
	meta.ts_ns = 0;
	cpu = sched_getcpu();
	iov.iov_base = rec;
	iov.iov_len = (size_t)len;
	/*
	 * The kernel answers EBADF when its ring refuses the reservation:
	 * recording off, or a full ring in discard mode.
	 */
	if (ue_buffer_write(d->buf, cpu < 0 ? 0 : (unsigned int)cpu % ue_buffer_ncpus(d->buf),
			    &meta, &iov, 1, iov.iov_len) < 0) {
		fuse_reply_err(req, EBADF);
		return;
	}
	ue_cmdlines_remember(d->cmdlines, &meta);
	fuse_reply_write(req, taken);
}

static void print_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off)
{
	(void)fh;
	(void)off;
	marker_write(req, buf, size, false);
}

static void raw_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off)
{
	(void)fh;
	(void)off;
	marker_write(req, buf, size, true);
}

/* No read method (EINVAL); as user_events_data, one request per write(), no file position. */
static const struct ue_file_ops trace_marker_fops = { .write = print_write, .nonseekable = true, .payload = true };
static const struct ue_file_ops trace_marker_raw_fops = { .write = raw_write, .nonseekable = true, .payload = true };
static const struct ue_file_ops raw_data_format_fops = { .text = raw_data_format };

static const struct ue_fs_file files[] = {
	/* Write-only, as tracefs makes them (0220). */
	{ UE_DIR_ROOT, "trace_marker", 0220, &trace_marker_fops },
	{ UE_DIR_ROOT, "trace_marker_raw", 0220, &trace_marker_raw_fops },
	{ UE_DIR_FTRACE_RAW_DATA, "format", 0440, &raw_data_format_fops },
};

const struct ue_fs_files ue_marker_files = UE_FS_FILES(files);
