/* Echoes held back by a stopped pty slave are kept, in order. A (canonical, ECHO, OPOST|ONLCR): the slave
 * wrote "out\n", its output was stopped with tcflow(TCOOFF), then "hi\n" was typed on the master: its echo
 * "hi\r\n" waits behind the stop. B (raw but ECHO, IXON): ^S typed, then "ab": echo "ab" held. After
 * restore A's master reads "out\r\n" and nothing more, A's slave reads the line "hi\n"; after TCOON a write
 * of "z" by the slave comes after the echo ("hi\r\nz"). B's master reads nothing until VSTART is typed, then
 * "ab"; B's slave reads "ab". Before, the echoes were lost (restore) or put ahead of the output (dump). */
#include "ptyq.h"

int main(int argc, char **argv)
{
	int am, as, bm, bs;
	struct termios t;

	test_init(argc, argv);
	if (ptyq_open(&am, &as, O_NONBLOCK) || ptyq_open(&bm, &bs, O_NONBLOCK) || tcgetattr(as, &t))
		return fail("pty pairs"), 1;
	t.c_lflag |= ECHO | ICANON;
	t.c_oflag |= OPOST | ONLCR;
	t.c_iflag &= ~(tcflag_t)(IXON | IXANY);
	if (tcsetattr(as, TCSANOW, &t))
		return fail("A's termios"), 1;
	cfmakeraw(&t);
	t.c_lflag |= ECHO;
	t.c_iflag |= IXON;
	t.c_cc[VSTOP] = 0x13, t.c_cc[VSTART] = 0x11;
	if (tcsetattr(bs, TCSANOW, &t))
		return fail("B's termios"), 1;
	if (write(as, "out\n", 4) != 4)
		return fail("A: write"), 1;
	ptyq_wait_inq(am, 5);
	if (tcflow(as, TCOOFF) || write(am, "hi\n", 3) != 3)
		return fail("A: stop, type"), 1;
	ptyq_wait_inq(as, 3);
	if (write(bm, "\x13", 1) != 1 || !ptyq_wait_stopped(bs) || write(bm, "ab", 2) != 2)
		return fail("B: ^S, type"), 1;
	ptyq_wait_inq(bs, 2);

	test_daemon();
	test_waitsig();

	ptyq_expect(am, "out\r\n", 5, 0, "A's master");
	ptyq_line(as, "hi\n", 3, "A's slave");
	if (ptyq_writable(as, 0) || tcflow(as, TCOON) || !ptyq_writable(as, 2000) || write(as, "z", 1) != 1)
		fail("A's slave: not stopped, or TCOON did not start it");
	ptyq_expect(am, "hi\r\nz", 5, 0, "A's master after TCOON");
	if (ptyq_writable(bs, 0) || ptyq_ready(bm, 200))
		fail("B: runs, or its master has bytes");
	if (write(bm, "\x11", 1) != 1 || !ptyq_writable(bs, 2000))
		fail("B: VSTART did not start it");
	ptyq_expect(bm, "ab", 2, 0, "B's master after VSTART");
	ptyq_expect(bs, "ab", 2, 0, "B's slave");
	pass();
	return 0;
}
