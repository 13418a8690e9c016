/* Canonical mode with ECHO on (ECHOE, ICRNL, OPOST|ONLCR): the master typed "ab<DEL>c\r" and a partial
 * "de" and read nothing. Queued: for the slave the line "ac\n" and the partial "de"; for the master the
 * echo "ab\b \bc\r\nde". After restore both read the same, nothing is echoed a second time, the partial
 * line ends with the next '\n' (whose echo alone comes), and the termios is the same. */
#include <stdio.h>
#include "ptyq.h"

int main(int argc, char **argv)
{
	int m, s;
	struct termios want, got;
	static const char echo[] = "ab\b \bc\r\nde";

	test_init(argc, argv);
	if (ptyq_open(&m, &s, O_NONBLOCK))
		return fail("pty pair"), 1;
	tcgetattr(s, &want);
	want.c_lflag |= ICANON | ECHO | ECHOE;
	want.c_iflag |= ICRNL;
	want.c_oflag |= OPOST | ONLCR;
	want.c_cc[VERASE] = 0x7f;
	if (tcsetattr(s, TCSANOW, &want) || tcgetattr(s, &want))
		return fail("tcsetattr"), 1;
	if (write(m,
		  "ab\x7f"
		  "c\rde",
		  7) != 7)
		return fail("write to the master"), 1;
	ptyq_wait_inq(m, (int)sizeof(echo) - 1);

	test_daemon();
	test_waitsig();

	if (tcgetattr(s, &got) || !ptyq_same_termios(&want, &got))
		fail("termios changed: lflag %#x/%#x", (unsigned)got.c_lflag, (unsigned)want.c_lflag);
	ptyq_expect(m, echo, sizeof(echo) - 1, 0, "the echo on the master");
	ptyq_line(s, "ac\n", 3, "the line");
	if (ptyq_ready(s, 200))
		fail("the partial line is readable before its end");
	if (write(m, "\r", 1) != 1)
		fail("write the end of the partial line");
	ptyq_line(s, "de\n", 3, "the partial line, ended");
	ptyq_expect(m, "\r\n", 2, 0, "the echo of the end");
	pass();
	return 0;
}
