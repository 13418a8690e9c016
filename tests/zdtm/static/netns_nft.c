/* An nftables ruleset in the tree's own network namespace: an inet table with a base chain, a set with
 * elements, rules using it, a regular chain with a jump, a counter; an ip table with a nat chain. After the
 * restore `nft list ruleset` is the same, and none of it is in the host's ruleset
 * (read by the runner's host agent, in every mode). */
#include "ns_world.h"

#define RS "nft list ruleset"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (nsw_sh("nft --version"))
		test_skip("no nft");
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	nsw_must("nft add table inet nsworld_f");
	nsw_must(
	    "nft add chain inet nsworld_f input '{ type filter hook input priority 0; policy accept; }'");
	nsw_must("nft add set inet nsworld_f bad '{ type ipv4_addr; elements = { 10.1.2.3, 10.4.5.6 }; }'");
	nsw_must("nft add chain inet nsworld_f log_drop");
	nsw_must("nft add rule inet nsworld_f log_drop counter drop");
	nsw_must("nft add rule inet nsworld_f input ip saddr @bad jump log_drop");
	nsw_must("nft add rule inet nsworld_f input tcp dport 4321 counter drop");
	nsw_must("nft add table ip nsworld_nat");
	nsw_must("nft add chain ip nsworld_nat post '{ type nat hook postrouting priority 100; }'");
	nsw_must("nft add rule ip nsworld_nat post ip saddr 10.91.0.0/24 masquerade");
	static struct nsw_view v[] = {{"nftables ruleset", RS, NULL, NULL, NULL}};
	nsw_look(v, 1);
	if (!strstr(v[0].before, "nsworld_f") || !strstr(v[0].before, "masquerade"))
		fail("setup:\n%s", v[0].before);
	nsw_cr(v, 1, "net", host);
	nsw_host_lacks("nft list tables", "nsworld_"); /* the host agent, in every mode */
	return test_pass();
}
