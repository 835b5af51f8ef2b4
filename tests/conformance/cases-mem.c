// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Section mem: client memory as the kernel reads it.  Every pointer the
 * ioctls take (struct user_reg, name_args, struct user_unreg, the
 * DIAG_IOCSDEL name, the enable word) placed in PROT_NONE, write-only,
 * exec-only, never-touched MAP_NORESERVE and beyond-EOF pages, next to a
 * guard page, after mprotect() both ways, and under a thread that keeps
 * changing the page's protection or mapping.  The kernel reads with
 * copy_from_user() (the client's own view of its memory); usereventsd must
 * fail at the same byte.
 */
#include "conformance.h"

#include <pthread.h>

#define NPAGES 4

/* @n fresh read-write pages, or exit: the section cannot run without them. */
static char *pages(int n, int extra_flags)
{
	char *p = mmap(NULL, (size_t)page_size * (size_t)n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);

	if (p == MAP_FAILED) {
		printf("mem mmap => %s\n", errname(errno));
		exit(1);
	}
	return p;
}

static void prot(void *p, int n, int how)
{
	if (mprotect(p, (size_t)page_size * (size_t)n, how)) {
		printf("mem mprotect => %s\n", errname(errno));
		exit(1);
	}
}

/*
 * DIAG_IOCSREG with name_args at @at; @shown is what it holds (printed
 * instead of reading @at, which may be unreadable).  The word is @word, or
 * a fresh one.  Successful registrations are tracked for ctx_close().
 */
static int reg_at(struct ctx *c, const char *id, const char *at, const char *shown,
		  uint64_t *word)
{
	uint64_t *w = word ? word : take_word();
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_size = 4,
		.enable_addr = (uint64_t)(uintptr_t)w,
		.name_args = (uint64_t)(uintptr_t)at,
	};
	int r = ioc(c->fd, DIAG_IOCSREG, &reg);

	if (!r) {
		ctx_track(c, shown);
		ctx_enabler(c, c->fd, reg.enable_addr, 0);
	}
	print_reg(id, shown, 0, r, reg.write_index);
	return r;
}

/* DIAG_IOCSREG of @reg_mem (a struct user_reg placed by the caller), size @size. */
static void reg_struct_at(struct ctx *c, const char *id, struct user_reg *reg_mem,
			  uint32_t size, const char *name_args)
{
	uint64_t *w = take_word();
	int r;

	reg_mem->size = size;
	reg_mem->enable_bit = 0;
	reg_mem->enable_size = 4;
	reg_mem->flags = 0;
	reg_mem->enable_addr = (uint64_t)(uintptr_t)w;
	reg_mem->name_args = (uint64_t)(uintptr_t)name_args;
	reg_mem->write_index = 0;
	r = ioc(c->fd, DIAG_IOCSREG, reg_mem);
	if (!r) {
		ctx_track(c, name_args);
		ctx_enabler(c, c->fd, (uint64_t)(uintptr_t)w, 0);
	}
	printf("reg %s struct => %s\n", id, res(r));
}

/* name_args at @p (a read-write page), then the page made @how. */
static void name_in(char *p, const char *text, int how)
{
	prot(p, 1, PROT_READ | PROT_WRITE);
	strcpy(p, text);
	prot(p, 1, how);
}

static void reg_cases(void)
{
	char *p = pages(NPAGES, 0);
	uint64_t *w = take_word();
	struct ctx c;
	char *s;

	ctx_open(&c);
	/* PROT_NONE: copy_from_user faults; the same word is free afterwards. */
	name_in(p, "cfm_none u32 a", PROT_NONE);
	reg_at(&c, "mem.none", p, "cfm_none u32 a", w);
	reg_at(&c, "mem.none.after", "cfm_none u32 a", "cfm_none u32 a", w);
	reg_at(&c, "mem.none.after-other", "cfm_none2 u32 a", "cfm_none2 u32 a", w);

	/* mprotect back: the same bytes register. */
	prot(p, 1, PROT_READ);
	reg_at(&c, "mem.none.reprotected", p, "cfm_none u32 a", NULL);

	/* Write-only and exec-only pages: what the client's own load does. */
	name_in(p, "cfm_wronly u32 a", PROT_WRITE);
	reg_at(&c, "mem.wronly", p, "cfm_wronly u32 a", NULL);
	name_in(p, "cfm_exonly u32 a", PROT_EXEC);
	reg_at(&c, "mem.exonly", p, "cfm_exonly u32 a", NULL);
	name_in(p, "cfm_ronly u32 a", PROT_READ);
	reg_at(&c, "mem.ronly", p, "cfm_ronly u32 a", NULL);

	/* A string that runs from a readable page into a guard page. */
	prot(p, 3, PROT_READ | PROT_WRITE);
	memset(p, 0, (size_t)page_size * 3);
	s = p + page_size - 8;
	memcpy(s, "cfm_guard", 9); /* no NUL before the page ends */
	prot(p + page_size, 1, PROT_NONE);
	reg_at(&c, "mem.guard.straddle", s, "cfm_guard", NULL);
	s = p + page_size - 16;
	strcpy(s, "cfm_guard2");
	reg_at(&c, "mem.guard.nul-before", s, "cfm_guard2", NULL);
	strcpy(p + 2 * page_size, "cfm_guard3");
	reg_at(&c, "mem.guard.after", p + 2 * page_size, "cfm_guard3", NULL);
	/* the last byte before the guard is the NUL */
	s = p + page_size - 11;
	strcpy(s, "cfm_guard4");
	reg_at(&c, "mem.guard.nul-last", s, "cfm_guard4", NULL);
	ctx_close(&c);
	munmap(p, (size_t)page_size * NPAGES);
}

