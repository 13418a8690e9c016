/* tun/tap devices held by fds of the test in its own network namespace: a tun (nswtunfd0, no PI header) that
 * only the fd keeps (not persistent), 10.93.2.1 peer 10.93.2.2, up; and a persistent tap (nswtapfd1, vnet
 * header of 12 bytes, send buffer 65536) attached to another fd. After C/R each fd is attached to its
 * device with its flags, vnet header size and send buffer; an ICMP echo request written into the tun fd
 * comes back as a reply read from it (packets both ways); nswtunfd0 is still not persistent (closing the fd
 * removes it); of a multi-queue tun (nswmq0) with two fds, the queue that was detached is detached again
 * (only then does IFF_ATTACH_QUEUE work) and the other is attached; the tun's IPv6 addrgenmode is still
 * random (the kernel's for a link of no hardware address; before, writing its stable_secret at restore made
 * it stable privacy, and the next dump's failed). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include "ns_world.h"

static int attach(const char *name, short flags)
{
	struct ifreq ifr = {.ifr_flags = flags};
	int fd = open("/dev/net/tun", O_RDWR);
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0)
		return -1;
	return fd;
}

static uint16_t csum(const void *p, size_t n)
{
	const uint16_t *w = p;
	uint32_t s = 0;
	for (; n > 1; n -= 2)
		s += *w++;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* An echo request 10.93.2.2 -> 10.93.2.1 into fd; 0 when the reply is read back. */
static int ping(int fd)
{
	unsigned char pkt[28] = {0}, in[256];
	struct iphdr *ip = (struct iphdr *)pkt;
	struct icmphdr *ic = (struct icmphdr *)(pkt + 20);
	ip->version = 4, ip->ihl = 5, ip->ttl = 64, ip->protocol = IPPROTO_ICMP;
	ip->tot_len = htons(sizeof(pkt));
	ip->saddr = inet_addr("10.93.2.2"), ip->daddr = inet_addr("10.93.2.1");
	ip->check = csum(ip, 20);
	ic->type = ICMP_ECHO, ic->un.echo.id = htons(77), ic->un.echo.sequence = htons(1);
	ic->checksum = csum(ic, 8);
	if (write(fd, pkt, sizeof(pkt)) != (ssize_t)sizeof(pkt))
		return -1;
	for (int i = 0; i < 50; i++) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 100) != 1)
			continue;
		ssize_t n = read(fd, in, sizeof(in));
		if (n >= 28 && in[9] == IPPROTO_ICMP && in[20] == ICMP_ECHOREPLY)
			return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	int hdr = 12, sb = 65536;
	nsw_must("ip link set lo up");
	int tun = attach("nswtunfd0", IFF_TUN | IFF_NO_PI);
	int tap = attach("nswtapfd1", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	if (tun < 0 || tap < 0 || ioctl(tap, TUNSETPERSIST, 1) || ioctl(tap, TUNSETVNETHDRSZ, &hdr) ||
	    ioctl(tap, TUNSETSNDBUF, &sb))
		fail("make nswtunfd0 and nswtapfd1");
	int mq0 = attach("nswmq0", IFF_TUN | IFF_NO_PI | IFF_MULTI_QUEUE);
	int mq1 = attach("nswmq0", IFF_TUN | IFF_NO_PI | IFF_MULTI_QUEUE);
	struct ifreq q = {.ifr_flags = IFF_DETACH_QUEUE};
	if (mq0 < 0 || mq1 < 0 || ioctl(mq1, TUNSETQUEUE, &q))
		fail("make nswmq0 with a detached queue");
	nsw_must("ip addr add 10.93.2.1 peer 10.93.2.2 dev nswtunfd0 && ip link set nswtunfd0 up");
	/* (no packet before the dump: a write moves the fd's position, which no seek can set again) */
	static struct nsw_view v[] = {
	    {"addresses", "ip -o addr | sed -e 's/\\\\.*//' -e 's/ tentative//'", NULL, NULL, NULL},
	    {"links", "ip -o link | sed -E 's/(NO-CARRIER,|,LOWER_UP|state [A-Z]+ )//g'", NULL, NULL, NULL},
	    {"tun/tap", "ip -d -o link | grep -o 'tun type.* persist [a-z]*\\|addrgenmode [a-z0-9]*'", NULL,
	     NULL, NULL}};
	nsw_look(v, 3);
	nsw_cr(v, 3, "net", host);
	struct ifreq ifr = {0};
	if (ioctl(tun, TUNGETIFF, &ifr) || strcmp(ifr.ifr_name, "nswtunfd0") ||
	    (ifr.ifr_flags & (IFF_TUN | IFF_TAP | IFF_NO_PI | IFF_PERSIST)) != (IFF_TUN | IFF_NO_PI))
		fail("the tun fd is not attached to nswtunfd0 as before (flags 0x%x)", ifr.ifr_flags);
	memset(&ifr, 0, sizeof(ifr));
	hdr = sb = 0;
	if (ioctl(tap, TUNGETIFF, &ifr) || strcmp(ifr.ifr_name, "nswtapfd1") ||
	    (ifr.ifr_flags & (IFF_TAP | IFF_VNET_HDR | IFF_PERSIST)) !=
		(IFF_TAP | IFF_VNET_HDR | IFF_PERSIST) ||
	    ioctl(tap, TUNGETVNETHDRSZ, &hdr) || hdr != 12 || ioctl(tap, TUNGETSNDBUF, &sb) || sb != 65536)
		fail("the tap fd is not attached to nswtapfd1 as before (flags 0x%x hdr %d sndbuf %d)",
		     ifr.ifr_flags, hdr, sb);
	if (ping(tun))
		fail("no echo reply through nswtunfd0 after the restore");
	q.ifr_flags = IFF_ATTACH_QUEUE;
	if (ioctl(mq0, TUNSETQUEUE, &q) == 0 || ioctl(mq1, TUNSETQUEUE, &q))
		fail("nswmq0: the detached queue is not the one detached after the restore");
	close(tun);
	if (if_nametoindex("nswtunfd0"))
		fail("nswtunfd0 outlived its fd: made persistent by the restore");
	return test_pass();
}
