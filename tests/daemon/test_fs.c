// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_fs: usereventsd end to end.  Mounts the daemon on a temporary
 * directory in a private mount namespace (needs root) and drives it through
 * the raw ABI and the tracefs files.  Every expected errno and text was
 * printed by the reference Linux 6.12 kernel (tests/daemon/ref/, the probe
 * programs there and their output, and tests/conformance/refkernel.out).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"

/* The limit the daemon is started with, to reach EMFILE quickly. */
#define MAX_EVENTS 64

/* ---- helpers ---------------------------------------------------------- */

/* A text with its newlines and tabs visible, for one TAP comment line. */
static const char *esc(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	for (; s && *s && o + 5 < size; s++) {
		if (*s == '\n' || *s == '\t' || *s == '\\' || *s == '"') {
			buf[o++] = '\\';
			buf[o++] = *s == '\n' ? 'n' : *s == '\t' ? 't' : *s;
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
	return buf;
}

#define EXPECT_TEXT(a, b)                                                                \
	do {                                                                             \
		const char *ta_ = (a), *tb_ = (b);                                       \
		char ea_[2048], eb_[2048];                                               \
		if (strcmp(ta_, tb_) != 0)                                               \
			UE_FAIL_(0, "%s:\n#   got:      \"%s\"\n#   expected: \"%s\"", #a, \
				 esc(ta_, ea_, sizeof(ea_)), esc(tb_, eb_, sizeof(eb_)));  \
	} while (0)

static int open_data(void)
{
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);

	if (fd < 0)
		UE_FAIL_(1, "open user_events_data: %s", strerror(errno));
	return fd;
}

static const char *text(const char *rel)
{
	static char buf[1 << 16];

	if (read_rel(rel, buf, sizeof(buf)) < 0)
		return "(unreadable)";
	return buf;
}

static ssize_t writev_rec(int fd, uint32_t idx, const void *payload, size_t len)
{
	struct iovec io[2] = { { &idx, sizeof(idx) }, { (void *)payload, len } };
	ssize_t r = writev(fd, io, len ? 2 : 1);

	return r < 0 ? -errno : r;
}

static bool exists(const char *rel)
{
	struct stat st;

	return stat(path(rel), &st) == 0;
}

/* Waits up to 3 s (the sweeper's period is 0.5 s) for a path to go. */
static bool wait_gone(const char *rel)
{
	for (int i = 0; i < 300; i++) {
		if (!exists(rel))
			return true;
		usleep(10000);
	}
	return false;
}

static void enable(const char *event, const char *v)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "events/user_events/%s/enable", event);
	ASSERT_EQ(write_rel(rel, v), (ssize_t)strlen(v));
}

/* ---- setup: a private namespace and the daemon -------------------------- */

__attribute__((constructor)) static void setup(void)
{
	char opts[64];

	snprintf(opts, sizeof(opts), "max_events=%d", MAX_EVENTS);
	daemon_setup(opts);
}

/* ---- the tree ------------------------------------------------------------ */

TEST(tree_modes)
{
	static const struct {
		const char *rel;
		mode_t mode;
	} cases[] = {
		{ "", S_IFDIR | 0700 },
		{ "README", S_IFREG | 0440 },
		{ "available_events", S_IFREG | 0440 },
		{ "buffer_size_kb", S_IFREG | 0640 },
		{ "buffer_total_size_kb", S_IFREG | 0440 },
		{ "dynamic_events", S_IFREG | 0640 },
		{ "events", S_IFDIR | 0755 },
		{ "events/enable", S_IFREG | 0640 },
		{ "options", S_IFDIR | 0750 },
		{ "options/fields", S_IFREG | 0640 },
		{ "options/overwrite", S_IFREG | 0640 },
		{ "trace_options", S_IFREG | 0640 },
		{ "per_cpu", S_IFDIR | 0750 },
		{ "per_cpu/cpu0", S_IFDIR | 0750 },
		{ "per_cpu/cpu0/stats", S_IFREG | 0440 },
		{ "per_cpu/cpu0/trace", S_IFREG | 0640 },
		{ "per_cpu/cpu0/buffer_size_kb", S_IFREG | 0640 },
		{ "events/header_page", S_IFREG | 0440 },
		{ "events/header_event", S_IFREG | 0440 },
		{ "set_event", S_IFREG | 0640 },
		{ "trace", S_IFREG | 0640 },
		{ "trace_pipe", S_IFREG | 0440 },
		{ "tracing_on", S_IFREG | 0640 },
		{ "user_events_data", S_IFREG | 0640 },
		{ "user_events_status", S_IFREG | 0440 },
	};
	struct stat st;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(stat(path(cases[i].rel), &st), 0);
		EXPECT_EQ(st.st_mode, cases[i].mode);
		EXPECT_EQ(st.st_size, 0);
		EXPECT_EQ(st.st_uid, 0);
	}
	/* A system directory exists only while it has events. */
	EXPECT_FALSE(exists("events/user_events"));
	EXPECT_FALSE(exists("events/user_events_multi"));
	EXPECT_TEXT(text("user_events_status"), "\nActive: 0\nBusy: 0\n");
	EXPECT_TEXT(text("dynamic_events"), "");
	EXPECT_TEXT(text("tracing_on"), "1\n");
	EXPECT_TEXT(text("options/overwrite"), "1\n");
	EXPECT_TEXT(text("options/fields"), "0\n");
}

/* ---- DIAG_IOCSREG --------------------------------------------------------- */

enum addr_kind { A_WORD, A_WORD8, A_MISALIGNED, A_UNMAPPED, A_READONLY, A_HIGH, A_KERNEL };
enum name_kind { N_TEXT, N_NULL, N_NO_NUL, N_511, N_512 };

struct reg_case {
	const char *desc;
	enum name_kind name_kind;
	const char *name_args;
	enum addr_kind addr;
	int enable_size;
	int bit;
	unsigned int flags;
	uint32_t size;		/* 0: sizeof(struct user_reg) */
	int trailing;		/* bytes after the struct: 0 none, 1 zeros, 2 not zero */
	int err;		/* expected errno, 0 for success */
};

/* From the reference kernel (tests/daemon/ref/reg.out). */
static const struct reg_case reg_cases[] = {
	{ "size 0", N_TEXT, "t_reg", A_WORD, 4, 0, 0, 1, 0, EINVAL },
	{ "size 27", N_TEXT, "t_reg", A_WORD, 4, 0, 0, 27, 0, EINVAL },
	{ "size 4097", N_TEXT, "t_reg", A_WORD, 4, 0, 0, 4097, 0, E2BIG },
	{ "size 36, trailing bytes not zero", N_TEXT, "t_reg", A_WORD, 4, 0, 0, 36, 2, E2BIG },
	{ "size 36, trailing zeros", N_TEXT, "t_reg", A_WORD, 4, 0, 0, 36, 1, 0 },
	{ "flag 1 << 2", N_TEXT, "t_reg", A_WORD, 4, 0, 4, 0, 0, EINVAL },
	{ "flag 0x8000", N_TEXT, "t_reg", A_WORD, 4, 0, 0x8000, 0, 0, EINVAL },
	{ "enable_size 2", N_TEXT, "t_reg", A_WORD, 2, 0, 0, 0, 0, EINVAL },
	{ "misaligned word", N_TEXT, "t_reg", A_MISALIGNED, 4, 0, 0, 0, 0, EINVAL },
	{ "bit 32 of 4 bytes", N_TEXT, "t_reg", A_WORD, 4, 32, 0, 0, 0, EINVAL },
	{ "bit 64 of 8 bytes", N_TEXT, "t_reg", A_WORD8, 8, 64, 0, 0, 0, EINVAL },
	{ "bit 63 of 8 bytes", N_TEXT, "t_reg", A_WORD8, 8, 63, 0, 0, 0, 0 },
	{ "name_args NULL", N_NULL, NULL, A_WORD, 4, 0, 0, 0, 0, EFAULT },
	{ "name_args without NUL before unmapped", N_NO_NUL, NULL, A_WORD, 4, 0, 0, 0, 0, EFAULT },
	{ "name_args 511 bytes", N_511, NULL, A_WORD, 4, 0, 0, 0, 0, 0 },
	{ "name_args 512 bytes", N_512, NULL, A_WORD, 4, 0, 0, 0, 0, EINVAL },
	{ "enable word unmapped", N_TEXT, "t_reg", A_UNMAPPED, 4, 0, 0, 0, 0, ENOMEM },
	{ "enable word read-only", N_TEXT, "t_reg", A_READONLY, 4, 0, 0, 0, 0, ENOMEM },
	{ "enable word at 0x7ffffffff000", N_TEXT, "t_reg", A_HIGH, 4, 0, 0, 0, 0, ENOMEM },
	{ "same, bad name_args", N_TEXT, "t_reg:x", A_HIGH, 4, 0, 0, 0, 0, EINVAL },
	{ "enable word in kernel space", N_TEXT, "t_reg", A_KERNEL, 4, 0, 0, 0, 0, EFAULT },
	{ "text flags", N_TEXT, "t_reg:flag u32 x", A_WORD, 4, 0, 0, 0, 0, EINVAL },
	{ "field without name", N_TEXT, "t_reg2 u32", A_WORD, 4, 0, 0, 0, 0, EINVAL },
	{ "persist as root", N_TEXT, "t_regp", A_WORD, 4, 1, USER_EVENT_REG_PERSIST, 0, 0, 0 },
};

