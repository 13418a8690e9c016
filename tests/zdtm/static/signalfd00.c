/* Signalfds: one for SIGUSR1|SIGUSR2|SIGRTMIN+2 (non-blocking) with a SIGUSR1 pending before the dump,
 * one for SIGHUP only. After restore the masks are the same (fdinfo), the pending signal is read
 * through the first, and new signals go to the right one. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "zdtmtst.h"

static char *sigmask_of(int fd)
{
	static char out[2][64];
	static int k;
	char *buf, *p;
	k ^= 1;
	out[k][0] = '\0';
	if (fdinfo_read(fd, &buf) < 0)
		return out[k];
	if ((p = strstr(buf, "sigmask:")))
		sscanf(p, "sigmask: %63s", out[k]);
	free(buf);
	return out[k];
}

static int got(int fd, int sig)
{
	struct signalfd_siginfo si;
	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return (int)si.ssi_signo == sig;
}

int main(int argc, char **argv)
{
	sigset_t m1, m2, all;
	char want1[64], want2[64];
	int a, b;

	test_init(argc, argv);
	sigemptyset(&m1);
	sigaddset(&m1, SIGUSR1);
	sigaddset(&m1, SIGUSR2);
	sigaddset(&m1, SIGRTMIN + 2);
	sigemptyset(&m2);
	sigaddset(&m2, SIGHUP);
	all = m1;
	sigaddset(&all, SIGHUP);
	sigprocmask(SIG_BLOCK, &all, NULL);
	a = signalfd(-1, &m1, SFD_NONBLOCK);
	b = signalfd(-1, &m2, SFD_CLOEXEC);
	if (a < 0 || b < 0)
		fail("signalfd");
	snprintf(want1, sizeof(want1), "%s", sigmask_of(a));
	snprintf(want2, sizeof(want2), "%s", sigmask_of(b));
	kill(getpid(), SIGUSR1);
	test_daemon();
	test_waitsig();

	if (strcmp(sigmask_of(a), want1) || strcmp(sigmask_of(b), want2))
		fail("masks %s %s, want %s %s", sigmask_of(a), sigmask_of(b), want1, want2);
	if (!got(a, SIGUSR1))
		fail("the pending SIGUSR1 is not read through the signalfd");
	if (read(a, want1, 1) != -1 && errno != EAGAIN)
		fail("not non-blocking");
	kill(getpid(), SIGHUP);
	kill(getpid(), SIGRTMIN + 2);
	if (!got(b, SIGHUP) || !got(a, SIGRTMIN + 2))
		fail("new signals are not read through the right signalfd");
	pass();
	return 0;
}
