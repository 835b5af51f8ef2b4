// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Process lifecycle against a private usereventsd mount: fork children
 * inherit enablers and are kept current, CLONE_VM children share them, exec
 * and exit drop them, pages that are not present are still written, and
 * canaries (programs exec'd onto the same addresses) are never written.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "../hostile/mount.h"

/* Where the canary maps its page: the same address the registrations use. */
#define CANARY_ADDR ((uintptr_t)0x5a5a00000000ull)
#define CANARY_MS 400

#define CANARY_ENV "UE_LIFECYCLE_CANARY"

static char self_exe[4096];

static uint32_t *fixed_page(void)
{
	void *p = mmap((void *)CANARY_ADDR, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The canary: a new program on the registered address; any change is a stray write. */
static int canary_main(void)
{
	volatile uint8_t *page = (volatile uint8_t *)fixed_page();

	if (!page)
		return 2;
	for (int t = 0; t < CANARY_MS; t++) {
		for (int i = 0; i < 4096; i++)
			if (page[i])
				return 3;
		usleep(1000);
	}
	return 0;
}

static int canary_main(void);

/* Runs before the harness: the canary mode, else the private mount. */
__attribute__((constructor)) static void setup(void)
{
	ssize_t n;

	if (getenv(CANARY_ENV))
		_exit(canary_main());
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		printf("Bail out! readlink /proc/self/exe\n");
		exit(1);
	}
	hostile_setup("max_events=256");
}

static int open_data(void)
{
	return open(path("user_events_data"), O_RDWR | O_CLOEXEC);
}

static int enable(const char *name, int on)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "events/user_events/%s/enable", name);
	return (int)write_rel(rel, on ? "1" : "0");
}

