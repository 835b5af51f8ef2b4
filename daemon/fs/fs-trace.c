// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fs-trace: the trace buffer's files.  trace and per_cpu/cpuN/trace (the
 * ftrace header and a line per record, rendered by core/; the lines
 * trace_pipe consumes too), tracing_on, buffer_size_kb,
 * buffer_total_size_kb, per_cpu/cpuN/stats, current_tracer, trace_options
 * and options/.  Of the options, overwrite, context-info, irq-info and
 * record-tgid change something; fields is what user events always print;
 * the others are kept and shown only.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

/* The irq/preempt field of a record written from a system call. */
#define LAT_FLAGS "....."

const struct ue_option_desc ue_trace_options[UE_OPT_COUNT] = {
	[UE_OPT_PRINT_PARENT] = { "print-parent", true },
	[UE_OPT_SYM_OFFSET] = { "sym-offset", false },
	[UE_OPT_SYM_ADDR] = { "sym-addr", false },
	[UE_OPT_VERBOSE] = { "verbose", false },
	[UE_OPT_RAW] = { "raw", false },
	[UE_OPT_HEX] = { "hex", false },
	[UE_OPT_BIN] = { "bin", false },
	[UE_OPT_BLOCK] = { "block", false },
	[UE_OPT_FIELDS] = { "fields", false },
	[UE_OPT_TRACE_PRINTK] = { "trace_printk", true },
	[UE_OPT_ANNOTATE] = { "annotate", true },
	[UE_OPT_USERSTACKTRACE] = { "userstacktrace", false },
	[UE_OPT_SYM_USEROBJ] = { "sym-userobj", false },
	[UE_OPT_PRINTK_MSG_ONLY] = { "printk-msg-only", false },
	[UE_OPT_CONTEXT_INFO] = { "context-info", true },
	[UE_OPT_LATENCY_FORMAT] = { "latency-format", false },
	[UE_OPT_RECORD_CMD] = { "record-cmd", true },
	[UE_OPT_RECORD_TGID] = { "record-tgid", false },
	[UE_OPT_OVERWRITE] = { "overwrite", true },
	[UE_OPT_DISABLE_ON_FREE] = { "disable_on_free", false },
	[UE_OPT_IRQ_INFO] = { "irq-info", true },
	[UE_OPT_MARKERS] = { "markers", true },
	[UE_OPT_EVENT_FORK] = { "event-fork", false },
	[UE_OPT_TRACE_PRINTK_DEST] = { "trace_printk_dest", true },
	[UE_OPT_PAUSE_ON_TRACE] = { "pause-on-trace", false },
	[UE_OPT_HASH_PTR] = { "hash-ptr", true },
	[UE_OPT_STACKTRACE] = { "stacktrace", false },
	[UE_OPT_TEST_NOP_ACCEPT] = { "test_nop_accept", false },
	[UE_OPT_TEST_NOP_REFUSE] = { "test_nop_refuse", false },
};

unsigned int ue_trace_flags_default(void)
{
	unsigned int flags = 0;

	for (unsigned int i = 0; i < UE_OPT_COUNT; i++) {
		if (ue_trace_options[i].set)
			flags |= 1u << i;
	}
	return flags;
}

static bool option_on(struct ue_daemon *d, unsigned int flags, enum ue_trace_option o)
{
	/* The buffer holds the mode; the flag would only shadow it. */
	if (o == UE_OPT_OVERWRITE)
		return ue_buffer_get_overwrite(d->buf);
	return flags & (1u << o);
}

/*
 * Set an option as trace_options or options/NAME does.  The nop tracer
 * refuses test_nop_refuse, as in the kernel.
 */
static int option_set(struct ue_daemon *d, unsigned int o, bool on)
{
	if (o == UE_OPT_TEST_NOP_REFUSE && on)
		return -EINVAL;
	if (o == UE_OPT_OVERWRITE)
		ue_buffer_set_overwrite(d->buf, on);
	if (on)
		atomic_fetch_or(&d->trace_flags, 1u << o);
	else
		atomic_fetch_and(&d->trace_flags, ~(1u << o));
	return 0;
}


static struct ue_revent *cache_find(struct ue_daemon *d, struct ue_ev_cache *c, unsigned int id)
{
	struct ue_revent *ev;

