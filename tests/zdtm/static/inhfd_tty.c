/* --external tty[RDEV:DEV] at dump, --inherit-fd fd[N]:tty[RDEV:DEV] at restore: the slave of a pty whose
 * master is outside the tree (held by a keeper), and the controlling terminal of the test's session, is given
 * back by the restore: fds 10, 11 (FD_CLOEXEC) and a child's fd 10 are still that terminal (same rdev and
 * devpts), with the line the master typed before the dump still to be read, and it is again the controlling
 * terminal of the session (/dev/tty) with the test's group in the foreground (like a container's console). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "zdtmtst.h"

int main(int argc, char **argv)
{
	char key[64];
	struct stat st0;
	test_init(argc, argv);
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m)) {
		fail("posix_openpt");
		return 1;
	}
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0 || write(m, "hello\n", 6) != 6 || fstat(s, &st0)) {
		fail("open the slave");
		return 1;
	}
	if (ioctl(s, TIOCSCTTY, 0)) {
		fail("make it the controlling terminal");
		return 1;
	}
	snprintf(key, sizeof(key), "tty[%lx:%lx]", (unsigned long)st0.st_rdev, (unsigned long)st0.st_dev);
	if (inhfd_run(s, m, key, key, NULL, "terminal"))
		return 1;
	/* tcgetsid: fd 10 must be the controlling terminal of the caller (ENOTTY otherwise) */
	int t = open("/dev/tty", O_RDWR | O_NOCTTY);
	if (t < 0 || tcgetsid(INHFD_FD) != getpid() || tcgetpgrp(INHFD_FD) != getpgrp()) {
		fail("not the controlling terminal of the session any more (or not in the foreground)");
		return 1;
	}
	close(t);
	if (inhfd_expect("hello\n", 6, "the line typed before the dump"))
		return 1;
	signal(SIGHUP, SIG_IGN); /* the keeper closes the master: a hangup of our controlling terminal */
	inhfd_stop();
	pass();
	return 0;
}
