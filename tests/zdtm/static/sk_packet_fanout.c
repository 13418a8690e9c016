/* Packet sockets: two bound to lo in one fanout group (PACKET_FANOUT_HASH, an id from the pid), and a
 * SOCK_PACKET socket bound to the device lo. After restore both are members of that group again (getsockopt
 * PACKET_FANOUT as before) and the SOCK_PACKET socket is still bound to lo. */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "zdtmtst.h"

enum { F1 = 40, F2 = 41, SP = 42 };

static int fanout_of(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);
	return getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &v, &l) ? -1 : v;
}

static int member(int at, int val)
{
	struct sockaddr_ll a = {.sll_family = AF_PACKET,
				.sll_protocol = htons(ETH_P_ALL),
				.sll_ifindex = (int)if_nametoindex("lo")};
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_PACKET, PACKET_FANOUT, &val, sizeof(val)) || dup2(fd, at) != at)
		return -1;
	close(fd);
	return 0;
}

static void device_of(int fd, char *out, size_t len)
{
	struct sockaddr_pkt k;
	socklen_t l = sizeof(k);
	memset(&k, 0, sizeof(k));
	if (getsockname(fd, (struct sockaddr *)&k, &l))
		snprintf(out, len, "?");
	else
		snprintf(out, len, "%.14s", (const char *)k.spkt_device);
}

int main(int argc, char **argv)
{
	char dev[32];
	test_init(argc, argv);
	int val = (getpid() & 0x7fff) | (PACKET_FANOUT_HASH << 16);
	if (member(F1, val) || member(F2, val))
		fail("packet sockets in fanout group %d", val & 0xffff);
	int fd = socket(AF_PACKET, SOCK_PACKET, htons(ETH_P_ALL));
	struct sockaddr_pkt k = {.spkt_family = AF_PACKET, .spkt_protocol = htons(ETH_P_ALL)};
	snprintf((char *)k.spkt_device, sizeof(k.spkt_device), "lo");
	if (fd < 0 || bind(fd, (struct sockaddr *)&k, sizeof(struct sockaddr)) || dup2(fd, SP) != SP)
		fail("SOCK_PACKET bound to lo");
	close(fd);
	int want = fanout_of(F1);
	if (want <= 0 || (want & 0xffff) != (val & 0xffff))
		fail("fanout %#x before the dump, want group %#x", want, val & 0xffff);
	test_daemon();
	test_waitsig();

	if (fanout_of(F1) != want || fanout_of(F2) != want)
		fail("fanout %#x %#x after restore, want %#x", fanout_of(F1), fanout_of(F2), want);
	device_of(SP, dev, sizeof(dev));
	if (strcmp(dev, "lo"))
		fail("the SOCK_PACKET socket is bound to \"%s\", want lo", dev);
	pass();
	return 0;
}
