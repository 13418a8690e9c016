/* Policy routing rules of the tree's own network namespace: from a prefix, to a prefix, a fwmark with a
 * mask, an input interface, a TOS, an IPv6 source, a blackhole action; the default rules stay. After the
 * restore `ip rule` and `ip -6 rule` are the same. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	nsw_must("ip rule add from 10.91.0.0/24 table 100 prio 100");
	nsw_must("ip rule add to 10.95.0.0/16 lookup 101 prio 101");
	nsw_must("ip rule add fwmark 0x7/0xff table 102 prio 102");
	nsw_must("ip rule add iif lo table 103 prio 103");
	nsw_must("ip rule add tos 0x10 table 105 prio 105");
	nsw_must("ip rule add from 10.99.0.0/16 blackhole prio 106");
	nsw_must("ip -6 rule add from fd00:91::/64 table 104 prio 104");
	static struct nsw_view v[] = {{"IPv4 rules", "ip rule", NULL, NULL, "fwmark 0x7/0xff"},
				      {"IPv6 rules", "ip -6 rule", NULL, NULL, "fd00:91::/64"}};
	nsw_look(v, 2);
	nsw_cr(v, 2, "net", host);
	return test_pass();
}
