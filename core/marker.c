// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * trace_marker and trace_marker_raw: the records a write to them makes
 * (ftrace:print and ftrace:raw_data, with Linux 6.12's truncation, padding
 * and added newline) and their trace lines.  The daemon stores and the
 * tools read these records as the kernel lays them out.
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "outbuf.h"

/*
 * The kernel reserves room for "<faulted>" (what it writes when the copy
 * from the caller faults), so short writes make records of a fixed size.
 */
#define FAULTED_LEN 9
/* A print record past its text: the '\n' it may add and the NUL. */
#define PRINT_META (UE_PRINT_BUF_OFFSET + 2)

static void put_hdr(unsigned char *rec, uint16_t type, int32_t pid)
{
	struct ue_entry_hdr hdr = { .type = type, .flags = 0, .preempt_count = 0, .pid = pid };

	memcpy(rec, &hdr, sizeof(hdr));
}

/**
 * ue_print_record - the ftrace:print record a write to trace_marker makes
 * @text: the bytes written (any bytes, NULs included)
 * @n: their count
 * @pid: common_pid of the record
 * @ip: the record's ip field
 * @rec: where the record is built, at least UE_MARKER_MAX_RECORD bytes
 * @cap: size of @rec
 * @ret_taken: the bytes of @text the write takes, its return value
 *
 * As tracing_mark_write(): a write takes at most UE_MARKER_MAX_SIZE bytes,
 * and fewer when the record would not fit a ring page (4054 bytes: the
 * record is then UE_MARKER_MAX_RECORD long).  The text is copied as it is,
 * NULs included; a '\n' is added unless its last byte is one (an empty
 * write gets one too), then a NUL.  A text shorter than 9 bytes still
 * makes the record of a 9-byte text.  Bytes of @rec the record does not
 * use are zeroed up to its length.
 *
 * Return: the record's length; -EINVAL on a bad argument or a @cap below
 * UE_MARKER_MAX_RECORD.  *@ret_taken is set on success only.
 */
int ue_print_record(const void *text, size_t n, int32_t pid, uint64_t ip, void *rec, size_t cap,
		    size_t *ret_taken)
{
	unsigned char *r = rec;
	size_t cnt = n, size;
	unsigned char *buf;

	if ((!text && n) || !rec || cap < UE_MARKER_MAX_RECORD || !ret_taken)
		return -EINVAL;
	if (cnt > UE_MARKER_MAX_SIZE)
		cnt = UE_MARKER_MAX_SIZE;
	size = cnt + PRINT_META;
	if (cnt < FAULTED_LEN)
		size += FAULTED_LEN - cnt;
	if (size > UE_MARKER_MAX_RECORD) {
		cnt = UE_MARKER_MAX_RECORD - PRINT_META;
		size = UE_MARKER_MAX_RECORD;
	}
	memset(r, 0, size);
	put_hdr(r, UE_TRACE_PRINT_ID, pid);
	memcpy(r + UE_ENTRY_HDR_SIZE, &ip, sizeof(ip));
	buf = r + UE_PRINT_BUF_OFFSET;
	if (cnt)
		memcpy(buf, text, cnt);
	/* On an empty write the kernel tests the byte before the text: the ip's last, not '\n'. */
	if (cnt == 0 || buf[cnt - 1] != '\n')
		buf[cnt] = '\n';
	*ret_taken = cnt;
	return (int)size;
}

/**
 * ue_raw_data_record - the ftrace:raw_data record a write to trace_marker_raw makes
 * @data: the bytes written: a u32 id, then any bytes
 * @n: their count, the write's return value when it records
 * @pid: common_pid of the record
 * @rec: where the record is built, at least UE_MARKER_MAX_RECORD bytes
 * @cap: size of @rec
 *
 * As tracing_mark_raw_write(): the written bytes follow the entry header
 * (the id, then the data); the record reserves 4 bytes more than that,
 * and at least the room of an id and "<faulted>" (25 bytes).  The bytes
 * past the written ones are zeroed.
 *
 * Return: the record's length; -EINVAL when @n is below 4 (no id) or the
 * record would exceed UE_MARKER_MAX_RECORD (a write of more than 4060
 * bytes), or on a bad argument.
 */
