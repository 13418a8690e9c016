/* A unix socket held by a process of another network namespace than its own (CRIU's netns_sub): the child,
 * in a network namespace of its own, binds a datagram socket to the abstract name @netns_sk_other, forks a
 * grandchild that keeps it and goes back to the test's namespace (setns), and closes its copy. After
 * restore the name is still reachable in the child's namespace (the socket was made there) and not in the
 * test's, where the grandchild is. Before: the dump refused the socket ("fd N is a socket, not supported
 * yet": it was not in the table of the grandchild's namespace). */
#include "ns_world.h"

static int child(int home, int ready)
{
	struct sockaddr_un a;
	socklen_t l = nsw_abstract("netns_sk_other", &a);
	int s;
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") ||
	    (s = socket(AF_UNIX, SOCK_DGRAM, 0)) < 0 || bind(s, (struct sockaddr *)&a, l))
		return 64;
	pid_t g = fork();
	if (g == 0) { /* keeps the socket, in the test's namespace */
		if (setns(home, CLONE_NEWNET) || write(ready, "g", 1) != 1)
			_exit(64);
		test_waitsig();
		_exit(0);
	}
	close(s);
	close(home);
	if (g < 0 || write(ready, "c", 1) != 1)
		return 65;
	test_waitsig();
	int bad = nsw_reach_abstract("netns_sk_other") ? 0 : 1;
	kill(g, SIGTERM);
	int st = 0;
	if (waitpid(g, &st, 0) != g || !WIFEXITED(st) || WEXITSTATUS(st))
		bad |= 2;
	return bad;
}

int main(int argc, char **argv)
{
	int pfd[2];
	char c[2];
	test_init(argc, argv);
	int home = open("/proc/self/ns/net", O_RDONLY);
	if (home < 0 || pipe(pfd))
		fail("setup");
	pid_t ch = fork();
	if (ch == 0) {
		close(pfd[0]);
		test_forked();
		_exit(child(home, pfd[1]));
	}
	close(pfd[1]);
	close(home);
	if (ch < 0 || read(pfd[0], c, 1) != 1 || read(pfd[0], c + 1, 1) != 1) {
		fail("child not ready");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (nsw_reach_abstract("netns_sk_other"))
		fail("@netns_sk_other is reachable in the test's network namespace");
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status 0x%x (exit 1: its name is not reachable in its namespace, 2: the "
		     "grandchild)",
		     st);
	return test_pass();
}
