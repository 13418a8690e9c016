/* A child in a network namespace of its own (unshare(CLONE_NEWNET) after the fork): loopback up, a bridge
 * link nscd0 with 10.93.0.1/24, net.ipv4.ip_default_ttl 77, a TCP socket listening on 10.93.0.1 and a unix
 * datagram socket bound to the abstract name @netns_child_ns. After restore the child is still in a network
 * namespace other than its parent's, with its link, address and sysctl; its listener accepts a new
 * connection there; its abstract name is reachable there and not in the parent's namespace, where neither
 * the address nor the link is; its owner is the child's user namespace (modes uns and cuns: not crshim's).
 * Before: the dump refused it ("task N is in another net namespace"). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <linux/nsfs.h>
#include "ns_world.h"

#define PORT 7093

static unsigned long ino_of(const char *p)
{
	struct stat st;
	return stat(p, &st) ? 0 : (unsigned long)st.st_ino;
}

static int child(int ready)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	struct sockaddr_un u;
	socklen_t ul = nsw_abstract("netns_child_ns", &u);
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") ||
	    nsw_sh("ip link add nscd0 type bridge && ip addr add 10.93.0.1/24 dev nscd0 && ip link set nscd0 "
		   "up") ||
	    nsw_sh("echo 77 > /proc/sys/net/ipv4/ip_default_ttl"))
		return 64;
	inet_pton(AF_INET, "10.93.0.1", &a.sin_addr);
	int l = socket(AF_INET, SOCK_STREAM, 0), d = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (l < 0 || d < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4) ||
	    bind(d, (struct sockaddr *)&u, ul))
		return 65;
	if (write(ready, "r", 1) != 1)
		return 66;
	close(ready);
	test_waitsig();
	int bad = 0;
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/ns/net", getppid());
	if (ino_of("/proc/self/ns/net") == ino_of(p))
		bad |= 1;
	int nfd = open("/proc/self/ns/net", O_RDONLY), ufd = nfd < 0 ? -1 : ioctl(nfd, NS_GET_USERNS);
	struct stat ust;
	if (ufd < 0 || fstat(ufd, &ust) || (unsigned long)ust.st_ino != ino_of("/proc/self/ns/user"))
		bad |= 32; /* owned by our user namespace (modes uns, cuns: not crshim's) */
	if (nsw_sh("ip -o addr show dev nscd0 | grep -q 'inet 10.93.0.1/24'") ||
	    nsw_sh("ip -o link show nscd0 | grep -q UP"))
		bad |= 2;
	if (nsw_sh("grep -qx 77 /proc/sys/net/ipv4/ip_default_ttl"))
		bad |= 4;
	int c = socket(AF_INET, SOCK_STREAM, 0), k = -1;
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) || (k = accept(l, NULL, NULL)) < 0 ||
	    write(c, "x", 1) != 1 || read(k, p, 1) != 1)
		bad |= 8;
	if (!nsw_reach_abstract("netns_child_ns"))
		bad |= 16;
	return bad;
}

int main(int argc, char **argv)
{
	int pfd[2];
	char c;
	test_init(argc, argv);
	if (pipe(pfd))
		fail("pipe");
	pid_t ch = fork();
	if (ch == 0) {
		close(pfd[0]);
		test_forked();
		_exit(child(pfd[1]));
	}
	close(pfd[1]);
	if (ch < 0 || read(pfd[0], &c, 1) != 1) {
		fail("child not ready");
		return 1;
	}
	close(pfd[0]);
	test_daemon();
	test_waitsig();

	if (nsw_reach_abstract("netns_child_ns"))
		fail("the child's abstract unix name is reachable in the parent's network namespace");
	if (!nsw_sh("ip -o addr | grep -q 10.93.0.1") || !nsw_sh("ip -o link | grep -q nscd0"))
		fail("the child's address or link is in the parent's network namespace");
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status 0x%x (exit 1: in its parent's namespace, 2: link/address, 4: sysctl, 8: "
		     "its "
		     "listener, 16: its abstract name, 32: its owner)",
		     st);
	return test_pass();
}
