// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_shutdown: usereventsd ending while clients use it.  SIGTERM: a reader
 * parked in trace_pipe, a writer in its loop and a client holding files open
 * all get an error or EOF promptly, the daemon exits 0 and the mount is gone.
 * SIGKILL: the same clients get errors, and a new daemon on the same
 * mountpoint serves at once, its native path included, also while the
 * previous daemon still lives; a dead mount that is not ours is left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "userevents/abi.h"
#include "common/daemon.h"
#include "native-proto.h"

__attribute__((constructor)) static void setup(void)
{
	daemon_setup("max_events=256");
}

/* What the client processes saw, in memory shared with them. */
struct seen {
	int ready;
	int go;
	long reader_records;	/* bytes read from trace_pipe */
	int reader_ret, reader_errno;
	long writer_ok;
	int writer_errno;
	int holder_errno[5];	/* ioctl, writev, read enable, read trace, stat */
};

static struct seen *seen;
static pid_t clients[3];

/* A failed case must not leave clients that keep the mount busy. */
static void kill_clients(void)
{
	for (int i = 0; i < 3; i++)
		if (clients[i] > 0 && kill(clients[i], SIGKILL) == 0)
			waitpid(clients[i], NULL, 0);
}

/* Mount entries whose mount point is @dir (no escaping needed for our names). */
static int mounts_at(const char *dir)
{
	char line[4096], mp[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 && strcmp(mp, dir) == 0)
			n++;
	fclose(f);
	return n;
}

/*
 * The native path a client of the mount finds, as libuserevents finds it:
 * the socket name advertised by user_events_data, a connection, and a HELLO
 * naming a writable user_events_data.  Return: the pid of the daemon that
 * answered, or -errno; @name gets the socket's name.
 */
static pid_t native_peer(char *name, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 2 };
	struct ue_native_msg m;
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC), s = -1;
	ssize_t n;
	pid_t r;

	if (fd < 0)
		return -errno;
	n = fgetxattr(fd, UE_NATIVE_XATTR, sa.sun_path + 1, UE_NATIVE_SOCK_NAME_MAX);
	if (n <= 0) {
		r = n < 0 ? -errno : -ENOENT;
		goto out;
	}
	snprintf(name, len, "%.*s", (int)n, sa.sun_path + 1);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 ||
	    connect(s, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0 ||
	    getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		r = -errno;
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.magic = UE_NATIVE_MAGIC;
	m.major = UE_NATIVE_MAJOR;
	m.minor = UE_NATIVE_MINOR;
	m.cmd = UE_NATIVE_HELLO;
	m.write_index = (uint32_t)fd;
	/* A daemon that cannot answer (stopped, another mount's) times out here. */
	if (send(s, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m) ||
	    recv(s, &m, sizeof(m), 0) != (ssize_t)sizeof(m)) {
		r = -ETIMEDOUT;
		goto out;
	}
	r = m.status < 0 ? m.status : cred.pid;
out:
	if (s >= 0)
		close(s);
	close(fd);
	return r;
}

static void ready(void)
{
	__atomic_add_fetch(&seen->ready, 1, __ATOMIC_SEQ_CST);
}

/* Blocks in trace_pipe reads until they fail or end. */
static void reader(void)
{
	static char buf[65536];
	int fd = open(path("trace_pipe"), O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		_exit(2);
	ready();
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		seen->reader_records += r;
	seen->reader_errno = r < 0 ? errno : 0;
	seen->reader_ret = (int)r;
	_exit(0);
}

/* Writes events as fast as it can until a write fails. */
static void writer(const char *name_args)
{
	static uint32_t w;
	uint32_t idx = 0, v = 7;
	struct iovec io[2] = { { &idx, sizeof(idx) }, { &v, sizeof(v) } };
	int fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);

	if (fd < 0 || reg_at(fd, name_args, &w, 0, &idx) < 0)
		_exit(2);
	ready();
	/* Writes start once a tracer enabled the event (EBADF before, as the kernel). */
	for (int i = 0; i < 500 && !(__atomic_load_n(&w, __ATOMIC_RELAXED) & 1); i++)
		usleep(10000);
	while (writev(fd, io, 2) == (ssize_t)(sizeof(idx) + sizeof(v)))
		seen->writer_ok++;
	seen->writer_errno = errno;
	_exit(0);
}

