/* One epoll set held by a parent and its child (created before the fork), with a target added by each
 * (a pipe of the parent, a pipe only the child holds). After restore it is still one set (kcmp): the child
 * changes its target by its own fd number (EPOLL_CTL_MOD) and adds a new pipe (EPOLL_CTL_ADD); the parent's
 * epoll_wait sees all three ready with their data, and the parent removes its own target by its number. */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

static void child(int go, int done, void *arg)
{
	int ep = *(int *)arg;
	int mine[2], late[2];
	char c;
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 2};

	if (pipe(mine) || epoll_ctl(ep, EPOLL_CTL_ADD, mine[0], &ev) || write(done, "r", 1) != 1)
		_exit(1);
	if (read(go, &c, 1) != 1) /* after restore */
		_exit(2);
	ev.data.u64 = 22; /* by the child's own fd number: the set must know it under that number */
	if (epoll_ctl(ep, EPOLL_CTL_MOD, mine[0], &ev) || write(mine[1], "x", 1) != 1)
		_exit(3);
	ev.data.u64 = 3;
	if (pipe(late) || write(late[1], "y", 1) != 1 || epoll_ctl(ep, EPOLL_CTL_ADD, late[0], &ev))
		_exit(4);
	if (write(done, "d", 1) != 1 || read(go, &c, 1) != 1) /* keep the pipes till the parent looked */
		_exit(5);
	_exit(0);
}

int main(int argc, char **argv)
{
	int ep, p[2], go, done, st = 0, n;
	uint64_t seen = 0;
	char c;
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 1}, out[8];
	pid_t pid;

	test_init(argc, argv);
	ep = epoll_create1(0);
	if (ep < 0 || pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		fail("setup");
	pid = fork_talker(child, &ep, &go, &done);
	if (read(done, &c, 1) != 1)
		fail("child not ready");
	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), pid, KCMP_FILE, ep, ep) != 0)
		fail("the epoll fds of parent and child are not one file any more");
	if (write(go, "g", 1) != 1 || read(done, &c, 1) != 1 || c != 'd')
		fail("the child's epoll_ctl MOD/ADD failed");
	if (write(p[1], "z", 1) != 1)
		fail("write");
	n = epoll_wait(ep, out, 8, 1000);
	for (int i = 0; i < n; i++)
		seen |= 1ull << (out[i].data.u64 & 63);
	if (n != 3 || seen != ((1ull << 1) | (1ull << 22) | (1ull << 3)))
		fail("epoll_wait in the parent: %d ready, data mask %#llx, want 1, 22 and 3 (the child's MOD "
		     "and ADD)",
		     n, (unsigned long long)seen);
	if (epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL))
		fail("EPOLL_CTL_DEL of the parent's target by its fd number");
	if (write(go, "q", 1) != 1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child exit %#x", st);
	pass();
	return 0;
}