TEST(reg_errnos)
{
	char *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static uint64_t words[2];
	char *n511 = malloc(600), *n512 = malloc(600);
	int fd = open_data();

	ASSERT_TRUE(page != MAP_FAILED && ro != MAP_FAILED && n511 && n512);
	ASSERT_EQ(munmap(page + 4096, 4096), 0);
	memset(page + 4096 - 16, 'x', 16);
	memset(n511, 'a', 511);
	n511[511] = '\0';
	memset(n512, 'b', 512);
	n512[512] = '\0';

	for (size_t i = 0; i < sizeof(reg_cases) / sizeof(reg_cases[0]); i++) {
		const struct reg_case *c = &reg_cases[i];
		struct {
			struct user_reg r;
			uint8_t extra[8];
		} __attribute__((packed)) u;
		void *addr;
		int r;

		memset(&u, 0, sizeof(u));
		switch (c->addr) {
		case A_WORD: addr = &words[0]; break;
		case A_WORD8: addr = &words[1]; break;
		case A_MISALIGNED: addr = (char *)&words[0] + 1; break;
		case A_UNMAPPED: addr = page + 4096; break;
		case A_READONLY: addr = ro; break;
		case A_HIGH: addr = (void *)0x7ffffffff000ull; break;
		default: addr = (void *)0xffff800000000000ull; break;
		}
		switch (c->name_kind) {
		case N_TEXT: u.r.name_args = (uintptr_t)c->name_args; break;
		case N_NULL: u.r.name_args = 0; break;
		case N_NO_NUL: u.r.name_args = (uintptr_t)(page + 4096 - 16); break;
		case N_511: u.r.name_args = (uintptr_t)n511; break;
		default: u.r.name_args = (uintptr_t)n512; break;
		}
		u.r.size = c->size ? c->size : sizeof(u.r);
		u.r.enable_addr = (uintptr_t)addr;
		u.r.enable_size = (uint8_t)c->enable_size;
		u.r.enable_bit = (uint8_t)c->bit;
		u.r.flags = (uint16_t)c->flags;
		if (c->trailing == 2)
			u.extra[3] = 1;
		r = ioctl(fd, DIAG_IOCSREG, &u) < 0 ? -errno : 0;
		if (r != -c->err)
			UE_FAIL_(0, "%s: got %s, expected %s", c->desc, r ? strerror(-r) : "0",
				 c->err ? strerror(c->err) : "0");
		if (r == 0)
			EXPECT_EQ(unreg_at(fd, addr, c->bit), 0);
	}
	/* The argument itself unreadable. */
	EXPECT_EQ(ioctl(fd, DIAG_IOCSREG, NULL) < 0 ? errno : 0, EFAULT);
	EXPECT_EQ(ioctl(fd, DIAG_IOCSREG, page + 4096) < 0 ? errno : 0, EFAULT);
	{
		/* 12 bytes readable, the rest of the struct is not. */
		struct user_reg *r = (void *)(page + 4096 - 12);

		memset(r, 0, 12);
		r->size = 28;
		EXPECT_EQ(ioctl(fd, DIAG_IOCSREG, r) < 0 ? errno : 0, EFAULT);
	}
	close(fd);
	/* The persistent one stays; the others went with the file. */
	EXPECT_TRUE(exists("events/user_events/t_regp"));
	fd = open_data();
	EXPECT_EQ(del_at(fd, "t_regp"), 0);
	EXPECT_EQ(del_at(fd, n511), -ENOENT);
	close(fd);
	munmap(page, 4096);
	munmap(ro, 4096);
	free(n511);
	free(n512);
}

TEST(reg_write_index)
{
	static uint32_t w1, w2;
	uint32_t idx = 0;
	int fd = open_data(), fd2;

	ASSERT_EQ(reg_at(fd, "t_wi_a u32 x", &w1, 0, &idx), 0);
	EXPECT_EQ(idx, 0);
	/* Same event, other bit: the same index. */
	ASSERT_EQ(reg_at(fd, "t_wi_a u32 x", &w1, 1, &idx), 0);
	EXPECT_EQ(idx, 0);
	/* Same address and bit: refused whatever the event. */
	EXPECT_EQ(reg_at(fd, "t_wi_b u32 x", &w1, 0, &idx), -EADDRINUSE);
	EXPECT_EQ(reg_at(fd, "t_wi_a u32 x", &w1, 0, &idx), -EADDRINUSE);
	/* Same name, other fields. */
	EXPECT_EQ(reg_at(fd, "t_wi_a u64 x", &w1, 3, &idx), -EADDRINUSE);
	/* Spacing and a dangling ';' do not make another event. */
	ASSERT_EQ(reg_at(fd, "t_wi_a u32 x;", &w1, 4, &idx), 0);
	EXPECT_EQ(idx, 0);
	ASSERT_EQ(reg_at(fd, "t_wi_b u32 x", &w1, 2, &idx), 0);
	EXPECT_EQ(idx, 1);
	/* Indexes belong to the file. */
	fd2 = open_data();
	ASSERT_EQ(reg_at(fd2, "t_wi_b u32 x", &w2, 0, &idx), 0);
	EXPECT_EQ(idx, 0);
	{
		/* A read-only struct: registered, but write_index is not written. */
		struct user_reg *r = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_TRUE(r != MAP_FAILED);
		r->size = sizeof(*r);
		r->name_args = (uintptr_t) "t_wi_c";
		r->enable_addr = (uintptr_t)&w2;
		r->enable_size = 4;
		r->enable_bit = 1;
		r->write_index = 77;
		ASSERT_EQ(mprotect(r, 4096, PROT_READ), 0);
		EXPECT_EQ(ioctl(fd2, DIAG_IOCSREG, r), 0);
		EXPECT_EQ(r->write_index, 77);
		munmap(r, 4096);
		EXPECT_EQ(unreg_at(fd2, &w2, 1), 0);
	}
	for (int bit = 0; bit < 5; bit++)
		unreg_at(fd, &w1, bit);
	EXPECT_EQ(unreg_at(fd2, &w2, 0), 0);
	close(fd);
	close(fd2);
	EXPECT_TRUE(wait_gone("events/user_events/t_wi_a"));
	EXPECT_TRUE(wait_gone("events/user_events/t_wi_b"));
	EXPECT_TRUE(wait_gone("events/user_events/t_wi_c"));
}

/* ---- enable bits ---------------------------------------------------------- */

