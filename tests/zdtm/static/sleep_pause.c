/* Dumped while in pause(): after restore pause() keeps waiting (no spurious
 * return) until SIGTERM. */
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int r;

	test_init(argc, argv);
	test_daemon();
	r = pause();
	if (r != -1 || errno != EINTR)
		fail("pause returned %d", r);
	else if (test_go())
		fail("pause returned without SIGTERM");
	pass();
	return 0;
}
