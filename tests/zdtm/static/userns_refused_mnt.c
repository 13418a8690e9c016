/* A mount namespace owned by the tree's user namespace (unshare(CLONE_NEWNS) inside it): refused at dump
 * with one line (only the network, IPC and UTS namespaces are restored in a user namespace yet). */
#include "userns_refused.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	unsigned long u = uref_enter();
	if (unshare(CLONE_NEWNS))
		fail("setup: unshare(CLONE_NEWNS)");
	return uref_done(u, NULL);
}
