// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tools/perfdata-write: a perf.data of tracepoint samples (perfdata.h).
 *
 * The layout: the header (rewritten at the end), the data section from
 * byte 104 on (samples, COMM, LOST and FINISHED_ROUND records, through a
 * buffer of WBUF bytes), then the features (perf finds them right after
 * the data), then the attributes and their ids.  Every attribute has the
 * same sample type (TID, TIME, ID, STREAM_ID, CPU, RAW: 48 bytes and the
 * record's), so perf finds each sample's attribute by its ID at the same
 * place; sample_id_all gives the other records the same fields at their end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perfdata.h"
#include "rbpage.h"

/*
 * 64 KiB: the samples are still in the CPU's cache when write() copies
 * them.  With 1 MiB the kernel's copy into the page cache read them back
 * from memory and took 21 % of the machine's time in a recording (the
 * whole reader took twice the trace.dat reader's CPU); with 64 KiB, 1.3 %.
 */
#define WBUF (64u << 10)
/*
 * The file's blocks are reserved this far ahead (fallocate, the size kept):
 * ext4 then takes the samples' pages without reserving blocks for each
 * (0.19 against 0.23 ns a byte here); the end gives back what is unused.
 */
#define RESERVE_AHEAD (64u << 20)
#define HEADER_SIZE 104
#define NAME_ALIGN 64
#define SAMPLE_TYPE                                                                   \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
/* A sample's fields before its raw data: tid, time, id, stream id, cpu, raw size. */
struct sample_fields {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t time, id, stream_id;
	uint32_t cpu, res;
	uint32_t raw_size;
} __attribute__((packed));
/* The sample_id_all fields at the end of a non-sample record: tid, time, id, stream, cpu. */
#define ID_TRAILER 40
/* The tool's version (meson's); the test programs built from these sources have none. */
#ifndef UE_VERSION
#define UE_VERSION "(tests)"
#endif
#ifndef PERF_RECORD_FINISHED_ROUND
#define PERF_RECORD_FINISHED_ROUND 68
#endif

struct attr {
	struct uet_perf_event ev;
	uint64_t id;
};

struct uet_perf_writer {
	int fd;
	unsigned char *buf;
	size_t used;
	uint64_t off;			/* the file's bytes, the buffer's included */
	int err;			/* the first error: kept */
	uint64_t reserved;		/* blocks reserved up to here (RESERVE_AHEAD) */
	bool no_reserve;		/* the file cannot (a pipe, a file system without fallocate) */
	struct attr *attrs;
	size_t nattrs, last;		/* last: the attribute the previous sample had */
	int32_t *tids;			/* the threads whose COMM was written (open addressing, 0: free) */
	size_t tids_cap, ntids;
	uint64_t samples, first_ts, last_ts;
	bool have_ts;			/* first_ts and last_ts are set */
	int32_t cur_tid, cur_pid;	/* the thread of the last sample written by a page, its process */
	char **cmdline;
};

struct file_section {
	uint64_t offset, size;
};

static void reserve(struct uet_perf_writer *w)
{
	if (w->no_reserve || w->off <= w->reserved)
		return;
	if (fallocate(w->fd, FALLOC_FL_KEEP_SIZE, (off_t)w->reserved, RESERVE_AHEAD) == 0)
		w->reserved += RESERVE_AHEAD;
	else
		w->no_reserve = true;
}

static void put(struct uet_perf_writer *w, const void *p, size_t n)
{
	while (n && !w->err) {
		size_t k = WBUF - w->used < n ? WBUF - w->used : n;

		memcpy(w->buf + w->used, p, k);
		w->used += k;
		w->off += k;
		p = (const char *)p + k;
		n -= k;
		if (w->used == WBUF) {
			reserve(w);
			if (write(w->fd, w->buf, WBUF) != (ssize_t)WBUF)
				w->err = errno ? -errno : -EIO;
			w->used = 0;
		}
	}
}

static int drain(struct uet_perf_writer *w)
{
	size_t done = 0;

	reserve(w);
	while (!w->err && done < w->used) {
		ssize_t n = write(w->fd, w->buf + done, w->used - done);

		if (n < 0) {
			if (errno != EINTR)
				w->err = -errno;
			continue;
		}
		done += (size_t)n;
	}
	w->used = 0;
	return w->err;
}

static void put_u64(struct uet_perf_writer *w, uint64_t v)
{
	put(w, &v, 8);
}

static void put_u32(struct uet_perf_writer *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_header(struct uet_perf_writer *w, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	put(w, &h, sizeof(h));
}

/* perf's string: its length padded to NAME_ALIGN, then the bytes and zeros. */
static void put_string(struct uet_perf_writer *w, const char *s)
{
	static const char zeros[NAME_ALIGN];
	size_t n = strlen(s) + 1, len = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	put_u32(w, (uint32_t)len);
	put(w, s, n);
	put(w, zeros, len - n);
}

int uet_perf_writer_open(struct uet_perf_writer **ret, int fd, char *const *cmdline)
{
	struct uet_perf_writer *w = calloc(1, sizeof(*w));
	size_t n = 0;

	if (!w || !(w->buf = malloc(WBUF))) {
		free(w);
		return -ENOMEM;
	}
	w->fd = fd;
	while (cmdline && cmdline[n])
		n++;
	w->cmdline = calloc(n + 1, sizeof(*w->cmdline));
	for (size_t i = 0; w->cmdline && i < n; i++)
		w->cmdline[i] = strdup(cmdline[i]);
	/* The header's place: zeros until the end writes it (perf reads such a file as empty). */
	put(w, (char[HEADER_SIZE]){ 0 }, HEADER_SIZE);
	*ret = w;
	return w->err;
}

static struct attr *find_attr(struct uet_perf_writer *w, unsigned int type)
{
	if (w->last < w->nattrs && w->attrs[w->last].ev.type == type)
		return &w->attrs[w->last];
	for (size_t i = 0; i < w->nattrs; i++)
		if (w->attrs[i].ev.type == type) {
			w->last = i;
			return &w->attrs[i];
		}
	return NULL;
}

/* The attribute of @type, made when it is new (its name comes with its format). */
static struct attr *attr_get(struct uet_perf_writer *w, unsigned int type)
{
	struct attr *a = find_attr(w, type), *nv;

	if (a)
		return a;
	nv = realloc(w->attrs, (w->nattrs + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	w->attrs = nv;
	a = &w->attrs[w->nattrs];
	*a = (struct attr){ .ev = { .type = type }, .id = w->nattrs + 1 };
	snprintf(a->ev.name, sizeof(a->ev.name), "unknown:type_%u", type);
	w->last = w->nattrs++;
	return a;
}

int uet_perf_writer_event(struct uet_perf_writer *w, const struct uet_perf_event *ev)
{
	struct attr *a = attr_get(w, ev->type);

	if (!a)
		return -ENOMEM;
	a->ev = *ev;
	return 0;
}

/* The sample_id_all fields of a record that is not a sample. */
static void put_id_trailer(struct uet_perf_writer *w, const struct attr *a, int32_t pid, int32_t tid,
			   unsigned int cpu, uint64_t ts)
{
	put_u32(w, (uint32_t)pid);
	put_u32(w, (uint32_t)tid);
	put_u64(w, ts);
	put_u64(w, a->id);
	put_u64(w, a->id);
	put_u32(w, cpu);
	put_u32(w, 0);
}

/* Whether @tid's COMM is written; marked so. */
static bool tid_told(struct uet_perf_writer *w, int32_t tid)
{
	size_t i;

	if (tid == 0)
		return true;
	if (w->ntids * 2 >= w->tids_cap) {
		size_t cap = w->tids_cap ? w->tids_cap * 2 : 256;
		int32_t *nv = calloc(cap, sizeof(*nv));

		if (!nv)
			return true;	/* no memory: the name goes unsaid, the sample not */
		for (size_t k = 0; k < w->tids_cap; k++) {
			if (!w->tids[k])
				continue;
			for (i = (uint32_t)w->tids[k] * 2654435761u % cap; nv[i]; i = (i + 1) % cap) {
			}
			nv[i] = w->tids[k];
		}
		free(w->tids);
		w->tids = nv;
		w->tids_cap = cap;
	}
	for (i = (uint32_t)tid * 2654435761u % w->tids_cap; w->tids[i]; i = (i + 1) % w->tids_cap)
		if (w->tids[i] == tid)
			return true;
	w->tids[i] = tid;
	w->ntids++;
	return false;
}

static void put_comm(struct uet_perf_writer *w, const struct attr *a, int32_t pid, int32_t tid,
		     const char *comm, unsigned int cpu, uint64_t ts)
{
	char name[16] = { 0 };

	snprintf(name, sizeof(name), "%s", comm && comm[0] ? comm : "<...>");
	put_header(w, PERF_RECORD_COMM, 0, (uint16_t)(8 + 8 + sizeof(name) + ID_TRAILER));
	put_u32(w, (uint32_t)pid);
	put_u32(w, (uint32_t)tid);
	put(w, name, sizeof(name));
	put_id_trailer(w, a, pid, tid, cpu, ts);
}

/*
 * One record as a sample, through put(): @comm, the task's name for a COMM
 * record first (a thread new to the file), or NULL.
 */
static int sample(struct uet_perf_writer *w, unsigned int type, int32_t pid, int32_t tid,
		  const char *comm, unsigned int cpu, uint64_t ts, const void *data, size_t len)
{
	static const char zeros[8];
	/* A record may come before its format does (record reads the formats after): named then. */
	const struct attr *a = attr_get(w, type);
	size_t raw = (len + 4 + 7) / 8 * 8 - 4, size = sizeof(struct sample_fields) + raw;

	if (!a)
		return -ENOMEM;
	if (size > UINT16_MAX)
		return -E2BIG;	/* perf's records have 16-bit sizes */
	/*
	 * Stamped 0: the records of CPUs read later may be older than this
	 * one, and perf names a thread from its COMM on (it sorts by time).
	 */
	if (comm)
		put_comm(w, a, pid, tid, comm, cpu, 0);
	{
		struct sample_fields f = {
			.h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
			       .size = (uint16_t)size },
			.pid = (uint32_t)pid, .tid = (uint32_t)tid, .time = ts,
			.id = a->id, .stream_id = a->id, .cpu = cpu, .raw_size = (uint32_t)raw,
		};

		put(w, &f, sizeof(f));
	}
	put(w, data, len);
	put(w, zeros, raw - len);
	w->samples++;
	if (!w->have_ts || ts < w->first_ts)
		w->first_ts = ts;
	if (ts > w->last_ts)
		w->last_ts = ts;
	w->have_ts = true;
	return w->err;
}

/*
 * One record the general way: its thread (its name in a COMM record when
 * new to the file) and its event's attribute (*@a, of *@a_type, kept for
 * the next), then its sample through put().
 */
static int general(struct uet_perf_writer *w, unsigned int cpu, const struct uet_perf_threads *th,
		   uint64_t ts, const void *data, size_t dlen, const struct attr **a,
		   unsigned int *a_type)
{
	const char *comm = NULL;
	uint16_t type;
	int32_t tid;

	if (dlen < 8)
		return 0;
	memcpy(&type, data, sizeof(type));
	memcpy(&tid, (const uint8_t *)data + 4, sizeof(tid));
	if (tid != w->cur_tid) {
		w->cur_tid = tid;
		comm = th->thread(th->arg, tid, tid_told(w, tid), &w->cur_pid);
	}
	if (!*a || type != *a_type) {
		*a = attr_get(w, type);
		*a_type = type;
		if (!*a)
			return -ENOMEM;
	}
	/*
	 * Past what a perf record can hold (a payload over about 65400 bytes,
	 * which the kernel never writes): lost, and said so where it was.
	 */
	if (sizeof(struct sample_fields) + (dlen + 4 + 7) / 8 * 8 - 4 > UINT16_MAX)
		return uet_perf_writer_lost(w, cpu, ts, 1);
	return sample(w, type, w->cur_pid, tid, comm, cpu, ts, data, dlen);
}

/*
 * A small record's @dl bytes (a multiple of 4, at most 112) to @dst, then
 * zeros to @raw (dl or dl + 4): fixed-size moves.  A memcpy() of a length
 * known only here became `rep movsq`, whose start-up cost more than the
 * rest of a sample's making (half the loop's samples, perf annotate).
 */
static inline void copy_raw(unsigned char *dst, const uint8_t *src, size_t dl, size_t raw)
{
	size_t i = 0;

	for (; i + 16 <= dl; i += 16) {
		uint64_t a, b;

		__builtin_memcpy(&a, src + i, 8);
		__builtin_memcpy(&b, src + i + 8, 8);
		__builtin_memcpy(dst + i, &a, 8);
		__builtin_memcpy(dst + i + 8, &b, 8);
		__asm__("" ::: "memory");	/* not a loop GCC turns back into memcpy() */
	}
	if (i + 8 <= dl) {
		__builtin_memcpy(dst + i, src + i, 8);
		i += 8;
	}
	if (i < dl) {
		__builtin_memcpy(dst + i, src + i, 4);
		i += 4;
	}
	if (i < raw)
		__builtin_memset(dst + i, 0, 4);
}

int uet_perf_writer_page(struct uet_perf_writer *w, unsigned int cpu, const uint8_t *page,
			 size_t len, const struct uet_perf_threads *th, uint64_t *ret_last_ts,
			 uint64_t *ret_missed)
{
	const struct attr *a = NULL;
	struct ue_rbpage_iter it;
	unsigned int a_type = 0;
	const void *data;
	size_t dlen;
	uint64_t ts, first = UINT64_MAX, last = 0, records = 0;
	int e = 0;

	*ret_missed = 0;
	if (ue_rbpage_iter_init(&it, page, len) < 0)
		return 0;
	*ret_missed = it.missed;
	if (it.missed)
		e = uet_perf_writer_lost(w, cpu, it.ts, it.missed);
	/*
	 * The loop of record --format=perf.  The common record (a small data
	 * event of the thread and event of the one before, room in the
	 * buffer) is stepped over by the fast loop, its sample built in
	 * place; any other goes through ue_rbpage_next() and the general path
	 * (a thread met anew, another event, a full buffer, an event with a
	 * length word, a time stamp, a padding).
	 */
	while (e == 0) {
		const uint8_t *d = it.data;
		unsigned char *buf = w->buf;
		size_t pos = it.pos, end = it.size, used = w->used;
		uint64_t t = it.ts, nfast = 0;

		while (a && pos + 4 <= end) {
			uint32_t h = ue_rb_get32(d + pos);
			unsigned int rtype = h & 31;
			size_t dl = (size_t)rtype * 4, raw = (dl + 4 + 7) / 8 * 8 - 4;
			size_t size = sizeof(struct sample_fields) + raw;
			const uint8_t *rec = d + pos + 4;
			struct sample_fields *f;
			uint16_t type;
			int32_t tid;

			/* Types 2 to 28: 8 to 112 bytes, the length in the type. */
			if (rtype < 2 || rtype > UE_RB_TYPE_DATA_MAX || dl > end - pos - 4)
				break;
			memcpy(&type, rec, sizeof(type));
			memcpy(&tid, rec + 4, sizeof(tid));
			if (tid != w->cur_tid || type != a_type || used + size > WBUF)
				break;
			t += h >> 5;
			f = (struct sample_fields *)(buf + used);
			f->h.type = PERF_RECORD_SAMPLE;
			f->h.misc = PERF_RECORD_MISC_USER;
			f->h.size = (uint16_t)size;
			f->pid = (uint32_t)w->cur_pid;
			f->tid = (uint32_t)tid;
			f->time = t;
			f->id = a->id;
			f->stream_id = a->id;
			f->cpu = cpu;
			f->res = 0;
			f->raw_size = (uint32_t)raw;
			copy_raw((unsigned char *)(f + 1), rec, dl, raw);
			used += size;
			pos += 4 + dl;
			nfast++;
			first = t < first ? t : first;
			last = t;
		}
		w->off += used - w->used;
		w->used = used;
		w->samples += nfast;
		records += nfast;
		it.pos = pos;
		it.ts = t;
		if (ue_rbpage_next(&it, &ts, &data, &dlen) != 1)
			break;
		records++;
		e = general(w, cpu, th, ts, data, dlen, &a, &a_type);
		first = ts < first ? ts : first;
		last = ts > last ? ts : last;
	}
	if (first <= last) {
		if (first < w->first_ts || !w->have_ts)
			w->first_ts = first;
		if (last > w->last_ts)
			w->last_ts = last;
		w->have_ts = true;
		*ret_last_ts = last;
	}
	if (e || w->err)
		return e ? e : w->err;
	return records > INT_MAX ? INT_MAX : (int)records;
}

int uet_perf_writer_lost(struct uet_perf_writer *w, unsigned int cpu, uint64_t ts, uint64_t n)
{
	const struct attr *a = w->nattrs ? &w->attrs[0] : NULL;

	if (!a || !n)
		return 0;	/* perf ties a loss to an event: with none yet, no record was lost for it */
	put_header(w, PERF_RECORD_LOST, 0, 8 + 16 + ID_TRAILER);
	put_u64(w, a->id);
	put_u64(w, n == UINT64_MAX ? 1 : n);
	put_id_trailer(w, a, -1, -1, cpu, ts);
	return w->err;
}

int uet_perf_writer_round(struct uet_perf_writer *w)
{
	put_header(w, PERF_RECORD_FINISHED_ROUND, 0, 8);
	return w->err;
}

uint64_t uet_perf_writer_bytes(const struct uet_perf_writer *w)
{
	return w->off;
}

uint64_t uet_perf_writer_samples(const struct uet_perf_writer *w)
{
	return w->samples;
}

static struct perf_event_attr attr_of(const struct attr *a)
{
	struct perf_event_attr pa = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pa),
		.config = a->ev.type,
		.sample_period = 1,
		.sample_type = SAMPLE_TYPE,
		.read_format = PERF_FORMAT_ID,
		.inherit = 1,
		.sample_id_all = 1,
		/* No kernel here: a sample has no kernel address for perf report to look up. */
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.exclude_guest = 1,
		.wakeup_events = 1,
	};

	return pa;
}

/* ---- features ---- */

static void put_text(struct uet_perf_writer *w, const struct uet_dat_text *t, bool u64size)
{
	if (u64size)
		put_u64(w, t->text ? t->len : 0);
	else
		put_u32(w, t->text ? (uint32_t)t->len : 0);
	if (t->text)
		put(w, t->text, t->len);
}

/* perf's tracing data (util/trace-event-info.c), version 0.6. */
static void put_tracing_data(struct uet_perf_writer *w, const struct uet_dat_meta *m)
{
	size_t i = 0, nsys = 0;

	put(w, "\027\010\104tracing", 10);
	put(w, "0.6", 4);
	put(w, (uint8_t[]){ 0, sizeof(long) }, 2);	/* little-endian, long size */
	put_u32(w, (uint32_t)sysconf(_SC_PAGESIZE));
	put(w, "header_page", 12);
	put_text(w, &m->header_page, true);
	put(w, "header_event", 13);
	put_text(w, &m->header_event, true);
	put_u32(w, (uint32_t)m->nftrace);
	for (i = 0; i < m->nftrace; i++)
		put_text(w, &m->ftrace[i], true);
	for (i = 0; i < m->nformats; i++)
		nsys += i == 0 || strcmp(m->formats[i].system, m->formats[i - 1].system) != 0;
	put_u32(w, (uint32_t)nsys);
	for (i = 0; i < m->nformats;) {
		size_t j = i;

		while (j < m->nformats && strcmp(m->formats[j].system, m->formats[i].system) == 0)
			j++;
		put(w, m->formats[i].system, strlen(m->formats[i].system) + 1);
		put_u32(w, (uint32_t)(j - i));
		for (; i < j; i++)
			put_text(w, &m->formats[i], true);
	}
	put_u32(w, 0);	/* kallsyms */
	put_u32(w, 0);	/* printk formats */
	put_text(w, &m->cmdlines, true);
}

static void put_file_string(struct uet_perf_writer *w, const char *path, const char *key)
{
	char line[512], out[256] = "";
	FILE *f = fopen(path, "re");

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon && strncmp(line, key, strlen(key)) == 0) {
			colon++;
			colon += strspn(colon, " \t");
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, sizeof(out), "%s", colon);
			break;
		}
	}
	if (f)
		fclose(f);
	put_string(w, out);
}

