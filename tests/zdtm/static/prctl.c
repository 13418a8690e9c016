/* prctl values: DUMPABLE 0, NO_NEW_PRIVS, CHILD_SUBREAPER (PDEATHSIG: see pdeathsig.c). prctl_misc.c is this
 * test with a table of other values. */
#include <sys/prctl.h>
#include "zdtmtst.h"

#ifndef PRCTL_TABLE
static const struct prctl_val t[] = {
    {PR_SET_DUMPABLE, PR_GET_DUMPABLE, 0, 0, "dumpable"},
    {PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, 0, 1, "no_new_privs"},
    {PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER, 1, 1, "child_subreaper"}};
#endif

int main(int argc, char **argv)
{
	test_init(argc, argv);
	prctl_cr(t, ARRAY_SIZE(t));
	return test_pass();
}
