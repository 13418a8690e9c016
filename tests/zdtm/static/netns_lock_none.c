/* A network namespace the restore makes that holds no inet or packet socket of the tree is not locked (the
 * lock keeps traffic from the tree's sockets until their processes run; without any there is nothing to
 * keep it from, and the two nft runs of the lock and its removal cost 15-20 ms). The test, in a network
 * namespace of its own (made again by the restore in every mode) with no socket but a unix pair, has the host
 * agent start the watcher of netns_lock_new (lib/nftwatch.c): it must not see table crshim_netns in the
 * namespace the restoring crshim is in (LOCKED; before: it did). After the restore the namespace holds no
 * table crshim_*, lo is up, and the pair still carries a message. 32 MiB of data make the restore take a
 * while, for the watcher to look in. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	uint8_t *mem = nsw_lock_setup(argc, argv, 15);
	int sv[2];
	char buf[8];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		fail("setup: a unix pair");

	test_daemon();
	test_waitsig();

	char *res = nsw_lock_after(mem, 15);
	if (!strncmp(res, "LOCKED", 6))
		fail(
		    "the network namespace the restore made was locked, without any inet or packet socket of "
		    "the tree in it (nft table crshim_netns seen)");
	if (nsw_sh("ip -o link show lo | grep -q '[<,]UP[,>]'"))
		fail("lo is not up after the restore");
	if (write(sv[0], "nsw", 4) != 4 || read(sv[1], buf, sizeof(buf)) != 4)
		fail("the unix pair does not carry its message after the restore");
	test_msg("watcher: %s\n", res[0] ? res : "no answer\n");
	free(res);
	return test_pass();
}
