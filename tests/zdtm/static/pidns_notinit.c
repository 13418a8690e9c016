/* A process in a PID namespace that is not its init: the test is PID 1 of its own namespace and its child W
 * (PID 2) is what gets dumped. The dump must fail with one line naming W (CRIU, too, needs the namespace's
 * init in the tree) and leave W running, untraced (`fd_unsupported.sh --test pidns_notinit --dump-child`);
 * the test checks W is still its child, alive and not stopped. C/R modes skip it. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	pid_t w;
	int st;
	test_init_pidns(argc, argv);
	w = tree_sleeper();
	test_daemon();
	test_waitsig();
	if (getpid() != 1 || waitpid(w, &st, WNOHANG | WUNTRACED) != 0 || proc_state(w) == 'T')
		fail("child %d (PID 2 of our namespace) is not running as before (state %c)", w,
		     proc_state(w));
	kill(w, SIGKILL);
	waitpid(w, &st, 0);
	return test_pass();
}
