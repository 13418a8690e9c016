/* --external netdev[eth1]:nswndb1 (.desc, dump and restore): link eth1 of the tree's own network namespace
 * (a veth whose other end nswnda0 is the host's; 10.90.2.2/24, MTU 1400, a MAC of its own, up, a route
 * through it) is the host's device nswndb1 at restore. The host (the runner's host agent, in every mode)
 * makes before the checkpoint a second pair nswndb0 (10.90.2.1/24, up) - nswndb1; the restore moves nswndb1
 * in as eth1 with eth1's ifindex and sets it up as dumped. After the restore eth1 is there with its
 * ifindex, MTU, MAC, state, address and route, the host has no nswndb1 any more, and a datagram the host
 * sends to 10.90.2.2 (through nswndb0) reaches a socket bound there. Fixed host names: never run it beside
 * another run. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	char cmd[512];
	test_init(argc, argv);
	nsw_hsh(NULL, "ip link del nswnda0 2>/dev/null; ip link del nswndb0 2>/dev/null"); /* stale ones */
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	snprintf(cmd, sizeof(cmd),
		 "ip link add nswnda0 type veth peer name eth1 netns %s && ip link set nswnda0 up && ip link "
		 "add nswndb0 type "
		 "veth peer name nswndb1 && "
		 "ip addr add 10.90.2.1/24 dev nswndb0 && ip link set nswndb0 up",
		 nsw_netns_pid());
	nsw_hmust(cmd);
	nsw_must(
	    "ip link set eth1 mtu 1400 address 02:00:5e:10:20:31 && ip addr add 10.90.2.2/24 dev eth1 && "
	    "ip link set eth1 up && ip route add 10.91.0.0/16 via 10.90.2.1 dev eth1");
	static struct nsw_view v[] = {
	    {"links", "ip -o link show eth1 | sed 's/@[^:]*:/:/; s/ qdisc .* state [A-Z]*//'", NULL, NULL,
	     "mtu 1400"},
	    {"addresses", "ip -o -4 addr show dev eth1", NULL, NULL, "10.90.2.2/24"},
	    {"routes", "ip -4 route", NULL, NULL, "10.91.0.0/16 via 10.90.2.1"},
	};
	nsw_look(v, 3);
	nsw_cr(v, 3, "net", host);
	char *h = NULL;
	if (nsw_hsh(&h, "ip -o link show nswndb1") == 0)
		fail("the host still has nswndb1: %s", h);
	free(h);
	nsw_udp_from_host("10.90.2.2", "nswndb0 and the device moved in");
	nsw_hsh(NULL, "ip link del nswnda0 2>/dev/null; ip link del nswndb0 2>/dev/null");
	return test_pass();
}
