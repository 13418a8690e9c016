/* One open file description of a TCP listener (127.0.0.1, a port of the kernel's choice) that a child, in a
 * network namespace of its own, and its grandchild share (forked after listen). After C/R the listener is
 * still one description of both (kcmp), bound as before, in the child's namespace (SIOCGSKNS), and a client
 * there connects to it. Before: crshim, which makes a description of several processes once for all, made
 * it in the root's network namespace. */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include <linux/sockios.h>
#include "ns_world.h"

static int child(int *ready)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)}, b;
	socklen_t l = sizeof(a);
	int s;
	if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up") ||
	    (s = socket(AF_INET, SOCK_STREAM, 0)) < 0 || bind(s, (struct sockaddr *)&a, l) || listen(s, 4) ||
	    getsockname(s, (struct sockaddr *)&a, &l))
		return 64;
	pid_t g = test_fork();
	if (g == 0) { /* holds it too */
		test_waitsig();
		_exit(0);
	}
	if (g < 0 || child_ready(ready))
		return 65;
	test_waitsig();
	int bad = syscall(SYS_kcmp, getpid(), g, KCMP_FILE, s, s) ? 1 : 0;
	l = sizeof(b);
	if (getsockname(s, (struct sockaddr *)&b, &l) || b.sin_port != a.sin_port)
		bad |= 2;
	struct stat sn, own;
	int ns = ioctl(s, SIOCGSKNS);
	if (ns < 0 || fstat(ns, &sn) || stat("/proc/self/ns/net", &own) || sn.st_ino != own.st_ino)
		bad |= 4;
	int c = socket(AF_INET, SOCK_STREAM, 0), k = -1;
	char x = 0;
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) || (k = accept(s, NULL, NULL)) < 0 ||
	    write(c, "x", 1) != 1 || read(k, &x, 1) != 1)
		bad |= 8;
	kill(g, SIGTERM);
	waitpid(g, NULL, 0);
	return bad;
}

int main(int argc, char **argv)
{
	return nsw_child_main(
	    argc, argv, child,
	    "1: not one description, 2: port, 4: not in the child's namespace, 8: no connection; "
	    "64+: setup");
}
