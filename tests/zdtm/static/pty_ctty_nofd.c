/* A session leader whose controlling terminal is a pty of the tree, though it holds no fd of it (it opened
 * the slave, took it as its terminal and closed it; the master is in its parent, in another session). After
 * restore it still has it: /dev/tty opens the same pty, tcgetsid names it, its group is in the foreground,
 * and when the parent closes the master the child gets SIGHUP. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

static volatile sig_atomic_t hup;
static void on_hup(int s)
{
	(void)s;
	hup = 1;
}

/* Our controlling terminal's device number (tty_nr, field 7 of /proc/self/stat). */
static dev_t tty_nr(void)
{
	char buf[512];
	int nr = 0, fd = open("/proc/self/stat", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *q = strrchr(buf, ')');
	if (!q || sscanf(q + 2, "%*c %*d %*d %*d %d", &nr) != 1)
		return 0;
	return makedev(((unsigned)nr >> 8) & 0xfff, ((unsigned)nr & 0xff) | (((unsigned)nr >> 12) & 0xfff00));
}

/* Exit codes: 0 all kept, 10+ what was lost (the parent names it). */
static int child(const char *name, dev_t rdev, int ready)
{
	signal(SIGHUP, on_hup);
	if (setsid() < 0)
		return 1;
	int s = open(name, O_RDWR);
	if (s < 0 || ioctl(s, TIOCSCTTY, 0))
		return 2;
	close(s);
	if (write(ready, "r", 1) != 1)
		return 3;
	close(ready);
	test_waitsig(); /* the parent's SIGTERM after restore */
	int t = open("/dev/tty", O_RDWR | O_NOCTTY);
	if (t < 0)
		return 10;
	if (tty_nr() != rdev)
		return 11;
	if (tcgetsid(t) != getpid())
		return 12;
	if (tcgetpgrp(t) != getpid())
		return 13;
	close(t);
	/* tell the parent to close the master, then wait for the hangup */
	kill(getppid(), SIGUSR1);
	for (int i = 0; i < 100 && !hup; i++)
		usleep(100000);
	return hup ? 0 : 14;
}

static volatile sig_atomic_t go;
static void on_usr1(int s)
{
	(void)s;
	go = 1;
}

int main(int argc, char **argv)
{
	static const char *lost[] = {
	    "/dev/tty cannot be opened (no controlling terminal)",
	    "its controlling terminal (tty_nr) is another device", "tcgetsid does not name the child",
	    "the child's group is not in the foreground", "no SIGHUP when the master closed"};
	int p[2], st;
	struct stat sst;

	test_init(argc, argv);
	signal(SIGUSR1, on_usr1);
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || pipe(p))
		return fail("posix_openpt"), 1;
	char *name = strdup(ptsname(m));
	if (!name || stat(name, &sst))
		return fail("stat %s", name ? name : "?"), 1;
	pid_t pid = test_fork();
	if (pid == 0) {
		close(m);
		close(p[0]);
		_exit(child(name, sst.st_rdev, p[1]));
	}
	if (child_started(p))
		return fail("child %d did not start", pid), 1;

	test_daemon();
	test_waitsig();

	kill(pid, SIGTERM);
	for (int i = 0; i < 100 && !go; i++)
		usleep(100000);
	close(m);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		fail("child status %#x", st);
	else if (WEXITSTATUS(st) >= 10 && WEXITSTATUS(st) <= 14)
		fail("child: %s", lost[WEXITSTATUS(st) - 10]);
	else if (WEXITSTATUS(st))
		fail("child exit %d", WEXITSTATUS(st));
	else
		pass();
	return 0;
}
