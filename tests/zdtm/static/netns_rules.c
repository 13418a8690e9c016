/* Policy routing rules of the tree's own network namespace: from a prefix, to a prefix, a fwmark with a
 * mask, an input interface, a TOS, an IPv6 source, a blackhole action; the default rules stay. After the
 * restore `ip rule` and `ip -6 rule` are the same. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	unsigned long host = nsw_ino("net");
	nsw_unshare(CLONE_NEWNET, "CLONE_NEWNET");
	nsw_must("ip link set lo up");
	nsw_must("ip rule add from 10.91.0.0/24 table 100 prio 100");
	nsw_must("ip rule add to 10.95.0.0/16 lookup 101 prio 101");
	nsw_must("ip rule add fwmark 0x7/0xff table 102 prio 102");
	nsw_must("ip rule add iif lo table 103 prio 103");
	nsw_must("ip rule add tos 0x10 table 105 prio 105");
	nsw_must("ip rule add from 10.99.0.0/16 blackhole prio 106");
	nsw_must("ip -6 rule add from fd00:91::/64 table 104 prio 104");
	static char *r4, *r6;
	r4 = nsw_out("ip rule", NULL), r6 = nsw_out("ip -6 rule", NULL);
	if (!strstr(r4, "fwmark 0x7/0xff") || !strstr(r6, "fd00:91::/64"))
		fail("setup:\n%s%s", r4, r6);
	test_daemon();
	test_waitsig();
	nsw_own("net", host);
	nsw_same("IPv4 rules", r4, "ip rule", NULL);
	nsw_same("IPv6 rules", r6, "ip -6 rule", NULL);
	if (!test_failures)
		pass();
	return 0;
}
