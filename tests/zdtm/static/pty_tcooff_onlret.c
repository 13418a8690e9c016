/* A pty slave stopped by tcflow(TCOOFF), with ECHO and OPOST|ONLRET, a typed "hi" echo held back behind the
 * stop: echoes held back cannot be made again exactly under ONLRET (or OCRNL, ONOCR, XTABS: they change the
 * bytes again), so the dump must refuse with one line (dump-expect) and leave the pair as it was: the slave
 * still stopped with its termios, its master holding only "out\n" (written before the stop), the slave's
 * line "hi\n" to read; after TCOON the slave's next write "z" comes after the held echo ("hi\nz"). Before
 * bb975e1's refusal the dump lost the echo or sent it ahead of the output. */
#include "ptyq.h"

int main(int argc, char **argv)
{
	int m, s;
	struct termios t, t2;

	test_init(argc, argv);
	if (ptyq_open(&m, &s, O_NONBLOCK) || tcgetattr(s, &t))
		return fail("pty pair"), 1;
	t.c_lflag |= ECHO | ICANON;
	t.c_oflag |= OPOST | ONLRET;
	t.c_oflag &= ~(tcflag_t)ONLCR;
	t.c_iflag &= ~(tcflag_t)(IXON | IXANY);
	if (tcsetattr(s, TCSANOW, &t) || tcgetattr(s, &t))
		return fail("termios"), 1;
	if (write(s, "out\n", 4) != 4)
		return fail("write"), 1;
	ptyq_wait_inq(m, 4);
	if (tcflow(s, TCOOFF) || write(m, "hi\n", 3) != 3)
		return fail("stop, type"), 1;
	ptyq_wait_inq(s, 3);

	test_daemon();
	test_waitsig();

	if (tcgetattr(s, &t2) || !ptyq_same_termios(&t, &t2))
		fail("termios changed");
	ptyq_expect(m, "out\n", 4, 0, "master");
	ptyq_line(s, "hi\n", 3, "slave");
	if (ptyq_writable(s, 0) || tcflow(s, TCOON) || !ptyq_writable(s, 2000) || write(s, "z", 1) != 1)
		fail("not stopped, or TCOON did not start it");
	ptyq_expect(m, "hi\nz", 4, 0, "master after TCOON and a write");
	pass();
	return 0;
}