static void struct_cases(void)
{
	char *p = pages(NPAGES, 0);
	struct user_reg *r;
	struct ctx c;

	ctx_open(&c);
	/* struct user_reg in a PROT_NONE page */
	r = (struct user_reg *)p;
	reg_struct_at(&c, "mem.struct.ok", r, sizeof(*r), "cfm_st u32 a");
	prot(p, 1, PROT_NONE);
	printf("reg mem.struct.none struct => %s\n", res(ioc(c.fd, DIAG_IOCSREG, r)));
	prot(p, 1, PROT_WRITE);
	reg_struct_at(&c, "mem.struct.wronly", r, sizeof(*r), "cfm_st_w u32 a");
	prot(p, 1, PROT_READ | PROT_WRITE);

	/* a struct larger than the kernel's whose zero tail lies in a guard page */
	r = (struct user_reg *)(p + 2 * page_size - sizeof(*r));
	prot(p + 2 * page_size, 1, PROT_NONE);
	reg_struct_at(&c, "mem.struct.tail-guard", r, sizeof(*r) + 8, "cfm_st_t u32 a");
	prot(p + 2 * page_size, 1, PROT_READ);
	reg_struct_at(&c, "mem.struct.tail-readable", r, sizeof(*r) + 8, "cfm_st_t u32 a");
	/* only the size readable: the rest is in a guard page */
	r = (struct user_reg *)(p + 3 * page_size - 4);
	prot(p + 2 * page_size, 1, PROT_READ | PROT_WRITE);
	prot(p + 3 * page_size, 1, PROT_NONE);
	r->size = sizeof(*r);
	printf("reg mem.struct.size-only struct => %s\n", res(ioc(c.fd, DIAG_IOCSREG, r)));
	ctx_close(&c);
	munmap(p, (size_t)page_size * NPAGES);
}

static void noreserve_cases(void)
{
	char *p = pages(2, MAP_NORESERVE);
	char *f;
	struct ctx c;
	int fd;

	ctx_open(&c);
	/* never touched: reads as zeros, an empty name_args */
	reg_at(&c, "mem.noreserve.untouched", p, "", NULL);
	strcpy(p + page_size, "cfm_nores u32 a");
	reg_at(&c, "mem.noreserve.written", p + page_size, "cfm_nores u32 a", NULL);
	munmap(p, (size_t)page_size * 2);

	/* a file mapping past the file's end: the load raises SIGBUS */
	fd = memfd_create("cfm", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, page_size) < 0) {
		printf("mem memfd => %s\n", errname(errno));
		exit(1);
	}
	f = mmap(NULL, (size_t)page_size * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (f == MAP_FAILED) {
		printf("mem mmap-file => %s\n", errname(errno));
		exit(1);
	}
	strcpy(f, "cfm_file u32 a");
	reg_at(&c, "mem.file.inside", f, "cfm_file u32 a", NULL);
	reg_at(&c, "mem.file.beyond-eof", f + page_size, "-", NULL);
	memcpy(f + page_size - 8, "cfm_file", 8);
	reg_at(&c, "mem.file.into-eof", f + page_size - 8, "cfm_file", NULL);
	printf("del mem.file.del-beyond-eof => %s\n",
	       res(ioc(ctl_fd, DIAG_IOCSDEL, f + page_size)));
	ctx_close(&c);
	munmap(f, (size_t)page_size * 2);
	close(fd);
}

