/* --external unix[INO] at dump, --inherit-fd fd[N]:socket:[INO] at restore: one end of a socketpair whose
 * peer is outside the tree (held by a keeper) is given back by the restore: fds 10, 11 (FD_CLOEXEC) and a
 * child's fd 10 are still that socket, with the data its peer sent before the dump still queued, and still
 * connected to the peer. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int sk[2];
	char key[64], ext[64];
	struct stat st0;
	test_init(argc, argv);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sk) || write(sk[1], "hello", 5) != 5 || fstat(sk[0], &st0)) {
		fail("socketpair");
		return 1;
	}
	snprintf(key, sizeof(key), "socket:[%lu]", (unsigned long)st0.st_ino);
	snprintf(ext, sizeof(ext), "unix[%lu]", (unsigned long)st0.st_ino);
	if (inhfd_run(sk[0], sk[1], key, ext, NULL, "socket") ||
	    inhfd_expect("hello", 5, "the data queued by the peer"))
		return 1;
	if (send(INHFD_FD, "bye", 3, MSG_NOSIGNAL) != 3) {
		fail("send to the peer");
		return 1;
	}
	inhfd_stop();
	pass();
	return 0;
}
