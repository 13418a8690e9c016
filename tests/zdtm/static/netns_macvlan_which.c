/* --external macvlan[IFNAME]:MASTER names the master outside of macvlan IFNAME; with two network namespaces
 * in the tree, each with a macvlan mv0 on a bridge of the host (the test's own namespace, and a second one
 * that an open /proc/self/ns/net file keeps; the bridge named after the test's namespace inode, made by the
 * runner's host agent), macvlan[mv0] does not say which: the dump must refuse it with one line asking for
 * macvlan[INO/mv0] (.desc dump-expect), the test left running with both. Before: both were saved with that
 * master. */
#include "ns_world.h"

static char br[16];

/* A macvlan made by the host on br, moved into the namespace we are in as mv0 (with MTU mtu). */
static void macvlan(char tag, int mtu)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "ip link add %s%c link %s type macvlan mode bridge && ip link set %s%c netns %s", br, tag,
		 br, br, tag, nsw_netns_pid());
	nsw_hmust(cmd);
	nsw_must("ip link set %s%c name mv0 mtu %d && ip link set mv0 up", br, tag, mtu);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	nsw_new(CLONE_NEWNET, "net");
	snprintf(br, sizeof(br), "nmw%lu", nsw_ino("net") % 100000000);
	nsw_hsh(NULL, "ip link del %s 2>/dev/null", br); /* a stale one */
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "ip link add %s type bridge && ip link set %s up", br, br);
	nsw_hmust(cmd);
	nsw_must("ip link set lo up");
	macvlan('a', 1400);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET))
		fail("second network namespace");
	macvlan('b', 1300);
	int other = open("/proc/self/ns/net", O_RDONLY);
	if (other < 0 || setns(home, CLONE_NEWNET))
		fail("back to our network namespace");
	const char *show = "ip -d -o link show mv0 | sed 's/ qdisc .* state [A-Z]*//'";
	char *a = nsw_out(show, NULL), *b = NULL;
	if (!strstr(a, "mtu 1400") || setns(other, CLONE_NEWNET) ||
	    !strstr(b = nsw_out(show, NULL), "mtu 1300") || setns(home, CLONE_NEWNET))
		fail("setup: mv0 in both namespaces:\n%s%s", a, b ? b : "");
	test_daemon();
	test_waitsig();
	nsw_same("mv0", a, show, NULL);
	if (setns(other, CLONE_NEWNET))
		fail("enter the second network namespace");
	nsw_same("mv0 of the second namespace", b, show, NULL);
	nsw_hsh(NULL, "ip link del %s 2>/dev/null", br);
	return test_pass();
}
