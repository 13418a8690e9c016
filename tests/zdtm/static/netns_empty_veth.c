/* --empty-ns net at restore (.desc ropts, as runc restores a container whose network its hooks set up): the
 * test's network namespace is left empty for the caller, but a veth between it (vc) and its child's network
 * namespace (vn, 10.94.0.2/24, up) belongs to the tree. After C/R the child has vn as before (kind, address,
 * state) and its other end is vc in the test's namespace again, with its ifindex (nothing else is set up
 * there: the caller's). Before: the restore failed ("veth vn: no link N in network namespace 0, its other
 * end": the root's links were not read). */
#include "ns_world.h"

/* A number of `ip -o link show dev` that sed expression x picks (0: none). */
static unsigned link_num(const char *dev, const char *x)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "ip -o link show %s | sed -n '%s'", dev, x);
	char *o = nsw_out(cmd, NULL);
	unsigned r = (unsigned)atoi(o);
	free(o);
	return r;
}

/* the ifindex of dev's other end (in another namespace), of dev */
#define peer_of(dev) link_num(dev, "s/^[0-9]*: [^@]*@if\\([0-9]*\\):.*/\\1/p")
#define index_of(dev) link_num(dev, "s/^\\([0-9]*\\): .*/\\1/p")

static int child(int up, int down)
{
	char c;
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") || write(up, "u", 1) != 1 ||
	    read(down, &c, 1) != 1 || nsw_sh("ip addr add 10.94.0.2/24 dev vn && ip link set vn up"))
		return 64;
	static struct nsw_view v[] = {
	    {"vn",
	     "ip -d -o link show vn | sed 's/@[^:]*:/:/; s/ state [A-Z]*//; s/,LOWER_UP//; s/NO-CARRIER,//'",
	     NULL, NULL, "veth"},
	    {"addresses", "ip -o -4 addr show dev vn", NULL, NULL, "10.94.0.2/24"}};
	nsw_look(v, 2);
	unsigned peer = peer_of("vn");
	if (write(up, "r", 1) != 1)
		return 65;
	close(up);
	test_waitsig();
	for (int i = 0; i < 2; i++)
		nsw_same(v[i].what, v[i].before, v[i].cmd, v[i].drop);
	return peer_of("vn") == peer ? 0 : 1;
}

int main(int argc, char **argv)
{
	int up[2], down[2];
	char c;
	nsw_init(argc, argv, CLONE_NEWNET, "net");
	if (pipe(up) || pipe(down))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		close(up[0]), close(down[1]);
		_exit(child(up[1], down[0]));
	}
	close(up[1]), close(down[0]);
	if (read(up[0], &c, 1) != 1)
		fail("child not ready");
	nsw_must("ip link add vc type veth peer name vn netns %d && ip link set vc up", ch);
	if (write(down[1], "v", 1) != 1 || read(up[0], &c, 1) != 1)
		fail("child not ready");
	unsigned vc = index_of("vc");
	test_daemon();
	test_waitsig();
	if (!vc || index_of("vc") != vc)
		fail("vc is not in the test's namespace with its ifindex %u after the restore", vc);
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status 0x%x (1: vn's other end is not vc; 64+: setup)", st);
	return test_pass();
}
