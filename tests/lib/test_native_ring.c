// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A native client that writes its ring by hand, as a broken or hostile one
 * could.  The drain takes each good record once, in its CPU's order, and
 * counts each bad one in native_invalid without storing it, whatever
 * comes between two records of one event and CPU (a record the checker
 * refuses, a payload length past its record, another CPU, a time stamp
 * going back); a length that is no record's ends the ring (UE_RING_DEAD)
 * and keeps what came before it.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "common/daemon.h"
#include "native-msg.h"
#include "native-proto.h"

#define NAME_ARGS "hr_ev u32 n; __rel_loc char[] s"

__attribute__((constructor)) static void setup(void)
{
	daemon_setup(NULL);
}

struct ring {
	struct ue_native_ring *hdr;
	unsigned char *data;
	uint64_t mask, head;
	uint32_t slot;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The session of @fd's daemon, the event registered as @idx on @fd, a ring stamped in ns. */
static int ring_open(int fd, uint32_t idx, struct ring *r)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ue_native_msg m;
	int len, sock, rfd = -1;

	len = (int)fgetxattr(fd, UE_NATIVE_XATTR, sa.sun_path + 1, UE_NATIVE_SOCK_NAME_MAX);
	if (len <= 0)
		return -1;
	sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa,
				(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len)) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_HELLO;
	m.id = UE_NATIVE_CLIENT_LIB;
	m.write_index = (uint32_t)fd;
	if (ue_native_xchg(sock, &m, NULL) != 0 || m.status != 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_ADD_EVENT;
	m.write_index = idx;
	strcpy(m.name_args, NAME_ARGS);
	if (ue_native_xchg(sock, &m, NULL) != 0 || m.status != 0 || m.id == 0)
		return -1;
	r->slot = m.id;
	memset(&m, 0, sizeof(m));
	m.cmd = UE_NATIVE_NEW_RING;
	m.tid = gettid();
	if (ue_native_xchg(sock, &m, &rfd) != 0 || m.status != 0 || rfd < 0)
		return -1;
	r->hdr = mmap(NULL, UE_NATIVE_RING_HDR + (size_t)m.ring_bytes, PROT_READ | PROT_WRITE,
		      MAP_SHARED, rfd, 0);
	close(rfd);
	if (r->hdr == MAP_FAILED || r->hdr->clock != UE_RING_CLOCK_MONO)
		return -1;
	r->data = (unsigned char *)r->hdr + UE_NATIVE_RING_HDR;
	r->mask = m.ring_bytes - 1;
	r->head = r->hdr->head;
	return sock;
}

/*
 * One record of n = @n and s = @s (@s_len bytes, its NUL or not, the
 * location saying @loc_len), on @cpu at @ts; @plen_extra added to the
 * payload length the header says, not to the record's.
 */
static void put(struct ring *r, uint32_t cpu, uint64_t ts, uint32_t n, const char *s,
		uint32_t s_len, uint32_t loc_len, uint32_t plen_extra)
{
	unsigned char payload[64];
	uint32_t loc = loc_len << 16, plen = 8 + s_len;
	struct ue_native_rec rec = {
		.len = (uint32_t)((sizeof(rec) + plen + 7) & ~7ul),
		.id = r->slot,
		.ts_ns = ts,
		.cpu = cpu,
		.payload_len = plen + plen_extra,
	};

	memcpy(payload, &n, 4);
	memcpy(payload + 4, &loc, 4);
	memcpy(payload + 8, s, s_len);
	memcpy(r->data + (r->head & r->mask), &rec, sizeof(rec));
	memcpy(r->data + (r->head & r->mask) + sizeof(rec), payload, plen);
	r->head += rec.len;
}

static void publish(struct ring *r)
{
	__atomic_store_n(&r->hdr->head, r->head, __ATOMIC_RELEASE);
}

/* The values of n in @text (the trace's lines, or report's), in its order, with their CPUs; how many. */
static int trace_ns(char *text, uint32_t *ns, unsigned int *cpus, int max)
{
	char *line, *save = NULL;
	int k = 0;

	for (line = strtok_r(text, "\n", &save); line && k < max;
	     line = strtok_r(NULL, "\n", &save)) {
		char *ev = strstr(line, "hr_ev: "), *br = strchr(line, '[');

		if (line[0] == '#' || !ev || !br || sscanf(br, "[%u]", &cpus[k]) != 1 ||
		    sscanf(ev, "hr_ev: n=0x%*x (%u)", &ns[k]) != 1)
			continue;
		k++;
	}
	return k;
}

/* `userevents record` of hr_ev into @out (its stderr in @err); it enables the event once it reads. */
static pid_t record_start(const char *out, const char *err)
{
	const char *tool = getenv("UE_TOOL");
	pid_t p;

	if (!tool)
		return -1;
	p = fork();
	if (p == 0) {
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

		setenv("USEREVENTS_TRACEFS", mnt, 1);
		dup2(e, 2);
		dup2(nul, 1);
		execl(tool, "userevents", "record", "-o", out, "-e", "user_events:hr_ev", (char *)NULL);
		_exit(127);
	}
	return p;
}

