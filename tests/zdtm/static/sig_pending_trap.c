/* A blocked, pending SIGTRAP: refused at dump with one line (.desc); still pending afterwards. */
#include <signal.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	sigset_t s, p;
	test_init(argc, argv);
	sigemptyset(&s);
	sigaddset(&s, SIGTRAP);
	if (sigprocmask(SIG_BLOCK, &s, NULL) || raise(SIGTRAP))
		fail("block and raise SIGTRAP");
	test_daemon();
	test_waitsig();
	if (sigpending(&p) || !sigismember(&p, SIGTRAP))
		fail("SIGTRAP no longer pending");
	return test_pass();
}
