/* Input queued for a pty's slave in canonical mode (ECHO off): complete lines ended by '\n' (one typed as
 * '\r', made '\n' by ICRNL), VEOL (';'), VEOF (a line and an empty one), and a partial line edited with
 * VERASE. After restore the slave reads the same lines one by one, the partial line is still not readable
 * until a '\n' comes, nothing was echoed to the master, and the termios is the same. */
#include <stdio.h>
#include "ptyq.h"

int main(int argc, char **argv)
{
	int m, s;
	struct termios want, got;

	test_init(argc, argv);
	if (ptyq_open(&m, &s, O_NONBLOCK))
		return fail("pty pair"), 1;
	tcgetattr(s, &want);
	want.c_lflag |= ICANON;
	want.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	want.c_iflag |= ICRNL;
	want.c_cc[VEOL] = ';';
	want.c_cc[VERASE] = 0x7f;
	want.c_cc[VEOF] = 0x04;
	if (tcsetattr(s, TCSANOW, &want) || tcgetattr(s, &want))
		return fail("tcsetattr"), 1;
	static const char typed[] = "first line\nsecond\rthird\x04\x04semi;parx\x7ftial";
	if (write(m, typed, sizeof(typed) - 1) != (ssize_t)sizeof(typed) - 1)
		return fail("write to the master"), 1;
	ptyq_wait_inq(s, 11 + 7 + 5 + 5);
	usleep(100000); /* the partial line, received after the lines */

	test_daemon();
	test_waitsig();

	if (tcgetattr(s, &got) || !ptyq_same_termios(&want, &got))
		fail("termios changed: lflag %#x/%#x iflag %#x/%#x", (unsigned)got.c_lflag,
		     (unsigned)want.c_lflag, (unsigned)got.c_iflag, (unsigned)want.c_iflag);
	ptyq_line(s, "first line\n", 11, "line 1");
	ptyq_line(s, "second\n", 7, "line 2 (ICRNL)");
	ptyq_line(s, "third", 5, "line 3 (VEOF)");
	ptyq_line(s, "", 0, "line 4 (VEOF alone)");
	ptyq_line(s, "semi;", 5, "line 5 (VEOL)");
	if (ptyq_ready(s, 200))
		fail("the partial line is readable before its end");
	if (ptyq_ready(m, 0))
		fail("the master has something to read (an echo)");
	if (write(m, "\n", 1) != 1)
		fail("write the end of the partial line");
	ptyq_line(s, "partial\n", 8, "the partial line");
	if (ptyq_ready(m, 100))
		fail("the master has something to read (an echo)");
	pass();
	return 0;
}
