/* Parent death signals. The root's (SIGKILL) was armed against its parent outside the tree: restored with
 * -d (as the runner does) its parent would be crshim, which exits at once, so it is not armed then and the
 * root lives on (PR_GET_PDEATHSIG 0; without C/R it keeps SIGKILL). A child's (SIGWINCH, against the root,
 * which is in the tree) is kept: the child reports it after restore. */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int sig = -1, go[2], back[2], st;
	pid_t pid, launcher;

	test_init(argc, argv);
	if (pipe(go) || pipe(back))
		fail("pipe");
	pid = test_fork();
	if (pid == 0) {
		char c;
		if (prctl(PR_SET_PDEATHSIG, SIGWINCH) || write(back[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1 || prctl(PR_GET_PDEATHSIG, &sig) ||
		    write(back[1], &sig, sizeof(sig)) != sizeof(sig))
			_exit(1);
		_exit(0);
	}
	launcher = getppid();
	if (read(back[0], &sig, 1) != 1)
		fail("setup");
	test_daemon();
	/* armed against the parent that adopts us once the launcher is gone (the runner's reaper); not in
	 * modes ns and uns, where we are the init of a PID namespace: our parent is outside it (getppid() is
	 * 0), we cannot see when the launcher is gone, and the child's signal is what is checked */
	while (launcher && getppid() == launcher)
		usleep(1000);
	if (launcher && prctl(PR_SET_PDEATHSIG, SIGKILL))
		fail("PR_SET_PDEATHSIG");
	test_waitsig();

	/* still here: the root's signal did not fire when crshim exited */
	if (prctl(PR_GET_PDEATHSIG, &sig) || (sig != 0 && sig != SIGKILL))
		fail("root pdeathsig %d, want 0 (restored with -d) or SIGKILL (not restored)", sig);
	if (write(go[1], "g", 1) != 1 || read(back[0], &sig, sizeof(sig)) != sizeof(sig) ||
	    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child");
	if (sig != SIGWINCH)
		fail("the child's pdeathsig is %d, want %d (SIGWINCH)", sig, SIGWINCH);
	pass();
	return 0;
}