TEST(enable_bits)
{
	static union {
		uint64_t w8[2];
		uint32_t w4[4];
	} m;
	int fd = open_data();

	memset(&m, 0, sizeof(m));
	ASSERT_EQ(reg_full(fd, "t_en", &m.w4[0], 4, 31, 0, NULL), 0);
	ASSERT_EQ(reg_full(fd, "t_en", &m.w4[1], 4, 5, 0, NULL), 0);	/* 4 mod 8 */
	ASSERT_EQ(reg_full(fd, "t_en", &m.w8[1], 8, 63, 0, NULL), 0);
	EXPECT_EQ(m.w4[0], 0);
	enable("t_en", "1");
	/* Set by the time the write to enable returned. */
	EXPECT_EQ(m.w4[0], 0x80000000u);
	EXPECT_EQ(m.w4[1], 0x20u);
	EXPECT_EQ(m.w8[1], 0x8000000000000000ull);
	EXPECT_TEXT(text("events/user_events/t_en/enable"), "1\n");
	EXPECT_TEXT(text("user_events_status"), "t_en # Used by ftrace\n\nActive: 1\nBusy: 1\n");
	/* A registration while enabled gets its bit at once. */
	ASSERT_EQ(reg_full(fd, "t_en", &m.w4[0], 4, 0, 0, NULL), 0);
	EXPECT_EQ(m.w4[0], 0x80000001u);
	enable("t_en", "0");
	EXPECT_EQ(m.w4[0], 0);
	EXPECT_EQ(m.w4[1], 0);
	EXPECT_EQ(m.w8[1], 0);
	/* Unregistering clears the bit whatever the state, and stops updates. */
	enable("t_en", "1");
	EXPECT_EQ(unreg_at(fd, &m.w4[0], 31), 0);
	EXPECT_EQ(m.w4[0], 1);
	EXPECT_EQ(unreg_at(fd, &m.w4[0], 31), -ENOENT);
	enable("t_en", "0");
	enable("t_en", "1");
	EXPECT_EQ(m.w4[0], 1);
	/* The other bits of the byte are the program's. */
	m.w4[0] |= 0x6;
	enable("t_en", "0");
	EXPECT_EQ(m.w4[0], 0x6);
	EXPECT_EQ(unreg_at(fd, &m.w4[0], 0), 0);
	EXPECT_EQ(unreg_at(fd, &m.w4[1], 5), 0);
	EXPECT_EQ(unreg_at(fd, &m.w8[1], 63), 0);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/t_en"));
}

/* ---- DIAG_IOCSUNREG, DIAG_IOCSDEL, other ioctls ------------------------------ */

TEST(unreg_errnos)
{
	static const struct {
		const char *desc;
		uint32_t size;
		uint8_t reserved;
		int bit;
		int err;
	} cases[] = {
		{ "size 15", 15, 0, 0, EINVAL },
		{ "size 4097", 4097, 0, 0, E2BIG },
		{ "reserved set", 16, 1, 0, EINVAL },
		{ "never registered", 16, 0, 30, ENOENT },
	};
	static uint32_t w;
	int fd = open_data();

	ASSERT_EQ(reg_at(fd, "t_unreg", &w, 0, NULL), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct user_unreg u;
		int r;

		memset(&u, 0, sizeof(u));
		u.size = cases[i].size;
		u.__reserved = cases[i].reserved;
		u.disable_addr = (uintptr_t)&w;
		u.disable_bit = (uint8_t)cases[i].bit;
		r = ioctl(fd, DIAG_IOCSUNREG, &u) < 0 ? errno : 0;
		if (r != cases[i].err)
			UE_FAIL_(0, "%s: got %d, expected %d", cases[i].desc, r, cases[i].err);
	}
	EXPECT_EQ(ioctl(fd, DIAG_IOCSUNREG, NULL) < 0 ? errno : 0, EFAULT);
	EXPECT_EQ(unreg_at(fd, &w, 0), 0);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/t_unreg"));
}

TEST(delete)
{
	static uint32_t w;
	char long_name[600];
	int fd = open_data(), fd2;

	memset(long_name, 'c', 512);
	long_name[512] = '\0';
	EXPECT_EQ(del_at(fd, "t_del_none"), -ENOENT);
	EXPECT_EQ(del_at(fd, NULL), -EFAULT);
	EXPECT_EQ(del_at(fd, long_name), -EINVAL);
	ASSERT_EQ(reg_at(fd, "t_del u32 a", &w, 0, NULL), 0);
	fd2 = open_data();
	/* Referenced by the file and the enabler. */
	EXPECT_EQ(del_at(fd2, "t_del"), -EBUSY);
	EXPECT_EQ(unreg_at(fd, &w, 0), 0);
	EXPECT_EQ(del_at(fd2, "t_del"), -EBUSY);
	close(fd);
	/* The last reference went with the close: gone at once. */
	EXPECT_EQ(del_at(fd2, "t_del"), -ENOENT);
	EXPECT_FALSE(exists("events/user_events/t_del"));

	/* PERSIST keeps it without references, until deleted. */
	ASSERT_EQ(reg_full(fd2, "t_del_p u32 a", &w, 4, 1, USER_EVENT_REG_PERSIST, NULL), 0);
	EXPECT_EQ(unreg_at(fd2, &w, 1), 0);
	EXPECT_EQ(del_at(fd2, "t_del_p"), -EBUSY);
	close(fd2);
	EXPECT_TRUE(exists("events/user_events/t_del_p"));
	fd = open_data();
	EXPECT_EQ(del_at(fd, "t_del_p"), 0);
	EXPECT_FALSE(exists("events/user_events/t_del_p"));
	close(fd);
}

TEST(other_ioctls)
{
	int fd = open_data(), st;
	struct user_reg r;

	EXPECT_EQ(ioctl(fd, _IO('*', 9)) < 0 ? errno : 0, ENOTTY);
	EXPECT_EQ(ioctl(fd, 0x5401, &r) < 0 ? errno : 0, ENOTTY);	/* TCGETS */
	st = open(path("user_events_status"), O_RDONLY);
	ASSERT_NE(st, -1);
	memset(&r, 0, sizeof(r));
	EXPECT_EQ(ioctl(st, DIAG_IOCSREG, &r) < 0 ? errno : 0, ENOTTY);
	close(st);
	/* user_events_data has no read method; lseek is refused. */
	EXPECT_EQ(read(fd, &r, sizeof(r)) < 0 ? errno : 0, EINVAL);
	EXPECT_EQ(lseek(fd, 10, SEEK_SET) < 0 ? errno : 0, ESPIPE);
	close(fd);
}

/* ---- writes and the trace ----------------------------------------------------- */

TEST(write_errnos)
{
	static uint32_t w;
	uint32_t idx = 0, v = 5;
	char *big = calloc(1, 70000);
	int fd = open_data();

	ASSERT_TRUE(big != NULL);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(reg_at(fd, "t_wr u32 x", &w, 0, &idx), 0);
	EXPECT_EQ(writev_rec(fd, idx, &v, 4), -EBADF);
	enable("t_wr", "1");
	EXPECT_EQ(write(fd, "ab", 2) < 0 ? errno : 0, EFAULT);
	EXPECT_EQ(writev_rec(fd, (uint32_t)-1, &v, 4), -EINVAL);
	EXPECT_EQ(writev_rec(fd, 7, &v, 4), -ENOENT);
	EXPECT_EQ(writev_rec(fd, idx, NULL, 0), -EINVAL);	/* payload below min_size */
	EXPECT_EQ(writev_rec(fd, idx, &v, 4), 8);
	/* The kernel's largest record (4 + 4064 bytes) and ours (4 + 65504, a 64 KiB page's). */
	memcpy(big, &idx, 4);
	EXPECT_EQ(write(fd, big, 4068), 4068);
	EXPECT_EQ(write(fd, big, 4 + 65504), 4 + 65504);
	/* Larger: accepted, nothing recorded (the kernel's answer beyond its limit). */
	EXPECT_EQ(write(fd, big, 4 + 65505), 4 + 65505);
	EXPECT_EQ(write(fd, big, 70000), 70000);
	{
		/*
		 * Larger than FUSE takes in one request (1 MiB): the pieces
		 * after the first must not be taken for records of their own.
		 */
		size_t huge = (3u << 20) + 123;
		char *h = malloc(huge);

		ASSERT_TRUE(h != NULL);
		for (size_t i = 0; i < huge; i += 4)
			memcpy(h + i, &idx, huge - i < 4 ? huge - i : 4);
		EXPECT_EQ(write(fd, h + 1, huge - 1), (ssize_t)huge - 1);
		EXPECT_EQ(write(fd, h, huge), (ssize_t)huge);
		free(h);
	}
	/* tracing_on 0: accepted, nothing recorded. */
	ASSERT_EQ(write_rel("tracing_on", "0"), 1);
	v = 6;
	EXPECT_EQ(writev_rec(fd, idx, &v, 4), 8);
	ASSERT_EQ(write_rel("tracing_on", "1"), 1);
	EXPECT_EQ(trace_count("t_wr: x=0x5 (5)\n"), 1);
	EXPECT_EQ(trace_count("t_wr: x=0x0 (0)\n"), 2);
	EXPECT_EQ(trace_count("t_wr: "), 3);
	EXPECT_TRUE(strstr(text("trace"), "# entries-in-buffer/entries-written: 3/3   #P:") != NULL);
	enable("t_wr", "0");
	EXPECT_EQ(unreg_at(fd, &w, 0), 0);
	close(fd);
	free(big);
	EXPECT_TRUE(wait_gone("events/user_events/t_wr"));
}

