/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fdpass: descriptors sent with a message and taken from one (SCM_RIGHTS),
 * for the two conversations that carry them: an upgrade's (upgrade.c) and
 * a keeper's (keeper.c).
 */
#ifndef UE_DAEMON_FDPASS_H
#define UE_DAEMON_FDPASS_H

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Room for @n descriptors and the sender's credentials. */
#define UE_FDPASS_SPACE(n) (CMSG_SPACE(sizeof(int) * (n)) + CMSG_SPACE(sizeof(struct ucred)))

/* @n descriptors (none: nothing) into @mh, in @cbuf of UE_FDPASS_SPACE(n) bytes or more. */
static inline void ue_fdpass_attach(struct msghdr *mh, void *cbuf, const int *fds, unsigned int n)
{
	struct cmsghdr *c;

	if (!n)
		return;
	memset(cbuf, 0, CMSG_SPACE(sizeof(int) * n));
	mh->msg_control = cbuf;
	mh->msg_controllen = CMSG_SPACE(sizeof(int) * n);
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
}

/*
 * The descriptors a received @mh carries, appended at @fds + *@nfds up to
 * @max (NULL @fds: none wanted); the others are closed.  The sender's
 * credentials into @cred when it is not NULL and they came (SO_PASSCRED).
 * Return: whether credentials came.
 */
static inline bool ue_fdpass_take(struct msghdr *mh, int *fds, unsigned int *nfds, unsigned int max,
				  struct ucred *cred)
{
	bool have_cred = false;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		unsigned int k;

		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_CREDENTIALS && cred) {
			memcpy(cred, CMSG_DATA(c), sizeof(*cred));
			have_cred = true;
			continue;
		}
		if (c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (unsigned int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned int i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fds && *nfds < max)
				fds[(*nfds)++] = fd;
			else
				close(fd);
		}
	}
	return have_cred;
}

#endif /* UE_DAEMON_FDPASS_H */
