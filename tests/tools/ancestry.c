// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ancestry: whether the usereventsd serving $USEREVENTS_TRACEFS is an
 * ancestor of this process, of its fork child and of an orphan (a
 * grandchild whose parent exited), which is what Yama's ptrace_scope 1
 * requires before an unprivileged daemon may open their /proc/<pid>/mem.
 * The daemon's pid is the one in its native socket's name (the
 * user.usereventsd.native attribute of user_events_data).  Prints each
 * process's chain of parents; exits 0 when the daemon is in all three,
 * 1 otherwise (test-rootless.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEPTH 64

static pid_t parent_of(pid_t pid, char *comm, size_t len)
{
	char path[64], buf[1024], *open, *close;
	FILE *f;
	size_t n;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || sscanf(close + 1, " %*c %d", &ppid) != 1)
		return -1;
	*close = '\0';
	snprintf(comm, len, "%s", open + 1);
	return ppid;
}

/* Print @who's chain of parents; 0 when @daemon is in it. */
static int check(const char *who, pid_t daemon)
{
	char comm[64];
	pid_t p = getpid();
	int found = 0;

	printf("ancestry: %s:", who);
	for (int i = 0; i < MAX_DEPTH && p > 0; i++) {
		pid_t pp = parent_of(p, comm, sizeof(comm));

		printf(" %d(%s)", (int)p, comm);
		if (p == daemon && i > 0)
			found = 1;
		p = pp;
	}
	printf(": usereventsd %d is %san ancestor\n", (int)daemon, found ? "" : "NOT ");
	fflush(stdout);
	return found ? 0 : 1;
}

int main(void)
{
	const char *tracefs = getenv("USEREVENTS_TRACEFS");
	char path[4096], name[256];
	pid_t daemon, child;
	char verdict = 1;
	ssize_t n;
	int st, failed, done[2];

	if (!tracefs) {
		fprintf(stderr, "usage: USEREVENTS_TRACEFS=DIR ancestry\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/user_events_data", tracefs);
	n = getxattr(path, "user.usereventsd.native", name, sizeof(name) - 1);
	if (n <= 0 || (name[n] = '\0', sscanf(name, "usereventsd-native/%d/", &daemon) != 1)) {
		fprintf(stderr, "ancestry: %s: no usereventsd pid\n", path);
		return 2;
	}
	failed = check("command", daemon);
	/* The orphan's verdict comes back here; EOF once it and the child are gone. */
	if (pipe(done) < 0)
		return 1;
	child = fork();
	if (child == 0) {
		pid_t me = getpid(), orphan = fork();

		if (orphan == 0) {
			/* Its parent exits at once: wait to be given to another. */
			for (int i = 0; i < 5000 && getppid() == me; i++)
				nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
			verdict = (char)check("orphan", daemon);
			_exit(write(done[1], &verdict, 1) == 1 ? 0 : 1);
		}
		if (orphan < 0)
			_exit(1);
		/* The child's own check first, then it leaves its child behind. */
		_exit(check("child", daemon) ? 1 : 0);
	}
	close(done[1]);
	if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
		failed = 1;
	/* The orphan is not ours to wait for: it says how it did. */
	if (read(done[0], &verdict, 1) != 1 || verdict != 0)
		failed = 1;
	return failed;
}