/* The text `userevents report` prints of @file. */
static char *report_of(const char *file)
{
	char cmd[8400], *text = malloc(1 << 16);
	size_t len = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "'%s' report '%s' 2>&1", getenv("UE_TOOL"), file);
	f = text ? popen(cmd, "r") : NULL;
	if (!f) {
		free(text);
		return NULL;
	}
	len = fread(text, 1, (1 << 16) - 1, f);
	text[len] = '\0';
	pclose(f);
	return text;
}

/*
 * The scenario, read from the trace file (@dir NULL: no reader, the drain
 * stages the records) or through a `userevents record` into @dir (the one
 * reader: the drain builds them in its pages, in runs).
 */
static void hostile_ring(const char *dir)
{
	static const struct {
		uint32_t cpu, dt, n;
		const char *s;
		uint32_t s_len, loc_len, extra;
	} recs[] = {
		{ 0, 1000, 1, "a", 2, 2, 0 },	  { 0, 2000, 2, "bb", 3, 3, 0 },
		{ 0, 3000, 3, "c", 2, 200, 0 },	  { 0, 4000, 4, "dddd", 5, 5, 0 },
		{ 1, 5000, 5, "e", 2, 2, 0 },	  { 1, 6000, 6, "f", 2, 2, 0 },
		{ 1, 7000, 7, "g", 2, 2, 64 },	  { 1, 8000, 8, "h", 2, 2, 0 },
		{ 1, 9000, 9, "iii", 3, 3, 0 },	  { 1, 7500, 10, "j", 2, 2, 0 },
		{ 0, 10000, 20, "x", 2, 2, 0 },	  { 0, 11000, 21, "y", 2, 2, 0 },
	};
	static const uint32_t want0[] = { 1, 2, 4 }, want1[] = { 5, 6, 8, 10 }, want_dead[] = { 20, 21 };
	uint32_t word = 0, idx, ns[32];
	unsigned int cpus[32], i0 = 0, i1 = 0, idead = 0;
	unsigned int ncpus = (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	char out[4096], err[4096], *text;
	long long invalid0, records0;
	pid_t rec = -1;
	struct ring r;
	uint64_t t;
	int fd, sock, k, st;

	fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(reg_at(fd, NAME_ARGS, &word, 0, &idx), 0);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	if (dir) {
		snprintf(out, sizeof(out), "%s/hr.dat", dir);
		snprintf(err, sizeof(err), "%s/hr.err", dir);
		rec = record_start(out, err);
		ASSERT_TRUE(rec > 0);
	} else {
		ASSERT_EQ(write_rel_flags("events/user_events/hr_ev/enable", "1", O_TRUNC), 1);
	}
	ASSERT_TRUE(bit_becomes(&word, 1));
	sock = ring_open(fd, idx, &r);
	ASSERT_GE(sock, 0);
	invalid0 = stat_of("native_invalid");
	records0 = stat_of("native_records");

	/*
	 * CPU 0: two good records, one whose string runs past the record,
	 * a good one.  CPU 1: two good, one whose header says a payload
	 * longer than its record, a good one, one whose string has no NUL, a
	 * good one stamped before the one before it.  Then two good ones, and
	 * a length no record has: the ring ends there, they stay.  All at
	 * once: the drain takes them in one pass.
	 */
	t = now_ns();
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		put(&r, recs[i].cpu, t + recs[i].dt, recs[i].n, recs[i].s, recs[i].s_len,
		    recs[i].loc_len, recs[i].extra);
	memcpy(r.data + (r.head & r.mask), &(uint32_t){ 12 }, 4);
	memcpy(r.data + (r.head & r.mask) + 4, &r.slot, 4);
	r.head += 16;
	put(&r, 0, t + 12000, 22, "z", 2, 2, 0);
	publish(&r);
	for (int i = 0; i < 200 && __atomic_load_n(&r.hdr->state, __ATOMIC_ACQUIRE) != UE_RING_DEAD; i++)
		usleep(10000);
	EXPECT_EQ(__atomic_load_n(&r.hdr->state, __ATOMIC_ACQUIRE), UE_RING_DEAD);
	EXPECT_EQ(stat_of("native_invalid") - invalid0, 4);
	EXPECT_EQ(stat_of("native_records") - records0, 9);
	if (dir) {
		kill(rec, SIGINT);
		ASSERT_EQ(waitpid(rec, &st, 0), rec);
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		text = report_of(out);
	} else {
		EXPECT_EQ(trace_wait("hr_ev:", 9), 9);
		text = read_rel_alloc("trace");
	}
	ASSERT_TRUE(text != NULL);
	k = trace_ns(text, ns, cpus, 32);
	if (k != 9)
		printf("# %s\n", text);
	free(text);
	ASSERT_EQ(k, 9);
	/* Each CPU's records in their order (the trace merges the CPUs by time), on their CPU. */
	for (int i = 0; i < k; i++) {
		if (ns[i] <= 4) {
			ASSERT_TRUE(i0 < 3);
			EXPECT_EQ(ns[i], want0[i0++]);
			EXPECT_EQ(cpus[i], 0);
		} else if (ns[i] <= 10) {
			ASSERT_TRUE(i1 < 4);
			EXPECT_EQ(ns[i], want1[i1++]);
			EXPECT_EQ(cpus[i], 1 % ncpus);
		} else {
			ASSERT_TRUE(idead < 2);
			EXPECT_EQ(ns[i], want_dead[idead++]);
			EXPECT_EQ(cpus[i], 0);
		}
	}
	EXPECT_EQ(i0 + i1 + idead, 9);

	close(sock);
	munmap(r.hdr, UE_NATIVE_RING_HDR + r.mask + 1);
	if (!dir)
		ASSERT_EQ(write_rel_flags("events/user_events/hr_ev/enable", "0", O_TRUNC), 1);
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(unreg_at(fd, &word, 0), 0);
	close(fd);
}

TEST(hostile_ring_read_from_the_trace)
{
	hostile_ring(NULL);
}

TEST(hostile_ring_read_by_record)
{
	char dir[] = "/tmp/ue-hr.XXXXXX", f[64];

	if (!getenv("UE_TOOL"))
		SKIP("UE_TOOL (the userevents tool) not given");
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	hostile_ring(dir);
	snprintf(f, sizeof(f), "%s/hr.dat", dir);
	unlink(f);
	snprintf(f, sizeof(f), "%s/hr.err", dir);
	unlink(f);
	rmdir(dir);
}

/* The number after @key in per_cpu/cpu0/stats, or -1. */
static long long cpu0_stat(const char *key)
{
	char buf[1024], *at;

	if (read_rel("per_cpu/cpu0/stats", buf, sizeof(buf)) < 0 || !(at = strstr(buf, key)))
		return -1;
	return strtoll(at + strlen(key), NULL, 10);
}

/*
 * More records than the smallest ring holds, nobody reading: in discard
 * mode the first ones stay and the rest are dropped, in overwrite mode the
 * last ones stay; stored + dropped (or overwritten) = written, and the
 * daemon counts as records only those stored.
 */
TEST(full_ring_drops_as_the_kernel)
{
	enum { N = 400 };
	uint32_t word = 0, idx, ns[N];
	unsigned int cpus[N];
	long long records0, entries, lost;
	struct ring r;
	char *text;
	uint64_t t;
	int fd, sock, k;

	fd = open(path("user_events_data"), O_RDWR | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(reg_at(fd, NAME_ARGS, &word, 0, &idx), 0);
	ASSERT_EQ(write_rel_flags("buffer_size_kb", "8", O_TRUNC), 1);
	for (int overwrite = 0; overwrite < 2; overwrite++) {
		ASSERT_EQ(write_rel_flags("options/overwrite", overwrite ? "1" : "0", O_TRUNC), 1);
		ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
		ASSERT_EQ(write_rel_flags("events/user_events/hr_ev/enable", "1", O_TRUNC), 1);
		ASSERT_TRUE(bit_becomes(&word, 1));
		sock = ring_open(fd, idx, &r);
		ASSERT_GE(sock, 0);
		records0 = stat_of("native_records");
		t = now_ns();
		for (uint32_t i = 0; i < N; i++)
			put(&r, 0, t + i, i, "ring", 5, 5, 0);
		publish(&r);
		for (int i = 0; i < 200 && __atomic_load_n(&r.hdr->tail, __ATOMIC_ACQUIRE) != r.head; i++)
			usleep(10000);
		ASSERT_EQ(__atomic_load_n(&r.hdr->tail, __ATOMIC_ACQUIRE), r.head);
		entries = cpu0_stat("entries: ");
		lost = cpu0_stat(overwrite ? "overrun: " : "dropped events: ");
		printf("# overwrite %d: %lld entries, %lld %s\n", overwrite, entries, lost,
		       overwrite ? "overwritten" : "dropped");
		EXPECT_TRUE(entries > 0 && lost > 0);
		EXPECT_EQ(entries + lost, N);
		EXPECT_EQ(stat_of("native_records") - records0, overwrite ? N : entries);
		text = read_rel_alloc("trace");
		ASSERT_TRUE(text != NULL);
		k = trace_ns(text, ns, cpus, N);
		free(text);
		ASSERT_EQ(k, entries);
		/* discard: the first ones; overwrite: the last ones */
		for (int i = 0; i < k; i++)
			EXPECT_EQ(ns[i], (uint32_t)(overwrite ? N - k + i : i));
		close(sock);
		munmap(r.hdr, UE_NATIVE_RING_HDR + r.mask + 1);
		ASSERT_EQ(write_rel_flags("events/user_events/hr_ev/enable", "0", O_TRUNC), 1);
	}
	ASSERT_EQ(write_rel_flags("trace", "", O_TRUNC), 0);
	ASSERT_EQ(write_rel_flags("buffer_size_kb", "1410", O_TRUNC), 4);
	ASSERT_EQ(unreg_at(fd, &word, 0), 0);
	close(fd);
}

UE_TEST_MAIN()
