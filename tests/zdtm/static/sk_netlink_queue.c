/* Netlink and packet sockets with data waiting to be read: a NETLINK_ROUTE socket with the kernel's answer
 * to a link request not read, a packet socket (bound to lo, an unused ethertype) with a frame not read.
 * Their queues cannot be put back (messages from the kernel, frames from the wire): the dump must not
 * fail, it warns. After restore both sockets work: the route socket answers a new request (the old
 * answer may be there before it, as after a checkpoint), the packet socket gets a new frame. */
#include <arpa/inet.h>
#include <net/if.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include "zdtmtst.h"

#define ETH_P_TEST 0x88b6 /* IEEE local experimental ethertype: nobody sends it */

static void link_req(int rt, uint32_t seq)
{
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req = {{sizeof(req), RTM_GETLINK, NLM_F_REQUEST, seq, 0},
		 {.ifi_family = AF_UNSPEC, .ifi_index = 1}};
	if (send(rt, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		fail("netlink request %u", seq);
}

/* Read answers until the one of seq; older ones are allowed before it. */
static void link_answer(int rt, uint32_t seq)
{
	static char buf[32768];
	for (int i = 0; i < 8; i++) {
		struct pollfd p = {rt, POLLIN, 0};
		if (poll(&p, 1, 10000) != 1)
			break;
		ssize_t n = recv(rt, buf, sizeof(buf), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		if (n < (ssize_t)sizeof(*h))
			break;
		if (h->nlmsg_seq == seq && h->nlmsg_type == RTM_NEWLINK)
			return;
		if (h->nlmsg_seq > seq || h->nlmsg_type == NLMSG_ERROR)
			break;
	}
	fail("no answer to netlink request %u", seq);
}

static void frame(int tx, int ifindex, const char *what)
{
	struct sockaddr_ll to = {.sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_TEST),
				 .sll_ifindex = ifindex,
				 .sll_halen = 6};
	if (sendto(tx, what, strlen(what) + 1, 0, (struct sockaddr *)&to, sizeof(to)) !=
	    (ssize_t)strlen(what) + 1)
		fail("send frame %s", what);
}

/* Read frames until what comes (others: the ones sent before, or copies). */
static void frame_wait(int pk, const char *what)
{
	char buf[256];
	for (int i = 0; i < 8; i++) {
		struct pollfd p = {pk, POLLIN, 0};
		if (poll(&p, 1, 10000) != 1)
			break;
		ssize_t n = recv(pk, buf, sizeof(buf) - 1, 0);
		if (n > 0 && !memcmp(buf, what, strlen(what) + 1))
			return;
	}
	fail("frame %s not received", what);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int ifindex = (int)if_nametoindex("lo");
	struct sockaddr_ll ll = {
	    .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_TEST), .sll_ifindex = ifindex};
	int rt = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	int pk = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_TEST));
	int tx = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_TEST));
	if (rt < 0 || pk < 0 || tx < 0 || bind(pk, (struct sockaddr *)&ll, sizeof(ll)))
		fail("sockets");
	link_req(rt, 1);
	frame(tx, ifindex, "before");
	struct pollfd p[2] = {{rt, POLLIN, 0}, {pk, POLLIN, 0}};
	for (int i = 0;
	     i < 1000 && (poll(p, 2, 10) < 2 || !(p[0].revents & POLLIN) || !(p[1].revents & POLLIN)); i++)
		;
	if (!(p[0].revents & POLLIN) || !(p[1].revents & POLLIN))
		fail("nothing queued");

	test_daemon();
	test_waitsig();

	link_req(rt, 2);
	link_answer(rt, 2);
	frame(tx, ifindex, "after");
	frame_wait(pk, "after");
	pass();
	return 0;
}
