/* A mount namespace of the test's own with crshim's root (its mounts are not saved, as a PID namespace's
 * init's in mode cr), made while the host had a network namespace mounted by `ip netns add` (the host agent
 * makes one, with an nftables table named like a crshim network lock in it): the test's namespace holds a
 * private copy of that nsfs mount (the host's is removed at the end). That namespace is not the tree's: the
 * dump must not take it (before: it was dumped and refused for its "crshim network lock table", or made again
 * at restore with what it held; seen as the proc_fds_pidns flake while another test ran). In modes ns, uns
 * and cuns the test has a root of its own, without the host's /run/netns: nothing to see there. */
#include <sys/mount.h>
#include "ns_world.h"

#define NSNAME "nsw.${PWD##*.}" /* (the host agent's cwd: our dir) */

int main(int argc, char **argv)
{
	test_init(argc, argv);
	if (getpid() == 1) { /* modes ns, uns, cuns: a root of our own, no /run/netns of the host's */
		test_daemon();
		test_waitsig();
		pass();
		return 0;
	}
	nsw_hmust("ip netns add " NSNAME " && ip netns exec " NSNAME
		  " nft add table inet crshim_zdtm_foreign");
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		fail("mount namespace");
	char *m = nsw_out("grep -c ' - nsfs ' /proc/self/mountinfo || true", NULL);
	test_msg("nsfs mounts copied from the host: %s", m);
	free(m);
	test_daemon();
	test_waitsig();
	/* (not before: unlinking a mount point removes its mounts in every namespace, our copy too) */
	nsw_hmust("ip netns del " NSNAME);
	pass();
	return 0;
}
