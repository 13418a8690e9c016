/* A pty between two processes: the master in the parent, the slave in a child that leads its own session
 * with the slave as its controlling terminal (raw mode). After restore the child still has it as its
 * controlling terminal (tcgetsid, tcgetpgrp, /dev/tty), the termios are kept, and the parent and the child
 * talk through the pair. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

/* The child: checks its terminal, answers "ok" or the first problem (padded to 32 bytes). */
static int child(const char *name, int ready)
{
	char reply[32] = "ok", buf[4];
	struct termios t;
	if (setsid() < 0)
		return 1;
	int s = open(name, O_RDWR); /* no O_NOCTTY: becomes our controlling terminal */
	if (s < 0 || tcgetsid(s) != getpid())
		return 2;
	tcgetattr(s, &t);
	cfmakeraw(&t);
	t.c_cc[VSTART] = 0x05;
	if (tcsetattr(s, TCSANOW, &t))
		return 3;
	if (write(ready, "r", 1) != 1)
		return 4;
	close(ready);
	test_waitsig();
	struct termios now;
	int tty = open("/dev/tty", O_RDWR);
	if (tcgetsid(s) != getpid())
		snprintf(reply, sizeof(reply), "no ctty (sid %d)", tcgetsid(s));
	else if (tcgetpgrp(s) != getpid())
		snprintf(reply, sizeof(reply), "fg pgrp %d", tcgetpgrp(s));
	else if (tty < 0)
		snprintf(reply, sizeof(reply), "/dev/tty: errno %d", errno);
	else if (tcgetattr(s, &now) || now.c_lflag != t.c_lflag || now.c_cc[VSTART] != 0x05)
		snprintf(reply, sizeof(reply), "termios lost");
	if (read_exact(s, buf, 4, 10000) || memcmp(buf, "ping", 4))
		snprintf(reply, sizeof(reply), "no ping");
	return write(s, reply, sizeof(reply)) == sizeof(reply) ? 0 : 5;
}

int main(int argc, char **argv)
{
	int p[2];
	char reply[33] = "";

	test_init(argc, argv);
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) || pipe(p))
		return fail("posix_openpt"), 1;
	char *name = strdup(ptsname(m));
	pid_t pid = test_fork();
	if (pid == 0) {
		close(m);
		close(p[0]);
		_exit(child(name, p[1]));
	}
	if (child_started(p))
		return fail("child %d did not start", pid), 1;

	test_daemon();
	test_waitsig();

	kill(pid, SIGTERM);
	if (write(m, "ping", 4) != 4 || read_exact(m, reply, 32, 10000))
		fail("no reply from the child through the pty");
	else if (strcmp(reply, "ok"))
		fail("child: %s", reply);
	child_exit_ok(pid, NULL);
	pass();
	return 0;
}