	for (unsigned int i = 0; i < UE_EV_CACHE; i++) {
		if (c->ev[i] && c->id[i] == id)
			return c->ev[i];
	}
	ev = ue_registry_find_id(d->reg, id);
	if (!ev)
		return NULL;
	ue_revent_release(c->ev[c->next]);
	c->ev[c->next] = ev;
	c->id[c->next] = id;
	c->next = (c->next + 1) % UE_EV_CACHE;
	return ev;
}

void ue_ev_cache_clear(struct ue_ev_cache *c)
{
	for (unsigned int i = 0; i < UE_EV_CACHE; i++)
		ue_revent_release(c->ev[i]);
	memset(c, 0, sizeof(*c));
}

struct render_arg {
	const struct ue_buffer_rec *rec;
	const struct ue_revent *ev;
	struct ue_record_ctx ctx;
};

static int render_ctx(void *arg, char *buf, size_t len)
{
	return ue_render_context(&((struct render_arg *)arg)->ctx, buf, len);
}

static int render_fields(void *arg, char *buf, size_t len)
{
	struct render_arg *a = arg;
	/*
	 * The renderer may read up to the size the kernel's ring buffer reports
	 * (the record rounded up, 12 for records of 5 to 8 bytes); the snapshot
	 * holds only the record, so render from a zero-padded copy.
	 */
	_Alignas(8) unsigned char padded[UE_BUFFER_MAX_RECORD + 16];
	size_t ent = ue_record_ent_size(a->rec->len);

	if (ent > sizeof(padded))
		return -E2BIG;
	memcpy(padded, a->rec->data, a->rec->len);
	memset(padded + a->rec->len, 0, ent - a->rec->len);
	return ue_render_fields(ue_revent_desc(a->ev), ue_revent_tp_name(a->ev), padded, ent, buf,
				len);
}

