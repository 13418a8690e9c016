/* Output queued for a pty's master: the slave wrote (OPOST|ONLCR: '\n' becomes "\r\n") and the master did
 * not read. Two pairs: one with the master in packet mode (TIOCPKT: each read starts with TIOCPKT_DATA),
 * whose slave also has input queued (IXON on: the termios changes while it goes back must leave no packet
 * status behind). A third pair has nothing queued (canonical). After restore each master reads exactly the
 * same bytes, then nothing more; packet mode still on, no status; data still flows; the termios is the same.
 */
#include <stdio.h>
#include "ptyq.h"

static const char said[] = "hello\nworld, not ended";
static const char seen[] = "hello\r\nworld, not ended";

int main(int argc, char **argv)
{
	int m, s, pm, ps, im, is, one = 1, v = 0;
	struct termios want, got;

	test_init(argc, argv);
	if (ptyq_open(&m, &s, 0) || ptyq_open(&pm, &ps, O_NONBLOCK) || ptyq_open(&im, &is, 0))
		return fail("pty pairs"), 1;
	if (ioctl(pm, TIOCPKT, &one))
		return fail("TIOCPKT"), 1;
	tcgetattr(s, &want);
	want.c_oflag |= OPOST | ONLCR;
	want.c_iflag |= IXON;
	want.c_lflag |= ICANON;
	want.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	if (tcsetattr(s, TCSANOW, &want) || tcsetattr(ps, TCSANOW, &want) || tcsetattr(is, TCSANOW, &want) ||
	    tcgetattr(s, &want))
		return fail("tcsetattr"), 1;
	if (write(s, said, sizeof(said) - 1) != (ssize_t)sizeof(said) - 1 ||
	    write(ps, said, sizeof(said) - 1) != (ssize_t)sizeof(said) - 1)
		return fail("write to the slaves"), 1;
	ptyq_wait_inq(m, (int)sizeof(seen) - 1);
	ptyq_wait_inq(pm, (int)sizeof(seen) - 1);
	if (write(pm, "typed\npart", 10) != 10)
		return fail("write to the packet mode master"), 1;
	ptyq_wait_inq(ps, 6);

	test_daemon();
	test_waitsig();

	if (tcgetattr(s, &got) || !ptyq_same_termios(&want, &got) || tcgetattr(ps, &got) ||
	    !ptyq_same_termios(&want, &got) || tcgetattr(is, &got) || !ptyq_same_termios(&want, &got))
		fail("termios changed");
	struct pollfd pp = {.fd = pm, .events = POLLPRI};
	if (poll(&pp, 1, 0) == 1 && (pp.revents & POLLPRI))
		fail("a packet mode status is pending");
	if (ioctl(pm, TIOCGPKT, &v) || !v)
		fail("packet mode lost");
	ptyq_expect(m, seen, sizeof(seen) - 1, 0, "master");
	ptyq_expect(pm, seen, sizeof(seen) - 1, 1, "packet mode master");
	ptyq_line(ps, "typed\n", 6, "packet mode pair: the slave's line");
	if (write(pm, "\n", 1) != 1)
		fail("write to the packet mode master");
	ptyq_line(ps, "part\n", 5, "packet mode pair: the partial line");
	if (write(ps, "x\n", 2) != 2)
		fail("write to the slave");
	ptyq_expect(pm, "x\r\n", 3, 1, "packet mode master, after restore");
	if (ptyq_ready(s, 0) || ptyq_ready(ps, 0) || ptyq_ready(im, 0) || ptyq_ready(is, 0))
		fail("a slave has something to read");
	pass();
	return 0;
}
