/* A pty slave whose master was closed (hung up): the dump refuses it with one line (see .desc). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		fail("posix_openpt");
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		fail("slave");
	close(m);
	test_daemon();
	test_waitsig();
	char c;
	if (read(s, &c, 1) > 0)
		fail("read from a hung-up slave gave data");
	pass();
	return 0;
}
