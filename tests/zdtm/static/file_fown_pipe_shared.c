/* file_fown's pipe, held by two processes: the read end (fd 50) owned by the test (F_OWNER_PID) with
 * F_SETSIG SIGRTMIN+2 and O_ASYNC set through fd 50, then a fork: the child holds both ends too (one pipe
 * of several processes, made once by crshim at restore). After restore the owner, signal and O_ASYNC are
 * the same, and data written to the pipe raises SIGRTMIN+2 in the test with si_fd 50 (the number O_ASYNC
 * was set through). Before: crshim set the status flags, O_ASYNC with them, through its own fd of the
 * pipe, and the signal named crshim's number. */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { P = 50 };
static volatile sig_atomic_t got, got_fd;

static void on_io(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got++;
	got_fd = si->si_fd;
}

static void check(void)
{
	struct f_owner_ex o;
	if (fcntl(P, F_GETOWN_EX, &o) || o.type != F_OWNER_PID || o.pid != getpid())
		fail("owner type %d pid %d, want %d %d", o.type, o.pid, F_OWNER_PID, getpid());
	if (fcntl(P, F_GETSIG) != SIGRTMIN + 2)
		fail("signal %d, want %d", fcntl(P, F_GETSIG), SIGRTMIN + 2);
	if (!(fcntl(P, F_GETFL) & O_ASYNC))
		fail("O_ASYNC is off");
}

int main(int argc, char **argv)
{
	int p[2];
	struct sigaction sa = {.sa_sigaction = on_io, .sa_flags = SA_SIGINFO};

	test_init(argc, argv);
	if (sigaction(SIGRTMIN + 2, &sa, NULL) || pipe(p) || dup2(p[0], P) != P || close(p[0]))
		fail("setup");
	struct f_owner_ex o = {.type = F_OWNER_PID, .pid = getpid()};
	if (fcntl(P, F_SETOWN_EX, &o) || fcntl(P, F_SETSIG, SIGRTMIN + 2) ||
	    fcntl(P, F_SETFL, fcntl(P, F_GETFL) | O_ASYNC | O_NONBLOCK))
		fail("owner, signal, O_ASYNC");
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) { /* holds both ends, as the test does */
		usr1_wait();
		_exit(0);
	}
	check();
	test_daemon();
	test_waitsig();

	check();
	char c;
	got = 0;
	if (write(p[1], "x", 1) != 1)
		fail("write");
	for (int i = 0; i < 1000 && !got; i++)
		usleep(1000);
	if (!got || got_fd != P)
		fail("no SIGRTMIN+2 for fd %d after a write (got %d, si_fd %d)", P, (int)got, (int)got_fd);
	if (read(P, &c, 1) != 1 || c != 'x')
		fail("read");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "");
	return test_pass();
}
