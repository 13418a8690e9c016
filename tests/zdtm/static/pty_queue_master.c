/* A pty whose slave the tree closed: the master holds what the slave wrote before closing, and what the
 * master wrote waits for the next open of the slave. After restore the master reads the same bytes, and a
 * new open of the slave reads the rest of the input. */
#include <stdio.h>
#include "ptyq.h"

int main(int argc, char **argv)
{
	int m, s;
	struct termios t;

	test_init(argc, argv);
	if (ptyq_open(&m, &s, O_NONBLOCK))
		return fail("pty pair"), 1;
	tcgetattr(s, &t);
	cfmakeraw(&t);
	if (tcsetattr(s, TCSANOW, &t) || write(s, "from the slave", 14) != 14)
		return fail("slave"), 1;
	ptyq_wait_inq(m, 14);
	if (write(m, "for the slave", 13) != 13)
		return fail("write to the master"), 1;
	ptyq_wait_inq(s, 13);
	close(s);

	test_daemon();
	test_waitsig();

	ptyq_expect(m, "from the slave", 14, 0, "master");
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		fail("open the slave again");
	else
		ptyq_expect(s, "for the slave", 13, 0, "slave");
	pass();
	return 0;
}
