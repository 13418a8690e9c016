/* Open files of network namespaces of the tree: the test (in a network namespace of its own) holds fd 42 on
 * its child's (unshare(CLONE_NEWNET)), the child fd 43 on the test's, and the test fd 44 on a third one that
 * only this fd keeps (made with unshare, the test back in its own with setns), with 10.96.0.1/32 on its
 * loopback. After restore fd 42 is the child's namespace, fd 43 the test's, and fd 44 a namespace of
 * neither with its address (seen after setns into it). Before: the dump refused the child ("task N is in
 * another net namespace") and a namespace file other than the task's own. */
#include "ns_world.h"

#define FD_CHILD 42
#define FD_PARENT 43
#define FD_ONLY 44

static unsigned long ino_fd(int fd)
{
	struct stat st;
	return fstat(fd, &st) ? 0 : (unsigned long)st.st_ino;
}

static unsigned long ino_of(pid_t pid)
{
	char p[64];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)pid);
	return stat(p, &st) ? 0 : (unsigned long)st.st_ino;
}

static int ns_open_at(const char *path, int at)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0 || dup2(fd, at) != at)
		return -1;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int up[2];
	char c, p[64];
	unsigned long host = nsw_init(argc, argv, CLONE_NEWNET, "net");
	nsw_must("ip link set lo up");
	if (pipe(up))
		fail("pipe");
	pid_t ch = fork();
	if (ch == 0) {
		close(up[0]);
		test_forked();
		snprintf(p, sizeof(p), "/proc/%d/ns/net", getppid());
		if (ns_open_at(p, FD_PARENT) || unshare(CLONE_NEWNET) || write(up[1], "r", 1) != 1)
			_exit(64);
		test_waitsig();
		_exit(ino_fd(FD_PARENT) == ino_of(getppid()) && ino_of(getpid()) != ino_of(getppid()) ? 0
												      : 1);
	}
	close(up[1]);
	if (ch < 0 || read(up[0], &c, 1) != 1) {
		fail("child not ready");
		return 1;
	}
	snprintf(p, sizeof(p), "/proc/%d/ns/net", (int)ch);
	int self = open("/proc/self/ns/net", O_RDONLY);
	if (ns_open_at(p, FD_CHILD) || self < 0 || unshare(CLONE_NEWNET) ||
	    ns_open_at("/proc/self/ns/net", FD_ONLY) ||
	    nsw_sh("ip link set lo up && ip addr add 10.96.0.1/32 dev lo") || setns(self, CLONE_NEWNET))
		fail("setup");
	close(self);
	test_daemon();
	test_waitsig();
	nsw_own("net", host);

	if (ino_fd(FD_CHILD) != ino_of(ch) || ino_of(ch) == ino_of(getpid()))
		fail("fd %d is not the child's network namespace", FD_CHILD);
	unsigned long only = ino_fd(FD_ONLY);
	if (!only || only == ino_of(getpid()) || only == ino_of(ch))
		fail("fd %d is not a namespace of its own", FD_ONLY);
	self = open("/proc/self/ns/net", O_RDONLY);
	if (self < 0 || setns(FD_ONLY, CLONE_NEWNET))
		fail("enter the namespace of fd %d", FD_ONLY);
	else if (nsw_sh("ip -o addr show dev lo | grep -q 'inet 10.96.0.1/32'"))
		fail("the namespace of fd %d lost its address", FD_ONLY);
	if (self >= 0 && setns(self, CLONE_NEWNET))
		fail("back to our network namespace");
	kill(ch, SIGTERM);
	int st = 0;
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status 0x%x (exit 1: fd %d is not its parent's namespace, or it is in it)", st,
		     FD_PARENT);
	return test_pass();
}
