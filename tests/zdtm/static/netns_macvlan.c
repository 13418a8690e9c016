/* A macvlan link of the tree's own network namespace (nswmv0, mode private, a MAC and MTU of its own,
 * 10.90.3.2/24, up) on a bridge of the host (nswmvbr0), which the runner's host agent makes (in every mode):
 * the dump saves it (before, it refused the kind), the restore makes it again on the master named with
 * --external macvlan[nswmv0]:nswmvbr0 (.desc ropts: at restore only, as CRIU's zdtm macvlan; the dump's
 * own check of the restore does not ask for it). The killed tree's macvlan is deleted by the dump at once
 * (its namespace goes later: the new one could not take its MAC on the same master, mode cuns). After the
 * restore ip -d shows the same link (master, mode, MAC, MTU, state) and addresses. Fixed host names: never
 * run it beside another run. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	char cmd[512];
	test_init(argc, argv);
	nsw_hsh(NULL, "ip link del nswmv0 2>/dev/null; ip link del nswmvbr0 2>/dev/null"); /* stale ones */
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	snprintf(
	    cmd, sizeof(cmd),
	    "ip link add nswmvbr0 type bridge && ip link set nswmvbr0 up && ip link add nswmv0 link nswmvbr0 "
	    "type macvlan mode private && ip link set nswmv0 netns %s",
	    nsw_netns_pid());
	nsw_hmust(cmd);
	nsw_must(
	    "ip link set nswmv0 mtu 1400 address 02:00:5e:10:20:41 && ip addr add 10.90.3.2/24 dev nswmv0 && "
	    "ip link set nswmv0 up");
	static struct nsw_view v[] = {
	    {"the link", "ip -d -o link show nswmv0 | sed 's/ qdisc .* state [A-Z]*//'", NULL, NULL,
	     "macvlan mode private"},
	    {"addresses", "ip -o -4 addr show dev nswmv0", NULL, NULL, "10.90.3.2/24"},
	};
	nsw_look(v, 2);
	nsw_cr(v, 2, "net", host);
	nsw_hsh(NULL, "ip link del nswmvbr0 2>/dev/null");
	return test_pass();
}
