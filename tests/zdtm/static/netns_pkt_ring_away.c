/* A packet socket with a mapped TPACKET_V2 receive ring, made in a second network namespace (the test
 * unshares one, sets its lo up, opens the ring and its sender there, and goes back to its own), held by the
 * test: 5 frames sent on that namespace's lo, 3 read, 2 held over the checkpoint. crshim reads the ring's
 * shape in the socket's own sock_diag table (not its process's) and makes it in that namespace at restore;
 * after it the socket is still of a namespace not the test's, the ring mapped as before, the 2 held frames
 * come first, then 40 new ones sent on that lo. Before: the dump refused it ("with a ring, of another network
 * namespace than its process's: not supported"). */
#include "ns_world.h"

int main(int argc, char **argv)
{
	struct pkring r;
	struct tpacket_req3 req = {
	    .tp_block_size = 4096, .tp_block_nr = 4, .tp_frame_size = 1024, .tp_frame_nr = 16};
	uint32_t want = 0;
	test_init(argc, argv);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up"))
		fail("second network namespace");
	pkring_open(&r, TPACKET_V2, &req, NULL);
	if (setns(home, CLONE_NEWNET) || nsw_sk_ns(r.sk, 0) == nsw_ino("net"))
		fail("back home");
	for (uint32_t s = 0; s < 5; s++)
		pkring_send(&r, s);
	pkring_expect(&r, &want, 2);
	pkring_cr(&r, 3, 5);
	if (nsw_sk_ns(r.sk, 0) == nsw_ino("net") || nsw_sk_ns(r.tx, 0) == nsw_ino("net"))
		fail("the ring's socket or its sender is in our network namespace after the restore");
	return test_pass();
}
