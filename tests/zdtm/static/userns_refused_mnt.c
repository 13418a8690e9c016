/* A mount namespace owned by the tree's user namespace (unshare(CLONE_NEWNS) inside it) whose PID namespace
 * it does not own (the root is no PID namespace's init): refused at dump with one line (a root born in the
 * user namespace, which its mount namespace needs, could not be in a PID namespace owned by crshim's). */
#include "userns_refused.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	unsigned long u = uref_enter();
	if (unshare(CLONE_NEWNS))
		fail("setup: unshare(CLONE_NEWNS)");
	return uref_done(u, NULL);
}