static int count_digits(int32_t v)
{
	int n = v < 0 ? 2 : 1;

	while (v / 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* The record of a trace_marker or trace_marker_raw write, as the kernel prints it. */
struct marker_arg {
	const struct ue_buffer_rec *rec;
	bool msg_only;
};

static int render_marker(void *arg, char *buf, size_t len)
{
	const struct marker_arg *a = arg;
	/* As render_fields(): the kernel prints up to the size its ring reports. */
	_Alignas(8) unsigned char padded[UE_BUFFER_MAX_RECORD + 16];
	size_t ent = ue_record_ent_size(a->rec->len);
	struct ue_entry_hdr hdr;

	if (ent > sizeof(padded))
		return -E2BIG;
	memcpy(padded, a->rec->data, a->rec->len);
	memset(padded + a->rec->len, 0, ent - a->rec->len);
	memcpy(&hdr, padded, sizeof(hdr));
	if (hdr.type == UE_TRACE_PRINT_ID)
		return ue_render_print(padded, ent, a->msg_only, buf, len);
	return ue_render_raw_data(padded, ent, buf, len);
}

static bool is_marker(uint16_t type)
{
	return type == UE_TRACE_PRINT_ID || type == UE_TRACE_RAW_DATA_ID;
}

void ue_trace_render_record(struct ue_daemon *d, struct ue_ev_cache *c,
			    const struct ue_buffer_rec *rec, unsigned int flags, struct ue_text *t)
{
	struct render_arg a = { .rec = rec };
	struct marker_arg m = { .rec = rec };
	struct ue_entry_hdr hdr;

	memcpy(&hdr, rec->data, sizeof(hdr));
	/* printk-msg-only (with trace_printk) shows a print record's text alone. */
	if (hdr.type == UE_TRACE_PRINT_ID && (flags & (1u << UE_OPT_TRACE_PRINTK)) &&
	    (flags & (1u << UE_OPT_PRINTK_MSG_ONLY))) {
		m.msg_only = true;
		ue_text_render(t, render_marker, &m);
		return;
	}
	if (flags & (1u << UE_OPT_CONTEXT_INFO)) {
		struct ue_text ctx = { 0 };

		a.ctx.comm = rec->meta.comm[0] ? rec->meta.comm : NULL;
		a.ctx.pid = hdr.pid;
		a.ctx.cpu = rec->meta.cpu;
		a.ctx.ts_ns = rec->meta.ts_ns;
		a.ctx.lat_flags = flags & (1u << UE_OPT_IRQ_INFO) ? LAT_FLAGS : NULL;
		ue_text_render(&ctx, render_ctx, &a);
		if (!ctx.failed && (flags & (1u << UE_OPT_RECORD_TGID))) {
			/* "COMM-PID " is 16 + 1 + the pid (at least 7) + 1 characters. */
			size_t at = 18 + (size_t)(count_digits(hdr.pid) > 7 ? count_digits(hdr.pid) : 7);

			if (at > ctx.len)
				at = ctx.len;
			ue_text_add(t, ctx.buf, at);
			ue_text_printf(t, "(%7d) ", (int)rec->meta.tgid);
			ue_text_add(t, ctx.buf + at, ctx.len - at);
		} else if (!ctx.failed) {
			ue_text_add(t, ctx.buf, ctx.len);
		} else {
			t->failed = true;
		}
		free(ctx.buf);
	}
	if (is_marker(hdr.type)) {
		ue_text_render(t, render_marker, &m);
		return;
	}
	/* An event deleted since: the kernel no longer knows the type either. */
	a.ev = cache_find(d, c, hdr.type);
	if (!a.ev) {
		ue_text_printf(t, "Unknown type %u\n", hdr.type);
		return;
	}
	ue_text_render(t, render_fields, &a);
}

static void trace_header(struct ue_daemon *d, struct ue_buffer_snap *snap, unsigned int flags,
			 struct ue_text *t)
{
	static const char space[] = "            ";
	unsigned int ncpus = ue_buffer_ncpus(d->buf);
	uint64_t entries = 0, written = 0;
	bool tgid = flags & (1u << UE_OPT_RECORD_TGID);
	int prec = tgid ? 12 : 2;

	ue_text_add(t, "# tracer: nop\n#\n", 16);
	if (!(flags & (1u << UE_OPT_CONTEXT_INFO)))
		return;
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		struct ue_buffer_stats st;

		if (ue_buffer_snap_stats(snap, cpu, &st) == 0) {
			entries += st.entries;
			written += st.entries + st.overrun;
		}
	}
	ue_text_printf(t, "# entries-in-buffer/entries-written: %llu/%llu   #P:%u\n#\n",
		       (unsigned long long)entries, (unsigned long long)written, ncpus);
	if (!(flags & (1u << UE_OPT_IRQ_INFO))) {
		ue_text_printf(t, "#           TASK-PID    %s CPU#     TIMESTAMP  FUNCTION\n",
			       tgid ? "   TGID   " : "");
		ue_text_printf(t, "#              | |      %s   |         |         |\n",
			       tgid ? "     |    " : "");
		return;
	}
	ue_text_printf(t, "#                            %.*s  _-----=> irqs-off/BH-disabled\n", prec,
		       space);
	ue_text_printf(t, "#                            %.*s / _----=> need-resched\n", prec, space);
	ue_text_printf(t, "#                            %.*s| / _---=> hardirq/softirq\n", prec, space);
	ue_text_printf(t, "#                            %.*s|| / _--=> preempt-depth\n", prec, space);
	ue_text_printf(t, "#                            %.*s||| / _-=> migrate-disable\n", prec,
		       space);
	ue_text_printf(t, "#                            %.*s|||| /     delay\n", prec, space);
	ue_text_printf(t, "#           TASK-PID  %.*s CPU#  |||||  TIMESTAMP  FUNCTION\n", prec,
		       "     TGID   ");
	ue_text_printf(t, "#              | |    %.*s   |   |||||     |         |\n", prec,
		       "       |    ");
}

/* per_cpu/cpuN/stats, as the kernel's tracing_stats_read(). */
static int generate_stats(struct ue_daemon *d, struct ue_fh *fh, struct ue_text *t)
{
	struct ue_buffer_stats st;
	uint64_t oldest, now;
	int r;

	r = ue_buffer_stats(d->buf, fh->option, &st);
	if (r < 0)
		return r;
	oldest = (st.oldest_ts_ns + 500) / 1000;
	now = (st.now_ts_ns + 500) / 1000;
	ue_text_printf(t,
		       "entries: %llu\n"
		       "overrun: %llu\n"
		       "commit overrun: 0\n"
		       "bytes: %llu\n"
		       "oldest event ts: %5llu.%06llu\n"
		       "now ts: %5llu.%06llu\n"
		       "dropped events: %llu\n"
		       "read events: %llu\n",
		       (unsigned long long)st.entries, (unsigned long long)st.overrun,
		       (unsigned long long)st.bytes, (unsigned long long)(oldest / 1000000),
		       (unsigned long long)(oldest % 1000000), (unsigned long long)(now / 1000000),
		       (unsigned long long)(now % 1000000), (unsigned long long)st.dropped,
		       (unsigned long long)st.read);
	return 0;
}

/* trace, per_cpu/cpuN/trace: the snapshot of all rings, or of @cpu's (-1: all). */
static int trace_text(struct ue_daemon *d, struct ue_fh *fh, int cpu)
{
	struct ue_text t = { 0 };
	struct ue_ev_cache cache = { 0 };
	struct ue_buffer_snap *snap;
	struct ue_buffer_rec rec;
	int r;

	unsigned int flags = atomic_load(&d->trace_flags);

	r = ue_buffer_snapshot(d->buf, cpu, &snap);
	if (r < 0)
		return r;
	trace_header(d, snap, flags, &t);
	while (ue_buffer_snap_next(snap, &rec) == 1 && !t.failed)
		ue_trace_render_record(d, &cache, &rec, flags, &t);
	ue_ev_cache_clear(&cache);
	ue_buffer_snap_free(snap);
	return ue_text_to_fh(&t, fh);
}

static int trace_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return trace_text(d, fh, -1);
}

