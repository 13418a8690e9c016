/* Syscall user dispatch (PR_SET_SYSCALL_USER_DISPATCH) on in a thread: not restored, so the dump must fail
 * with one line and leave the test running, its dispatch still on (a syscall with the selector at BLOCK
 * raises SIGSYS, si_code SYS_USER_DISPATCH). Before, the restore silently dropped it. */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SET_SUD 59
#define SUD_ON 1
#define SEL_ALLOW 0
#define SEL_BLOCK 1

static volatile char sel = SEL_ALLOW;
static volatile int code;

static void on_sigsys(int s, siginfo_t *si, void *uc)
{
	(void)s;
	(void)uc;
	code = si->si_code;
	sel = SEL_ALLOW;
}

/* the si_code of the SIGSYS a blocked syscall raises, 0: none */
static int dispatched(void)
{
	code = 0;
	sel = SEL_BLOCK;
	syscall(SYS_getppid);
	sel = SEL_ALLOW;
	return code;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {0};
	test_init(argc, argv);
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	if (prctl(SET_SUD, SUD_ON, 0, 0, (unsigned long)&sel))
		test_skip("no syscall user dispatch");
	if (dispatched() != 2 /* SYS_USER_DISPATCH */)
		fail("syscall user dispatch does not work (si_code %d)", code);
	test_daemon();
	test_waitsig();
	if (dispatched() != 2)
		fail("syscall user dispatch lost (si_code %d)", code);
	return test_pass();
}
