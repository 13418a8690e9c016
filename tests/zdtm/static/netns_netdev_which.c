/* --external netdev[IFNAME]:HOSTDEV names a device of the host moved in at restore; with two network
 * namespaces in the tree, each with a device nd0 (a bridge: the test's own namespace, and a second one that
 * an open /proc/self/ns/net file keeps), netdev[nd0] does not say which: the dump must refuse it with one
 * line asking for netdev[INO/nd0] (.desc dump-expect), the test left running. Before: both were taken for the
 * host's device (saved as such in both namespaces' images). */
#include "ns_world.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up && ip link add nd0 type bridge && ip link set nd0 up");
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET))
		fail("second network namespace");
	nsw_must("ip link add nd0 type bridge && ip link set nd0 mtu 1400");
	int other = open("/proc/self/ns/net", O_RDONLY);
	if (other < 0 || setns(home, CLONE_NEWNET))
		fail("back to our network namespace");
	char *mtu = nsw_out("cat /sys/class/net/nd0/mtu", NULL);
	test_daemon();
	test_waitsig();
	nsw_same("nd0's mtu", mtu, "cat /sys/class/net/nd0/mtu", NULL);
	free(mtu);
	pass();
	return 0;
}
