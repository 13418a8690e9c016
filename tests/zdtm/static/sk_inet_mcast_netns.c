/* Multicast groups of UDP sockets of another network namespace than their holder's: the test unshares a
 * network namespace (lo up), makes an IPv4 and an IPv6 UDP socket there, joins 239.7.17.7 (any source),
 * 232.7.17.7 (from 127.0.0.1 only) and ff15::177 on its lo, and goes back to its own namespace (setns), which
 * joined none of them. After C/R each socket is still of a namespace not the test's, MCAST_MSFILTER reads the
 * same filter for each group, and a datagram sent to 239.7.17.7 in the socket's namespace reaches it. Before:
 * the dump looked for the groups in the holder's namespace and lost them all, without a word. */
#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/sockios.h>
#include "mcast.h"

static const struct grp grps[] = {
    {0, "239.7.17.7", NULL, MCAST_EXCLUDE},
    {0, "232.7.17.7", "127.0.0.1", MCAST_INCLUDE},
    {1, "ff15::177", NULL, MCAST_EXCLUDE},
};

static unsigned long ino_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? 0 : (unsigned long)st.st_ino;
}

/* Into the network namespace of socket sk (-1: the one own is) */
static void enter(int sk, int own)
{
	int ns = sk >= 0 ? ioctl(sk, SIOCGSKNS) : own;
	if (ns < 0 || setns(ns, CLONE_NEWNET))
		fail("setns");
	if (sk >= 0)
		close(ns);
}

int main(int argc, char **argv)
{
	int sk[2], fam[2] = {AF_INET, AF_INET6};
	char before[ARRAY_SIZE(grps)][128], none[128];
	test_init(argc, argv);
	int own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own < 0 || unshare(CLONE_NEWNET))
		fail("unshare a network namespace");
	mc_lo_up();
	mc_socks(sk, fam);
	mc_join_all(sk, fam, grps, ARRAY_SIZE(grps), before);
	mc_filter(sk[0], AF_INET, "239.9.17.9", none, sizeof(none));
	enter(-1, own);
	close(own);
	int ns = ioctl(sk[0], SIOCGSKNS);
	unsigned long sk_ns = ino_fd(ns);
	close(ns);
	test_daemon();
	test_waitsig();

	struct stat st;
	ns = ioctl(sk[0], SIOCGSKNS);
	if (ns < 0 || stat("/proc/self/ns/net", &st) || ino_fd(ns) == (unsigned long)st.st_ino || !sk_ns)
		fail("the sockets are not of a network namespace of their own");
	if (ns >= 0)
		close(ns);
	mc_check_all(sk, fam, grps, ARRAY_SIZE(grps), before, "239.9.17.9", none);
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	enter(sk[0], own);
	if (mc_reaches(sk[0], "239.7.17.7", mc_port(sk[0])))
		fail("no datagram from the group 239.7.17.7");
	enter(-1, own);
	pass();
	return 0;
}
