/* A macvlan and a device of the host in a network namespace of the tree other than the root's: the test's
 * child unshares one, where the host (the runner's host agent, in every mode) moves a macvlan nswcmv0 (mode
 * bridge, a MAC and MTU of its own, 10.90.5.2/24, up) on its bridge nswcmvbr0, and eth2, the end of a veth
 * whose other end nswcda0 is the host's (10.90.6.2/24, up, a route through it). The dump saves eth2 as the
 * host's device (--external netdev[eth2]:nswcdb1, .desc opts) and the macvlan's setup; the restore makes
 * the macvlan again on nswcmvbr0 (--external macvlan[nswcmv0]:nswcmvbr0, .desc ropts) and moves the host's
 * nswcdb1 in as eth2 (the host made a second pair nswcdb0 10.90.6.1/24 - nswcdb1), both into the child's
 * namespace, which is not the test's. After the restore the child sees both links as before (mode, MAC,
 * MTU, state, addresses, route), the test's namespace has neither, the host has no nswcdb1 any more, and a
 * datagram the host sends to 10.90.6.2 reaches a socket of the child. Before: the dump refused them ("not
 * supported yet: macvlan nswcmv0 in a network namespace of the tree other than the root's"). Fixed host
 * names: never run it beside another run (not restored: a failed dump or mode nocr, the host keeps nswcdb1).
 */
#include "ns_world.h"

static void host_clean(void)
{
	nsw_hsh(NULL,
		"ip link del nswcmvbr0 2>/dev/null; ip link del nswcda0 2>/dev/null; ip link del nswcdb0 "
		"2>/dev/null; true");
}

/* eth2 is still the end of the first pair (its peer is the host's nswcda0): 1 */
static int first_eth2(void)
{
	char *in = nsw_out("ip -o link show eth2 | sed -n 's/.*eth2@if\\([0-9]*\\):.*/\\1/p'", NULL),
	     *h = NULL;
	int r = !nsw_hsh(&h, "cat /sys/class/net/nswcda0/ifindex") && atoi(h) > 0 && atoi(h) == atoi(in);
	free(in);
	free(h);
	return r;
}

static int child(int ready)
{
	char cmd[768];
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up"))
		return 64;
	snprintf(
	    cmd, sizeof(cmd),
	    "ip link add nswcmvbr0 type bridge && ip link set nswcmvbr0 up && ip link add nswcmv0 link "
	    "nswcmvbr0 type macvlan mode bridge && ip link set nswcmv0 netns %s && ip link add nswcda0 type "
	    "veth peer name eth2 netns %s && ip link set nswcda0 up && ip link add nswcdb0 type veth peer "
	    "name nswcdb1 && ip addr add 10.90.6.1/24 dev nswcdb0 && ip link set nswcdb0 up",
	    nsw_netns_pid(), nsw_netns_pid());
	nsw_hmust(cmd);
	nsw_must(
	    "ip link set nswcmv0 mtu 1400 address 02:00:5e:10:20:51 && ip addr add 10.90.5.2/24 dev nswcmv0 "
	    "&& ip link set nswcmv0 up && ip addr add 10.90.6.2/24 dev eth2 && ip link set eth2 up && ip "
	    "route add 10.91.6.0/24 via 10.90.6.1 dev eth2");
	static struct nsw_view v[] = {
	    {"the macvlan", "ip -d -o link show nswcmv0 | sed 's/ qdisc .* state [A-Z]*//'", NULL, NULL,
	     "macvlan mode bridge"},
	    {"the host's device", "ip -o link show eth2 | sed 's/@[^:]*:/:/; s/ qdisc .* state [A-Z]*//'",
	     NULL, NULL, "eth2"},
	    {"addresses", "ip -o -4 addr show | grep -v ' lo '", NULL, NULL, "10.90.6.2/24"},
	    {"routes", "ip -4 route", NULL, NULL, "10.91.6.0/24 via 10.90.6.1"},
	};
	nsw_look(v, 4);
	if (write(ready, "r", 1) != 1)
		return 65;
	close(ready);
	test_waitsig();
	for (int i = 0; i < 4; i++)
		nsw_same(v[i].what, v[i].before, v[i].cmd, v[i].drop);
	if (first_eth2()) { /* not restored (mode nocr, a failed dump) */
		test_msg("not restored: the host keeps nswcdb1\n");
		return 0;
	}
	char *h = NULL;
	if (nsw_hsh(&h, "ip -o link show nswcdb1") == 0)
		fail("the host still has nswcdb1: %s", h);
	free(h);
	nsw_udp_from_host("10.90.6.2", "nswcdb0 and the device moved in");
	return 0;
}

int main(int argc, char **argv)
{
	int pfd[2];
	char c;
	test_init(argc, argv);
	host_clean(); /* stale ones */
	if (pipe(pfd))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		close(pfd[0]);
		_exit(child(pfd[1]));
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		fail("child not ready");
	close(pfd[0]);
	test_daemon();
	test_waitsig();
	if (!nsw_sh("ip -o link | grep -q 'nswcmv0\\|eth2'"))
		fail("a link of the child's namespace is in the test's");
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status 0x%x (64+: setup)", st);
	host_clean();
	return test_pass();
}