TEST(write_validator)
{
	static uint32_t w;
	uint32_t idx = 0, loc;
	char data[8];
	int bytes = snprintf(data, sizeof(data), "Test") + 1;
	int fd = open_data();
	static const struct {
		uint32_t offset, size;
		int err;
	} locs[] = {
		{ 0, 0, 0 },		/* in bounds (size filled in below) */
		{ 1024, 0, EFAULT },	/* offset way out */
		{ 1, 0, EFAULT },	/* one byte out */
		{ 0, 1024, EFAULT },	/* size way out */
		{ 0, 1, EFAULT },	/* size one byte out */
	};

	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(reg_at(fd, "t_val __rel_loc char[] data", &w, 0, &idx), 0);
	enable("t_val", "1");
	for (size_t i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
		struct iovec io[3] = { { &idx, 4 }, { &loc, 4 }, { data, (size_t)bytes } };
		ssize_t r;

		loc = DYN_LOC(locs[i].offset, (uint32_t)bytes + locs[i].size);
		r = writev(fd, io, 3);
		EXPECT_EQ(r < 0 ? errno : 0, locs[i].err);
	}
	{
		/* Not NUL-terminated. */
		struct iovec io[3] = { { &idx, 4 }, { &loc, 4 }, { data, (size_t)bytes } };

		memset(data, 'A', sizeof(data));
		loc = DYN_LOC(0, (uint32_t)bytes);
		EXPECT_EQ(writev(fd, io, 3) < 0 ? errno : 0, EFAULT);
	}
	EXPECT_EQ(trace_count("t_val: data=Test\n"), 1);
	EXPECT_EQ(trace_count("t_val: "), 1);
	enable("t_val", "0");
	unreg_at(fd, &w, 0);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/t_val"));
}

TEST(trace_file)
{
	static uint32_t w;
	uint32_t idx = 0, v = 0x11223344;
	char header[2048];
	const char *t, *line;
	int fd = open_data();

	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	snprintf(header, sizeof(header),
		 "# tracer: nop\n"
		 "#\n"
		 "# entries-in-buffer/entries-written: 0/0   #P:%ld\n"
		 "#\n"
		 "#                                _-----=> irqs-off/BH-disabled\n"
		 "#                               / _----=> need-resched\n"
		 "#                              | / _---=> hardirq/softirq\n"
		 "#                              || / _--=> preempt-depth\n"
		 "#                              ||| / _-=> migrate-disable\n"
		 "#                              |||| /     delay\n"
		 "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		 "#              | |         |   |||||     |         |\n",
		 sysconf(_SC_NPROCESSORS_CONF));
	EXPECT_TEXT(text("trace"), header);
	ASSERT_EQ(reg_at(fd, "t_tr u32 a", &w, 0, &idx), 0);
	enable("t_tr", "1");
	ASSERT_EQ(writev_rec(fd, idx, &v, 4), 8);
	t = text("trace");
	line = strstr(t, "t_tr: ");
	ASSERT_TRUE(line != NULL);
	EXPECT_TEXT(line, "t_tr: a=0x11223344 (287454020)\n");
	/* The context: comm-pid, [cpu], the flags, a timestamp. */
	{
		char comm[64], flags[16];
		int pid, cpu;
		unsigned long sec, usec;

		ASSERT_EQ(sscanf(strstr(t, "|\n") + 2, " %63[^-]-%d [%d] %15s %lu.%lu:", comm, &pid,
				 &cpu, flags, &sec, &usec),
			  6);
		EXPECT_EQ(pid, (long)getpid());
		EXPECT_TEXT(flags, ".....");
		EXPECT_TEXT(comm, "test_daemon_fs");
	}
	{
		/* per_cpu/cpuN: the record is in one CPU's trace and stats. */
		long ncpus = sysconf(_SC_NPROCESSORS_CONF);
		int in_trace = 0, entries = 0;
		char rel[64];

		for (long cpu = 0; cpu < ncpus; cpu++) {
			const char *st;
			int e = -1;

			snprintf(rel, sizeof(rel), "per_cpu/cpu%ld/trace", cpu);
			if (strstr(text(rel), "t_tr: a=0x11223344 (287454020)\n"))
				in_trace++;
			snprintf(rel, sizeof(rel), "per_cpu/cpu%ld/stats", cpu);
			st = text(rel);
			EXPECT_EQ(sscanf(st, "entries: %d\noverrun: 0\ncommit overrun: 0\n", &e), 1);
			EXPECT_TRUE(strstr(st, "\ndropped events: 0\nread events: 0\n") != NULL);
			entries += e;
		}
		EXPECT_EQ(in_trace, 1);
		EXPECT_EQ(entries, 1);
		snprintf(rel, sizeof(rel), "per_cpu/cpu%ld", ncpus);
		EXPECT_FALSE(exists(rel));
	}
	/* Opening for writing with O_TRUNC empties it; writing does nothing. */
	EXPECT_EQ(write_rel("trace", "x"), 1);
	EXPECT_EQ(trace_count("t_tr: "), 1);
	EXPECT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	EXPECT_TEXT(text("trace"), header);
	enable("t_tr", "0");
	unreg_at(fd, &w, 0);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/t_tr"));
}

struct reader {
	int fd;
	char buf[4096];
	ssize_t n;
	int err;
};