static int del_event(const char *name)
{
	int fd = open_data(), r;

	if (fd < 0)
		return -errno;
	r = ioctl(fd, DIAG_IOCSDEL, name) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* Poll *@w until (bit 0) == @want or @ms pass. */
static int wait_bit(volatile uint32_t *w, uint32_t want, int ms)
{
	for (int i = 0; i < ms; i++) {
		if ((*w & 1) == want)
			return 0;
		usleep(1000);
	}
	return (*w & 1) == want ? 0 : -1;
}

static int child_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

TEST(fork_child_inherits_and_is_kept_current)
{
	static volatile uint32_t word;
	int fd = open_data(), p2c[2], c2p[2];
	pid_t pid;
	char b;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(reg_at(fd, "lc_fork u32 a", (void *)&word, 0, NULL), 0);
	ASSERT_EQ(pipe(p2c), 0);
	ASSERT_EQ(pipe(c2p), 0);
	pid = fork();
	if (pid == 0) {
		word = 0; /* copy-on-write: the child's page is its own from here */
		if (write(c2p[1], "r", 1) != 1 || wait_bit(&word, 1, 2000))
			_exit(1);
		if (write(c2p[1], "1", 1) != 1 || read(p2c[0], &b, 1) != 1)
			_exit(2);
		if (wait_bit(&word, 0, 2000))
			_exit(3);
		/* Inherited: the same address and bit are in use in the child too. */
		if (reg_at(fd, "lc_fork u32 a", (void *)&word, 0, NULL) != -EADDRINUSE)
			_exit(4);
		/* The child's unregistration is its own. */
		if (unreg_at(fd, (void *)&word, 0) != 0)
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(read(c2p[0], &b, 1), 1);
	ASSERT_EQ(enable("lc_fork", 1), 1);
	ASSERT_EQ(read(c2p[0], &b, 1), 1);
	ASSERT_EQ(enable("lc_fork", 0), 1);
	ASSERT_EQ(write(p2c[1], "0", 1), 1);
	ASSERT_EQ(child_status(pid), 0);
	ASSERT_EQ(enable("lc_fork", 1), 1);
	EXPECT_EQ(word & 1, 1);
	ASSERT_EQ(enable("lc_fork", 0), 1);
	EXPECT_EQ(word & 1, 0);
	ASSERT_EQ(unreg_at(fd, (void *)&word, 0), 0);
	close(fd);
	close(p2c[0]);
	close(p2c[1]);
	close(c2p[0]);
	close(c2p[1]);
	/* Unreferenced now: gone, as in the kernel (no PERSIST). */
	EXPECT_ERRNO(del_event("lc_fork"), ENOENT);
}

static int clone_vm_check(void *arg)
{
	volatile uint32_t *w = arg;

	/* Same memory, no copy: the parent's bit shows here as it is set. */
	return wait_bit(w, 1, 2000) ? 1 : 0;
}

TEST(clone_vm_child_shares_enablers)
{
	static volatile uint32_t word;
	size_t stack_size = 64 * 1024;
	char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	int fd = open_data();
	pid_t pid;

	ASSERT_TRUE(stack != MAP_FAILED);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(reg_at(fd, "lc_vm u32 a", (void *)&word, 0, NULL), 0);
	pid = clone(clone_vm_check, stack + stack_size, CLONE_VM | SIGCHLD, (void *)&word);
	ASSERT_GE(pid, 1);
	ASSERT_EQ(enable("lc_vm", 1), 1);
	ASSERT_EQ(child_status(pid), 0);
	ASSERT_EQ(enable("lc_vm", 0), 1);
	EXPECT_EQ(word & 1, 0);
	ASSERT_EQ(unreg_at(fd, (void *)&word, 0), 0);
	close(fd);
	munmap(stack, stack_size);
	/* Unreferenced now: gone, as in the kernel (no PERSIST). */
	EXPECT_ERRNO(del_event("lc_vm"), ENOENT);
}

/* A canary exec'd by a fork child (@register_first: after registering itself). */
static void canary_after(bool in_child_register, bool enabled_at_fork)
{
	uint32_t *w = fixed_page();
	int fd = open_data();
	pid_t pid;

	ASSERT_TRUE(w != NULL);
	ASSERT_GE(fd, 0);
	if (!in_child_register)
		ASSERT_EQ(reg_at(fd, "lc_canary u32 a", w, 0, NULL), 0);
	else
		ASSERT_EQ(reg_at(fd, "lc_canary u32 a", w + 1, 0, NULL), 0);
	if (enabled_at_fork)
		ASSERT_EQ(enable("lc_canary", 1), 1);
	pid = fork();
	if (pid == 0) {
		if (in_child_register) {
			*w = 0;
			if (reg_at(fd, "lc_canary u32 a", w, 0, NULL) != 0)
				_exit(10);
		}
		setenv(CANARY_ENV, "1", 1);
		execl(self_exe, self_exe, (char *)NULL);
		_exit(11);
	}
	ASSERT_GE(pid, 1);
	for (int i = 0; i < 10; i++) {
		ASSERT_EQ(enable("lc_canary", i % 2 == enabled_at_fork), 1);
		usleep(CANARY_MS * 1000 / 20);
	}
	EXPECT_EQ(child_status(pid), 0);
	ASSERT_EQ(enable("lc_canary", 0), 1);
	EXPECT_EQ(unreg_at(fd, in_child_register ? w + 1 : w, 0), 0);
	close(fd);
	munmap(w, 4096);
	/* Unreferenced now: gone, as in the kernel (no PERSIST). */
	EXPECT_ERRNO(del_event("lc_canary"), ENOENT);
}

TEST(exec_right_after_fork_writes_nothing)
{
	canary_after(false, true);
	canary_after(false, false);
}

TEST(exec_right_after_registration_writes_nothing)
{
	canary_after(true, true);
	canary_after(true, false);
}

TEST(exit_releases_references_promptly)
{
	static volatile uint32_t word;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open_data();

		/* Registers and exits without unregistering or closing. */
		_exit(fd < 0 || reg_at(fd, "lc_exit u32 a", (void *)&word, 0, NULL) ? 1 : 0);
	}
	ASSERT_EQ(child_status(pid), 0);
	/* The kernel drops the dead process's enabler: the event can be deleted. */
	for (int i = 0; i < 100 && del_event("lc_exit") == -EBUSY; i++)
		usleep(10000);
	EXPECT_ERRNO(del_event("lc_exit"), ENOENT);
}

/* Pages that are not present when the bit is written. */
TEST(pages_not_present_are_written)
{
	static const char *how[] = {"fresh mmap", "MADV_DONTNEED", "COW after fork"};
	int fd = open_data();

	ASSERT_GE(fd, 0);
	for (unsigned int k = 0; k < 3; k++) {
		uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		pid_t pid = -1;
		int p2c[2];
		char b;

		printf("# %s\n", how[k]);
		ASSERT_TRUE(w != MAP_FAILED);
		ASSERT_EQ(pipe(p2c), 0);
		ASSERT_EQ(reg_at(fd, "lc_fault u32 a", w, 3, NULL), 0);
		if (k == 1)
			ASSERT_EQ(madvise(w, 4096, MADV_DONTNEED), 0);
		if (k == 2) {
			pid = fork();
			if (pid == 0) {
				/* The child only waits: the parent's write must break the COW. */
				_exit(read(p2c[0], &b, 1) == 1 ? 0 : 1);
			}
		}
		ASSERT_EQ(enable("lc_fault", 1), 1);
		EXPECT_EQ(*w, 1u << 3);
		ASSERT_EQ(enable("lc_fault", 0), 1);
		EXPECT_EQ(*w, 0u);
		if (pid > 0) {
			ASSERT_EQ(write(p2c[1], "x", 1), 1);
			EXPECT_EQ(child_status(pid), 0);
		}
		ASSERT_EQ(unreg_at(fd, w, 3), 0);
		close(p2c[0]);
		close(p2c[1]);
		munmap(w, 4096);
	}
	close(fd);
	/* Unreferenced now: gone, as in the kernel (no PERSIST). */
	EXPECT_ERRNO(del_event("lc_fault"), ENOENT);
}

TEST(still_serving_at_the_end)
{
	still_serving("lc_last");
}

UE_TEST_MAIN()
