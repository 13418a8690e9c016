/* A packet socket with a mapped TPACKET_V2 receive ring, made in a second network namespace (the test
 * unshares one, sets its lo up, and goes back to its own), held by the test: crshim reads a ring through the
 * sock_diag table of the process's namespace, which lacks it, so the dump must fail with one line naming the
 * case, the test left running. Before: refused as a ring that sock_diag does not show. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	struct pkring r;
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	test_init(argc, argv);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up"))
		fail("second network namespace");
	pkring_open(&r, TPACKET_V2, &req, NULL);
	if (setns(home, CLONE_NEWNET) || nsw_sk_ns(r.sk, 0) == nsw_ino("net"))
		fail("back home");
	test_daemon();
	test_waitsig();
	pass();
	return 0;
}
