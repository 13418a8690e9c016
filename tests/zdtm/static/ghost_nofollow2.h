/* Shared by ghost_nofollow_dir2 and ghost_nofollow_file2 (a ghost held by the test and, O_NOFOLLOW, by a
 * forked child). */
#ifndef ZDTM_GHOST_NOFOLLOW2_H
#define ZDTM_GHOST_NOFOLLOW2_H
#include <stdbool.h>
#include <unistd.h>
#include "zdtmtst.h"

/* The test's copy of the child's fd cfd closed and path removed (rmdir if dir, else unlink), C/R waited for,
 * then the test's own fd checked: check(fd, want, name), 0 if it has the flags want and is named name. */
static inline void nofollow2_remove_cr(int cfd, const char *path, bool dir, int fd,
				       int (*check)(int fd, long want, const char *name), long want,
				       const char *name)
{
	close(cfd);
	if (dir ? rmdir(path) : unlink(path))
		fail("remove %s", path);
	test_daemon();
	test_waitsig();
	if (check(fd, want, name))
		fail("the test's fd %d", fd);
}

#endif
