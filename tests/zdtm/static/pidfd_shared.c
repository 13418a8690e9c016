/* Pidfds held by two processes of the tree (opened before the fork): one of a sleeping child of the tree,
 * one of the parent of the test (outside the tree: the runner's reaper), one of a child that exited and was
 * reaped. After restore each is still one file in both (kcmp): a status flag set by the second child is
 * seen by the parent, and the second child sees through its copy that the sleeper the parent killed exited.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

static void second(int go, int done, void *arg)
{
	int kid = *(int *)arg;
	char c;
	struct pollfd pf = {.fd = kid, .events = POLLIN};

	if (read(go, &c, 1) != 1) /* after restore */
		_exit(1);
	if (fcntl(kid, F_SETFL, O_NONBLOCK) || write(done, "f", 1) != 1)
		_exit(2);
	if (read(go, &c, 1) != 1 || poll(&pf, 1, 10000) != 1 || !(pf.revents & POLLIN))
		_exit(3); /* the parent killed the sleeper: its pidfd is readable */
	_exit(0);
}

int main(int argc, char **argv)
{
	int kid, ext, dead, go, done, st = 0;
	pid_t sleeper, other;
	char c;

	test_init(argc, argv);
	/* modes ns and uns: our parent is outside our PID namespace (getppid() 0): ourselves instead */
	pid_t parent = getppid() ? getppid() : getpid();
	sleeper = tree_sleeper();
	dead = tree_pidfd_reaped();
	kid = (int)syscall(SYS_pidfd_open, sleeper, 0);
	ext = (int)syscall(SYS_pidfd_open, parent, 0);
	if (kid < 0 || ext < 0 || dead < 0)
		fail("setup");
	other = fork_talker(second, &kid, &go, &done);
	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), other, KCMP_FILE, kid, kid) ||
	    syscall(SYS_kcmp, getpid(), other, KCMP_FILE, ext, ext) ||
	    syscall(SYS_kcmp, getpid(), other, KCMP_FILE, dead, dead))
		fail("the pidfds of parent and child are not one file each any more");
	if (write(go, "g", 1) != 1 || read(done, &c, 1) != 1)
		fail("child");
	if (!(fcntl(kid, F_GETFL) & O_NONBLOCK))
		fail("O_NONBLOCK set by the child on its pidfd is not seen on the parent's");
	if (syscall(SYS_pidfd_send_signal, kid, SIGKILL, NULL, 0) || waitpid(sleeper, NULL, 0) != sleeper)
		fail("kill the sleeper through the pidfd");
	if (write(go, "k", 1) != 1 || waitpid(other, &st, 0) != other || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("second child exit %#x", st);
	pass();
	return 0;
}
