/* Multicast groups for the sk_inet_mcast* tests: join a group (any source, one source only, one source
 * blocked) on lo and read a socket's filter for it back (MCAST_MSFILTER) as a line to compare. */
#ifndef ZDTM_MCAST_H
#define ZDTM_MCAST_H
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "zdtmtst.h"

/* lo up, in a network namespace the test made */
static inline void mc_lo_up(void)
{
	struct ifreq ifr = {0};
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr))
		fail("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		fail("lo up");
	close(s);
}

/* A network namespace of the test's own with lo up: true. False in mode user (no CAP_SYS_ADMIN: the host's
 * network namespace, whose routes the test does not know), where the test leaves out what needs its own */
static inline bool mc_own_netns(void)
{
	bool own = !unshare(CLONE_NEWNET);
	if (!own && (getuid() == 0 || errno != EPERM))
		fail("unshare a network namespace");
	if (own)
		mc_lo_up();
	return own;
}

struct grp {
	int sk; /* 0: the IPv4 socket, 1: the IPv6 one */
	const char *group, *source;
	unsigned mode; /* MCAST_INCLUDE, MCAST_EXCLUDE */
};

static inline void mc_addr(struct sockaddr_storage *ss, int fam, const char *a)
{
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = (sa_family_t)fam;
	if (inet_pton(fam, a,
		      fam == AF_INET ? (void *)&((struct sockaddr_in *)ss)->sin_addr
				     : (void *)&((struct sockaddr_in6 *)ss)->sin6_addr) != 1)
		fail("address %s", a);
}

/* Join g on lo (interface 1) */
static inline void mc_join(int sk, int fam, const struct grp *g)
{
	int lvl = fam == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
	struct group_source_req gs = {.gsr_interface = 1};
	mc_addr(&gs.gsr_group, fam, g->group);
	if (g->source)
		mc_addr(&gs.gsr_source, fam, g->source);
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

/* The socket's filter for group a on lo: "mode N, N sources, source" or "not joined". */
static inline void mc_filter(int sk, int fam, const char *a, char *out, size_t len)
{
	socklen_t l = GROUP_FILTER_SIZE(4);
	struct group_filter *gf = calloc(1, l);
	gf->gf_interface = 1;
	gf->gf_numsrc = 4;
	mc_addr(&gf->gf_group, fam, a);
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

/* A datagram sent by a new socket (of this thread's network namespace) to group:port on lo reaches sk: 0 */
static inline int mc_reaches(int sk, const char *group, int port)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	struct ip_mreqn mi = {.imr_ifindex = 1};
	int tx = socket(AF_INET, SOCK_DGRAM, 0), r = -1;
	char buf[8] = "";
	inet_pton(AF_INET, group, &to.sin_addr);
	if (tx >= 0 && !setsockopt(tx, IPPROTO_IP, IP_MULTICAST_IF, &mi, sizeof(mi)) &&
	    sendto(tx, "mcast", 5, 0, (struct sockaddr *)&to, sizeof(to)) == 5 &&
	    !read_exact(sk, buf, 5, 3000) && !memcmp(buf, "mcast", 5))
		r = 0;
	if (tx >= 0)
		close(tx);
	return r;
}

/* An IPv4 and an IPv6 UDP socket bound to the wildcard address, a port of the kernel's choice */
static inline void mc_socks(int *sk, const int *fam)
{
	struct sockaddr_storage ss;
	for (int i = 0; i < 2; i++) {
		socklen_t l = ip_addr(fam[i], 0, 1, &ss);
		sk[i] = socket(fam[i], SOCK_DGRAM, 0);
		if (sk[i] < 0 || bind(sk[i], (struct sockaddr *)&ss, l))
			fail("socket %d", i);
	}
}

/* The port IPv4 socket sk is bound to */
static inline int mc_port(int sk)
{
	struct sockaddr_in a = {0};
	socklen_t l = sizeof(a);
	if (getsockname(sk, (struct sockaddr *)&a, &l))
		fail("getsockname");
	return ntohs(a.sin_port);
}

/* Join each of the n groups g with the socket sk[g->sk] of family fam[g->sk]; their filters into before */
static inline void mc_join_all(const int *sk, const int *fam, const struct grp *g, size_t n,
			       char (*before)[128])
{
	for (size_t i = 0; i < n; i++) {
		mc_join(sk[g[i].sk], fam[g[i].sk], &g[i]);
		mc_filter(sk[g[i].sk], fam[g[i].sk], g[i].group, before[i], sizeof(before[i]));
		test_msg("%s: %s\n", g[i].group, before[i]);
	}
}

/* Each group's filter is as before; group never (IPv4) is still not joined */
static inline void mc_check_all(const int *sk, const int *fam, const struct grp *g, size_t n,
				char (*before)[128], const char *never, const char *none)
{
	char now[128];
	for (size_t i = 0; i < n; i++) {
		mc_filter(sk[g[i].sk], fam[g[i].sk], g[i].group, now, sizeof(now));
		if (strcmp(now, before[i]))
			fail("group %s: %s, want %s", g[i].group, now, before[i]);
	}
	mc_filter(sk[0], AF_INET, never, now, sizeof(now));
	if (strcmp(now, none))
		fail("group %s: %s, want %s", never, now, none);
}

#endif
