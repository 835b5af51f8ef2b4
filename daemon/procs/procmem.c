// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * procmem: process identity from /proc/<pid>/{status,stat}, a pinned
 * handle on a process's memory (/proc/<tid>/mem for bytes, /proc/<tid>/maps
 * for protections) that stops working when the process exits or execs, and
 * a caller's capabilities (/proc/<tid>/status).
 */
#include "procmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <unistd.h>

/*
 * PROCMAP_QUERY (Linux 6.11+, include/uapi/linux/fs.h), declared here because
 * the build machine's headers may predate it.  The layout is ABI and the
 * ioctl number encodes its size, so it is spelled out in full.
 */
struct ue_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
_Static_assert(sizeof(struct ue_procmap_query) == 104, "procmap_query is 104 bytes");
#define UE_PROCMAP_QUERY	      _IOWR('f', 17, struct ue_procmap_query)
#define UE_PROCMAP_QUERY_VMA_WRITABLE 0x02

/* Enough for one maps line: a path of PATH_MAX plus the fixed columns. */
#define MAPS_BUF_SIZE 8192

struct ue_procmem {
	int mem_fd;
	int maps_fd;
	bool text_maps;
	struct ue_procmem_id id;
};

static int read_proc_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = errno == ENOENT ? -ESRCH : -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (int)len;
}

/* Field @want (1-based, as proc(5) counts) of a /proc/<pid>/stat line. */
static int stat_field(const char *stat, unsigned int want, uint64_t *ret)
{
	/* comm (field 2) may hold spaces and parentheses: count from the last ')'. */
	const char *p = strrchr(stat, ')');
	unsigned int field = 2;
	char *end;

	if (!p)
		return -EIO;
	p++;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		field++;
		if (field == want) {
			errno = 0;
			*ret = strtoull(p, &end, 10);
			if (errno || end == p)
				return -EIO;
			return 0;
		}
		while (*p && *p != ' ')
			p++;
	}
	return -EIO;
}

int ue_procmem_identify(pid_t tid, struct ue_procmem_id *ret_id)
{
	char path[64], buf[4096];
	struct ue_procmem_id id;
	const char *p;
	char *end;
	long tgid;
	int r;

	if (tid <= 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	r = read_proc_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -EIO;
	errno = 0;
	tgid = strtol(p + 6, &end, 10);
	if (errno || end == p + 6 || tgid <= 0)
		return -EIO;

	/* The leader's start time: a thread's own differs, and its stack start is per mm. */
	snprintf(path, sizeof(path), "/proc/%ld/stat", tgid);
	r = read_proc_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	id.tgid = (pid_t)tgid;
	r = stat_field(buf, 22, &id.start_time);
	if (r < 0)
		return r;
	r = stat_field(buf, 28, &id.start_stack);
	if (r < 0)
		return r;
	*ret_id = id;
	return 0;
}

bool ue_procmem_id_equal(const struct ue_procmem_id *a, const struct ue_procmem_id *b)
{
	return a->tgid == b->tgid && a->start_time == b->start_time &&
	       a->start_stack == b->start_stack;
}

int ue_procmem_open(pid_t tid, struct ue_procmem **ret_pm)
{
	struct ue_procmem *pm;
	char path[64];
	int r;

	if (tid <= 0)
		return -ESRCH;
	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return -ENOMEM;
	pm->maps_fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	pm->mem_fd = open(path, O_RDWR | O_CLOEXEC);
	if (pm->mem_fd < 0) {
		r = errno == ENOENT ? -ESRCH : -errno;
		goto fail;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tid);
	pm->maps_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pm->maps_fd < 0) {
		r = errno == ENOENT ? -ESRCH : -errno;
		goto fail;
	}
	r = ue_procmem_identify(tid, &pm->id);
	if (r < 0)
		goto fail;

	/* An exec between the two opens would leave mem on a dead mm: refuse it. */
	r = ue_procmem_alive(pm);
	if (r <= 0) {
		r = r ? r : -ESRCH;
		goto fail;
	}
	*ret_pm = pm;
	return 0;
fail:
	ue_procmem_close(pm);
	return r;
}

