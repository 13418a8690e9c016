/* A network namespace of its own with only its loopback: up, with 127.0.0.1 and ::1 and one more address
 * each (127.0.0.2/8, ::2/128 nodad), MTU 60000. After the restore the task is in a network namespace of its
 * own again (not the host's) and `ip -o addr` / `ip -o link` show the same, and a UDP datagram sent to
 * 127.0.0.2 reaches a socket bound there. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "ns_world.h"

int main(int argc, char **argv)
{
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up mtu 60000");
	nsw_must("ip addr add 127.0.0.2/8 dev lo");
	nsw_must("ip -6 addr add ::2/128 dev lo nodad");
	static struct nsw_view v[] = {{"addresses", "ip -o addr", NULL, NULL, "127.0.0.2/8"},
				      {"links", "ip -o link", NULL, NULL, "mtu 60000"}};
	nsw_look(v, 2);
	nsw_cr(v, 2, "net", host);
	int s = socket(AF_INET, SOCK_DGRAM, 0), c = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	char buf[8] = "";
	inet_pton(AF_INET, "127.0.0.2", &a.sin_addr);
	if (s < 0 || c < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &al) ||
	    sendto(c, "nsw", 3, 0, (struct sockaddr *)&a, sizeof(a)) != 3 ||
	    recv(s, buf, sizeof(buf), 0) != 3)
		fail("UDP over 127.0.0.2");
	return test_pass();
}
