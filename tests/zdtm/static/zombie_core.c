/* A zombie killed by a signal that dumped core (its status has the WCOREDUMP bit; core_pattern "core" writes
 * it in the test's dir): the restore makes the zombie again by the same signal but cannot make the kernel
 * write a core file for it, so the bit is lost; the dump says so (.desc dump-notice). After C/R the child is
 * still a zombie killed by SIGQUIT. Before: nothing said that the bit was lost. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	struct rlimit rl;
	siginfo_t si;
	pid_t c;
	int st, p[2];
	char b;

	test_init(argc, argv);
	if (pipe(p))
		fail("pipe");
	c = test_fork();
	if (c == 0) {
		if (getrlimit(RLIMIT_CORE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_CORE, &rl);
		}
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		signal(SIGQUIT, SIG_DFL);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &b, 1) != 1) /* its core limit raised */
		fail("the child did not start");
	close(p[0]);
	kill(c, SIGQUIT);
	if (waitid(P_PID, c, &si, WEXITED | WNOWAIT))
		fail("waitid(%d)", c);
	if (si.si_code != CLD_DUMPED)
		test_skip("the child's SIGQUIT wrote no core here (si_code %d; see "
			  "/proc/sys/kernel/core_pattern and "
			  "RLIMIT_CORE)",
			  si.si_code);
	unlink("core");
	test_daemon();
	test_waitsig();
	if (proc_state(c) != 'Z')
		fail("child %d: state %c, want a zombie", c, proc_state(c));
	if (waitpid(c, &st, WNOHANG) != c)
		fail("waitpid(%d)", c);
	else if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGQUIT)
		fail("child %d: status %#x, want killed by SIGQUIT", c, st);
	return test_pass();
}
