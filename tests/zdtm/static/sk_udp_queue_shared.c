/* A UDP socket (IPv6, bound to ::1) shared by a parent and its child through fork, with datagrams from two
 * senders queued. After restore both still hold one socket (kcmp), the child takes the first datagram and
 * the parent then finds the others, in order, with their data and senders: one queue, put back once. */
#include "sk_udp.h"

struct child_arg {
	int r;
	const struct udp_dg *want;
};

/* The child, after restore: the first datagram. */
static int child(void *arg)
{
	const struct child_arg *ca = arg;
	udp_read("child", ca->r, ca->want, 1);
	return test_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ra, a1, a2;
	struct udp_dg want[5];
	int st;
	test_init(argc, argv);
	int r = udp_bound(AF_INET6, "::1", &ra);
	int s1 = udp_bound(AF_INET6, "::1", &a1), s2 = udp_bound(AF_INET6, "::1", &a2);
	for (int i = 0; i < 5; i++) {
		want[i] = (struct udp_dg){(size_t)(100 * i + 3), (uint64_t)i + 7, i % 2 ? a2 : a1};
		udp_send(i % 2 ? s2 : s1, &ra, want[i].len, want[i].seed);
	}
	udp_wait(r);
	struct child_arg ca = {r, want};
	pid_t pid = tree_fork_waiting(child, &ca);

	test_daemon();
	test_waitsig();

	if (!tree_same_file(pid, r))
		fail("the UDP socket is not one socket of parent and child any more");
	if ((st = tree_waiting_go(pid)))
		fail("the child did not find the first datagram (status %#x)", st);
	udp_check("parent", r, want + 1, 4);
	pass();
	return 0;
}
