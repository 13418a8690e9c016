/* --inherit-fd fd[N]:pipe:[INO]: the read end of a pipe whose write end is outside the tree (held by a keeper
 * with data in flight) is given back by the restore: after restore fds 10, 11 (FD_CLOEXEC) and a child's fd
 * 10 are still that pipe (same inode), with the data still in it. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int p[2];
	char key[64];
	struct stat st0;
	test_init(argc, argv);
	if (pipe(p) || write(p[1], "hello", 5) != 5 || fstat(p[0], &st0)) {
		fail("pipe");
		return 1;
	}
	snprintf(key, sizeof(key), "pipe:[%lu]", (unsigned long)st0.st_ino);
	if (inhfd_run(p[0], p[1], key, NULL, NULL, "pipe") ||
	    inhfd_expect("hello", 5, "the data in the pipe"))
		return 1;
	inhfd_stop();
	pass();
	return 0;
}
