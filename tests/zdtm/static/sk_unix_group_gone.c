/* Unix sockets in a tree whose restore adds a helper process (a process group whose leader is gone): a
 * listener bound to a path with a connection not accepted yet, and a socketpair with data queued. In modes
 * with the tree's own mount tree the sockets are made once it stands (after the restore planned its helper
 * processes, which makes the tree's array of processes again): a restore that kept pointers into the old
 * array read freed memory there (CRIU's zdtm helper_zombie_child crashed crshim so). After restore the
 * group is the same, the pending connection is accepted, a new client connects, the pair's data is there. */
#include <limits.h>
#include <stdio.h>
#include "sk_unix.h"

enum { Y, N, G }; /* G, the leader that goes, is not recorded */
enum { L = 50, C = 51, PA = 52, PB = 53, C2 = 54 };

int main(int argc, char **argv)
{
	struct tree_ids tab[N + 1];
	pid_t pids[N + 1];
	struct sockaddr_un a;
	tree_init(argc, argv, 0);
	socklen_t al = sk_bound(L, SOCK_STREAM, "grp.sock", 4, &a);
	sk_connect_to(C, SOCK_STREAM, &a, al);
	sk_pair(SOCK_STREAM, PA, PB);
	if (sk_send(PA, "queued", 6))
		fail("send on the pair");
	pid_t g = tree_in_group(G, 0);
	tree_in_group(Y, g);
	tree_settle_killing(tab, pids, N, g);
	if (tab[Y].pgid != g || !kill(g, 0))
		fail("setup: the group's leader is not gone");
	tree_cr_check(tab, N + 1);
	if (!kill(g, 0))
		fail("the group's leader %d exists after restore", g);
	int s = accept(L, NULL, NULL);
	if (s < 0)
		fail("accept the pending connection");
	else if (sk_send(C, "hi", 2) || sk_expect(s, "hi", 2))
		fail("the pending connection does not carry data");
	sk_connect_to(C2, SOCK_STREAM, &a, al);
	if (sk_expect(PB, "queued", 6))
		fail("the pair's queued data");
	return tree_pass(pids, N);
}
