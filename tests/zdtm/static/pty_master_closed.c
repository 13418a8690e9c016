/* A pty slave whose master was closed (hung up): the dump refuses it with one line (see .desc). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int s, m = pty_pair(O_RDWR | O_NOCTTY, O_RDWR | O_NOCTTY, &s);
	if (m < 0)
		fail("posix_openpt");
	close(m);
	test_daemon();
	test_waitsig();
	char c;
	if (read(s, &c, 1) > 0)
		fail("read from a hung-up slave gave data");
	pass();
	return 0;
}
