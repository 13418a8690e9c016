/* prctl values: DUMPABLE 0, NO_NEW_PRIVS, CHILD_SUBREAPER (PDEATHSIG: see pdeathsig.c). */
#include <sys/prctl.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int sub = 0;

	test_init(argc, argv);
	if (prctl(PR_SET_DUMPABLE, 0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1))
		fail("prctl set");
	test_daemon();
	test_waitsig();

	if (prctl(PR_GET_DUMPABLE) != 0)
		fail("dumpable %d", prctl(PR_GET_DUMPABLE));
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		fail("no_new_privs lost");
	if (prctl(PR_GET_CHILD_SUBREAPER, &sub) || sub != 1)
		fail("child_subreaper %d", sub);
	pass();
	return 0;
}
