/* Less common per-task prctl values: PR_SET_TIMERSLACK, PR_SET_THP_DISABLE,
 * PR_SET_KEEPCAPS. */
#include <sys/prctl.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (prctl(PR_SET_TIMERSLACK, 123456) || prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) ||
	    prctl(PR_SET_KEEPCAPS, 1))
		fail("prctl set");
	test_daemon();
	test_waitsig();

	if (prctl(PR_GET_TIMERSLACK) != 123456)
		fail("timerslack %d, want 123456", prctl(PR_GET_TIMERSLACK));
	if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 1)
		fail("thp_disable %d, want 1", prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
	if (prctl(PR_GET_KEEPCAPS) != 1)
		fail("keepcaps %d, want 1", prctl(PR_GET_KEEPCAPS));
	pass();
	return 0;
}
