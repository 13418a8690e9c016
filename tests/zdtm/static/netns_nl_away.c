/* A NETLINK_ROUTE socket made in a second network namespace (the test unshares one, sets the mtu of its lo
 * to 1234, binds the socket, and goes back to its own; the socket alone keeps that namespace), held by the
 * test. After C/R it is in a namespace not the test's (SIOCGSKNS), has its port id, and its link dump shows
 * that namespace's lo (mtu 1234). Before: crshim made it in its holder's namespace (no error, the links of
 * the wrong namespace). */
#include <sys/ioctl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include "ns_world.h"

/* The mtu of lo in the route socket's link dump (-1: not in it) */
static int lo_mtu(int rt)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {.h = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
		 .i = {.ifi_family = AF_UNSPEC}};
	static char buf[65536];
	int mtu = -1;
	if (send(rt, &req, sizeof(req), 0) != sizeof(req))
		return -1;
	for (;;) {
		ssize_t n = recv(rt, buf, sizeof(buf), 0);
		if (n <= 0)
			return -1;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
				return mtu;
			struct ifinfomsg *i = NLMSG_DATA(h);
			int len = (int)IFLA_PAYLOAD(h), m = -1, lo = 0;
			for (struct rtattr *a = IFLA_RTA(i); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				if (a->rta_type == IFLA_MTU)
					memcpy(&m, RTA_DATA(a), sizeof(m));
				if (a->rta_type == IFLA_IFNAME && !strcmp(RTA_DATA(a), "lo"))
					lo = 1;
			}
			if (lo)
				mtu = m;
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_nl nl = {.nl_family = AF_NETLINK}, n0, n1;
	socklen_t l = sizeof(n0);
	test_init(argc, argv);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET) || nsw_sh("ip link set lo mtu 1234 up"))
		fail("second network namespace");
	int rt = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (rt < 0 || bind(rt, (struct sockaddr *)&nl, sizeof(nl)) ||
	    getsockname(rt, (struct sockaddr *)&n0, &l))
		fail("netlink socket");
	if (setns(home, CLONE_NEWNET) || nsw_sk_ns(rt, 0) == nsw_ino("net"))
		fail("back home");
	if (lo_mtu(rt) != 1234)
		fail("lo of the second namespace: mtu %d before C/R", lo_mtu(rt));

	test_daemon();
	test_waitsig();

	if (!nsw_sk_ns(rt, 0) || nsw_sk_ns(rt, 0) == nsw_ino("net"))
		fail("the netlink socket is in the test's namespace");
	l = sizeof(n1);
	if (getsockname(rt, (struct sockaddr *)&n1, &l) || n1.nl_pid != n0.nl_pid)
		fail("port id %u, want %u", n1.nl_pid, n0.nl_pid);
	int m = lo_mtu(rt);
	if (m != 1234)
		fail("the route socket's lo has mtu %d, want 1234 (its namespace's)", m);
	pass();
	return 0;
}
