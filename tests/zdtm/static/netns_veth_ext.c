/* A veth pair between the tree's own network namespace (eth0, 10.90.0.2/30) and the host's (nswldvo0,
 * 10.90.0.1/30), named at dump and restore with --external veth[eth0]:nswldvo0 (.desc). The host's side is
 * handled by the runner's host agent (in every mode: in modes ns and uns the test has no path to the host's
 * namespace). After the restore eth0 is there with its address, its other end nswldvo0 is back in the host's
 * namespace, up, and (once the host gives it its address again: the outer end's own state is the host's
 * business) a datagram sent from the host to 10.90.0.2 reaches a socket bound there inside. */
#include "ns_world.h"

#define OUT "nswldvo0"

int main(int argc, char **argv)
{
	char cmd[512];
	test_init(argc, argv);
	nsw_hsh(NULL, "ip link del " OUT " 2>/dev/null"); /* a stale one */
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	/* the host makes the pair and moves eth0 into our namespace (a process of it, found by its inode) */
	snprintf(cmd, sizeof(cmd),
		 "ip link add " OUT " type veth peer name eth0 netns %s && ip addr add 10.90.0.1/30 dev " OUT
		 " && ip link set " OUT " up",
		 nsw_netns_pid());
	nsw_hmust(cmd);
	nsw_must("ip addr add 10.90.0.2/30 dev eth0 && ip link set eth0 up");
	static struct nsw_view v[] = {{"addresses", "ip -o -4 addr", NULL, NULL, NULL}};
	nsw_look(v, 1);
	nsw_cr(v, 1, "net", host);
	nsw_hmust("ip -o link show " OUT " | grep -q '[<,]UP[,>]' || { ip -o link show " OUT "; exit 1; }");
	nsw_hsh(NULL, "ip addr add 10.90.0.1/30 dev " OUT " 2>/dev/null");
	nsw_udp_from_host("10.90.0.2", "the veth pair");
	nsw_hsh(NULL, "ip link del " OUT " 2>/dev/null");
	return test_pass();
}
