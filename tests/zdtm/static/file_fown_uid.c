/* An owner set by a process of another uid than root's (uid 1000; as CRIU's tests run): a pipe read end
 * with O_ASYNC, owned by the test's pid with F_SETSIG SIGRTMIN+2. The kernel keeps the setter's uid and
 * euid with the owner and sends the signal only to a process they may signal (fs/fcntl.c sigio_perm).
 * crshim sets the owner before the process has its own ids back: as root of a user namespace (mode
 * cuns) the signal was lost after restore (euid 100000 on the host may not signal uid 101000). After
 * restore F_GETOWN_EX, F_GETSIG and O_ASYNC are the same and a write to the pipe raises SIGRTMIN+2.
 * Run without root (mode user), the test keeps its own uid. */
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <unistd.h>
#include "zdtmtst.h"

static volatile sig_atomic_t got, got_fd;

static void on_io(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got++;
	got_fd = si->si_fd;
}

int main(int argc, char **argv)
{
	int p[2];
	struct sigaction sa = {.sa_sigaction = on_io, .sa_flags = SA_SIGINFO};

	test_init(argc, argv);
	if (geteuid() == 0 &&
	    (setgroups(0, NULL) || setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000)))
		fail("become uid 1000");
	struct f_owner_ex o = {.type = F_OWNER_PID, .pid = getpid()};
	if (sigaction(SIGRTMIN + 2, &sa, NULL) || pipe(p) || fcntl(p[0], F_SETOWN_EX, &o) ||
	    fcntl(p[0], F_SETSIG, SIGRTMIN + 2) || fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK))
		fail("setup");

	test_daemon();
	test_waitsig();

	struct f_owner_ex g;
	if (fcntl(p[0], F_GETOWN_EX, &g) || g.type != F_OWNER_PID || g.pid != getpid())
		fail("owner type %d pid %d", g.type, g.pid);
	if (fcntl(p[0], F_GETSIG) != SIGRTMIN + 2 || !(fcntl(p[0], F_GETFL) & O_ASYNC))
		fail("signal %d, flags 0x%x", fcntl(p[0], F_GETSIG), fcntl(p[0], F_GETFL));
	if (geteuid() == 0 || getuid() == 0)
		fail("uid %d euid %d after restore", (int)getuid(), (int)geteuid());
	if (write(p[1], "x", 1) != 1)
		fail("write");
	for (int i = 0; i < 1000 && !got; i++)
		usleep(1000);
	if (!got || got_fd != p[0])
		fail("no SIGRTMIN+2 for fd %d after a write (got %d, si_fd %d)", p[0], (int)got, (int)got_fd);
	pass();
	return 0;
}
