/* Multicast groups joined by UDP sockets on lo: IPv4 239.7.7.7 from any source, 232.7.7.7 from 127.0.0.1 only
 * (a source-specific join, filter mode INCLUDE), 239.8.8.8 with 127.0.0.9 blocked (EXCLUDE with a source),
 * IPv6 ff15::77. After restore MCAST_MSFILTER reads the same filter for each (mode, sources), a group never
 * joined is still not joined, and a datagram sent to 239.7.7.7 reaches the socket (before: the memberships
 * were lost and the socket received nothing, without a word). */
#include "mcast.h"

static const struct grp grps[] = {
    {0, "239.7.7.7", NULL, MCAST_EXCLUDE},
    {0, "232.7.7.7", "127.0.0.1", MCAST_INCLUDE},
    {0, "239.8.8.8", "127.0.0.9", MCAST_EXCLUDE},
    {1, "ff15::77", NULL, MCAST_EXCLUDE},
};

int main(int argc, char **argv)
{
	int sk[2], fam[2] = {AF_INET, AF_INET6};
	char before[ARRAY_SIZE(grps)][128], none[128];
	test_init(argc, argv);
	mc_socks(sk, fam);
	mc_join_all(sk, fam, grps, ARRAY_SIZE(grps), before);
	mc_filter(sk[0], AF_INET, "239.9.9.9", none, sizeof(none));
	test_daemon();
	test_waitsig();

	mc_check_all(sk, fam, grps, ARRAY_SIZE(grps), before, "239.9.9.9", none);
	/* a datagram to the first group, sent on lo, arrives */
	if (mc_reaches(sk[0], "239.7.7.7", mc_port(sk[0])))
		fail("no datagram from the group 239.7.7.7");
	pass();
	return 0;
}
