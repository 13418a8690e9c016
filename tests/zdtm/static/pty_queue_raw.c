/* Both queues of a pty pair in raw mode (cfmakeraw) hold binary bytes, \r \n ^C ^Z ^D ^S ^Q 0xff and NUL
 * among them: after restore the slave reads exactly what the master wrote, the master exactly what the
 * slave wrote (no ICRNL, no signal, no flow control, no CR added), and the termios is the same. */
#include <stdio.h>
#include "ptyq.h"

#define N 3000

int main(int argc, char **argv)
{
	int m, s;
	unsigned char in[N], out[N];
	struct termios want, got;
	static const unsigned char special[] = {'\r', '\n', 0x03, 0x1a, 0x04, 0x13, 0x11, 0xff, 0x00,
						0x7f, 0x15, 0x16, 0x17, 0x12, 0x1c, '\r', '\r', '\n'};

	test_init(argc, argv);
	if (ptyq_open(&m, &s, 0))
		return fail("pty pair"), 1;
	tcgetattr(s, &want);
	cfmakeraw(&want);
	if (tcsetattr(s, TCSANOW, &want) || tcgetattr(s, &want))
		return fail("tcsetattr"), 1;
	datagen(in, sizeof(in), 1);
	datagen(out, sizeof(out), 2);
	memcpy(in, special, sizeof(special));
	memcpy(in + N - sizeof(special), special, sizeof(special));
	memcpy(out + 100, special, sizeof(special));
	if (write(m, in, N) != N || write(s, out, N) != N)
		return fail("write"), 1;
	ptyq_wait_inq(s, N);
	ptyq_wait_inq(m, N);

	test_daemon();
	test_waitsig();

	if (tcgetattr(s, &got) || !ptyq_same_termios(&want, &got))
		fail("termios changed: iflag %#x/%#x lflag %#x/%#x", (unsigned)got.c_iflag,
		     (unsigned)want.c_iflag, (unsigned)got.c_lflag, (unsigned)want.c_lflag);
	ptyq_expect(s, in, N, 0, "slave");
	ptyq_expect(m, out, N, 0, "master");
	pass();
	return 0;
}
