/* A PID namespace owned by the tree's user namespace (a child, PID 1 of a PID namespace made inside it):
 * refused at dump with one line. */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "userns_refused.h"

static pid_t pid;

/* the child (PID 1 of its namespace) is still there; it goes */
static void child_there(void)
{
	int st;
	if (kill(pid, 0))
		fail("the child (PID 1 of its namespace) is gone");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	unsigned long u = uref_enter();
	/* a fork into a new PID namespace (its PID 1), owned by our user namespace */
	pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		test_forked();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (getpid() == 1)
			pause();
		_exit(1);
	}
	if (pid < 0)
		fail("setup: fork");
	return uref_done(u, child_there);
}