static void *pipe_reader(void *arg)
{
	struct reader *r = arg;

	r->n = read(r->fd, r->buf, sizeof(r->buf) - 1);
	r->err = r->n < 0 ? errno : 0;
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

TEST(trace_pipe)
{
	static uint32_t w;
	uint32_t idx = 0, v = 7;
	struct pollfd pf;
	struct reader rd;
	pthread_t th;
	char buf[4096];
	ssize_t n;
	int fd = open_data(), tp;

	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(reg_at(fd, "t_pp u32 v", &w, 0, &idx), 0);
	enable("t_pp", "1");
	tp = open(path("trace_pipe"), O_RDONLY | O_NONBLOCK);
	ASSERT_NE(tp, -1);
	EXPECT_EQ(read(tp, buf, sizeof(buf)) < 0 ? errno : 0, EAGAIN);
	pf.fd = tp;
	pf.events = POLLIN;
	EXPECT_EQ(poll(&pf, 1, 0), 0);
	ASSERT_EQ(writev_rec(fd, idx, &v, 4), 8);
	v = 8;
	ASSERT_EQ(writev_rec(fd, idx, &v, 4), 8);
	EXPECT_EQ(poll(&pf, 1, 1000), 1);
	EXPECT_TRUE(pf.revents & POLLIN);
	/* A read that cuts a line gets its rest next, and only that. */
	n = read(tp, buf, 20);
	EXPECT_EQ(n, 20);
	n = read(tp, buf, sizeof(buf) - 1);
	ASSERT_GE(n, 1);
	buf[n] = '\0';
	EXPECT_TRUE(strstr(buf, "t_pp: v=0x7 (7)\n") != NULL);
	EXPECT_TRUE(strstr(buf, "v=0x8") == NULL);
	/* Consumed records leave trace too. */
	EXPECT_EQ(trace_count("t_pp: "), 1);
	n = read(tp, buf, sizeof(buf) - 1);
	ASSERT_GE(n, 1);
	buf[n] = '\0';
	EXPECT_TRUE(strstr(buf, "t_pp: v=0x8 (8)\n") != NULL);
	EXPECT_EQ(trace_count("t_pp: "), 0);
	close(tp);

	/* A blocking read waits for a record (no daemon thread is held meanwhile). */
	rd.fd = open(path("trace_pipe"), O_RDONLY);
	ASSERT_NE(rd.fd, -1);
	ASSERT_EQ(pthread_create(&th, NULL, pipe_reader, &rd), 0);
	usleep(200000);
	EXPECT_TEXT(text("tracing_on"), "1\n");
	v = 9;
	ASSERT_EQ(writev_rec(fd, idx, &v, 4), 8);
	pthread_join(th, NULL);
	ASSERT_GE(rd.n, 1);
	rd.buf[rd.n] = '\0';
	EXPECT_TRUE(strstr(rd.buf, "t_pp: v=0x9 (9)\n") != NULL);

	/* A signal interrupts a blocked read. */
	{
		struct sigaction sa;
		struct itimerval it;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		memset(&it, 0, sizeof(it));
		it.it_value.tv_usec = 200000;
		setitimer(ITIMER_REAL, &it, NULL);
		n = read(rd.fd, buf, sizeof(buf));
		EXPECT_EQ(n < 0 ? errno : 0, EINTR);
		signal(SIGALRM, SIG_DFL);
	}
	/* One reader at a time. */
	tp = open(path("trace_pipe"), O_RDONLY);
	EXPECT_EQ(tp < 0 ? errno : 0, EBUSY);
	if (tp >= 0)
		close(tp);
	/* A reader that got something sees the end once tracing is off. */
	ASSERT_EQ(write_rel("tracing_on", "0"), 1);
	EXPECT_EQ(read(rd.fd, buf, sizeof(buf)), 0);
	ASSERT_EQ(write_rel("tracing_on", "1"), 1);
	close(rd.fd);
	/* A fresh reader never got anything: it would block (here EAGAIN). */
	ASSERT_EQ(write_rel("tracing_on", "0"), 1);
	tp = open(path("trace_pipe"), O_RDONLY | O_NONBLOCK);
	ASSERT_NE(tp, -1);
	EXPECT_EQ(read(tp, buf, sizeof(buf)) < 0 ? errno : 0, EAGAIN);
	close(tp);
	ASSERT_EQ(write_rel("tracing_on", "1"), 1);
	/* Closed and opened again at once: the release in flight is waited for. */
	for (int i = 0; i < 50; i++) {
		tp = open(path("trace_pipe"), O_RDONLY | O_NONBLOCK);
		if (tp < 0) {
			UE_FAIL_(0, "open %d: %s", i, strerror(errno));
			break;
		}
		close(tp);
	}
	enable("t_pp", "0");
	unreg_at(fd, &w, 0);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/t_pp"));
}

TEST(deleted_event_records)
{
	static uint32_t w;
	uint32_t idx = 0, v = 9;
	char id[32], expect[64];
	int fd = open_data();

	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(reg_at(fd, "t_gone u32 v", &w, 0, &idx), 0);
	ASSERT_GE(read_rel("events/user_events/t_gone/id", id, sizeof(id)), 1);
	enable("t_gone", "1");
	ASSERT_EQ(writev_rec(fd, idx, &v, 4), 8);
	enable("t_gone", "0");
	unreg_at(fd, &w, 0);
	close(fd);
	ASSERT_TRUE(wait_gone("events/user_events/t_gone"));
	/* Its records stay, their type unknown now. */
	snprintf(expect, sizeof(expect), ": Unknown type %u\n", (unsigned int)atoi(id));
	EXPECT_EQ(trace_count(expect), 1);
	/* A dynamic_events deletion clears the trace, as an enabled event went. */
	ASSERT_EQ(write_rel_flags("dynamic_events", "u:t_gone2 u64 a", O_APPEND), 15);
	ASSERT_EQ(write_rel_flags("dynamic_events", "-:t_gone2 u64 a", O_APPEND), 15);
	EXPECT_EQ(trace_count("Unknown type"), 0);
	EXPECT_TRUE(strstr(text("trace"), "entries-written: 0/0") != NULL);
}

/*
 * A record of 8 bytes (a field-less event) whose type id is reused by an
 * event with a __rel_loc field: the fields printer reads the ring buffer's
 * padded size (12 bytes), which must be zeros, not past the record.  The
 * reference kernel printed "t_stale: data=" for it.
 */
TEST(stale_record_of_reused_id)
{
	static uint32_t w, w2;
	uint32_t idx = 0;
	int fd = open_data(), fd2;

	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(reg_at(fd, "t_stale", &w, 0, &idx), 0);
	enable("t_stale", "1");
	ASSERT_EQ(writev_rec(fd, idx, NULL, 0), 4);
	enable("t_stale", "0");
	unreg_at(fd, &w, 0);
	close(fd);
	ASSERT_TRUE(wait_gone("events/user_events/t_stale"));
	fd2 = open_data();
	ASSERT_EQ(reg_at(fd2, "t_stale __rel_loc char[] data", &w2, 0, &idx), 0);
	EXPECT_EQ(trace_count(": t_stale: data=\n"), 1);
	unreg_at(fd2, &w2, 0);
	close(fd2);
}

/* ---- the text files ------------------------------------------------------------- */

/* The reference kernel's texts for these two events (tests/daemon/ref/files.out). */
TEST(event_files)
{
	char id[32], fmt[2048];
	unsigned int foo_id;

	ASSERT_EQ(write_rel_flags("dynamic_events", "u:foo u32 a; char[4] b", O_APPEND), 22);
	ASSERT_EQ(write_rel_flags("dynamic_events", "u:bar __rel_loc char[] s", O_APPEND), 24);
	ASSERT_GE(read_rel("events/user_events/foo/id", id, sizeof(id)), 1);
	foo_id = (unsigned int)atoi(id);
	snprintf(fmt, sizeof(fmt),
		 "name: foo\n"
		 "ID: %u\n"
		 "format:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n"
		 "\tfield:char b[];\toffset:12;\tsize:4;\tsigned:1;\n"
		 "\n"
		 "print fmt: \"a=%%u b=%%s\", REC->a, REC->b\n",
		 foo_id);
	EXPECT_TEXT(text("events/user_events/foo/format"), fmt);
	snprintf(fmt, sizeof(fmt), "%u\n", foo_id + 1);
	EXPECT_TEXT(text("events/user_events/bar/id"), fmt);
	EXPECT_TEXT(text("dynamic_events"), "u:foo u32 a; char[4] b\nu:bar __rel_loc char[] s\n");
	EXPECT_TEXT(text("user_events_status"), "foo\nbar\n\nActive: 2\nBusy: 0\n");
	EXPECT_TEXT(text("available_events"), "user_events:bar\nuser_events:foo\n");
	EXPECT_TEXT(text("set_event"), "");
	EXPECT_TEXT(text("events/user_events/enable"), "0\n");
	EXPECT_TEXT(text("events/user_events/foo/enable"), "0\n");
	{
		/* The directory: the events and the system's enable. */
		DIR *dir = opendir(path("events/user_events"));
		struct dirent *de;
		int seen = 0;

		ASSERT_TRUE(dir != NULL);
		while ((de = readdir(dir))) {
			if (!strcmp(de->d_name, "foo") || !strcmp(de->d_name, "bar") ||
			    !strcmp(de->d_name, "enable") || !strcmp(de->d_name, "filter") ||
			    !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				seen++;
			else
				UE_FAIL_(0, "unexpected entry %s", de->d_name);
		}
		closedir(dir);
		EXPECT_EQ(seen, 6);
	}
	{
		/* An event's directory, as eventfs lists it (ls sorts). */
		static const struct {
			const char *name;
			mode_t mode;
		} files[] = {
			{ "enable", S_IFREG | 0640 }, { "filter", S_IFREG | 0640 },
			{ "format", S_IFREG | 0440 }, { "id", S_IFREG | 0440 },
			{ "trigger", S_IFREG | 0640 },
		};
		char rel[128];
		struct stat st;

		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(rel, sizeof(rel), "events/user_events/foo/%s", files[i].name);
			ASSERT_EQ(stat(path(rel), &st), 0);
			EXPECT_EQ(st.st_mode, files[i].mode);
		}
		EXPECT_TEXT(text("events/user_events/foo/filter"), "none\n");
		EXPECT_TEXT(text("events/user_events/foo/trigger"),
			    "# Available triggers:\n"
			    "# traceon traceoff stacktrace enable_event disable_event\n");
		EXPECT_TEXT(text("events/user_events/filter"),
			    "### global filter ###\n"
			    "# Use this to set filters for multiple events.\n"
			    "# Only events with the given fields will be affected.\n"
			    "# If no events are modified, an error message will be displayed here\n");
		EXPECT_EQ(write_rel("events/user_events/foo/filter", "0"), 1);
	}

	enable("foo", "1");
	EXPECT_TEXT(text("events/user_events/enable"), "X\n");
	EXPECT_TEXT(text("set_event"), "user_events:foo\n");
	EXPECT_TEXT(text("user_events_status"),
		     "foo # Used by ftrace\nbar\n\nActive: 2\nBusy: 1\n");
	EXPECT_TEXT(text("events/user_events/foo/enable"), "1\n");
	/* "-:NAME" alone matches only an event without fields. */
	EXPECT_EQ(write_rel_flags("dynamic_events", "-:foo", O_APPEND), -ENOENT);
	EXPECT_EQ(write_rel_flags("dynamic_events", "-:foo u32 a; char[4] b", O_APPEND), -EBUSY);
	enable("foo", "0");
	EXPECT_EQ(write_rel_flags("dynamic_events", "-:foo u32 a; char[4] b", O_APPEND), 22);
	EXPECT_EQ(write_rel_flags("dynamic_events", "!u:bar __rel_loc char[] s", O_APPEND), 25);
	EXPECT_TEXT(text("dynamic_events"), "");
	EXPECT_FALSE(exists("events/user_events"));
}

TEST(status_order)
{
	/*
	 * user_events_status lists events in the order of the kernel's hash
	 * table; the reference kernel printed these names in this order.
	 */
	static const char *const create[] = { "p_a", "p_b", "p_c", "p_d", "p_f", "p_g" };
	char line[64];

	for (size_t i = 0; i < sizeof(create) / sizeof(create[0]); i++) {
		snprintf(line, sizeof(line), "u:%s", create[i]);
		ASSERT_EQ(write_rel_flags("dynamic_events", line, O_APPEND), (ssize_t)strlen(line));
	}
	EXPECT_TEXT(text("user_events_status"),
		     "p_a\np_f\np_g\np_c\np_d\np_b\n\nActive: 6\nBusy: 0\n");
	EXPECT_TEXT(text("dynamic_events"), "u:p_a\nu:p_b\nu:p_c\nu:p_d\nu:p_f\nu:p_g\n");
	/* Opening dynamic_events with O_TRUNC deletes all. */
	EXPECT_EQ(write_rel_flags("dynamic_events", "", O_TRUNC), 0);
	EXPECT_TEXT(text("dynamic_events"), "");
}

TEST(dynamic_events_writes)
{
	static const struct {
		const char *line;
		ssize_t result;		/* bytes, or -errno */
	} cases[] = {
		{ "\n\n", 2 },
		{ "   ", 3 },
		{ "# hello\n", 8 },
		{ "u:d_one u32 a\nu:d_two u64 b\n", 28 },
		{ "garbage", -EINVAL },
		{ "-:", -EINVAL },
		{ "-:d_one", -ENOENT },
		{ "-:d_one u32 a", 13 },
		{ "!u:d_two u64 b", 14 },
		{ "-:d_two u64 b", -ENOENT },
		{ "u:d_three u32 a; u64 b", 22 },
		{ "-:user_events/d_three u32 a; u64 b", 34 },
	};
	static uint32_t w;
	int fd;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ssize_t r = write_rel_flags("dynamic_events", cases[i].line, O_APPEND);

		if (r != cases[i].result)
			UE_FAIL_(0, "\"%s\": got %zd, expected %zd", cases[i].line, r,
				 cases[i].result);
	}
	EXPECT_TEXT(text("dynamic_events"), "");
	/* O_TRUNC while an event is referenced: EBUSY, nothing deleted. */
	ASSERT_EQ(write_rel_flags("dynamic_events", "u:d_four", O_APPEND), 8);
	fd = open_data();
	ASSERT_EQ(reg_at(fd, "d_busy", &w, 0, NULL), 0);
	EXPECT_EQ(write_rel_flags("dynamic_events", "", O_TRUNC), -EBUSY);
	EXPECT_TEXT(text("dynamic_events"), "u:d_four\nu:d_busy\n");
	unreg_at(fd, &w, 0);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/d_busy"));
	EXPECT_EQ(write_rel_flags("dynamic_events", "", O_TRUNC), 0);
	EXPECT_TEXT(text("dynamic_events"), "");
}

