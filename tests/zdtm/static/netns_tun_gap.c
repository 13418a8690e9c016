/* A persistent tap made after a gap in the ifindexes of the test's network namespace (a bridge made and
 * deleted before it: the tap has ifindex 3, none has 2). After C/R `ip -o link` reads the same: the tap has
 * its ifindex again, the gap is there. Before: the restore failed ("tun/tap nswtgap0 was made with ifindex
 * 2, not 3 as dumped"): TUNSETIFF takes the lowest free one unless TUNSETIFINDEX asked for another first. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up && ip link add nswtgapd type bridge && ip link del nswtgapd");
	nsw_must("ip tuntap add dev nswtgap0 mode tap && ip link set nswtgap0 up");
	static struct nsw_view v[] = {{"links",
				       "ip -o link | sed -E 's/(NO-CARRIER,|,LOWER_UP|state [A-Z]+ )//g'",
				       NULL, NULL, "3: nswtgap0"}};
	nsw_look(v, 1);
	nsw_cr(v, 1, "net", host);
	return test_pass();
}
