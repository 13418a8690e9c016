/* Two veth pairs with both ends inside the tree's own network namespace (nswva0/nswvb0, nswvc0/nswvd0): a
 * MAC address set, MTU 1400, one pair up with IPv4 and IPv6 addresses (nodad), the other down; one end on a
 * bridge (nswbr0) that is up and has an address. After the restore `ip -o link` and `ip -o addr` show the
 * same (ifindex, names, peers, MAC, MTU, state, master, addresses), and a datagram crosses the pair. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "ns_world.h"

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	nsw_must("ip link add nswva0 type veth peer name nswvb0");
	nsw_must("ip link add nswvc0 mtu 1400 type veth peer name nswvd0 mtu 1400");
	nsw_must("ip link add nswbr0 type bridge");
	nsw_must("ip link set nswva0 address 02:00:00:4e:53:01");
	nsw_must("ip link set nswvd0 master nswbr0");
	nsw_must("ip addr add 10.91.0.1/24 dev nswva0 && ip addr add 10.91.0.2/24 dev nswvb0");
	nsw_must("ip -6 addr add fd00:91::1/64 dev nswva0 nodad");
	nsw_must("ip addr add 10.97.0.1/24 dev nswbr0");
	nsw_must("ip link set nswva0 up && ip link set nswvb0 up && ip link set nswbr0 up");
	static struct nsw_view v[] = {
	    {"addresses", "ip -o addr | sed -e 's/\\\\.*//' -e 's/ tentative//'", NULL, NULL, NULL},
	    {"links", "ip -o link | sed -E 's/(NO-CARRIER,|,LOWER_UP|state [A-Z]+ )//g'", NULL, NULL, NULL}};
	nsw_look(v, 2);
	nsw_cr(v, 2, "net", host);
	if (nsw_sh("ip -o link show nswvc0 | grep -q 'mtu 1400'") ||
	    nsw_sh("ip -o link show nswvb0 | grep -q 'nswvb0@nswva0'"))
		fail("veth pair nswvc0 or nswvb0 not as made");
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(9)};
	inet_pton(AF_INET, "10.91.0.2", &a.sin_addr);
	if (s < 0 || sendto(s, "nsw", 3, 0, (struct sockaddr *)&a, sizeof(a)) != 3)
		fail("send to 10.91.0.2");
	return test_pass();
}
