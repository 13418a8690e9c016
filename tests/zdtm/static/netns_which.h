/* The setup of netns_veth_which and netns_veth_which_rst: the test's own network namespace and a second one
 * that an open /proc/self/ns/net file keeps, each with a veth ve0 whose other end is the host's (made by the
 * runner's host agent, named after the test's namespace inode: nvwINOa, nvwINOb). nsw_which_check, after the
 * checkpoint: each ve0 still the end of its host's veth; the host's ends removed. nsw_which_main: the test.
 */
#ifndef NETNS_WHICH_H
#define NETNS_WHICH_H
#include "ns_world.h"

static char nsw_out_a[16], nsw_out_b[16];
static int nsw_which_other = -1, nsw_which_home = -1;

/* A veth pair made by the host: its end out there, ve0 in the namespace we are in. */
static inline void nsw_which_pair(const char *out)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "ip link add %s type veth peer name ve0 netns %s && ip link set %s up",
		 out, nsw_netns_pid(), out);
	nsw_hmust(cmd);
	nsw_must("ip link set ve0 up");
}

/* ve0 of the namespace we are in is still the end of the host's out. */
static inline void nsw_which_still(const char *out)
{
	char *h = NULL;
	unsigned peer = nsw_peer_of("ve0");
	if (nsw_hsh(&h, "cat /sys/class/net/%s/ifindex", out) || !peer || (unsigned)atoi(h) != peer)
		fail("ve0 is no longer the end of the host's %s (its peer %u, %s)", out, peer, h);
	free(h);
}

static inline void nsw_which_setup(int argc, char **argv)
{
	test_init(argc, argv);
	nsw_new(CLONE_NEWNET, "net");
	snprintf(nsw_out_a, sizeof(nsw_out_a), "nvw%lua", nsw_ino("net") % 100000000);
	snprintf(nsw_out_b, sizeof(nsw_out_b), "nvw%lub", nsw_ino("net") % 100000000);
	nsw_hsh(NULL, "ip link del %s 2>/dev/null; ip link del %s 2>/dev/null", nsw_out_a, nsw_out_b);
	nsw_must("ip link set lo up");
	nsw_which_pair(nsw_out_a);
	nsw_which_home = open("/proc/self/ns/net", O_RDONLY);
	if (nsw_which_home < 0 || unshare(CLONE_NEWNET))
		fail("second network namespace");
	nsw_which_pair(nsw_out_b);
	nsw_which_other = open("/proc/self/ns/net", O_RDONLY);
	if (nsw_which_other < 0 || setns(nsw_which_home, CLONE_NEWNET))
		fail("back to our network namespace");
}

static inline void nsw_which_check(void)
{
	nsw_which_still(nsw_out_a);
	if (setns(nsw_which_other, CLONE_NEWNET))
		fail("enter the second network namespace");
	nsw_which_still(nsw_out_b);
	nsw_hsh(NULL, "ip link del %s 2>/dev/null; ip link del %s 2>/dev/null", nsw_out_a, nsw_out_b);
}

/* The whole test: setup, checkpoint, check (the .desc tells what the checkpoint must do). */
static inline int nsw_which_main(int argc, char **argv)
{
	nsw_which_setup(argc, argv);
	test_daemon();
	test_waitsig();
	nsw_which_check();
	return test_pass();
}

#endif