static void unreg_del_cases(void)
{
	char *p = pages(2, 0);
	struct user_unreg *u = (struct user_unreg *)p;
	uint64_t *w = take_word();
	struct ctx c;

	ctx_open(&c);
	reg_at(&c, "mem.unreg.reg", "cfm_unreg u32 a", "cfm_unreg u32 a", w);
	*u = (struct user_unreg){ .size = sizeof(*u), .disable_addr = (uint64_t)(uintptr_t)w };
	prot(p, 1, PROT_NONE);
	printf("unreg mem.unreg.none => %s\n", res(ioc(c.fd, DIAG_IOCSUNREG, u)));
	prot(p, 1, PROT_WRITE);
	printf("unreg mem.unreg.wronly => %s\n", res(ioc(c.fd, DIAG_IOCSUNREG, u)));
	prot(p, 1, PROT_READ | PROT_WRITE);
	printf("unreg mem.unreg.again => %s\n", res(ioc(c.fd, DIAG_IOCSUNREG, u)));

	/* DIAG_IOCSDEL: the name in a PROT_NONE page, running into one, write-only */
	name_in(p, "cfm_unreg", PROT_NONE);
	printf("del mem.del.none => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, p)));
	prot(p, 2, PROT_READ | PROT_WRITE);
	memcpy(p + page_size - 4, "cfm_", 4);
	prot(p + page_size, 1, PROT_NONE);
	printf("del mem.del.straddle => %s\n",
	       res(ioc(ctl_fd, DIAG_IOCSDEL, p + page_size - 4)));
	name_in(p, "cfm_nosuch", PROT_WRITE);
	printf("del mem.del.wronly => %s\n", res(ioc(ctl_fd, DIAG_IOCSDEL, p)));
	ctx_close(&c);
	munmap(p, (size_t)page_size * 2);
}

static void word_cases(void)
{
	char *p = pages(2, 0);
	struct ctx c;

	ctx_open(&c);
	/* the enable word in a PROT_NONE or a write-only page */
	prot(p, 1, PROT_NONE);
	reg_at(&c, "mem.word.none", "cfm_word u32 a", "cfm_word u32 a", (uint64_t *)p);
	prot(p + page_size, 1, PROT_WRITE);
	reg_at(&c, "mem.word.wronly", "cfm_word u32 a", "cfm_word u32 a",
	       (uint64_t *)(p + page_size));
	printf("fwrite mem.word.enable => %s\n", res(enable_event("user_events", "cfm_word", "1")));
	prot(p + page_size, 1, PROT_READ | PROT_WRITE);
	printf("word mem.word.wronly-enabled 0x%016" PRIx64 "\n", *(uint64_t *)(p + page_size));
	enable_event("user_events", "cfm_word", "0");
	ctx_close(&c);
	munmap(p, (size_t)page_size * 2);
}

/* ---- races: the page changes while registrations read it ------------------------ */

#define RACE_REGS 300

struct racer {
	char *page;
	bool remap;
	volatile bool stop;
};

static void *race_thread(void *arg)
{
	struct racer *rc = arg;

	while (!rc->stop) {
		if (rc->remap) {
			/*
			 * Unmap, then the same bytes back at the same address, all
			 * at once: a page written before mremap() moves it in.  A
			 * fresh page and strcpy() would let a reader on another CPU
			 * (the kernel's too) see "cfm_race" between the two 8-byte
			 * stores, a name without the event's fields: EADDRINUSE.
			 */
			char *next = mmap(NULL, (size_t)page_size, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (next == MAP_FAILED)
				continue;
			strcpy(next, "cfm_race u32 a");
			munmap(rc->page, (size_t)page_size);
			sched_yield();
			if (mremap(next, (size_t)page_size, (size_t)page_size,
				   MREMAP_MAYMOVE | MREMAP_FIXED, rc->page) == MAP_FAILED)
				munmap(next, (size_t)page_size);
		} else {
			mprotect(rc->page, (size_t)page_size, PROT_NONE);
			sched_yield();
			mprotect(rc->page, (size_t)page_size, PROT_READ);
		}
		sched_yield();
	}
	return NULL;
}

static void race_case(const char *id, bool remap)
{
	struct racer rc = { .page = pages(1, 0), .remap = remap };
	int ok = 0, fault = 0, other = 0, other_err = 0;
	uint64_t *w = take_word();
	pthread_t t;
	struct ctx c;

	strcpy(rc.page, "cfm_race u32 a");
	ctx_open(&c);
	ctx_track(&c, "cfm_race u32 a");
	if (pthread_create(&t, NULL, race_thread, &rc)) {
		printf("mem %s pthread_create failed\n", id);
		exit(1);
	}
	for (int i = 0; i < RACE_REGS; i++) {
		struct user_reg reg = {
			.size = sizeof(reg),
			.enable_size = 4,
			.enable_addr = (uint64_t)(uintptr_t)w,
			.name_args = (uint64_t)(uintptr_t)rc.page,
		};
		int r = ioc(c.fd, DIAG_IOCSREG, &reg);

		if (r == 0) {
			ok++;
			if (unreg(c.fd, (uint64_t)(uintptr_t)w, 0))
				other++;
		} else if (r == -EFAULT) {
			fault++;
		} else {
			other++;
			other_err = -r;
		}
	}
	rc.stop = true;
	pthread_join(t, NULL);
	/* Which of 0 and EFAULT each got varies; nothing else may come. */
	printf("~mem %s ok=%d efault=%d\n", id, ok, fault);
	printf("mem %s answers-other-than-0-or-EFAULT=%d%s%s\n", id, other,
	       other ? " last=" : "", other ? errname(other_err) : "");
	ctx_close(&c);
	munmap(rc.page, (size_t)page_size);
}

void sec_mem(void)
{
	begin("mem");
	reg_cases();
	struct_cases();
	noreserve_cases();
	unreg_del_cases();
	word_cases();
	race_case("mem.race.mprotect", false);
	race_case("mem.race.remap", true);
}
