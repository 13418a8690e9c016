/* A child stopped by SIGTSTP (its parent has not waited for it yet) is still stopped by SIGTSTP after
 * restore: the parent's waitid(WSTOPPED) reports SIGTSTP, not SIGSTOP. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	siginfo_t si;
	int st;
	test_init(argc, argv);
	pid_t ch = test_fork();
	if (ch == 0) {
		setpgid(0, 0); /* a group that is not orphaned: SIGTSTP stops it */
		raise(SIGTSTP);
		_exit(7);
	}
	while (proc_state(ch) != 'T')
		usleep(1000);
	test_daemon();
	test_waitsig();
	usleep(100000);
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, ch, &si, WSTOPPED | WNOHANG | WNOWAIT))
		fail("waitid");
	else if (si.si_pid != ch || si.si_code != CLD_STOPPED || si.si_status != SIGTSTP)
		fail("waitid: pid %d code %d status %d, want stopped by SIGTSTP (%d)", si.si_pid, si.si_code,
		     si.si_status, SIGTSTP);
	kill(ch, SIGCONT);
	if (waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
		fail("child status %#x", st);
	return test_pass();
}
