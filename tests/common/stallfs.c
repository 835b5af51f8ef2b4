// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Test support: the stalling FUSE file system (stallfs.h), a low-level
 * libfuse3 server of one directory and one file on a thread of the test.
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/stallfs.h"

#define FILE_SIZE 65536

static struct {
	struct fuse_session *se;
	pthread_t loop;
	char dir[64];
	char file[80];
	int release[2];
	int reads;
	bool stall;
	bool mounted;
	pid_t owner;
	char content[FILE_SIZE];
} sfs = { .release = { -1, -1 } };

static void sfs_attr(fuse_ino_t ino, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = FILE_SIZE;
	}
}

static void sfs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, "f")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = 2;
	sfs_attr(2, &e.attr);
	fuse_reply_entry(req, &e);
}

static void sfs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	sfs_attr(ino, &st);
	fuse_reply_attr(req, &st, 0);
}

static void sfs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	fuse_reply_open(req, fi);
}

static void sfs_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	char c;

	(void)ino;
	(void)fi;
	__atomic_add_fetch(&sfs.reads, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sfs.stall, __ATOMIC_SEQ_CST))
		while (read(sfs.release[0], &c, 1) < 0 && errno == EINTR)
			;
	if (off >= FILE_SIZE)
		size = 0;
	else if ((size_t)off + size > FILE_SIZE)
		size = FILE_SIZE - (size_t)off;
	fuse_reply_buf(req, sfs.content + (off < FILE_SIZE ? off : 0), size);
}

static void sfs_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	(void)ino;
	(void)buf;
	(void)off;
	(void)fi;
	fuse_reply_write(req, size);
}

static const struct fuse_lowlevel_ops sfs_ops = {
	.lookup = sfs_lookup,
	.getattr = sfs_getattr,
	.open = sfs_open,
	.read = sfs_read,
	.write = sfs_write,
};

/* Several threads: a read that blocks leaves the others served. */
static void *sfs_loop(void *arg)
{
	(void)arg;
	fuse_session_loop_mt(sfs.se, NULL);
	return NULL;
}

const char *stallfs_file(void)
{
	return sfs.file;
}

void stallfs_stall(void)
{
	__atomic_store_n(&sfs.stall, true, __ATOMIC_SEQ_CST);
}

void stallfs_release(void)
{
	__atomic_store_n(&sfs.stall, false, __ATOMIC_SEQ_CST);
	/* One byte for every read that may be blocked. */
	if (sfs.release[1] >= 0 && write(sfs.release[1], "xxxxxxxxxxxxxxxx", 16) < 0)
		return;
}

int stallfs_reads(void)
{
	return __atomic_load_n(&sfs.reads, __ATOMIC_SEQ_CST);
}

void stallfs_stop(void)
{
	if (!sfs.mounted || getpid() != sfs.owner)
		return;
	sfs.mounted = false;
	stallfs_release();
	/* Unmounting ends the connection, so the loop returns by itself. */
	fuse_session_exit(sfs.se);
	umount2(sfs.dir, MNT_DETACH);
	pthread_join(sfs.loop, NULL);
	fuse_session_unmount(sfs.se);
	fuse_session_destroy(sfs.se);
	rmdir(sfs.dir);
	close(sfs.release[0]);
	close(sfs.release[1]);
	sfs.release[0] = sfs.release[1] = -1;
}

int stallfs_start(const char *content)
{
	static bool registered;
	char *argv[] = { (char *)"stallfs", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	int r;

	if (sfs.mounted)
		return -EBUSY;
	memset(sfs.content, 0, sizeof(sfs.content));
	if (content)
		snprintf(sfs.content, sizeof(sfs.content), "%s", content);
	sfs.reads = 0;
	sfs.stall = false;
	if (pipe2(sfs.release, O_CLOEXEC))
		return -errno;
	snprintf(sfs.dir, sizeof(sfs.dir), "/tmp/ue-stallfs.XXXXXX");
	if (!mkdtemp(sfs.dir)) {
		r = -errno;
		goto fail_pipe;
	}
	snprintf(sfs.file, sizeof(sfs.file), "%s/f", sfs.dir);
	sfs.se = fuse_session_new(&args, &sfs_ops, sizeof(sfs_ops), NULL);
	fuse_opt_free_args(&args);
	if (!sfs.se || fuse_session_mount(sfs.se, sfs.dir)) {
		if (sfs.se)
			fuse_session_destroy(sfs.se);
		r = -EPERM;
		goto fail_dir;
	}
	if (pthread_create(&sfs.loop, NULL, sfs_loop, NULL)) {
		fuse_session_unmount(sfs.se);
		fuse_session_destroy(sfs.se);
		r = -EAGAIN;
		goto fail_dir;
	}
	sfs.mounted = true;
	sfs.owner = getpid();
	/* A failed test must not leave a dead mount behind. */
	if (!registered)
		registered = atexit(stallfs_stop) == 0;
	return 0;

fail_dir:
	rmdir(sfs.dir);
fail_pipe:
	close(sfs.release[0]);
	close(sfs.release[1]);
	sfs.release[0] = sfs.release[1] = -1;
	return r;
}
