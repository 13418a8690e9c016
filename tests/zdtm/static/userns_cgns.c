/* A cgroup namespace owned by the tree's user namespace in a tree not born in it (its PID and mount
 * namespaces are not owned by it): the test, in a user namespace of its own (modes cr and ns: made by the
 * test, `0 0 1`; modes uns and cuns: the mode's), unshares a cgroup namespace at its cgroup. After the
 * restore the cgroup namespace is still owned by our user namespace and rooted at our cgroup
 * (/proc/self/cgroup unchanged: "/" in each hierarchy). Failed before: the dump refused it with one line
 * ("owns the root's cgroup namespace but not its PID and mount namespaces"; mode cuns restored it, born in
 * its user namespace). */
#include "ns_owned.h"

int main(int argc, char **argv)
{
	char before[4096], after[4096];
	test_init(argc, argv);
	nso_own_userns();
	if (unshare(CLONE_NEWCGROUP))
		test_skip("unshare(CLONE_NEWCGROUP): %m");
	nso_read("/proc/self/cgroup", before, sizeof(before));
	if (!nso_owned_by_ours("cgroup"))
		fail("setup: the cgroup namespace is not owned by our user namespace");
	test_daemon();
	test_waitsig();
	nso_read("/proc/self/cgroup", after, sizeof(after));
	if (strcmp(before, after))
		fail("/proc/self/cgroup: before\n%safter\n%s", before, after);
	if (!nso_owned_by_ours("cgroup"))
		fail("the cgroup namespace is not owned by our user namespace after restore");
	if (!test_failures)
		pass();
	return 0;
}
