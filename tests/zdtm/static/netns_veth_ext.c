/* A veth pair between the tree's own network namespace (eth0, 10.90.0.2/30) and the host's (nswldvo0,
 * 10.90.0.1/30), named at dump and restore with --external veth[eth0]:nswldvo0 (.desc). After the restore
 * eth0 is there with its address, its other end nswldvo0 is back in the host's namespace, up, and (once the
 * test gives it its address again: the outer end's own state is the host's business) a datagram sent from
 * inside reaches a socket bound to 10.90.0.1 in the host's namespace. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "ns_world.h"

#define OUT "nswldvo0"

static int host_socket(int self, struct sockaddr_in *a)
{
	int h = open(nsw_host("net"), O_RDONLY), s = -1;
	socklen_t al = sizeof(*a);
	if (h >= 0 && !setns(h, CLONE_NEWNET)) {
		s = socket(AF_INET, SOCK_DGRAM, 0);
		if (s >= 0 &&
		    (bind(s, (struct sockaddr *)a, sizeof(*a)) || getsockname(s, (struct sockaddr *)a, &al)))
			fail("bind 10.90.0.1 in the host's namespace");
		if (setns(self, CLONE_NEWNET))
			fail("back into our namespace");
	}
	if (h >= 0)
		close(h);
	return s;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
#define hn nsw_host("net")
	nsw_sh("nsenter --net=%s ip link del " OUT " 2>/dev/null", hn); /* a stale one */
	unsigned long host = nsw_new(CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	nsw_must("nsenter --net=%s ip link add " OUT " type veth peer name eth0 netns %d", hn, getpid());
	nsw_must("nsenter --net=%s ip addr add 10.90.0.1/30 dev " OUT, hn);
	nsw_must("nsenter --net=%s ip link set " OUT " up", hn);
	nsw_must("ip addr add 10.90.0.2/30 dev eth0 && ip link set eth0 up");
	static struct nsw_view v[] = {{"addresses", "ip -o -4 addr", NULL, NULL}};
	nsw_look(v, 1);
	nsw_cr(v, 1, "net", host);
	if (nsw_sh("nsenter --net=%s ip -o link show " OUT " | grep -q '[<,]UP[,>]'", hn))
		fail("%s is not in the host's namespace, or not up", OUT);
	nsw_sh("nsenter --net=%s ip addr add 10.90.0.1/30 dev " OUT " 2>/dev/null", hn);
	int self = open("/proc/self/ns/net", O_RDONLY);
	struct sockaddr_in a = {.sin_family = AF_INET};
	inet_pton(AF_INET, "10.90.0.1", &a.sin_addr);
	int h = host_socket(self, &a), s = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[8];
	usleep(100000);
	if (h < 0 || s < 0 || sendto(s, "nsw", 3, 0, (struct sockaddr *)&a, sizeof(a)) != 3)
		fail("send to 10.90.0.1");
	else if (recv(h, buf, sizeof(buf), MSG_DONTWAIT) != 3) {
		usleep(500000);
		if (recv(h, buf, sizeof(buf), MSG_DONTWAIT) != 3)
			fail("the datagram did not cross the veth pair");
	}
	nsw_sh("nsenter --net=%s ip link del " OUT " 2>/dev/null", hn);
	if (!test_failures)
		pass();
	return 0;
}
