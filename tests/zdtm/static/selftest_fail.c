/* Runner self-check: always reports FAIL. Must show up as "not ok". */
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_daemon();
	test_waitsig();
	errno = 0;
	fail("deliberate failure (runner self-check)");
	return 1;
}
