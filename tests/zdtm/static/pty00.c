/* A pty pair inside the task (master O_NONBLOCK, slave, a dup of the slave, a second open of the slave with
 * other flags): after restore still one pair (the master's index is the slave's), same termios (raw-ish
 * flags, changed control characters, speed), same fd flags; data flows both ways through the pair.
 * Data queued in a pty at dump time: pty_queue_*. */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>
#include "zdtmtst.h"

static int same_termios(const struct termios *a, const struct termios *b)
{
	return a->c_iflag == b->c_iflag && a->c_oflag == b->c_oflag && a->c_cflag == b->c_cflag &&
	       a->c_lflag == b->c_lflag && !memcmp(a->c_cc, b->c_cc, NCCS) &&
	       cfgetospeed(a) == cfgetospeed(b) && cfgetispeed(a) == cfgetispeed(b);
}

static int pty_index(int master)
{
	unsigned n;
	return ioctl(master, TIOCGPTN, &n) ? -1 : (int)n;
}

int main(int argc, char **argv)
{
	struct termios want, got;
	struct stat st;
	char buf[64];

	test_init(argc, argv);
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return fail("posix_openpt"), 1;
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	int s2 = open(ptsname(m), O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	int sd = dup(s);
	if (s < 0 || s2 < 0 || sd < 0)
		return fail("open the slave"), 1;
	tcgetattr(s, &want);
	want.c_lflag &= ~(ECHO | ICANON | ISIG);
	want.c_iflag &= ~ICRNL;
	want.c_iflag |= IXANY;
	want.c_oflag &= ~OPOST;
	want.c_cc[VMIN] = 1;
	want.c_cc[VTIME] = 0;
	want.c_cc[VINTR] = 0x01;
	want.c_cc[VEOF] = 0x02;
	cfsetospeed(&want, B9600);
	cfsetispeed(&want, B4800);
	if (tcsetattr(s, TCSANOW, &want) || tcgetattr(s, &want))
		return fail("tcsetattr"), 1;
	int idx = pty_index(m);
	test_msg("pty %d: master %d slave %d %d %d\n", idx, m, s, s2, sd);

	test_daemon();
	test_waitsig();

	if (fstat(s, &st) || !S_ISCHR(st.st_mode) || (int)minor(st.st_rdev) != pty_index(m) % 256)
		fail("the slave (rdev %u:%u) is not the master's pty %d", major(st.st_rdev),
		     minor(st.st_rdev), pty_index(m));
	if (pty_index(m) != idx)
		test_msg("pty index %d -> %d\n", idx, pty_index(m));
	if (tcgetattr(s2, &got) || !same_termios(&want, &got))
		fail("termios changed: lflag %#x/%#x iflag %#x/%#x VINTR %d", (unsigned)got.c_lflag,
		     (unsigned)want.c_lflag, (unsigned)got.c_iflag, (unsigned)want.c_iflag, got.c_cc[VINTR]);
	if (fcntl(m, F_GETFL) != (O_RDWR | O_NONBLOCK | O_LARGEFILE) &&
	    (fcntl(m, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) != (O_RDWR | O_NONBLOCK))
		fail("master flags %#o", fcntl(m, F_GETFL));
	if ((fcntl(s2, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) != (O_RDONLY | O_NONBLOCK) ||
	    !(fcntl(s2, F_GETFD) & FD_CLOEXEC))
		fail("second slave open: flags %#o fd flags %d", fcntl(s2, F_GETFL), fcntl(s2, F_GETFD));
	if (fcntl(s, F_GETFL) & O_NONBLOCK)
		fail("slave became non-blocking");
	/* dup'ed slave fds share the description, the second open does not */
	fcntl(sd, F_SETFL, O_NONBLOCK);
	if (!(fcntl(s, F_GETFL) & O_NONBLOCK) || (fcntl(s2, F_GETFL) & O_NONBLOCK) == 0)
		fail("dup'ed slave fds do not share their flags");
	fcntl(sd, F_SETFL, 0);
	if (write(m, "to-slave", 8) != 8 || read_exact(s, buf, 8, 5000) || memcmp(buf, "to-slave", 8))
		fail("master -> slave");
	if (write(sd, "to-master\n", 10) != 10 || read_exact(m, buf, 10, 5000) ||
	    memcmp(buf, "to-master\n", 10))
		fail("slave -> master (OPOST off: no CR added)");
	pass();
	return 0;
}
