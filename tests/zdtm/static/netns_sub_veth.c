/* Veth pairs between network namespaces of the tree: the test in one of its own, each of its two children in
 * another; pair i (0, 1) has nssv<2i> in the test's (10.95.i.1/24, MTU 1400) and nssv<2i+1> in child i's
 * (10.95.i.2/24, a UDP socket bound there). After restore each end is in its namespace with its address,
 * MTU and state, the other end in the other namespace (link-netnsid), and a datagram the test sends to
 * 10.95.i.2 reaches child i's socket across its pair. Before: the dump refused the children ("task N is in
 * another net namespace"); with the second child, the dump took the second pair for one with an end
 * outside the tree (the namespace id of the second child was not read back). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include "ns_world.h"

#define PORT 7095

static int child(int i, int ready, int go)
{
	char c, ip[32];
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	snprintf(ip, sizeof(ip), "10.95.%d.2", i);
	inet_pton(AF_INET, ip, &a.sin_addr);
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") || write(ready, "u", 1) != 1 ||
	    read(go, &c, 1) != 1)
		return 64;
	if (nsw_sh("ip addr add %s/24 dev nssv%d && ip link set nssv%d up", ip, 2 * i + 1, 2 * i + 1))
		return 65;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || write(ready, "r", 1) != 1)
		return 66;
	test_waitsig();
	int bad = 0;
	char buf[8];
	struct pollfd p = {.fd = s, .events = POLLIN};
	if (poll(&p, 1, 10000) != 1 || recv(s, buf, sizeof(buf), MSG_DONTWAIT) != 3 || memcmp(buf, "nsv", 3))
		bad |= 1;
	if (nsw_sh("ip -o addr show dev nssv%d | grep -q 'inet %s/24'", 2 * i + 1, ip) ||
	    nsw_sh("ip -o link show nssv%d | grep -q 'mtu 1400.*link-netnsid'", 2 * i + 1))
		bad |= 2;
	return bad;
}

int main(int argc, char **argv)
{
	int up[2][2], down[2][2];
	pid_t ch[2];
	char c;
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	for (int i = 0; i < 2; i++) {
		if (pipe(up[i]) || pipe(down[i]))
			fail("pipe");
		ch[i] = fork();
		if (ch[i] == 0) {
			close(up[i][0]);
			close(down[i][1]);
			test_forked();
			_exit(child(i, up[i][1], down[i][0]));
		}
		close(up[i][1]);
		close(down[i][0]);
		if (ch[i] < 0 || read(up[i][0], &c, 1) != 1) {
			fail("child %d not ready", i);
			return 1;
		}
		nsw_must("ip link add nssv%d mtu 1400 type veth peer name nssv%d mtu 1400 netns %d", 2 * i,
			 2 * i + 1, ch[i]);
		nsw_must("ip addr add 10.95.%d.1/24 dev nssv%d && ip link set nssv%d up", i, 2 * i, 2 * i);
		if (write(down[i][1], "g", 1) != 1 || read(up[i][0], &c, 1) != 1) {
			fail("child %d not ready", i);
			return 1;
		}
	}
	static struct nsw_view v[] = {
	    {"addresses", "ip -o -4 addr | grep nssv | sed -e 's/\\\\.*//' -e 's/ tentative//'", NULL, NULL,
	     "10.95.1.1/24"},
	    {"links", "ip -o link | grep nssv | sed -E 's/(NO-CARRIER,|,LOWER_UP|state [A-Z]+ )//g'", NULL,
	     NULL, "link-netnsid"}};
	nsw_look(v, 2);
	nsw_cr(v, 2, "net", host);

	int s = socket(AF_INET, SOCK_DGRAM, 0);
	for (int i = 0; i < 2; i++) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(PORT)};
		char ip[32];
		snprintf(ip, sizeof(ip), "10.95.%d.2", i);
		inet_pton(AF_INET, ip, &a.sin_addr);
		if (s < 0 || sendto(s, "nsv", 3, 0, (struct sockaddr *)&a, sizeof(a)) != 3)
			fail("send to %s", ip);
		kill(ch[i], SIGTERM);
		int st = 0;
		if (waitpid(ch[i], &st, 0) != ch[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			fail(
			    "child %d: status 0x%x (exit 1: the datagram did not cross the pair, 2: its end)",
			    i, st);
	}
	return test_pass();
}
