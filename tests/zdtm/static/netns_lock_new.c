/* The lock of a network namespace the restore makes (CRIU's network lock at restore): crshim locks it whole
 * (nft table crshim_netns, the dump's method) once its devices, addresses and ruleset stand, before its
 * sockets, and removes it just before the tree resumes. The test, in a network namespace of its own (made
 * again by the restore in every mode) with a UDP socket bound in it (a namespace without an inet or packet
 * socket of the tree is not locked: netns_lock_none), has the host agent start a watcher in the host's
 * namespaces (this program, --lockwatch: lib/nftwatch.c): it finds the `crshim restore` of our dir, and while
 * it runs, looks into the network namespace that crshim is in; when that is not the host's (the new one), it
 * lists its nftables tables (nfnetlink). It writes LOCKED if it saw crshim_netns there, UNLOCKED if it saw
 * the new namespace without it (before: no lock at all; only when it found crshim before it entered that
 * namespace, else LATE: maybe after the lock went), NOTSEEN if it saw no restore. After the restore the
 * test's namespace must hold no table crshim_* (the lock removed), and the socket still gets a datagram.
 * 32 MiB of data make the restore take a while. */
#include "ns_world.h"

int main(int argc, char **argv)
{
	uint8_t *mem = nsw_lock_setup(argc, argv, 14);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	char buf[8];
	int sk = socket(AF_INET, SOCK_DGRAM, 0);
	if (sk < 0 || bind(sk, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(sk, (struct sockaddr *)&a, &al))
		fail("setup: a UDP socket bound to 127.0.0.1");

	test_daemon();
	test_waitsig();

	char *res = nsw_lock_after(mem, 14);
	if (!strncmp(res, "UNLOCKED", 8))
		fail("the network namespace the restore made was not locked while it was restored (no nft "
		     "table crshim_netns seen in it)");
	if (sendto(sk, "nsw", 4, 0, (struct sockaddr *)&a, sizeof(a)) != 4 ||
	    recv(sk, buf, sizeof(buf), 0) != 4)
		fail("the UDP socket does not get its datagram after the restore");
	test_msg("watcher: %s\n", res[0] ? res : "no answer\n");
	free(res);
	return test_pass();
}