static int cpu_trace_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return trace_text(d, fh, (int)fh->option);
}

static int stats_show(struct ue_daemon *d, struct ue_fh *fh)
{
	struct ue_text t = { 0 };
	int r = generate_stats(d, fh, &t);

	if (r < 0) {
		free(t.buf);
		return r;
	}
	return ue_text_to_fh(&t, fh);
}

/* A text of one number or word, as the control files show their value. */
static int value_show(struct ue_fh *fh, const char *fmt, size_t v)
{
	struct ue_text t = { 0 };

	ue_text_printf(&t, fmt, v);
	return ue_text_to_fh(&t, fh);
}

static int tracing_on_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return value_show(fh, "%zu\n", ue_buffer_get_on(d->buf) ? 1 : 0);
}

/* Events only: the nop tracer is the one there is. */
static const char tracers_text[] = "nop\n";

static int buffer_size_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return value_show(fh, "%zu\n", atomic_load(&d->buffer_kb));
}

static int buffer_total_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return value_show(fh, "%zu\n", atomic_load(&d->buffer_kb) * ue_buffer_ncpus(d->buf));
}

static int option_show(struct ue_daemon *d, struct ue_fh *fh)
{
	return value_show(fh, "%zu\n", option_on(d, atomic_load(&d->trace_flags), fh->option));
}

static int trace_options_show(struct ue_daemon *d, struct ue_fh *fh)
{
	unsigned int flags = atomic_load(&d->trace_flags);
	struct ue_text t = { 0 };

	for (unsigned int i = 0; i < UE_OPT_COUNT; i++)
		ue_text_printf(&t, "%s%s\n", option_on(d, flags, i) ? "" : "no",
			       ue_trace_options[i].name);
	return ue_text_to_fh(&t, fh);
}

/* tracing_open(): opening trace for writing with O_TRUNC empties the buffer. */
static bool open_truncates(const struct ue_fh *fh)
{
	return (fh->open_flags & O_TRUNC) && (fh->open_flags & O_ACCMODE) != O_RDONLY;
}

static int trace_open(fuse_req_t req, struct ue_fh *fh)
{
	if (open_truncates(fh))
		ue_buffer_reset(ue_req_daemon(req)->buf);
	return 0;
}

static int cpu_trace_open(fuse_req_t req, struct ue_fh *fh)
{
	if (open_truncates(fh))
		ue_buffer_reset_cpu(ue_req_daemon(req)->buf, fh->option);
	return 0;
}

/*
 * trace_options: one option name, "no" before it to clear it, spaces
 * around ignored (the kernel's trace_set_options()).
 */
static int trace_options_write(struct ue_daemon *d, const char *buf, size_t size)
{
	char opt[64], *s, *e;
	bool on = true;

	if (size >= sizeof(opt))
		return -EINVAL;
	memcpy(opt, buf, size);
	opt[size] = '\0';
	for (s = opt; isspace((unsigned char)*s); s++)
		;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	if (strncmp(s, "no", 2) == 0) {
		on = false;
		s += 2;
	}
	for (unsigned int i = 0; i < UE_OPT_COUNT; i++) {
		if (strcmp(s, ue_trace_options[i].name) == 0)
			return option_set(d, i, on);
	}
	return -EINVAL;
}

/* Writing to trace does nothing (tracing_write_stub); O_TRUNC cleared it. */
static void trace_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size, off_t off)
{
	(void)fh;
	(void)buf;
	(void)off;
	fuse_reply_write(req, size);
}

