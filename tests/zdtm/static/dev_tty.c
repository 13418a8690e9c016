/* /dev/tty opened by a session leader whose controlling terminal is a pty it holds: after restore the fd is
 * still /dev/tty and reaches the same terminal (its session, window size, and what is written comes out of
 * the master). */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct winsize ws = {.ws_row = 24, .ws_col = 99}, got;
	struct stat st;
	struct termios t;
	char buf[16];

	test_init(argc, argv);
	int s, m = pty_pair(O_RDWR | O_NOCTTY, O_RDWR, &s);
	if (m < 0)
		return fail("posix_openpt"), 1;
	int tty = open("/dev/tty", O_RDWR);
	if (tty < 0 || ioctl(s, TIOCSWINSZ, &ws) || tcgetattr(s, &t))
		return fail("open"), 1;
	cfmakeraw(&t);
	tcsetattr(s, TCSANOW, &t);
	close(s); /* the controlling terminal is reached through /dev/tty only */

	test_daemon();
	test_waitsig();

	if (fstat(tty, &st) || major(st.st_rdev) != 5 || minor(st.st_rdev) != 0)
		fail("fd is not /dev/tty (rdev %u:%u)", major(st.st_rdev), minor(st.st_rdev));
	if (tcgetsid(tty) != getpid())
		fail("/dev/tty: session %d, want %d", tcgetsid(tty), getpid());
	if (ioctl(tty, TIOCGWINSZ, &got) || got.ws_row != 24 || got.ws_col != 99)
		fail("window size %dx%d", got.ws_row, got.ws_col);
	struct pollfd p = {.fd = m, .events = POLLIN};
	if (write(tty, "via-tty", 7) != 7 || poll(&p, 1, 5000) != 1 || read(m, buf, sizeof(buf)) != 7 ||
	    memcmp(buf, "via-tty", 7))
		fail("what is written to /dev/tty does not come out of the master");
	pass();
	return 0;
}