TEST(set_event_writes)
{
	static const struct {
		const char *word;
		ssize_t result;
	} cases[] = {
		{ "s_b", 3 },
		{ "user_events:s_g", 15 },
		{ "nonexist", -EINVAL },
		{ "s_b s_g", 4 },	/* one word per write() */
		{ "   ", 3 },
	};

	ASSERT_EQ(write_rel_flags("dynamic_events", "u:s_b\nu:s_g\n", O_APPEND), 12);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ssize_t r = write_rel_flags("set_event", cases[i].word, O_APPEND);

		if (r != cases[i].result)
			UE_FAIL_(0, "\"%s\": got %zd, expected %zd", cases[i].word, r,
				 cases[i].result);
	}
	EXPECT_TEXT(text("set_event"), "user_events:s_g\nuser_events:s_b\n");
	EXPECT_TEXT(text("events/user_events/enable"), "1\n");
	EXPECT_EQ(write_rel_flags("set_event", "!s_b", O_APPEND), 4);
	EXPECT_TEXT(text("set_event"), "user_events:s_g\n");
	EXPECT_EQ(write_rel_flags("set_event", "user_events:*", O_APPEND), 13);
	EXPECT_TEXT(text("set_event"), "user_events:s_g\nuser_events:s_b\n");
	/* O_TRUNC disables everything. */
	EXPECT_EQ(write_rel_flags("set_event", "", O_TRUNC), 0);
	EXPECT_TEXT(text("set_event"), "");
	EXPECT_EQ(write_rel("events/enable", "1"), 1);
	EXPECT_TEXT(text("set_event"), "user_events:s_g\nuser_events:s_b\n");
	EXPECT_EQ(write_rel("events/user_events/enable", "0"), 1);
	EXPECT_TEXT(text("set_event"), "");
	EXPECT_EQ(write_rel_flags("dynamic_events", "", O_TRUNC), 0);
	/*
	 * No user event at all: events/enable reads and writes as on a
	 * kernel whose own events are all off.
	 */
	EXPECT_TEXT(text("events/enable"), "0\n");
	EXPECT_EQ(write_rel("events/enable", "1"), 1);
	EXPECT_FALSE(exists("events/user_events/enable"));
}

TEST(control_files)
{
	static const struct {
		const char *rel;
		const char *value;
		ssize_t result;
	} cases[] = {
		{ "events/user_events/c_ev/enable", " 1", -EINVAL },
		{ "events/user_events/c_ev/enable", "+1", 2 },
		{ "events/user_events/c_ev/enable", "1\n\n", -EINVAL },
		{ "events/user_events/c_ev/enable", "2", -EINVAL },
		{ "events/user_events/c_ev/enable", "0\n", 2 },
		{ "events/user_events/enable", "2", -EINVAL },
		{ "tracing_on", "x", -EINVAL },
		{ "tracing_on", "5", 1 },
		{ "buffer_size_kb", "0", -EINVAL },
		{ "options/overwrite", "2", -EINVAL },
		{ "options/fields", "2", -EINVAL },
		{ "README", "x", -EINVAL },
		{ "user_events_status", "x", -EINVAL },
		{ "available_events", "x", -EINVAL },
		{ "trace", "x", 1 },
		{ "current_tracer", " nop\n", 5 },
		{ "current_tracer", "function", -EINVAL },
		{ "available_tracers", "nop", -EINVAL },
	};
	char expect[64];

	ASSERT_EQ(write_rel_flags("dynamic_events", "u:c_ev", O_APPEND), 6);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ssize_t r = write_rel(cases[i].rel, cases[i].value);

		if (r != cases[i].result)
			UE_FAIL_(0, "%s \"%s\": got %zd, expected %zd", cases[i].rel,
				 cases[i].value, r, cases[i].result);
	}
	EXPECT_TEXT(text("tracing_on"), "1\n");
	EXPECT_TEXT(text("current_tracer"), "nop\n");
	EXPECT_TEXT(text("available_tracers"), "nop\n");
	EXPECT_EQ(write_rel("buffer_size_kb", "2048"), 4);
	EXPECT_TEXT(text("buffer_size_kb"), "2048\n");
	snprintf(expect, sizeof(expect), "%ld\n", 2048 * sysconf(_SC_NPROCESSORS_CONF));
	EXPECT_TEXT(text("buffer_total_size_kb"), expect);
	EXPECT_EQ(write_rel("buffer_size_kb", "1410"), 4);
	EXPECT_EQ(write_rel("options/overwrite", "0"), 1);
	EXPECT_TEXT(text("options/overwrite"), "0\n");
	EXPECT_EQ(write_rel("options/overwrite", "1"), 1);
	EXPECT_EQ(write_rel("options/fields", "1"), 1);
	EXPECT_TEXT(text("options/fields"), "1\n");
	EXPECT_EQ(write_rel("options/fields", "0"), 1);
	EXPECT_EQ(write_rel_flags("dynamic_events", "-:c_ev", O_APPEND), 6);
}

