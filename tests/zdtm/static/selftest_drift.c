/* Runner self-check: on SIGUSR1 (sent by the selftest's fake crshim between the runner's reference
 * snapshot and its snapshot after the C/R) it changes its comm, maps a new region and opens an fd, as a
 * broken restore would. The runner's before/after comparison must report it. The test itself passes. */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "zdtmtst.h"

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	sigset_t blk, wait;
	test_init(argc, argv);
	sigemptyset(&blk);
	sigaddset(&blk, SIGUSR1);
	sigprocmask(SIG_BLOCK, &blk, &wait);
	sigdelset(&wait, SIGUSR1);
	if (sigaction(SIGUSR1, &sa, NULL))
		fail("sigaction");
	test_daemon();
	while (!usr1 && test_go())
		sigsuspend(&wait);
	if (usr1) {
		if (mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			fail("mmap");
		if (open("/dev/null", O_RDONLY) < 0)
			fail("open");
		prctl(PR_SET_NAME, "selftest-drift"); /* last: the fake crshim waits for this name */
	}
	test_waitsig();
	pass();
	return 0;
}