static uint64_t mem_total_kb(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static void put_feature(struct uet_perf_writer *w, int feat, const struct uet_dat_meta *m,
			const struct utsname *u)
{
	uint32_t ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF), n = 0;

	switch (feat) {
	case UET_PERF_FEAT_TRACING_DATA:
		put_tracing_data(w, m);
		break;
	case UET_PERF_FEAT_HOSTNAME:
		put_string(w, u->nodename);
		break;
	case UET_PERF_FEAT_OSRELEASE:
		put_string(w, u->release);
		break;
	case UET_PERF_FEAT_VERSION:
		put_string(w, "userevents " UE_VERSION);
		break;
	case UET_PERF_FEAT_ARCH:
		put_string(w, u->machine);
		break;
	case UET_PERF_FEAT_NRCPUS:
		put_u32(w, ncpus);
		put_u32(w, ncpus);
		break;
	case UET_PERF_FEAT_CPUDESC:
		put_file_string(w, "/proc/cpuinfo", "model name");
		break;
	case UET_PERF_FEAT_TOTAL_MEM:
		put_u64(w, mem_total_kb());
		break;
	case UET_PERF_FEAT_CMDLINE:
		while (w->cmdline && w->cmdline[n])
			n++;
		put_u32(w, n);
		for (uint32_t i = 0; i < n; i++)
			put_string(w, w->cmdline[i]);
		break;
	case UET_PERF_FEAT_EVENT_DESC:
		put_u32(w, (uint32_t)w->nattrs);
		put_u32(w, sizeof(struct perf_event_attr));
		for (size_t i = 0; i < w->nattrs; i++) {
			struct perf_event_attr pa = attr_of(&w->attrs[i]);

			put(w, &pa, sizeof(pa));
			put_u32(w, 1);
			put_string(w, w->attrs[i].ev.name);
			put_u64(w, w->attrs[i].id);
		}
		break;
	case UET_PERF_FEAT_SAMPLE_TIME:
		put_u64(w, w->first_ts);
		put_u64(w, w->last_ts);
		break;
	}
}