TEST(multi_format)
{
	static uint32_t w;
	uint32_t idx = 0;
	char fmt[64];
	int fd = open_data(), n = 0;
	DIR *dir;
	struct dirent *de;

	ASSERT_EQ(reg_full(fd, "t_mf u32 first", &w, 4, 0, USER_EVENT_REG_MULTI_FORMAT, &idx), 0);
	EXPECT_EQ(idx, 0);
	ASSERT_EQ(reg_full(fd, "t_mf u64 second", &w, 4, 1, USER_EVENT_REG_MULTI_FORMAT, &idx), 0);
	EXPECT_EQ(idx, 1);
	/* The same format again: the same event. */
	ASSERT_EQ(reg_full(fd, "t_mf u64 second", &w, 4, 2, USER_EVENT_REG_MULTI_FORMAT, &idx), 0);
	EXPECT_EQ(idx, 1);
	/* A single-format event of the same name is another event. */
	ASSERT_EQ(reg_at(fd, "t_mf u8 z", &w, 3, &idx), 0);
	EXPECT_EQ(idx, 2);
	dir = opendir(path("events/user_events_multi"));
	ASSERT_TRUE(dir != NULL);
	while ((de = readdir(dir))) {
		if (!strncmp(de->d_name, "t_mf.", 5))
			n++;
	}
	closedir(dir);
	EXPECT_EQ(n, 2);
	EXPECT_TEXT(text("available_events"),
		     "user_events:t_mf\nuser_events_multi:t_mf.1\nuser_events_multi:t_mf.0\n");
	EXPECT_TEXT(text("dynamic_events"), "u:t_mf u32 first\nu:t_mf u64 second\nu:t_mf u8 z\n");
	ASSERT_GE(read_rel("events/user_events_multi/t_mf.1/format", fmt, sizeof(fmt)), 1);
	EXPECT_EQ(strncmp(fmt, "name: t_mf.1\nID: ", 17), 0);
	EXPECT_EQ(write_rel("events/user_events_multi/enable", "1"), 1);
	EXPECT_EQ(w, 0x7);
	EXPECT_EQ(write_rel("events/user_events_multi/enable", "0"), 1);
	EXPECT_EQ(w, 0);
	EXPECT_EQ(unreg_at(fd, &w, 0), 0);
	EXPECT_EQ(unreg_at(fd, &w, 1), 0);
	EXPECT_EQ(unreg_at(fd, &w, 2), 0);
	EXPECT_EQ(unreg_at(fd, &w, 3), 0);
	/* The file still holds all three. */
	EXPECT_TRUE(exists("events/user_events_multi/t_mf.0"));
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events_multi/t_mf.0"));
	EXPECT_TRUE(wait_gone("events/user_events_multi/t_mf.1"));
	EXPECT_TRUE(wait_gone("events/user_events_multi"));
	EXPECT_TRUE(wait_gone("events/user_events/t_mf"));
}

TEST(event_limit)
{
	static uint32_t w[MAX_EVENTS + 2];
	char name[32];
	int fd = open_data(), i, r = 0;

	for (i = 0; i < MAX_EVENTS + 1; i++) {
		snprintf(name, sizeof(name), "t_lim%d", i);
		r = reg_at(fd, name, &w[i], 0, NULL);
		if (r < 0)
			break;
	}
	EXPECT_EQ(i, MAX_EVENTS);
	EXPECT_EQ(r, -EMFILE);
	/* An event that exists is still found at the limit. */
	EXPECT_EQ(reg_at(fd, "t_lim0", &w[0], 1, NULL), 0);
	EXPECT_EQ(write_rel_flags("dynamic_events", "u:t_lim_dyn", O_APPEND), -EMFILE);
	for (int j = 0; j < i; j++)
		unreg_at(fd, &w[j], 0);
	unreg_at(fd, &w[0], 1);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/t_lim0"));
	EXPECT_TRUE(wait_gone("events/user_events"));
}

TEST(trace_options)
{
	/* The kernel's default list (tests/conformance/tracefs-facts.txt). */
	static const char defaults[] =
		"print-parent\nnosym-offset\nnosym-addr\nnoverbose\nnoraw\nnohex\nnobin\n"
		"noblock\nnofields\ntrace_printk\nannotate\nnouserstacktrace\nnosym-userobj\n"
		"noprintk-msg-only\ncontext-info\nnolatency-format\nrecord-cmd\nnorecord-tgid\n"
		"overwrite\nnodisable_on_free\nirq-info\nmarkers\nnoevent-fork\n"
		"trace_printk_dest\nnopause-on-trace\nhash-ptr\nnostacktrace\nnotest_nop_accept\n"
		"notest_nop_refuse\n";
	static uint32_t w;
	uint32_t idx = 0, v = 2;
	const char *t;
	struct stat st;
	int fd;

	EXPECT_TEXT(text("trace_options"), defaults);
	EXPECT_EQ(stat(path("options/context-info"), &st), 0);
	EXPECT_EQ(st.st_mode, S_IFREG | 0640);
	EXPECT_TEXT(text("options/context-info"), "1\n");
	EXPECT_EQ(write_rel("trace_options", "bogus"), -EINVAL);
	EXPECT_EQ(write_rel("options/test_nop_refuse", "1"), -EINVAL);
	EXPECT_EQ(write_rel("options/test_nop_accept", "1"), 1);
	EXPECT_EQ(write_rel("trace_options", "notest_nop_accept\n"), 18);
	EXPECT_EQ(write_rel("trace_options", "nooverwrite"), 11);
	EXPECT_TEXT(text("options/overwrite"), "0\n");
	EXPECT_EQ(write_rel("trace_options", "overwrite"), 9);
	EXPECT_TEXT(text("trace_options"), defaults);

	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	fd = open_data();
	ASSERT_EQ(reg_at(fd, "t_opt u32 a", &w, 0, &idx), 0);
	enable("t_opt", "1");
	ASSERT_EQ(writev_rec(fd, idx, &v, 4), 8);
	/* context-info off: the tracer line, then bare events. */
	ASSERT_EQ(write_rel("options/context-info", "0"), 1);
	EXPECT_TEXT(text("trace"), "# tracer: nop\n#\nt_opt: a=0x2 (2)\n");
	ASSERT_EQ(write_rel("options/context-info", "1"), 1);
	/* irq-info off: no flags column. */
	ASSERT_EQ(write_rel("options/irq-info", "0"), 1);
	t = text("trace");
	EXPECT_TRUE(strstr(t, "#\n#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
			      "#              | |         |         |         |\n") != NULL);
	EXPECT_TRUE(strstr(t, "] .....") == NULL);
	ASSERT_EQ(write_rel("options/irq-info", "1"), 1);
	/* record-tgid: the TGID column. */
	ASSERT_EQ(write_rel("options/record-tgid", "1"), 1);
	t = text("trace");
	EXPECT_TRUE(strstr(t, "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION\n"
			      "#              | |           |       |   |||||     |         |\n") !=
		    NULL);
	{
		char tgid[32];

		snprintf(tgid, sizeof(tgid), " (%7d) [", (int)getpid());
		EXPECT_TRUE(strstr(t, tgid) != NULL);
	}
	ASSERT_EQ(write_rel("options/record-tgid", "0"), 1);
	enable("t_opt", "0");
	unreg_at(fd, &w, 0);
	close(fd);
	EXPECT_TRUE(wait_gone("events/user_events/t_opt"));
}

/* ---- lifetimes ---------------------------------------------------------------------- */

