/* --empty-ns net at restore (.desc ropts, as runc restores a container whose network its hooks set up): the
 * test's network namespace is left empty for the caller, but a veth between it (vc) and its child's network
 * namespace (vn, 10.94.0.2/24, up) belongs to the tree. After C/R the child has vn as before (kind, address,
 * state) and its other end is vc in the test's namespace again, with its ifindex (nothing else is set up
 * there: the caller's). Before: the restore failed ("veth vn: no link N in network namespace 0, its other
 * end": the root's links were not read). */
#include "ns_world.h"

#ifdef NSW_EXT_NET
/* A keeper outside the tree holds our network namespace (lib/inhfd.c): the dump gets --external
 * net[INO]:extnet, each restore --inherit-fd fd[100]:extnet of it. */
static void ext_keeper(void)
{
	char ext[64];
	struct stat st;
	int fd = open("/proc/self/ns/net", O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		fail("open our network namespace");
	snprintf(ext, sizeof(ext), "net[%lu]:extnet", (unsigned long)st.st_ino);
	if (inhfd_keeper(fd, fd, "extnet", ext, NULL))
		fail("keeper");
	close(fd);
}
#endif

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
	unsigned peer = nsw_peer_of("vn");
	if (write(up, "r", 1) != 1)
		return 65;
	close(up);
	test_waitsig();
	for (int i = 0; i < 2; i++)
		nsw_same(v[i].what, v[i].before, v[i].cmd, v[i].drop);
	return nsw_peer_of("vn") == peer ? 0 : 1;
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
	unsigned vc = nsw_index_of("vc");
#ifdef NSW_EXT_NET
	ext_keeper();
#endif
	test_daemon();
	test_waitsig();
	if (!vc || nsw_index_of("vc") != vc)
		fail("vc is not in the test's namespace with its ifindex %u after the restore", vc);
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status 0x%x (1: vn's other end is not vc; 64+: setup)", st);
#ifdef NSW_EXT_NET
	inhfd_stop();
#endif
	return test_pass();
}
