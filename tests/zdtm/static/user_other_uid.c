/* A task of another user than the one who restores it. In mode cr it is a plain sleeper that keeps its ids
 * and groups. In mode user it is started by root (.desc user-start: root) and the unprivileged crshim, which
 * may ptrace it (CAP_SYS_PTRACE) and so dump it, must refuse to restore it as another uid with one line
 * naming CAP_SETUID; root then restores the same images. */
#include <stdlib.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	uid_t ru, eu, su, ru2, eu2, su2;
	gid_t rg, eg, sg, rg2, eg2, sg2;
	gid_t groups[64], groups2[64];
	int n, n2;

	test_init(argc, argv);
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg))
		fail("getresuid");
	n = getgroups(64, groups);
	test_daemon();
	test_waitsig();

	if (getresuid(&ru2, &eu2, &su2) || getresgid(&rg2, &eg2, &sg2))
		fail("getresuid after");
	else if (ru != ru2 || eu != eu2 || su != su2 || rg != rg2 || eg != eg2 || sg != sg2)
		fail("ids %d/%d/%d %d/%d/%d, want %d/%d/%d %d/%d/%d", ru2, eu2, su2, rg2, eg2, sg2, ru, eu,
		     su, rg, eg, sg);
	n2 = getgroups(64, groups2);
	if (n != n2)
		fail("%d groups, want %d", n2, n);
	for (int i = 0; i < n && i < n2; i++)
		if (groups[i] != groups2[i])
			fail("group %d is %d, want %d", i, groups2[i], groups[i]);
	pass();
	return 0;
}