int ue_raw_data_record(const void *data, size_t n, int32_t pid, void *rec, size_t cap)
{
	const size_t min_size = UE_RAW_DATA_BUF_OFFSET + sizeof(uint32_t) + FAULTED_LEN;
	unsigned char *r = rec;
	size_t size;

	if ((!data && n) || !rec || cap < UE_MARKER_MAX_RECORD)
		return -EINVAL;
	if (n < sizeof(uint32_t) || n > UE_MARKER_MAX_RECORD - UE_RAW_DATA_BUF_OFFSET)
		return -EINVAL;
	size = UE_RAW_DATA_BUF_OFFSET + n;
	if (size < min_size)
		size = min_size;
	memset(r, 0, size);
	put_hdr(r, UE_TRACE_RAW_DATA_ID, pid);
	memcpy(r + UE_ENTRY_HDR_SIZE, data, n);
	return (int)size;
}

/**
 * ue_render_print - the event part of an ftrace:print record's trace line
 * @record: the record; @ent_size bytes readable
 * @ent_size: the record's size as the ring buffer reports it
 * @msg_only: the text alone, as with options/printk-msg-only
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * "tracing_mark_write: TEXT", TEXT up to its first NUL, with no newline of
 * its own: the text carries the one the write added, so a text cut by a NUL
 * leaves the line open, as in the kernel.  The kernel prints the symbol of
 * the record's ip; every print record here comes from trace_marker, so the
 * name is always that of its write function.  Never reads past @ent_size.
 *
 * Return: the length of the full text (as snprintf), or -EINVAL when the
 * record is shorter than its fixed part.
 */
int ue_render_print(const void *record, size_t ent_size, bool msg_only, char *buf, size_t len)
{
	const char *text;
	const char *nul;
	struct outbuf ob;
	size_t n;

	if (!record || ent_size < UE_PRINT_BUF_OFFSET)
		return -EINVAL;
	text = (const char *)record + UE_PRINT_BUF_OFFSET;
	n = ent_size - UE_PRINT_BUF_OFFSET;
	nul = memchr(text, '\0', n);
	if (nul)
		n = (size_t)(nul - text);
	ob_init(&ob, buf, len);
	if (!msg_only)
		ob_puts(&ob, "tracing_mark_write: ");
	ob_putn(&ob, text, n);
	return ob_finish(&ob);
}

/**
 * ue_render_raw_data - the event part of an ftrace:raw_data record's trace line
 * @record: the record; @ent_size bytes readable
 * @ent_size: the record's size as the ring buffer reports it
 * @buf: where to write, or NULL to only measure
 * @len: size of @buf, NUL included
 *
 * "# ID buf: xx xx ...\n": the id in hex, then every byte from the end of
 * the id to @ent_size, the padding the ring buffer reports included.
 *
 * Return: the length of the full text (as snprintf), or -EINVAL when the
 * record is shorter than its fixed part.
 */
int ue_render_raw_data(const void *record, size_t ent_size, char *buf, size_t len)
{
	const unsigned char *r = record;
	struct outbuf ob;
	uint32_t id;

	if (!record || ent_size < UE_RAW_DATA_BUF_OFFSET)
		return -EINVAL;
	memcpy(&id, r + UE_ENTRY_HDR_SIZE, sizeof(id));
	ob_init(&ob, buf, len);
	ob_printf(&ob, "# %x buf:", id);
	for (size_t i = UE_RAW_DATA_BUF_OFFSET; i < ent_size; i++)
		ob_printf(&ob, " %02x", r[i]);
	ob_putc(&ob, '\n');
	return ob_finish(&ob);
}
