/* A session leader whose controlling terminal is a pty held only outside the tree: it opened the slave as
 * its terminal and closed it, and the master is held by a keeper that is no process of the tree (a
 * grandchild whose parent exited, adopted by the runner's reaper). The restore could not give the terminal
 * back, so the dump must refuse with one line and leave the task running (fd_unsupported.sh --test
 * pty_ctty_outside, noauto). Without C/R: the terminal is still ours after SIGTERM. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

static long tty_nr(void)
{
	char *buf = NULL;
	long nr = -1;
	if (read_file("/proc/self/stat", &buf) > 0) {
		char *p = strrchr(buf, ')');
		int f = 2;
		for (; p && *p && f < 7; p++)
			if (*p == ' ')
				f++;
		if (p)
			nr = strtol(p, NULL, 10);
	}
	free(buf);
	return nr;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	pid_t me = getpid();
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		fail("posix_openpt");
	pid_t c = fork();
	if (c == 0) { /* the keeper: a grandchild, outside the tree once its parent is gone */
		if (fork())
			_exit(0);
		test_forked();
		for (int fd = 0; fd < 1024; fd++)
			if (fd != m)
				close(fd);
		while (kill(me, 0) == 0)
			usleep(100000);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	int s = open(ptsname(m), O_RDWR); /* becomes our controlling terminal */
	close(m);
	long nr0 = tty_nr();
	if (s < 0 || nr0 <= 0)
		fail("no controlling terminal (tty_nr %ld)", nr0);
	close(s);
	test_daemon();
	test_waitsig();
	if (tty_nr() != nr0)
		fail("controlling terminal %ld, was %ld", tty_nr(), nr0);
	return test_pass();
}
