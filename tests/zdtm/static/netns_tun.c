/* Persistent tun/tap devices in the tree's own network namespace: a tap (nswtap0: no PI header, vnet header,
 * owner 1000, group 1000, MAC, MTU 1400, IPv4 address, up) and a multi-queue tun (nswtun0, down). After the
 * restore `ip -d -o link` shows the same (kind, flags, owner, group, ifindex, MAC, MTU, state), the
 * addresses are there, and /dev/net/tun attaches to nswtap0 with its flags (and not as a tun). */
#include <fcntl.h>
#include <net/if.h>
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
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	nsw_must("ip tuntap add dev nswtap0 mode tap vnet_hdr user 1000 group 1000");
	nsw_must("ip tuntap add dev nswtun0 mode tun multi_queue");
	nsw_must("ip link set nswtap0 address 02:00:00:4e:54:01 mtu 1400");
	nsw_must("ip addr add 10.93.1.1/24 dev nswtap0 && ip link set nswtap0 up");
	static struct nsw_view v[] = {
	    {"addresses", "ip -o addr | sed -e 's/\\\\.*//' -e 's/ tentative//'", NULL, NULL, NULL},
	    {"links", "ip -d -o link | sed -E 's/(NO-CARRIER,|,LOWER_UP|state [A-Z]+ )//g'", NULL, NULL,
	     NULL}};
	nsw_look(v, 2);
	if (nsw_sh("ip -d -o link show nswtap0 | grep -q 'tun type tap pi off vnet_hdr on persist on'"))
		fail("nswtap0 not made as asked before the dump");
	nsw_cr(v, 2, "net", host);
	if (nsw_sh("ip -d -o link show nswtun0 | grep -q 'tun type tun pi off vnet_hdr off multi_queue'"))
		fail("nswtun0 is not a multi-queue tun after restore");
	if (attach("nswtap0", IFF_TUN | IFF_NO_PI) >= 0)
		fail("nswtap0 attached as a tun");
	int fd = attach("nswtap0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR);
	if (fd < 0)
		fail("attach to nswtap0 as a tap");
	return test_pass();
}
