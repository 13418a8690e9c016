/* A veth pair between the tree's own network namespace (eth0, 10.90.1.2/30) and the host's, whose outer end
 * (nswvbr0) is a port of a bridge of the host (nswbr1, 10.90.1.1/30), named at dump and restore with
 * --external veth[eth0]:nswvbr0@nswbr1 (.desc). The host's side is handled by the runner's host agent (in
 * every mode). After the restore the outer end is back in the host's namespace, up and a port of the bridge
 * again (before, the restore crashed looking the bridge up), and a datagram sent from the host to 10.90.1.2
 * crosses the bridge and the pair to a socket bound there inside. */
#include "ns_world.h"

#define OUT "nswvbr0"
#define BR "nswbr1"

int main(int argc, char **argv)
{
	char cmd[512];
	test_init(argc, argv);
	nsw_hsh(NULL, "ip link del " OUT " 2>/dev/null; ip link del " BR " 2>/dev/null"); /* stale ones */
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	nsw_hmust("ip link add " BR " type bridge && ip addr add 10.90.1.1/30 dev " BR " && ip link set " BR
		  " up");
	/* the host makes the pair, moves eth0 into our namespace (a process of it, found by its inode) and
	 * puts its own end into the bridge */
	snprintf(cmd, sizeof(cmd),
		 "ip link add " OUT " type veth peer name eth0 netns %s && ip link set " OUT " master " BR
		 " && ip link set " OUT " up",
		 nsw_netns_pid());
	nsw_hmust(cmd);
	nsw_must("ip addr add 10.90.1.2/30 dev eth0 && ip link set eth0 up");
	static struct nsw_view v[] = {{"addresses", "ip -o -4 addr", NULL, NULL, NULL}};
	nsw_look(v, 1);
	nsw_cr(v, 1, "net", host);
	nsw_hmust("ip -o link show " OUT " | grep -q '[<,]UP[,>].* master " BR " ' || { ip -o link show " OUT
		  "; exit 1; }");
	nsw_udp_from_host("10.90.1.2", "the bridge and the veth pair");
	nsw_hsh(NULL, "ip link del " OUT " 2>/dev/null; ip link del " BR " 2>/dev/null");
	return test_pass();
}
