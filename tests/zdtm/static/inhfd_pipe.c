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
	int p[2], n = 0;
	char key[64], buf[16] = "";
	struct stat st0;
	test_init(argc, argv);
	if (pipe(p) || write(p[1], "hello", 5) != 5 || fstat(p[0], &st0)) {
		fail("pipe");
		return 1;
	}
	snprintf(key, sizeof(key), "pipe:[%lu]", (unsigned long)st0.st_ino);
	if (inhfd_keeper(p[0], p[1], key, NULL, NULL)) {
		fail("start the keeper");
		return 1;
	}
	close(p[1]);
	pid_t child = inhfd_hold(p[0], &st0);
	if (child < 0) {
		fail("hold the pipe");
		return 1;
	}
	test_daemon();
	test_waitsig();
	if (inhfd_check(child, &st0))
		return 1;
	if (ioctl(INHFD_FD, FIONREAD, &n) || n != 5 || read(INHFD_FD, buf, 5) != 5 ||
	    memcmp(buf, "hello", 5)) {
		fail("the data in the pipe: %d bytes, '%.5s'", n, buf);
		return 1;
	}
	inhfd_stop();
	pass();
	return 0;
}
