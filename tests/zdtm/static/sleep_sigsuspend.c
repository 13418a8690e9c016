/* Dumped in sigsuspend() with a temporary mask different from the normal one:
 * the runner sees the temporary mask (SigBlk) while it sleeps, and after
 * SIGTERM wakes it the original mask (SIGUSR1|SIGHUP|SIGTERM) is back. */
#include <string.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	sigset_t blk, tmp, cur;
	int r;

	test_init(argc, argv);
	sigemptyset(&blk);
	sigaddset(&blk, SIGUSR1);
	sigaddset(&blk, SIGHUP);
	sigaddset(&blk, SIGTERM);
	sigprocmask(SIG_SETMASK, &blk, NULL);
	sigemptyset(&tmp);
	sigaddset(&tmp, SIGUSR2);
	sigaddset(&tmp, SIGINT);
	test_daemon();
	r = sigsuspend(&tmp);
	if (r != -1 || errno != EINTR)
		fail("sigsuspend returned %d", r);
	if (test_go())
		fail("woken without SIGTERM");
	sigprocmask(SIG_BLOCK, NULL, &cur);
	if (!sigismember(&cur, SIGUSR1) || !sigismember(&cur, SIGHUP) || !sigismember(&cur, SIGTERM) ||
	    sigismember(&cur, SIGUSR2) || sigismember(&cur, SIGINT))
		fail("signal mask after sigsuspend is wrong");
	pass();
	return 0;
}
