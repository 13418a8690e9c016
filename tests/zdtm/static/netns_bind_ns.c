/* A network namespace kept only by a bind mount of its namespace file (as `ip netns add` keeps one): the
 * test, in a mount namespace of its own, binds its child's /proc/PID/ns/net on /netns_bind_ns/net; the
 * child (which put 10.97.0.1/32 on that namespace's loopback) then exits. After restore the file is still a
 * network namespace other than the test's, with its address (seen after setns into it). */
#include <sys/mount.h>
#include "ns_world.h"

int main(int argc, char **argv)
{
	int pfd[2];
	char c, p[64];
	test_init(argc, argv);
	if (mkdir("/netns_bind_ns", 0755) && errno != EEXIST)
		fail("mkdir /netns_bind_ns");
	int fd = open("/netns_bind_ns/net", O_CREAT | O_RDONLY, 0644);
	if (fd < 0 || pipe(pfd))
		fail("setup");
	close(fd);
	pid_t ch = fork();
	if (ch == 0) {
		close(pfd[0]);
		test_forked();
		if (unshare(CLONE_NEWNET) || nsw_sh("ip link set lo up && ip addr add 10.97.0.1/32 dev lo") ||
		    write(pfd[1], "r", 1) != 1)
			_exit(64);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (ch < 0 || read(pfd[0], &c, 1) != 1)
		fail("child not ready");
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)ch);
	if (mount(p, "/netns_bind_ns/net", NULL, MS_BIND, NULL))
		fail("bind %s", p);
	kill(ch, SIGKILL);
	waitpid(ch, NULL, 0);
	test_daemon();
	test_waitsig();

	int self = open("/proc/self/ns/net", O_RDONLY), ns = open("/netns_bind_ns/net", O_RDONLY);
	struct stat a, b;
	if (self < 0 || ns < 0 || fstat(self, &a) || fstat(ns, &b) || a.st_ino == b.st_ino)
		fail("/netns_bind_ns/net is not a network namespace of its own");
	else if (setns(ns, CLONE_NEWNET))
		fail("setns /netns_bind_ns/net");
	else if (nsw_sh("ip -o addr show dev lo | grep -q 'inet 10.97.0.1/32'"))
		fail("the namespace of /netns_bind_ns/net lost its address");
	if (self >= 0 && setns(self, CLONE_NEWNET))
		fail("back to our network namespace");
	umount2("/netns_bind_ns/net", MNT_DETACH);
	return test_pass();
}