/* Holds files open; once told, tries each of them. */
static void holder(void)
{
	static uint32_t w;
	uint32_t idx = 0, v = 1;
	struct iovec io[2] = { { &idx, sizeof(idx) }, { &v, sizeof(v) } };
	int data = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	int en, tr;
	char c[64];
	struct statfs sfs;

	if (data < 0 || reg_at(data, "shut_hold u32 v", &w, 0, &idx) < 0)
		_exit(2);
	en = open(path("events/user_events/shut_hold/enable"), O_RDWR | O_CLOEXEC);
	tr = open(path("trace"), O_RDONLY | O_CLOEXEC);
	if (en < 0 || tr < 0)
		_exit(2);
	ready();
	while (!__atomic_load_n(&seen->go, __ATOMIC_SEQ_CST))
		usleep(1000);
	seen->holder_errno[0] = reg_at(data, "shut_hold2 u32 v", &w, 1, NULL) < 0 ? errno : 0;
	seen->holder_errno[1] = writev(data, io, 2) < 0 ? errno : 0;
	seen->holder_errno[2] = read(en, c, sizeof(c)) < 0 ? errno : 0;
	seen->holder_errno[3] = read(tr, c, sizeof(c)) < 0 ? errno : 0;
	seen->holder_errno[4] = statfs(path("README"), &sfs) < 0 ? errno : 0;
	_exit(0);
}

static pid_t spawn(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0)
		fn();
	return pid;
}

static void writer_quiet(void)
{
	writer("shut_w u32 v");
}

static void writer_enabled(void)
{
	writer("shut_we u32 v");
}

static void start_clients(void (*wfn)(void), pid_t *pids)
{
	if (!seen) {
		seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		ASSERT_TRUE(seen != MAP_FAILED);
		atexit(kill_clients);
	}
	memset(seen, 0, sizeof(*seen));
	pids[0] = spawn(reader);
	pids[1] = spawn(wfn);
	pids[2] = spawn(holder);
	for (int i = 0; i < 500 && __atomic_load_n(&seen->ready, __ATOMIC_SEQ_CST) < 3; i++)
		usleep(10000);
	ASSERT_EQ(__atomic_load_n(&seen->ready, __ATOMIC_SEQ_CST), 3);
	/* Let the reader park and the writer get going. */
	usleep(200000);
}

/*
 * Every client ends within 5 s; the holder's calls on its open files fail with
 * @err, a new lookup with @lookup_err.
 */
static void clients_released(pid_t *pids, int err, int lookup_err)
{
	__atomic_store_n(&seen->go, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(wait_for(pids[i], 5000), 0);
		pids[i] = 0;
	}
	/* The parked read ends with an error or EOF, never data it did not have. */
	if (seen->reader_ret < 0)
		EXPECT_TRUE(seen->reader_errno == ENOTCONN || seen->reader_errno == ECONNABORTED ||
			    seen->reader_errno == EINTR);
	else
		EXPECT_EQ(seen->reader_ret, 0);
	EXPECT_GE(seen->writer_ok, 1);
	EXPECT_TRUE(seen->writer_errno == ENOTCONN || seen->writer_errno == ECONNABORTED);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(seen->holder_errno[i], err);
	EXPECT_EQ(seen->holder_errno[4], lookup_err);
	printf("# reader: %ld bytes, then %d (%s); writer: %ld writes, then %s\n",
	       seen->reader_records, seen->reader_ret, strerror(seen->reader_errno),
	       seen->writer_ok, strerror(seen->writer_errno));
}

TEST(sigterm_releases_clients_and_unmounts)
{
	pid_t *pids = clients;
	long t0;
	int status;
	struct stat st;

	/* Tracing off: the writer's events are accepted, the reader stays parked. */
	ASSERT_EQ(write_rel("tracing_on", "0"), 1);
	start_clients(writer_quiet, pids);
	ASSERT_EQ(write_rel("events/user_events/shut_w/enable", "1"), 1);
	usleep(100000);
	t0 = now_ms();
	ASSERT_EQ(kill(daemon_pid, SIGTERM), 0);
	status = wait_for(daemon_pid, 10000);
	printf("# daemon ended %ld ms after SIGTERM, status 0x%x\n", now_ms() - t0, status);
	EXPECT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Unmounted: the directory underneath is back. */
	EXPECT_EQ(mounts_at(mnt), 0);
	EXPECT_EQ(stat(mnt, &st), 0);
	EXPECT_EQ(stat(path("README"), &st), -1);
	clients_released(pids, ENOTCONN, ENOENT);
	EXPECT_EQ(seen->reader_records, 0);
	ASSERT_EQ(daemon_start("max_events=256"), 0);
	still_serving("after_sigterm");
	{
		char name[128];

		EXPECT_EQ(native_peer(name, sizeof(name)), daemon_pid);
	}
}

