/* Pty state besides termios: the window size (rows, cols, pixels), packet mode on the master (reads start
 * with a status byte), exclusive mode on the slave (TIOCEXCL), and a second pty whose slave is still locked
 * (no unlockpt): all the same after restore, and the pair still carries data in packet mode. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

static int getint(int fd, unsigned long req)
{
	int v = -1;
	return ioctl(fd, req, &v) ? -1 : v;
}

int main(int argc, char **argv)
{
	struct winsize want = {.ws_row = 37, .ws_col = 121, .ws_xpixel = 968, .ws_ypixel = 555}, got;
	struct termios t;
	char buf[64];

	test_init(argc, argv);
	int s, m = pty_pair(O_RDWR | O_NOCTTY, O_RDWR | O_NOCTTY, &s);
	if (m < 0)
		return fail("posix_openpt"), 1;
	int locked = posix_openpt(O_RDWR | O_NOCTTY); /* never unlocked */
	int one = 1;
	if (locked < 0)
		return fail("open"), 1;
	tcgetattr(s, &t);
	cfmakeraw(&t);
	if (tcsetattr(s, TCSANOW, &t) || ioctl(s, TIOCSWINSZ, &want) || ioctl(m, TIOCPKT, &one) ||
	    ioctl(s, TIOCEXCL))
		return fail("set up the pty"), 1;
	if (getint(m, TIOCGPKT) != 1 || getint(s, TIOCGEXCL) != 1 || getint(locked, TIOCGPTLCK) != 1 ||
	    getint(m, TIOCGPTLCK) != 0)
		return fail("state not as set before the dump"), 1;

	test_daemon();
	test_waitsig();

	if (ioctl(m, TIOCGWINSZ, &got) || memcmp(&got, &want, sizeof(got)))
		fail("window size %dx%d (%dx%d px), want %dx%d (%dx%d px)", got.ws_row, got.ws_col,
		     got.ws_xpixel, got.ws_ypixel, want.ws_row, want.ws_col, want.ws_xpixel, want.ws_ypixel);
	if (getint(m, TIOCGPKT) != 1)
		fail("packet mode lost (%d)", getint(m, TIOCGPKT));
	if (getint(s, TIOCGEXCL) != 1)
		fail("exclusive mode lost (%d)", getint(s, TIOCGEXCL));
	if (getint(locked, TIOCGPTLCK) != 1)
		fail("the locked pty is unlocked (%d)", getint(locked, TIOCGPTLCK));
	if (getint(m, TIOCGPTLCK) != 0)
		fail("the unlocked pty is locked");
	if (write(s, "pkt", 3) != 3)
		fail("write the slave");
	struct pollfd p = {.fd = m, .events = POLLIN};
	ssize_t n = poll(&p, 1, 5000) == 1 ? read(m, buf, sizeof(buf)) : -1;
	if (n != 4 || buf[0] != TIOCPKT_DATA || memcmp(buf + 1, "pkt", 3))
		fail("packet mode read: %zd bytes, first %d", n, n > 0 ? buf[0] : -1);
	pass();
	return 0;
}
