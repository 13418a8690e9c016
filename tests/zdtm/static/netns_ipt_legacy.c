/* iptables-legacy (x_tables) rules in the tree's own network namespace: a user chain with a jump and a port
 * rule in filter, an SNAT rule in nat, a rule in ip6tables' filter. After the restore `iptables-legacy-save`
 * and `ip6tables-legacy-save` print the same (comment lines and counters left out), and none of it is in the
 * host's tables (read by the runner's host agent, in every mode). */
#include "ns_world.h"

#define NOCNT " | sed 's/\\[[0-9]*:[0-9]*\\]//'"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (nsw_sh("iptables-legacy --version") || nsw_sh("ip6tables-legacy --version"))
		test_skip("no iptables-legacy");
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	char lock[4096];
	/* (the iptables lock file: the mount namespace of modes ns, uns, cuns has no /run) */
	if (access("/run", W_OK) && getcwd(lock, sizeof(lock) - 16)) {
		strcat(lock, "/xtables.lock");
		setenv("XTABLES_LOCKFILE", lock, 1);
	}
	nsw_must("iptables-legacy -w -N NSWORLD_LOG");
	nsw_must("iptables-legacy -w -A NSWORLD_LOG -j DROP");
	nsw_must("iptables-legacy -w -A INPUT -s 10.1.2.3/32 -j NSWORLD_LOG");
	nsw_must("iptables-legacy -w -A INPUT -p tcp --dport 4321 -j DROP");
	nsw_must("iptables-legacy -w -P FORWARD DROP");
	nsw_must("iptables-legacy -w -t nat -A POSTROUTING -s 10.91.0.0/24 -j SNAT --to-source 10.92.0.1");
	nsw_must("ip6tables-legacy -w -A INPUT -s fd00:91::/64 -p udp --dport 4322 -j DROP");
	static struct nsw_view v[] = {
	    {"iptables-legacy filter", "iptables-legacy-save -t filter" NOCNT, "^#", NULL, "NSWORLD_LOG"},
	    {"iptables-legacy nat", "iptables-legacy-save -t nat" NOCNT, "^#", NULL, "10.92.0.1"},
	    {"ip6tables-legacy filter", "ip6tables-legacy-save" NOCNT, "^#", NULL, "fd00:91::/64"},
	};
	nsw_look(v, 3);
	nsw_cr(v, 3, "net", host);
	nsw_host_lacks("iptables-legacy-save", "NSWORLD_LOG");
	nsw_host_lacks("iptables-legacy-save", "10.92.0.1"); /* (no -t: it would make the table) */
	nsw_host_lacks("ip6tables-legacy-save", "fd00:91::");
	return test_pass();
}
