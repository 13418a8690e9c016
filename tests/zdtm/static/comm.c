/* comm set by PR_SET_NAME survives (prctl and /proc/self/comm). */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	char name[17] = {0}, *c;

	test_init(argc, argv);
	if (prctl(PR_SET_NAME, "zdtm-comm-0123"))
		fail("PR_SET_NAME");
	test_daemon();
	test_waitsig();
	if (prctl(PR_GET_NAME, name))
		fail("PR_GET_NAME");
	if (strcmp(name, "zdtm-comm-0123"))
		fail("comm '%s'", name);
	if (read_file("/proc/self/comm", &c) < 0 || strcmp(c, "zdtm-comm-0123\n"))
		fail("/proc/self/comm");
	pass();
	return 0;
}
