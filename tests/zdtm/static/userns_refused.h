/* The tests of what a tree in a user namespace of its own cannot be dumped with yet (userns_refused_*): the
 * test enters a user namespace of its own (uid and gid 0 mapped to root's, setgroups denied), then makes
 * what the dump must refuse. The dump must fail with one line naming it (.desc dump-expect), the tree left
 * running unchanged (the runner checks); after the runner's SIGTERM the test still runs in its namespaces. */
#ifndef USERNS_REFUSED_H
#define USERNS_REFUSED_H

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

static inline void uref_write(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, v, strlen(v)) != (ssize_t)strlen(v))
		fail("setup: write %s", path);
	if (fd >= 0)
		close(fd);
}

/* A user namespace of our own; its inode. */
static inline unsigned long uref_enter(void)
{
	struct stat st;
	if (unshare(CLONE_NEWUSER))
		test_skip("unshare(CLONE_NEWUSER): %m");
	uref_write("/proc/self/setgroups", "deny");
	uref_write("/proc/self/uid_map", "0 0 1");
	uref_write("/proc/self/gid_map", "0 0 1");
	return stat("/proc/self/ns/user", &st) ? 0 : (unsigned long)st.st_ino;
}

/* Ready; after the refused dump (the runner's SIGTERM): still in the same user namespace, then what check
 * says (NULL: nothing more); pass. */
static inline int uref_done(unsigned long ino, void (*check)(void))
{
	struct stat st;
	test_daemon();
	test_waitsig();
	if (stat("/proc/self/ns/user", &st) || (unsigned long)st.st_ino != ino)
		fail("not in our user namespace any more");
	if (check)
		check();
	if (!test_failures)
		pass();
	return 0;
}

#endif
