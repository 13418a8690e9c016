/* Multicast groups joined by UDP sockets on lo: IPv4 239.7.7.7 from any source, 232.7.7.7 from 127.0.0.1 only
 * (a source-specific join, filter mode INCLUDE), 239.8.8.8 with 127.0.0.9 blocked (EXCLUDE with a source),
 * IPv6 ff15::77. After restore MCAST_MSFILTER reads the same filter for each (mode, sources), a group never
 * joined is still not joined, and a datagram sent to 239.7.7.7 reaches the socket (before: the memberships
 * were lost and the socket received nothing, without a word). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

struct grp {
	int sk;
	const char *group, *source;
	unsigned mode; /* MCAST_INCLUDE, MCAST_EXCLUDE */
};

static const struct grp grps[] = {
    {0, "239.7.7.7", NULL, MCAST_EXCLUDE},
    {0, "232.7.7.7", "127.0.0.1", MCAST_INCLUDE},
    {0, "239.8.8.8", "127.0.0.9", MCAST_EXCLUDE},
    {1, "ff15::77", NULL, MCAST_EXCLUDE},
};

static void mk(struct sockaddr_storage *ss, int fam, const char *a)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)fam;
	if (inet_pton(fam, a,
		      fam == AF_INET ? (void *)&((struct sockaddr_in *)ss)->sin_addr
				     : (void *)&((struct sockaddr_in6 *)ss)->sin6_addr) != 1)
		fail("address %s", a);
}

static void join(int sk, int fam, const struct grp *g)
{
	int lvl = fam == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	struct group_source_req gs = {.gsr_interface = 1};
	mk(&gs.gsr_group, fam, g->group);
	if (g->source)
		mk(&gs.gsr_source, fam, g->source);
	if (g->mode == MCAST_INCLUDE) {
		if (setsockopt(sk, lvl, MCAST_JOIN_SOURCE_GROUP, &gs, sizeof(gs)))
			fail("join %s from %s", g->group, g->source);
		return;
	}
	struct group_req gr = {.gr_interface = 1, .gr_group = gs.gsr_group};
	if (setsockopt(sk, lvl, MCAST_JOIN_GROUP, &gr, sizeof(gr)) ||
	    (g->source && setsockopt(sk, lvl, MCAST_BLOCK_SOURCE, &gs, sizeof(gs))))
		fail("join %s", g->group);
}

/* The socket's filter for group a: "mode N source" or "not joined". */
static void filter(int sk, int fam, const char *a, char *out, size_t len)
{
	socklen_t l = GROUP_FILTER_SIZE(4);
	struct group_filter *gf = calloc(1, l);
	gf->gf_interface = 1;
	gf->gf_numsrc = 4;
	mk(&gf->gf_group, fam, a);
	if (getsockopt(sk, fam == AF_INET ? IPPROTO_IP : IPPROTO_IPV6, MCAST_MSFILTER, gf, &l)) {
		snprintf(out, len, "not joined (%m)");
	} else {
		char s[INET6_ADDRSTRLEN] = "-";
		const struct sockaddr_storage *ss = &gf->gf_slist[0];
		if (gf->gf_numsrc)
			inet_ntop(fam,
				  fam == AF_INET
				      ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
				      : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr,
				  s, sizeof(s));
		snprintf(out, len, "mode %u, %u sources, %s", gf->gf_fmode, gf->gf_numsrc, s);
	}
	free(gf);
}

int main(int argc, char **argv)
{
	int sk[2], fam[2] = {AF_INET, AF_INET6}, port;
	char before[ARRAY_SIZE(grps)][128], now[128], none[128];
	struct sockaddr_storage ss;
	test_init(argc, argv);
	for (int i = 0; i < 2; i++) {
		socklen_t l = ip_addr(fam[i], 0, 1, &ss);
		sk[i] = socket(fam[i], SOCK_DGRAM, 0);
		if (sk[i] < 0 || bind(sk[i], (struct sockaddr *)&ss, l))
			fail("socket %d", i);
	}
	for (size_t i = 0; i < ARRAY_SIZE(grps); i++) {
		join(sk[grps[i].sk], fam[grps[i].sk], &grps[i]);
		filter(sk[grps[i].sk], fam[grps[i].sk], grps[i].group, before[i], sizeof(before[i]));
		test_msg("%s: %s\n", grps[i].group, before[i]);
	}
	filter(sk[0], AF_INET, "239.9.9.9", none, sizeof(none));
	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < ARRAY_SIZE(grps); i++) {
		filter(sk[grps[i].sk], fam[grps[i].sk], grps[i].group, now, sizeof(now));
		if (strcmp(now, before[i]))
			fail("group %s: %s, want %s", grps[i].group, now, before[i]);
	}
	filter(sk[0], AF_INET, "239.9.9.9", now, sizeof(now));
	if (strcmp(now, none))
		fail("group 239.9.9.9: %s, want %s", now, none);
	/* a datagram to the first group, sent on lo, arrives */
	socklen_t l = sizeof(ss);
	if (getsockname(sk[0], (struct sockaddr *)&ss, &l))
		fail("getsockname");
	port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct ip_mreqn mi = {.imr_ifindex = 1};
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	inet_pton(AF_INET, "239.7.7.7", &to.sin_addr);
	if (setsockopt(tx, IPPROTO_IP, IP_MULTICAST_IF, &mi, sizeof(mi)) ||
	    sendto(tx, "mcast", 5, 0, (struct sockaddr *)&to, sizeof(to)) != 5)
		fail("send to 239.7.7.7");
	char buf[8] = "";
	if (read_exact(sk[0], buf, 5, 3000) || memcmp(buf, "mcast", 5))
		fail("no datagram from the group 239.7.7.7");
	pass();
	return 0;
}