TEST(reregister_after_close)
{
	static uint32_t w;

	/*
	 * Each round's event goes with its file; the next registers the name
	 * with other fields, which the old event would refuse (EADDRINUSE).
	 */
	for (int i = 0; i < 100; i++) {
		int fd = open_data();

		ASSERT_EQ(reg_at(fd, i % 2 ? "t_rr u64 b" : "t_rr u32 a", &w, 0, NULL), 0);
		ASSERT_EQ(unreg_at(fd, &w, 0), 0);
		close(fd);
	}
	EXPECT_TRUE(wait_gone("events/user_events/t_rr"));
}

TEST(process_exit_releases)
{
	static uint32_t w;
	int status;
	pid_t pid;

	/* The child registers and exits without unregistering. */
	pid = fork();
	if (pid == 0) {
		int fd = open(path("user_events_data"), O_RDWR);

		_exit(fd < 0 || reg_at(fd, "t_exit u32 a", &w, 0, NULL) < 0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(status, 0);
	/* Its enabler goes with it; then the event. */
	EXPECT_TRUE(wait_gone("events/user_events/t_exit"));
}

TEST(lookups_not_cached)
{
	struct stat st;

	ASSERT_EQ(write_rel_flags("dynamic_events", "u:t_lk", O_APPEND), 6);
	ASSERT_EQ(stat(path("events/user_events/t_lk/enable"), &st), 0);
	ASSERT_EQ(write_rel_flags("dynamic_events", "-:t_lk", O_APPEND), 6);
	EXPECT_EQ(stat(path("events/user_events/t_lk/enable"), &st) < 0 ? errno : 0, ENOENT);
	EXPECT_EQ(stat(path("events/user_events"), &st) < 0 ? errno : 0, ENOENT);
	ASSERT_EQ(write_rel_flags("dynamic_events", "u:t_lk u32 a", O_APPEND), 12);
	EXPECT_EQ(stat(path("events/user_events/t_lk/enable"), &st), 0);
	ASSERT_EQ(write_rel_flags("dynamic_events", "-:t_lk u32 a", O_APPEND), 12);
}

TEST(open_file_of_deleted_event)
{
	int en;

	ASSERT_EQ(write_rel_flags("dynamic_events", "u:t_od", O_APPEND), 6);
	en = open(path("events/user_events/t_od/enable"), O_RDWR);
	ASSERT_NE(en, -1);
	/* An open enable file does not keep the event. */
	ASSERT_EQ(write_rel_flags("dynamic_events", "-:t_od", O_APPEND), 6);
	EXPECT_FALSE(exists("events/user_events/t_od"));
	EXPECT_EQ(write(en, "1", 1) < 0 ? errno : 0, ENODEV);
	close(en);
}

/* ---- bad input ------------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Only errnos the kernel could give; EIO or ENOTCONN would mean a broken daemon. */
static bool errno_allowed(int e)
{
	static const int ok[] = { EINVAL, EFAULT, E2BIG, ENOMEM, EADDRINUSE, ENOENT, EBUSY,
				  EPERM, EMFILE, EBADF, ENOTTY, ERANGE, ENODEV };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (e == ok[i])
			return true;
	}
	return false;
}

/* Random registrations, unregistrations, deletions and writes from one process. */
static int garbage_child(void)
{
	static const char *const files[] = { "dynamic_events", "set_event", "events/enable",
					     "tracing_on", "trace_options", "options/overwrite" };
	char *arena = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(path("user_events_data"), O_RDWR), bad = 0, ok[6] = { 0 }, failed[6] = { 0 };

	if (arena == MAP_FAILED || fd < 0 || munmap(arena + 4096, 4096) < 0)
		return 1;
	for (int i = 0; i < 3000 && bad < 5; i++) {
		unsigned char buf[128];
		int op = (int)(rnd() % 6), r;

		for (size_t j = 0; j < sizeof(buf); j++)
			buf[j] = (unsigned char)rnd();
		/* Names out of a small alphabet, so that some of them parse. */
		for (size_t j = 0; j < 4096; j++) {
			static const char alpha[] = "ab u32;char[]__rel_loc \0";

			arena[j] = alpha[rnd() % (sizeof(alpha) - 1)];
		}
		if (op == 0 || op == 1) {
			/* Near the unmapped page: larger sizes make the daemon read past it. */
			struct user_reg *u = (void *)(arena + 4096 - 36 - (rnd() % 40));
			static const uint32_t sizes[] = { 0, 27, 28, 29, 32, 36, 64, 4096, 4097 };

			static uint64_t words[8];

			memcpy(u, buf, 36);
			if (rnd() % 2) {
				/* Well formed but for one or two fields. */
				u->size = 28;
				u->enable_size = 4;
				u->enable_bit = (uint8_t)(rnd() % 32);
				u->flags = (uint16_t)(rnd() % 3);
				u->enable_addr = (uintptr_t)&words[rnd() % 8];
				snprintf(arena + 3000, 64, "g_%d%s", (int)(rnd() % 8),
					 rnd() % 2 ? " u32 a" : " char[4] b;u8 c");
				u->name_args = (uintptr_t)(arena + 3000);
				if (op == 1) {
					struct user_unreg *un = (void *)u;

					un->size = 16;
					un->__reserved = 0;
					un->__reserved2 = 0;
					un->disable_addr = u->enable_addr;
				}
			}
			if (rnd() % 4 == 0)
				u->size = sizes[rnd() % (sizeof(sizes) / sizeof(sizes[0]))];
			if (rnd() % 4 == 0)
				u->name_args = (uintptr_t)(arena + rnd() % 4200);
			if (rnd() % 4 == 0)
				u->enable_addr = (uintptr_t)(arena + (rnd() % 4200 & ~3ull));
			if (rnd() % 8 == 0)
				u->enable_size = (uint8_t)rnd();
			r = ioctl(fd, op == 0 ? DIAG_IOCSREG : DIAG_IOCSUNREG, u);
		} else if (op == 2) {
			snprintf(arena + 3000, 64, "g_%d", (int)(rnd() % 8));
			r = ioctl(fd, DIAG_IOCSDEL, arena + (rnd() % 2 ? 3000 : rnd() % 4200));
		} else if (op == 3) {
			/* Enabled now and then, so that some writes get through. */
			if (rnd() % 16 == 0)
				write_rel("events/enable", rnd() % 2 ? "1" : "0");
			memcpy(buf, &(uint32_t){ (uint32_t)(rnd() % 6) }, 4);
			r = (int)write(fd, buf, 1 + rnd() % sizeof(buf));
		} else {
			int f = open(path(files[rnd() % (sizeof(files) / sizeof(files[0]))]), O_WRONLY);

			if (f < 0)
				continue;
			r = (int)write(f, arena + rnd() % 64, 1 + rnd() % 48);
			close(f);
		}
		if (r < 0 && !errno_allowed(errno)) {
			printf("# op %d: %s\n", op, strerror(errno));
			bad++;
		}
		if (r < 0)
			failed[op]++;
		else
			ok[op]++;
	}
	printf("# reg %d/%d, unreg %d/%d, del %d/%d, write %d/%d, files %d/%d (ok/failed)\n",
	       ok[0], failed[0], ok[1], failed[1], ok[2], failed[2], ok[3], failed[3],
	       ok[4] + ok[5], failed[4] + failed[5]);
	write_rel("tracing_on", "1");
	write_rel("options/overwrite", "1");
	return bad != 0;
}

TEST(garbage_in)
{
	static uint32_t w;
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid == 0)
		_exit(garbage_child());
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT_EQ(status, 0);
	/* The daemon still serves, and the child's references went with it. */
	fd = open_data();
	EXPECT_EQ(reg_at(fd, "t_after u32 a", &w, 0, NULL), 0);
	EXPECT_EQ(unreg_at(fd, &w, 0), 0);
	close(fd);
	for (int i = 0; i < 300; i++) {
		if (write_rel_flags("set_event", "", O_TRUNC) == 0 &&
		    write_rel_flags("dynamic_events", "", O_TRUNC) == 0 &&
		    !strcmp(text("user_events_status"), "\nActive: 0\nBusy: 0\n"))
			break;
		usleep(10000);
	}
	EXPECT_TEXT(text("user_events_status"), "\nActive: 0\nBusy: 0\n");
}

UE_TEST_MAIN()