int uet_perf_writer_finish(struct uet_perf_writer *w, const struct uet_dat_meta *m)
{
	static const int feats[] = {
		UET_PERF_FEAT_TRACING_DATA, UET_PERF_FEAT_HOSTNAME, UET_PERF_FEAT_OSRELEASE,
		UET_PERF_FEAT_VERSION,	    UET_PERF_FEAT_ARCH,	    UET_PERF_FEAT_NRCPUS,
		UET_PERF_FEAT_CPUDESC,	    UET_PERF_FEAT_TOTAL_MEM, UET_PERF_FEAT_CMDLINE,
		UET_PERF_FEAT_EVENT_DESC,   UET_PERF_FEAT_SAMPLE_TIME,
	};
	enum { NFEATS = sizeof(feats) / sizeof(feats[0]) };
	struct file_section secs[NFEATS], data = { HEADER_SIZE, w->off - HEADER_SIZE }, attrs;
	uint64_t bits[UET_PERF_FEAT_BITS / 64] = { 0 }, ids_at;
	struct utsname u;
	unsigned char head[HEADER_SIZE];
	uint64_t table = w->off;
	size_t at = 0;

	uname(&u);
	/* The features' table right after the data, then each feature. */
	put(w, (char[sizeof(secs)]){ 0 }, sizeof(secs));
	for (size_t i = 0; i < NFEATS; i++) {
		secs[i].offset = w->off;
		put_feature(w, feats[i], m, &u);
		secs[i].size = w->off - secs[i].offset;
		bits[feats[i] / 64] |= UINT64_C(1) << (feats[i] % 64);
	}
	/* Each attribute's ids (one: every CPU's samples carry it), then the attributes. */
	ids_at = w->off;
	for (size_t i = 0; i < w->nattrs; i++)
		put_u64(w, w->attrs[i].id);
	attrs = (struct file_section){ w->off, w->nattrs * (sizeof(struct perf_event_attr) + 16) };
	for (size_t i = 0; i < w->nattrs; i++) {
		struct perf_event_attr pa = attr_of(&w->attrs[i]);
		struct file_section ids = { ids_at + i * 8, 8 };

		put(w, &pa, sizeof(pa));
		put(w, &ids, sizeof(ids));
	}
	if (drain(w) < 0)
		return w->err;
	if (pwrite(w->fd, secs, sizeof(secs), (off_t)table) != (ssize_t)sizeof(secs))
		return -errno;
	memcpy(head + at, UET_PERF_MAGIC, 8), at += 8;
	memcpy(head + at, &(uint64_t){ HEADER_SIZE }, 8), at += 8;
	memcpy(head + at, &(uint64_t){ sizeof(struct perf_event_attr) + 16 }, 8), at += 8;
	memcpy(head + at, &attrs, 16), at += 16;
	memcpy(head + at, &data, 16), at += 16;
	memset(head + at, 0, 16), at += 16;	/* event_types: unused */
	memcpy(head + at, bits, sizeof(bits));
	if (pwrite(w->fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return -errno;
	/* The blocks reserved past the end: given back (ext4 truncates them at the same size). */
	if (w->reserved && ftruncate(w->fd, (off_t)w->off) < 0)
		return -errno;
	return 0;
}

void uet_perf_writer_free(struct uet_perf_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; w->cmdline && w->cmdline[i]; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	free(w->attrs);
	free(w->tids);
	free(w->buf);
	free(w);
}
