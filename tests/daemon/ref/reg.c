// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * reg.c: DIAG_IOCSREG/UNREG/DEL, write and control-file errnos and texts, as
 * the kernel gives them.  Static; run on the reference kernel (README.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>
#include "userevents/abi.h"

static const char *T = "/sys/kernel/tracing";
static int data;
static uint32_t word, word2;

static const char *en(int r) { static char b[64]; if (r >= 0) { snprintf(b, sizeof b, "ok(%d)", r); return b; } snprintf(b, sizeof b, "%s", strerrorname_np(errno)); return b; }

static int reg(const char *na, void *addr, int size, int bit, int flags, uint32_t regsize, uint32_t *idx)
{
	struct { struct user_reg r; char pad[64]; } u;
	memset(&u, 0, sizeof u);
	u.r.size = regsize ? regsize : sizeof(u.r);
	u.r.name_args = (uintptr_t)na;
	u.r.enable_addr = (uintptr_t)addr;
	u.r.enable_size = size;
	u.r.enable_bit = bit;
	u.r.flags = flags;
	u.r.write_index = 0xdeadbeef;
	int r = ioctl(data, DIAG_IOCSREG, &u);
	if (idx) *idx = u.r.write_index;
	return r;
}
static int unreg(void *addr, int bit, uint32_t size, int res)
{
	struct { struct user_unreg u; char pad[32]; } x;
	memset(&x, 0, sizeof x);
	x.u.size = size ? size : sizeof(x.u);
	x.u.disable_addr = (uintptr_t)addr;
	x.u.disable_bit = bit;
	x.u.__reserved = res;
	return ioctl(data, DIAG_IOCSUNREG, &x);
}
static void cat(const char *f)
{
	char p[256], buf[65536]; snprintf(p, sizeof p, "%s/%s", T, f);
	int fd = open(p, O_RDONLY); if (fd < 0) { printf("[%s: open %s]\n", f, strerrorname_np(errno)); return; }
	ssize_t n, t = 0; while ((n = read(fd, buf + t, sizeof buf - 1 - t)) > 0) t += n;
	buf[t] = 0; close(fd); printf("--- %s\n%s---\n", f, buf);
}
static int wfile(const char *f, const char *s, int flags)
{
	char p[256]; snprintf(p, sizeof p, "%s/%s", T, f);
	int fd = open(p, O_WRONLY | flags); if (fd < 0) return -1;
	int r = write(fd, s, strlen(s)); int e = errno; close(fd); errno = e; return r;
}

int main(void)
{
	char p[256];
	uint32_t idx;
	snprintf(p, sizeof p, "%s/user_events_data", T);
	data = open(p, O_RDWR);
	printf("open data %s\n", en(data));
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
	char *two = mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
	munmap(two + 4096, 4096);
	char *edge = two + 4096 - 3; strcpy(edge, "ab");
	char *long511 = malloc(600); memset(long511, 'a', 511); long511[511] = 0;
	char *long512 = malloc(600); memset(long512, 'a', 512); long512[512] = 0;
	char *nonul = two + 4096 - 16; memset(nonul, 'x', 16);

	{ int r_ = reg("p_a u32 x", &word, 4, 0, 0, 0, &idx); printf("reg ok %s idx=%u\n", en(r_), idx); }
	{ int r_ = reg("p_a u32 x", &word, 4, 1, 0, 0, &idx); printf("reg same again other bit %s idx=%u\n", en(r_), idx); }
	printf("reg dup addrbit %s\n", en(reg("p_b u32 x", &word, 4, 0, 0, 0, &idx)));
	printf("reg dup addrbit badname %s\n", en(reg("p_b u32", &word, 4, 0, 0, 0, &idx)));
	{ int r_ = reg("p_b u32 x", &word, 4, 2, 0, 0, &idx); printf("reg second event %s idx=%u\n", en(r_), idx); }
	printf("reg name diff fields %s\n", en(reg("p_a u64 x", &word, 4, 3, 0, 0, &idx)));
	printf("reg size 0 %s\n", en(reg("p_c", &word, 4, 4, 0, 1, &idx)));
	printf("reg size 27 %s\n", en(reg("p_c", &word, 4, 4, 0, 27, &idx)));
	printf("reg size 4097 %s\n", en(reg("p_c", &word, 4, 4, 0, 4097, &idx)));
	{ struct { struct user_reg r; char pad[8]; } u; memset(&u, 0, sizeof u); u.r.size = 36; u.r.name_args=(uintptr_t)"p_c"; u.r.enable_addr=(uintptr_t)&word; u.r.enable_size=4; u.r.enable_bit=5; u.pad[3]=1;
	  printf("reg size 36 trailing nonzero %s\n", en(ioctl(data, DIAG_IOCSREG, &u))); }
	{ struct { struct user_reg r; char pad[8]; } u; memset(&u, 0, sizeof u); u.r.size = 36; u.r.name_args=(uintptr_t)"p_c"; u.r.enable_addr=(uintptr_t)&word; u.r.enable_size=4; u.r.enable_bit=5;
	  printf("reg size 36 trailing zero %s\n", en(ioctl(data, DIAG_IOCSREG, &u))); unreg(&word, 5, 0, 0); }
	printf("reg flags 4 %s\n", en(reg("p_c", &word, 4, 6, 4, 0, &idx)));
	printf("reg flags 0x8000 %s\n", en(reg("p_c", &word, 4, 6, 0x8000, 0, &idx)));
	printf("reg enable_size 2 %s\n", en(reg("p_c", &word, 2, 6, 0, 0, &idx)));
	printf("reg misaligned %s\n", en(reg("p_c", (char *)&word + 1, 4, 6, 0, 0, &idx)));
	printf("reg bit 32 %s\n", en(reg("p_c", &word, 4, 32, 0, 0, &idx)));
	printf("reg bit 64 size 8 %s\n", en(reg("p_c", two, 8, 64, 0, 0, &idx)));
	printf("reg name NULL %s\n", en(reg(NULL, &word, 4, 6, 0, 0, &idx)));
	printf("reg name edge 'ab' %s\n", en(reg(edge, &word, 4, 6, 0, 0, &idx))); unreg(&word, 6, 0, 0);
	printf("reg name no NUL before unmapped %s\n", en(reg(nonul, &word, 4, 7, 0, 0, &idx)));
	printf("reg name 511 %s\n", en(reg(long511, &word, 4, 7, 0, 0, &idx))); unreg(&word, 7, 0, 0);
	printf("reg name 512 %s\n", en(reg(long512, &word, 4, 8, 0, 0, &idx)));
	printf("reg enable unmapped %s\n", en(reg("p_d", two + 4096, 4, 0, 0, 0, &idx)));
	printf("reg enable readonly %s\n", en(reg("p_d", ro, 4, 0, 0, 0, &idx)));
	printf("reg enable high %s\n", en(reg("p_d", (void *)0x7ffffffff000ull, 4, 0, 0, 0, &idx)));
	printf("reg enable high+badname %s\n", en(reg("p_d:x", (void *)0x7ffffffff000ull, 4, 0, 0, 0, &idx)));
	printf("reg enable kernel %s\n", en(reg("p_d", (void *)0xffff800000000000ull, 4, 0, 0, 0, &idx)));
	printf("reg text flags %s\n", en(reg("p_e:flag u32 x", &word, 4, 9, 0, 0, &idx)));
	printf("reg bad type %s\n", en(reg("p_e u32", &word, 4, 9, 0, 0, &idx)));
	printf("reg empty name %s\n", en(reg("", &word, 4, 9, 0, 0, &idx)));  unreg(&word, 9, 0, 0);
	printf("reg space name %s\n", en(reg(" u32 a", &word, 4, 10, 0, 0, &idx)));  unreg(&word, 10, 0, 0);
	printf("reg arg NULL %s\n", en(ioctl(data, DIAG_IOCSREG, NULL)));
	printf("reg arg unmapped %s\n", en(ioctl(data, DIAG_IOCSREG, two + 4096)));
	{ struct user_reg *r = (void *)(two + 4096 - 12); memset(r, 0, 12); r->size = 28;
	  printf("reg struct crosses into unmapped %s\n", en(ioctl(data, DIAG_IOCSREG, r))); }
	{ /* read-only struct: write_index not written */
	  struct user_reg *r = mmap(NULL, 4096, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
	  r->size = sizeof *r; r->name_args = (uintptr_t)"p_f"; r->enable_addr = (uintptr_t)&word2; r->enable_size = 4; r->write_index = 77;
	  mprotect(r, 4096, PROT_READ);
	  int r_ = ioctl(data, DIAG_IOCSREG, r); printf("reg ro struct %s write_index=%u\n", en(r_), r->write_index); }
	{ int r_ = reg("p_g", &word2, 4, 1, USER_EVENT_REG_PERSIST, 0, &idx); printf("persist %s idx=%u\n", en(r_), idx); }
	{ int r_ = reg("p_h u32 a", &word2, 4, 2, USER_EVENT_REG_MULTI_FORMAT, 0, &idx); printf("multi %s idx=%u\n", en(r_), idx); }
	{ int r_ = reg("p_h u64 a", &word2, 4, 3, USER_EVENT_REG_MULTI_FORMAT, 0, &idx); printf("multi2 %s idx=%u\n", en(r_), idx); }
	{ int r_ = reg("p_h u8 z", &word2, 4, 4, 0, 0, &idx); printf("single same name as multi %s idx=%u\n", en(r_), idx); }
	cat("user_events_status");
	cat("dynamic_events");
	cat("available_events");
	printf("unknown ioctl %s\n", en(ioctl(data, _IO('*', 9))));
	printf("TCGETS %s\n", en(ioctl(data, 0x5401, p)));
	printf("unreg size 15 %s\n", en(unreg(&word, 0, 15, 0)));
	printf("unreg size 4097 %s\n", en(unreg(&word, 0, 4097, 0)));
	printf("unreg reserved %s\n", en(unreg(&word, 0, 0, 1)));
	printf("unreg unknown %s\n", en(unreg(&word, 30, 0, 0)));
	printf("unreg NULL %s\n", en(ioctl(data, DIAG_IOCSUNREG, NULL)));
	printf("del unknown %s\n", en(ioctl(data, DIAG_IOCSDEL, "nonexist")));
	printf("del busy %s\n", en(ioctl(data, DIAG_IOCSDEL, "p_a")));
	printf("del NULL %s\n", en(ioctl(data, DIAG_IOCSDEL, NULL)));
	printf("del edge %s\n", en(ioctl(data, DIAG_IOCSDEL, edge)));
	printf("del long512 %s\n", en(ioctl(data, DIAG_IOCSDEL, long512)));
	/* writes */
	uint32_t i0 = 0, v = 5;
	struct iovec io[2] = { { &i0, 4 }, { &v, 4 } };
	printf("write disabled %s\n", en(writev(data, io, 2)));
	printf("write 2 bytes %s\n", en(write(data, "ab", 2)));
	printf("write 0 bytes %s\n", en(write(data, "", 0)));
	printf("read data %s\n", en(read(data, p, 10)));
	printf("lseek data %s\n", en((int)lseek(data, 10, SEEK_SET)));
	printf("pwrite off 0 %s\n", en(pwrite(data, &i0, 4, 0)));
	printf("pwrite off 8 %s\n", en(pwrite(data, &i0, 4, 8)));
	printf("pwritev off 8 %s\n", en(pwritev(data, io, 2, 8)));
	wfile("events/user_events/p_a/enable", "1", 0);
	printf("write enabled %s\n", en(writev(data, io, 2)));
	printf("write short payload %s\n", en(write(data, &i0, 4)));
	printf("write idx 7 %s\n", en(writev(data, (struct iovec[]){{&(uint32_t){7},4},{&v,4}}, 2)));
	printf("write idx -1 %s\n", en(writev(data, (struct iovec[]){{&(int32_t){-1},4},{&v,4}}, 2)));
	{ char *big = calloc(1, 9000); memcpy(big, &i0, 4);
	  printf("write 4068 %s\n", en(write(data, big, 4068)));
	  printf("write 4069 %s\n", en(write(data, big, 4069)));
	  printf("write 9000 %s\n", en(write(data, big, 9000))); }
	printf("pwrite off 0 enabled %s\n", en(pwrite(data, (char[]){0,0,0,0,1,0,0,0}, 8, 0)));
	printf("pwrite off 8 enabled %s\n", en(pwrite(data, (char[]){0,0,0,0,1,0,0,0}, 8, 8)));
	printf("pwritev off 8 enabled %s\n", en(pwritev(data, io, 2, 8)));
	cat("trace");
	wfile("tracing_on", "0", 0);
	printf("write tracing off %s\n", en(writev(data, io, 2)));
	wfile("tracing_on", "1", 0);
	/* set_event */
	printf("set_event p_b %s\n", en(wfile("set_event", "p_b", O_APPEND)));
	printf("set_event user_events:p_g %s\n", en(wfile("set_event", "user_events:p_g", O_APPEND)));
	printf("set_event nonexist %s\n", en(wfile("set_event", "nonexist", O_APPEND)));
	printf("set_event two words %s\n", en(wfile("set_event", "p_b p_g", O_APPEND)));
	printf("set_event spaces %s\n", en(wfile("set_event", "   ", O_APPEND)));
	cat("set_event");
	printf("set_event !p_b %s\n", en(wfile("set_event", "!p_b", O_APPEND)));
	cat("set_event");
	cat("events/user_events/enable");
	printf("sys enable 2 %s\n", en(wfile("events/user_events/enable", "2", 0)));
	printf("enable ' 1' %s\n", en(wfile("events/user_events/p_a/enable", " 1", 0)));
	printf("enable '+1' %s\n", en(wfile("events/user_events/p_a/enable", "+1", 0)));
	printf("enable '1\\n\\n' %s\n", en(wfile("events/user_events/p_a/enable", "1\n\n", 0)));
	printf("enable '' %s\n", en(wfile("events/user_events/p_a/enable", "", 0)));
	printf("tracing_on 5 %s\n", en(wfile("tracing_on", "5", 0)));
	cat("tracing_on");
	printf("tracing_on x %s\n", en(wfile("tracing_on", "x", 0)));
	printf("buffer_size_kb 0 %s\n", en(wfile("buffer_size_kb", "0", 0)));
	printf("options/overwrite 2 %s\n", en(wfile("options/overwrite", "2", 0)));
	printf("write README %s\n", en(wfile("README", "x", 0)));
	printf("write status %s\n", en(wfile("user_events_status", "x", 0)));
	printf("write trace %s\n", en(wfile("trace", "x", 0)));
	printf("write available_events %s\n", en(wfile("available_events", "x", 0)));
	/* dynamic_events */
	printf("dyn empty lines %s\n", en(wfile("dynamic_events", "\n\n", O_APPEND)));
	printf("dyn spaces %s\n", en(wfile("dynamic_events", "   ", O_APPEND)));
	printf("dyn comment %s\n", en(wfile("dynamic_events", "# hello\n", O_APPEND)));
	printf("dyn two lines %s\n", en(wfile("dynamic_events", "u:d_one u32 a\nu:d_two u64 b\n", O_APPEND)));
	printf("dyn p: %s\n", en(wfile("dynamic_events", "p:foo do_sys_open", O_APPEND)));
	printf("dyn garbage %s\n", en(wfile("dynamic_events", "garbage", O_APPEND)));
	printf("dyn -: %s\n", en(wfile("dynamic_events", "-:", O_APPEND)));
	printf("dyn -:d_one (no fields) %s\n", en(wfile("dynamic_events", "-:d_one", O_APPEND)));
	printf("dyn -:d_one u32 a %s\n", en(wfile("dynamic_events", "-:d_one u32 a", O_APPEND)));
	printf("dyn !u:d_two u64 b %s\n", en(wfile("dynamic_events", "!u:d_two u64 b", O_APPEND)));
	printf("dyn -:user_events/p_g %s\n", en(wfile("dynamic_events", "-:user_events/p_g", O_APPEND)));
	printf("dyn O_TRUNC while busy %s\n", en(wfile("dynamic_events", "", O_TRUNC)));
	cat("dynamic_events");
	close(data);
	usleep(100000);
	cat("user_events_status");
	printf("dyn O_TRUNC %s\n", en(wfile("dynamic_events", "", O_TRUNC)));
	cat("user_events_status");
	cat("trace");
	return 0;
}
