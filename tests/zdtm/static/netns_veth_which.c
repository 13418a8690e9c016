/* --external veth[IFNAME]:OUTNAME names the end outside of veth IFNAME; with two network namespaces in the
 * tree, each with a veth ve0 whose other end is the host's (the test's own namespace, and a second one that
 * an open /proc/self/ns/net file keeps; the host's ends named after the test's namespace inode, made by the
 * runner's host agent), veth[ve0] does not say which: the dump must refuse it with one line asking for
 * veth[INO/ve0] (.desc dump-expect), the test left running with both. Before: both outer ends were given
 * that one name (the second made at restore could not be). */
#include "ns_world.h"

static char out_a[16], out_b[16];

/* A veth pair made by the host: its end out there, ve0 in the namespace we are in. */
static void pair(const char *out)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "ip link add %s type veth peer name ve0 netns %s && ip link set %s up",
		 out, nsw_netns_pid(), out);
	nsw_hmust(cmd);
	nsw_must("ip link set ve0 up");
}

/* ve0 of the namespace we are in is still the end of the host's out. */
static void still(const char *out)
{
	char *h = NULL;
	unsigned peer = nsw_peer_of("ve0");
	if (nsw_hsh(&h, "cat /sys/class/net/%s/ifindex", out) || !peer || (unsigned)atoi(h) != peer)
		fail("ve0 is no longer the end of the host's %s (its peer %u, %s)", out, peer, h);
	free(h);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	nsw_new(CLONE_NEWNET, "net");
	snprintf(out_a, sizeof(out_a), "nvw%lua", nsw_ino("net") % 100000000);
	snprintf(out_b, sizeof(out_b), "nvw%lub", nsw_ino("net") % 100000000);
	nsw_hsh(NULL, "ip link del %s 2>/dev/null; ip link del %s 2>/dev/null", out_a, out_b); /* stale */
	nsw_must("ip link set lo up");
	pair(out_a);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET))
		fail("second network namespace");
	pair(out_b);
	int other = open("/proc/self/ns/net", O_RDONLY);
	if (other < 0 || setns(home, CLONE_NEWNET))
		fail("back to our network namespace");
	test_daemon();
	test_waitsig();
	still(out_a);
	if (setns(other, CLONE_NEWNET))
		fail("enter the second network namespace");
	still(out_b);
	nsw_hsh(NULL, "ip link del %s 2>/dev/null; ip link del %s 2>/dev/null", out_a, out_b);
	return test_pass();
}
