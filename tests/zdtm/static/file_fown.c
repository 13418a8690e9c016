/* File owners and signals: a pipe read end owned by our pid (F_OWNER_PID) with F_SETSIG SIGRTMIN+2 and
 * O_ASYNC, a file owned by our process group (F_OWNER_PGRP), /dev/null owned by our thread (F_OWNER_TID)
 * with F_SETSIG SIGUSR2. After restore F_GETOWN_EX, F_GETSIG and O_ASYNC are the same, and data written to
 * the pipe raises SIGRTMIN+2 with si_fd naming the read end. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { P = 50, F = 51, N = 52 };
static int wfd;
static volatile sig_atomic_t got, got_fd;

static void on_io(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	got++;
	got_fd = si->si_fd;
}

static void own(int fd, int type, pid_t pid, int sig)
{
	struct f_owner_ex o = {.type = type, .pid = pid};
	if (fcntl(fd, F_SETOWN_EX, &o) || (sig && fcntl(fd, F_SETSIG, sig)))
		fail("set owner of fd %d", fd);
}

static void check(int fd, int type, pid_t pid, int sig, int async)
{
	struct f_owner_ex o;
	if (fcntl(fd, F_GETOWN_EX, &o) || (int)o.type != type || o.pid != pid)
		fail("fd %d: owner type %d pid %d, want %d %d", fd, o.type, o.pid, type, pid);
	if (fcntl(fd, F_GETSIG) != sig)
		fail("fd %d: signal %d, want %d", fd, fcntl(fd, F_GETSIG), sig);
	if (!!(fcntl(fd, F_GETFL) & O_ASYNC) != async)
		fail("fd %d: O_ASYNC %d, want %d", fd, !!(fcntl(fd, F_GETFL) & O_ASYNC), async);
}

static void check_all(void)
{
	pid_t me = getpid(), tid = (pid_t)syscall(SYS_gettid);
	check(P, F_OWNER_PID, me, SIGRTMIN + 2, 1);
	check(F, F_OWNER_PGRP, getpgrp(), 0, 0);
	check(N, F_OWNER_TID, tid, SIGUSR2, 0);
}

int main(int argc, char **argv)
{
	int p[2];
	struct sigaction sa = {.sa_sigaction = on_io, .sa_flags = SA_SIGINFO};

	test_init(argc, argv);
	if (sigaction(SIGRTMIN + 2, &sa, NULL) || pipe(p) || dup2(p[0], P) != P)
		fail("setup");
	close(p[0]);
	wfd = p[1];
	open_at(F, "fown.file", O_RDWR | O_CREAT, "open file");
	open_at(N, "/dev/null", O_RDWR, "open /dev/null");
	own(P, F_OWNER_PID, getpid(), SIGRTMIN + 2);
	own(F, F_OWNER_PGRP, getpgrp(), 0);
	own(N, F_OWNER_TID, (pid_t)syscall(SYS_gettid), SIGUSR2);
	if (fcntl(P, F_SETFL, fcntl(P, F_GETFL) | O_ASYNC | O_NONBLOCK))
		fail("O_ASYNC");
	check_all();
	test_daemon();
	test_waitsig();

	check_all();
	char c;
	got = 0;
	if (write(wfd, "x", 1) != 1)
		fail("write");
	for (int i = 0; i < 1000 && !got; i++)
		usleep(1000);
	if (!got || got_fd != P)
		fail("no SIGRTMIN+2 for fd %d after a write (got %d, si_fd %d)", P, (int)got, (int)got_fd);
	if (read(P, &c, 1) != 1 || c != 'x')
		fail("read");
	pass();
	return 0;
}