int ue_procmem_dup(const struct ue_procmem *pm, struct ue_procmem **ret_pm)
{
	struct ue_procmem *copy;
	int r;

	copy = calloc(1, sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	*copy = *pm;
	copy->maps_fd = -1;
	copy->mem_fd = fcntl(pm->mem_fd, F_DUPFD_CLOEXEC, 0);
	if (copy->mem_fd < 0)
		goto fail;
	copy->maps_fd = fcntl(pm->maps_fd, F_DUPFD_CLOEXEC, 0);
	if (copy->maps_fd < 0)
		goto fail;
	*ret_pm = copy;
	return 0;
fail:
	r = -errno;
	ue_procmem_close(copy);
	return r;
}

void ue_procmem_close(struct ue_procmem *pm)
{
	if (!pm)
		return;
	if (pm->mem_fd >= 0)
		close(pm->mem_fd);
	if (pm->maps_fd >= 0)
		close(pm->maps_fd);
	free(pm);
}

void ue_procmem_fds(const struct ue_procmem *pm, int *ret_mem_fd, int *ret_maps_fd,
		    bool *ret_text_maps)
{
	*ret_mem_fd = pm->mem_fd;
	*ret_maps_fd = pm->maps_fd;
	*ret_text_maps = pm->text_maps;
}

int ue_procmem_adopt(int mem_fd, int maps_fd, bool text_maps, const struct ue_procmem_id *id,
		     struct ue_procmem **ret_pm)
{
	struct ue_procmem *pm = calloc(1, sizeof(*pm));

	if (!pm) {
		if (mem_fd >= 0)
			close(mem_fd);
		if (maps_fd >= 0)
			close(maps_fd);
		return -ENOMEM;
	}
	pm->mem_fd = mem_fd;
	pm->maps_fd = maps_fd;
	pm->text_maps = text_maps;
	pm->id = *id;
	*ret_pm = pm;
	return 0;
}

const struct ue_procmem_id *ue_procmem_get_id(const struct ue_procmem *pm)
{
	return &pm->id;
}

int ue_procmem_alive(struct ue_procmem *pm)
{
	uint8_t b;
	ssize_t n;

	/*
	 * A read through the pinned mm transfers nothing (returns 0) once no task
	 * uses that mm any more; while it is in use, address 0 reads as EIO
	 * (unmapped) or succeeds (mapped).
	 */
	do
		n = pread(pm->mem_fd, &b, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		return 1;
	if (n == 0)
		return 0;
	return errno == EIO ? 1 : -errno;
}

static int mem_result(ssize_t n)
{
	if (n == 1)
		return 0;
	if (n == 0)
		return -ESRCH;
	return -errno;
}

int ue_procmem_read_byte(struct ue_procmem *pm, uint64_t addr, uint8_t *ret_val)
{
	ssize_t n;

	/* mem files take unsigned offsets, so every address is a valid off_t here. */
	do
		n = pread(pm->mem_fd, ret_val, 1, (off_t)addr);
	while (n < 0 && errno == EINTR);
	return mem_result(n);
}

ssize_t ue_procmem_read(struct ue_procmem *pm, uint64_t addr, void *buf, size_t len)
{
	size_t got = 0;

	if (len > (size_t)SSIZE_MAX || addr + len < addr)
		return -EFAULT;
	while (got < len) {
		ssize_t n = pread(pm->mem_fd, (char *)buf + got, len - got, (off_t)(addr + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (got)
			break;
		/* Nothing at all: a dead mm reads as end of file, a fault as EIO. */
		return n == 0 ? -ESRCH : -errno;
	}
	return (ssize_t)got;
}

int ue_procmem_write_byte(struct ue_procmem *pm, uint64_t addr, uint8_t val)
{
	ssize_t n;

	do
		n = pwrite(pm->mem_fd, &val, 1, (off_t)addr);
	while (n < 0 && errno == EINTR);
	return mem_result(n);
}

/* One "start-end perms ..." line: whether it covers @addr, and how. */
static int maps_line(const char *line, uint64_t addr, int *ret)
{
	uint64_t start, end;
	char *p;

	errno = 0;
	start = strtoull(line, &p, 16);
	if (errno || p == line || *p != '-')
		return -EIO;
	line = p + 1;
	end = strtoull(line, &p, 16);
	if (errno || p == line || *p != ' ' || strlen(p) < 3)
		return -EIO;
	if (addr < start) {
		*ret = -EFAULT; /* lines are sorted: nothing later covers addr */
		return 1;
	}
	if (addr >= end)
		return 0;
	*ret = p[2] == 'w' ? 0 : -EFAULT;
	return 1;
}

static int maps_text_writable(struct ue_procmem *pm, uint64_t addr)
{
	char *buf;
	size_t len = 0;
	off_t off = 0;
	int r = -EFAULT, done = 0;

	buf = malloc(MAPS_BUF_SIZE + 1);
	if (!buf)
		return -ENOMEM;
	while (!done) {
		char *line, *nl;
		ssize_t n;

		n = pread(pm->maps_fd, buf + len, MAPS_BUF_SIZE - len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			done = -errno;
			break;
		}
		if (n == 0)
			break;
		off += n;
		len += (size_t)n;
		buf[len] = '\0';
		line = buf;
		while (!done && (nl = memchr(line, '\n', len - (size_t)(line - buf)))) {
			*nl = '\0';
			done = maps_line(line, addr, &r);
			line = nl + 1;
		}
		len -= (size_t)(line - buf);
		memmove(buf, line, len);
		/* No line is longer than PATH_MAX plus its columns: this is not maps. */
		if (!done && len == MAPS_BUF_SIZE)
			done = -EIO;
	}
	free(buf);
	if (done < 0)
		return done;
	/* A dead mm lists no mappings at all: say which it is. */
	if (r == -EFAULT && ue_procmem_alive(pm) == 0)
		return -ESRCH;
	return r;
}

int ue_procmem_writable(struct ue_procmem *pm, uint64_t addr)
{
	struct ue_procmap_query q;

	if (pm->text_maps)
		return maps_text_writable(pm, addr);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_addr = addr;
	if (ioctl(pm->maps_fd, UE_PROCMAP_QUERY, &q) == 0)
		return q.vma_flags & UE_PROCMAP_QUERY_VMA_WRITABLE ? 0 : -EFAULT;
	switch (errno) {
	case ENOENT:
		return -EFAULT;
	case ENOTTY:
		pm->text_maps = true;
		return maps_text_writable(pm, addr);
	default:
		return -errno;
	}
}

int ue_procmem_update_bit(struct ue_procmem *pm, uint64_t addr, unsigned int bit, bool set)
{
	uint8_t old, val, mask;
	int r;

	if (bit > 7)
		return -EINVAL;
	mask = (uint8_t)(1u << bit);
	r = ue_procmem_writable(pm, addr);
	if (r < 0)
		return r;
	r = ue_procmem_read_byte(pm, addr, &old);
	if (r < 0)
		return r;
	val = set ? old | mask : old & (uint8_t)~mask;
	if (val == old)
		return 0;
	return ue_procmem_write_byte(pm, addr, val);
}

/* Parse one maps line into @ret when it covers @addr (1), or say it does not (0). */
static int maps_line_vma(const char *line, uint64_t addr, struct ue_procmem_vma *ret)
{
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perms[5];

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu", &start, &end, perms, &off, &maj, &min,
		   &ino) != 7)
		return -EIO;
	if (addr < start || addr >= end)
		return 0;
	memset(ret, 0, sizeof(*ret));
	ret->start = start;
	ret->end = end;
	ret->flags = (perms[0] == 'r' ? UE_VMA_READ : 0) | (perms[1] == 'w' ? UE_VMA_WRITE : 0) |
		     (perms[2] == 'x' ? UE_VMA_EXEC : 0) | (perms[3] == 's' ? UE_VMA_SHARED : 0);
	ret->offset = off;
	ret->inode = ino;
	ret->dev_major = maj;
	ret->dev_minor = min;
	return 1;
}

static int maps_text_vma(struct ue_procmem *pm, uint64_t addr, struct ue_procmem_vma *ret)
{
	char *buf, *line, *nl;
	size_t len = 0;
	off_t off = 0;
	int r = 0;

	buf = malloc(MAPS_BUF_SIZE + 1);
	if (!buf)
		return -ENOMEM;
	while (!r) {
		ssize_t n = pread(pm->maps_fd, buf + len, MAPS_BUF_SIZE - len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : 0;
			break;
		}
		off += n;
		len += (size_t)n;
		buf[len] = '\0';
		line = buf;
		while (!r && (nl = memchr(line, '\n', len - (size_t)(line - buf)))) {
			*nl = '\0';
			r = maps_line_vma(line, addr, ret);
			line = nl + 1;
		}
		len -= (size_t)(line - buf);
		memmove(buf, line, len);
		if (!r && len == MAPS_BUF_SIZE)
			r = -EIO;
	}
	free(buf);
	if (r < 0)
		return r;
	if (r == 0)
		return ue_procmem_alive(pm) == 0 ? -ESRCH : -EFAULT;
	return 0;
}

int ue_procmem_vma(struct ue_procmem *pm, uint64_t addr, struct ue_procmem_vma *ret_vma)
{
	struct ue_procmap_query q;

	if (pm->text_maps)
		return maps_text_vma(pm, addr, ret_vma);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_addr = addr;
	if (ioctl(pm->maps_fd, UE_PROCMAP_QUERY, &q) == 0) {
		memset(ret_vma, 0, sizeof(*ret_vma));
		ret_vma->start = q.vma_start;
		ret_vma->end = q.vma_end;
		/* PROCMAP_QUERY's flag bits are the ones UE_VMA_* copy. */
		ret_vma->flags = (unsigned int)(q.vma_flags & 0xf);
		ret_vma->offset = q.vma_offset;
		ret_vma->inode = q.inode;
		ret_vma->dev_major = q.dev_major;
		ret_vma->dev_minor = q.dev_minor;
		return 0;
	}
	switch (errno) {
	case ENOENT:
		return ue_procmem_alive(pm) == 0 ? -ESRCH : -EFAULT;
	case ENOTTY:
		pm->text_maps = true;
		return maps_text_vma(pm, addr, ret_vma);
	default:
		return -errno;
	}
}

/*
 * Whether the process's own load from a mapping succeeds.  On x86 a page
 * with any access right can be read (a PROT_WRITE or PROT_EXEC mapping is
 * readable; the reference kernel registers name_args there), and only
 * PROT_NONE faults.  Elsewhere, read or write access.
 */
#if defined(__x86_64__) || defined(__i386__)
#define UE_VMA_LOADABLE (UE_VMA_READ | UE_VMA_WRITE | UE_VMA_EXEC)
#else
#define UE_VMA_LOADABLE (UE_VMA_READ | UE_VMA_WRITE)
#endif

/* The mappings' fingerprint and how many of @len bytes from @addr the process could load. */
static int loadable_span(struct ue_procmem *pm, uint64_t addr, size_t len, size_t *ret_len,
			 uint64_t *ret_sig)
{
	uint64_t sig = 1469598103934665603ull;
	size_t ok = 0;

	while (ok < len) {
		struct ue_procmem_vma v;
		uint64_t parts[5];
		int r = ue_procmem_vma(pm, addr + ok, &v);

		if (r == -EFAULT)
			break;
		if (r < 0)
			return r;
		if (!(v.flags & UE_VMA_LOADABLE))
			break;
		parts[0] = v.start;
		parts[1] = v.end;
		parts[2] = v.flags;
		parts[3] = v.inode;
		parts[4] = v.offset;
		for (unsigned int i = 0; i < 5; i++)
			sig = (sig ^ parts[i]) * 1099511628211ull;
		ok = v.end - addr >= len ? len : (size_t)(v.end - addr);
	}
	*ret_len = ok;
	*ret_sig = sig;
	return 0;
}

/* Mappings changing under every attempt: answer as the fault it may be. */
#define READ_USER_TRIES 8

ssize_t ue_procmem_read_user(struct ue_procmem *pm, uint64_t addr, void *buf, size_t len)
{
	if (len > (size_t)SSIZE_MAX || addr + len < addr)
		return -EFAULT;
	if (!len)
		return 0;
	for (unsigned int i = 0; i < READ_USER_TRIES; i++) {
		size_t span, again;
		uint64_t sig, sig2;
		ssize_t n;
		int r;

		r = loadable_span(pm, addr, len, &span, &sig);
		if (r < 0)
			return r;
		if (!span)
			return ue_procmem_alive(pm) == 0 ? -ESRCH : -EFAULT;
		n = ue_procmem_read(pm, addr, buf, span);
		if (n < 0)
			return n == -EIO ? -EFAULT : n;
		/*
		 * /proc/<pid>/mem reads through any protection: the bytes count
		 * only if the same mappings allowed the load before and after.
		 */
		r = loadable_span(pm, addr, span, &again, &sig2);
		if (r < 0)
			return r;
		if (again == span && sig2 == sig)
			return n;
	}
	return -EFAULT;
}

void ue_procmem_use_text_maps(struct ue_procmem *pm)
{
	pm->text_maps = true;
}

/*
 * Whether @tid is in our user namespace: capabilities count in the
 * namespace that holds them, and perfmon_capable() asks for them in the
 * initial one, so the root of a user namespace (a rootless container) has
 * none over us.
 */
static bool same_user_ns(pid_t tid)
{
	struct stat ours, theirs;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)tid);
	if (stat("/proc/self/ns/user", &ours) < 0 || stat(path, &theirs) < 0)
		return false;
	return ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
}

bool ue_caller_capable(pid_t tid)
{
	/* CAP_SYS_ADMIN (21) or CAP_PERFMON (38), as perfmon_capable(). */
	const unsigned long long mask = (1ULL << 21) | (1ULL << 38);
	unsigned long long caps = 0;
	char path[64], line[256];
	bool found = false;
	FILE *f;

	if (tid <= 0 || !same_user_ns(tid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	}
	fclose(f);
	return found && (caps & mask);
}