/* tracing_set_trace_write(): the name, spaces around stripped. */
static void current_tracer_write(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
				 off_t off)
{
	size_t b = 0, n = size > 100 ? 100 : size;

	(void)fh;
	(void)off;
	n = strnlen(buf, n);
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	while (b < n && isspace((unsigned char)buf[b]))
		b++;
	ue_fs_reply_write(req, n - b == 3 && memcmp(buf + b, "nop", 3) == 0 ? 0 : -EINVAL, size);
}

static void trace_options_write_op(fuse_req_t req, struct ue_fh *fh, const char *buf, size_t size,
				   off_t off)
{
	(void)fh;
	(void)off;
	ue_fs_reply_write(req, trace_options_write(ue_req_daemon(req), buf, size), size);
}

/* Parked readers stay parked, as in the kernel: the next read ends. */
static int tracing_on_set(struct ue_daemon *d, struct ue_fh *fh, unsigned long val)
{
	(void)fh;
	ue_buffer_set_on(d->buf, val != 0);
	return 0;
}

static int buffer_size_set(struct ue_daemon *d, struct ue_fh *fh, unsigned long val)
{
	int r;

	(void)fh;
	if (!val || val > (SIZE_MAX >> 10))
		return -EINVAL;
	r = ue_buffer_resize(d->buf, (size_t)val << 10);
	if (!r)
		atomic_store(&d->buffer_kb, (size_t)val);
	return r;
}

static int option_store(struct ue_daemon *d, struct ue_fh *fh, unsigned long val)
{
	if (val > 1)
		return -EINVAL;
	return option_set(d, fh->option, val != 0);
}

/*
 * available_tracers, per_cpu/cpuN/buffer_size_kb and stats take no value,
 * but what is written is read as a number first (ERANGE before EINVAL).
 */
static int refuse_set(struct ue_daemon *d, struct ue_fh *fh, unsigned long val)
{
	(void)d;
	(void)fh;
	(void)val;
	return -EINVAL;
}

static const struct ue_file_ops trace_fops = {
	.open = trace_open,
	.show = trace_show,
	.write = trace_write,
};
static const struct ue_file_ops tracing_on_fops = {
	.show = tracing_on_show,
	.set = tracing_on_set,
};
static const struct ue_file_ops buffer_size_fops = {
	.show = buffer_size_show,
	.set = buffer_size_set,
};
static const struct ue_file_ops buffer_total_fops = { .show = buffer_total_show };
static const struct ue_file_ops trace_options_fops = {
	.show = trace_options_show,
	.write = trace_options_write_op,
};
static const struct ue_file_ops current_tracer_fops = {
	.text = tracers_text,
	.write = current_tracer_write,
};
static const struct ue_file_ops available_tracers_fops = {
	.text = tracers_text,
	.set = refuse_set,
};
const struct ue_file_ops ue_option_fops = {
	.show = option_show,
	.set = option_store,
};
static const struct ue_file_ops cpu_buffer_size_fops = {
	.show = buffer_size_show,
	.set = refuse_set,
};
static const struct ue_file_ops cpu_stats_fops = {
	.show = stats_show,
	.set = refuse_set,
};
static const struct ue_file_ops cpu_trace_fops = {
	.open = cpu_trace_open,
	.show = cpu_trace_show,
	.write = trace_write,
};

static const struct ue_fs_file files[] = {
	{ UE_DIR_ROOT, "buffer_size_kb", 0640, &buffer_size_fops },
	{ UE_DIR_ROOT, "buffer_total_size_kb", 0440, &buffer_total_fops },
	{ UE_DIR_ROOT, "trace", 0640, &trace_fops },
	{ UE_DIR_ROOT, "tracing_on", 0640, &tracing_on_fops },
	{ UE_DIR_ROOT, "trace_options", 0640, &trace_options_fops },
	{ UE_DIR_ROOT, "current_tracer", 0640, &current_tracer_fops },
	{ UE_DIR_ROOT, "available_tracers", 0440, &available_tracers_fops },
	/* Each per_cpu/cpuN/ (its trace_pipe_raw is fs-raw.c's), in inode order. */
	{ UE_DIR_CPU, "buffer_size_kb", 0640, &cpu_buffer_size_fops },
	{ UE_DIR_CPU, "stats", 0440, &cpu_stats_fops },
	{ UE_DIR_CPU, "trace", 0640, &cpu_trace_fops },
};

const struct ue_fs_files ue_trace_files = UE_FS_FILES(files);
