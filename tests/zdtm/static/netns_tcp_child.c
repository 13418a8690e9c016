/* An established TCP connection (both ends and their listener, 127.0.0.1, 70000 bytes queued each way) of a
 * child in a network namespace of its own, the test in its parent's (netns_tcp_away.c). After C/R
 * (--tcp-established) the child reads the queued data back exactly and new data flows both ways. Before:
 * the network lock was made again only in the root's namespace, the child's connection had none while it was
 * restored, and was reset. */
#define NTA_OTHER_MAIN 1
#include "netns_tcp_away.c"

static int child(int *ready)
{
	struct pair p;
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") || pair_make(&p))
		return 64;
	if (child_ready(ready))
		return 65;
	test_waitsig();
	const char *w = pair_check(&p);
	if (w)
		test_msg("child: %s\n", w);
	return w ? 1 : 0;
}

int main(int argc, char **argv)
{
	return nsw_child_main(argc, argv, child,
			      "1: the connection lost data or is broken (see the message); 64+: setup");
}