TEST(sigkill_gives_errors_and_restart_serves)
{
	pid_t *pids = clients;
	int status;
	long t0;
	struct statfs sfs;

	ASSERT_EQ(write_rel("events/user_events/shut_we/enable", "1"), -ENOENT);
	start_clients(writer_enabled, pids);
	ASSERT_EQ(write_rel("events/user_events/shut_we/enable", "1"), 1);
	usleep(100000);
	ASSERT_EQ(kill(daemon_pid, SIGKILL), 0);
	status = wait_for(daemon_pid, 5000);
	EXPECT_TRUE(status != -1 && WIFSIGNALED(status));
	clients_released(pids, ENOTCONN, ENOTCONN);
	EXPECT_GE(seen->reader_records, 1);
	/* The dead mount stays until someone detaches it (stat may hit the cache). */
	EXPECT_EQ(statfs(mnt, &sfs), -1);
	EXPECT_EQ(errno, ENOTCONN);
	EXPECT_EQ(mounts_at(mnt), 1);
	t0 = now_ms();
	ASSERT_EQ(daemon_start("max_events=256"), 0);
	printf("# restarted daemon served %ld ms after its start\n", now_ms() - t0);
	/* The dead mount was replaced, not stacked on. */
	EXPECT_EQ(mounts_at(mnt), 1);
	still_serving("after_sigkill");
	{
		char name[128];

		EXPECT_EQ(native_peer(name, sizeof(name)), daemon_pid);
	}
}

/*
 * A daemon that still lives (here: stopped) after its mount was detached:
 * a new daemon on the same mount point, whose mount may well get the same
 * device number, must offer its own native path, and clients of the new
 * mount must reach the new daemon, never the old one.
 */
TEST(restart_while_old_daemon_lives)
{
	char old_name[128], new_name[128];
	pid_t old = daemon_pid;
	struct stat st;
	dev_t old_dev;
	int status;

	ASSERT_EQ(stat(mnt, &st), 0);
	old_dev = st.st_dev;
	ASSERT_EQ(native_peer(old_name, sizeof(old_name)), old);
	ASSERT_EQ(kill(old, SIGSTOP), 0);
	if (umount2(mnt, MNT_DETACH) < 0 || daemon_start("max_events=256") < 0) {
		kill(old, SIGKILL);
		waitpid(old, NULL, 0);
		ASSERT_TRUE(0);
	}
	EXPECT_EQ(stat(mnt, &st), 0);
	printf("# old mount %u:%u, new mount %u:%u\n", major(old_dev), minor(old_dev),
	       major(st.st_dev), minor(st.st_dev));
	EXPECT_EQ(native_peer(new_name, sizeof(new_name)), daemon_pid);
	EXPECT_TRUE(strcmp(old_name, new_name) != 0);
	/* Before anything that may end the case: a stopped daemon must not outlive it. */
	EXPECT_EQ(kill(old, SIGKILL), 0);
	EXPECT_EQ(waitpid(old, &status, 0), old);
	still_serving("after_detach");
}

/* A dead FUSE mount of another file system: the daemon must not detach it. */
TEST(foreign_dead_mount_left_alone)
{
	char dir[64], opts[128];
	int fd, status;
	pid_t pid;
	struct statfs sfs;

	snprintf(dir, sizeof(dir), "/tmp/ue-foreign.XXXXXX");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	ASSERT_EQ(mount("otherfs", dir, "fuse.otherfs", MS_NOSUID | MS_NODEV, opts), 0);
	/* Closing the only descriptor of the connection aborts it: the mount is dead. */
	close(fd);
	EXPECT_EQ(statfs(dir, &sfs), -1);
	EXPECT_EQ(errno, ENOTCONN);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(getenv("USEREVENTSD"), "usereventsd", "-f", dir, (char *)NULL);
		_exit(127);
	}
	status = wait_for(pid, 10000);
	EXPECT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 1);
	EXPECT_EQ(mounts_at(dir), 1);
	EXPECT_EQ(umount2(dir, MNT_DETACH), 0);
	EXPECT_EQ(rmdir(dir), 0);
	still_serving("after_foreign");
}

UE_TEST_MAIN()
