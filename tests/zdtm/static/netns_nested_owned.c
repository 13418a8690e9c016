/* A network namespace owned by a user namespace nested in the tree's: the test enters a user namespace A of
 * its own ("0 0 2000", written from outside), its child a user namespace B nested in A ("0 0 10", written by
 * the test), then makes a network namespace in B with 10.98.0.1/32 on its loopback. After C/R the child's
 * network namespace is owned by its user namespace B (whose parent is A), not A's, and has its address.
 * Before: the dump refused it ("what a nested user namespace owns is not restored"). */
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include "ns_world.h"
#include "userns_nested.h"

static unsigned long ino_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? 0 : (unsigned long)st.st_ino;
}

static unsigned long owner_of(const char *path, unsigned long req)
{
	int fd = open(path, O_RDONLY), o = fd < 0 ? -1 : ioctl(fd, req);
	unsigned long ino = o < 0 ? 0 : ino_fd(o);
	if (fd >= 0)
		close(fd);
	if (o >= 0)
		close(o);
	return ino;
}

static int child(int up, int down)
{
	char c;
	if (unshare(CLONE_NEWUSER) || write(up, "u", 1) != 1 || read(down, &c, 1) != 1 ||
	    setresuid(0, 0, 0) || setresgid(0, 0, 0) || unshare(CLONE_NEWNET) ||
	    nsw_sh("ip link set lo up && ip addr add 10.98.0.1/32 dev lo") || write(up, "n", 1) != 1)
		return 64;
	test_waitsig();
	int bad = 0, self = open("/proc/self/ns/user", O_RDONLY);
	if (owner_of("/proc/self/ns/net", NS_GET_USERNS) != ino_fd(self))
		bad |= 1;
	if (nsw_sh("ip -o addr show dev lo | grep -q 'inet 10.98.0.1/32'"))
		bad |= 4;
	return bad;
}

int main(int argc, char **argv)
{
	int up[2], down[2];
	char c, p[64];
	test_init(argc, argv);
	unest_enter("0 0 2000", NULL);
	unsigned long a = owner_of("/proc/self/ns/net", NS_GET_USERNS);
	if (pipe(up) || pipe(down))
		fail("setup: pipe");
	pid_t ch = fork();
	if (ch == 0) {
		close(up[0]);
		close(down[1]);
		test_forked();
		_exit(child(up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	if (ch < 0 || read(up[0], &c, 1) != 1)
		fail("child not ready");
	snprintf(p, sizeof(p), "/proc/%d/uid_map", (int)ch);
	unest_wr(p, "0 0 10");
	snprintf(p, sizeof(p), "/proc/%d/setgroups", (int)ch);
	unest_wr(p, "deny");
	snprintf(p, sizeof(p), "/proc/%d/gid_map", (int)ch);
	unest_wr(p, "0 0 10");
	if (write(down[1], "m", 1) != 1 || read(up[0], &c, 1) != 1)
		fail("child not ready");
	test_daemon();
	test_waitsig();

	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)ch);
	if (owner_of(p, NS_GET_USERNS) == a || owner_of("/proc/self/ns/net", NS_GET_USERNS) != a)
		fail("the child's network namespace is owned by the test's user namespace");
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status 0x%x (exit 1: its network namespace not owned by its user namespace, 4: "
		     "its address)",
		     st);
	return test_pass();
}
