/* Routes of the tree's own network namespace over a veth pair inside it: a route via a gateway, a default
 * route with a metric, a route in table 100, a blackhole and an unreachable route, a route with a preferred
 * source, IPv6 routes via a gateway and in another table. After the restore `ip route show table all`
 * (IPv4 and IPv6) is the same. */
#include "ns_world.h"

#define R4 "ip -4 route show table all"
#define R6 "ip -6 route show table all"
#define DROP6 "^(local|multicast|anycast|fe80)" /* the kernel's, made with the links */

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up && ip link add nswra0 type veth peer name nswrb0");
	nsw_must("ip addr add 10.92.0.1/24 dev nswra0 && ip -6 addr add fd00:92::1/64 dev nswra0 nodad");
	nsw_must("ip link set nswra0 up && ip link set nswrb0 up");
	nsw_must("ip route add 10.93.0.0/16 via 10.92.0.2");
	nsw_must("ip route add default via 10.92.0.254 metric 50");
	nsw_must("ip route add 10.94.0.0/24 dev nswra0 table 100");
	nsw_must("ip route add blackhole 10.95.0.0/24 && ip route add unreachable 10.96.0.0/24");
	nsw_must("ip route add 10.98.1.0/24 dev nswra0 src 10.92.0.1 proto static");
	nsw_must("ip -6 route add fd00:93::/48 via fd00:92::2");
	nsw_must("ip -6 route add fd00:94::/64 dev nswra0 table 101 metric 7");
	static struct nsw_view v[] = {{"IPv4 routes", R4, NULL, NULL, "10.93.0.0/16 via 10.92.0.2"},
				      {"IPv6 routes", R6, DROP6, NULL, "fd00:93::/48"}};
	nsw_look(v, 2);
	nsw_cr(v, 2, "net", host);
	return test_pass();
}
