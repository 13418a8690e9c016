/* Signal handlers with flags (SA_SIGINFO, SA_RESTART, SA_NODEFER, SA_RESETHAND),
 * handler masks and SIG_IGN survive and work: raise after restore, check the
 * mask in the handler, SA_RESETHAND resets, SA_RESTART restarts a read(). */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "zdtmtst.h"

static volatile int usr1_hits, usr2_hits, hup_hits, usr1_code, usr1_masked, usr2_nodefer;

static void h_usr1(int sig, siginfo_t *si, void *uc)
{
	sigset_t cur;
	(void)uc;
	usr1_hits++;
	usr1_code = si->si_code == SI_TKILL && sig == SIGUSR1 ? 1 : si->si_code;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	usr1_masked =
	    sigismember(&cur, SIGUSR2) && sigismember(&cur, SIGRTMIN + 7) && sigismember(&cur, SIGUSR1);
}

static void h_usr2(int sig)
{
	sigset_t cur;
	(void)sig;
	usr2_hits++;
	sigprocmask(SIG_BLOCK, NULL, &cur);
	usr2_nodefer = !sigismember(&cur, SIGUSR2);
}

static void h_hup(int sig)
{
	(void)sig;
	hup_hits++;
}

static int same_sa(const struct sigaction *a, const struct sigaction *b)
{
	return a->sa_handler == b->sa_handler && a->sa_flags == b->sa_flags &&
	       a->sa_restorer == b->sa_restorer &&
	       !memcmp(&a->sa_mask, &b->sa_mask, 8) /* kernel sigset: 64 bits */;
}

#define SIGS                                                                                                 \
	{                                                                                                    \
		SIGUSR1, SIGUSR2, SIGHUP, SIGPIPE, SIGWINCH, SIGCHLD, SIGRTMIN + 9                           \
	}

int main(int argc, char **argv)
{
	const int sigs[] = SIGS;
	struct sigaction sa, before[ARRAY_SIZE(sigs)], after;
	size_t i;

	test_init(argc, argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = h_usr1;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	sigaddset(&sa.sa_mask, SIGRTMIN + 7);
	sigaction(SIGUSR1, &sa, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_usr2;
	sa.sa_flags = SA_NODEFER | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_hup;
	sa.sa_flags = 0;
	sigfillset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);

	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h_hup;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGRTMIN + 9, SIG_IGN);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], NULL, &before[i]);
	test_daemon();
	test_waitsig();

	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		sigaction(sigs[i], NULL, &after);
		if (!same_sa(&after, &before[i]))
			fail("sigaction of signal %d changed: handler %p flags %#lx, want %p %#lx", sigs[i],
			     (void *)after.sa_handler, (unsigned long)after.sa_flags,
			     (void *)before[i].sa_handler, (unsigned long)before[i].sa_flags);
	}
	raise(SIGUSR1);
	if (usr1_hits != 1 || usr1_code != 1 || !usr1_masked)
		fail("SIGUSR1: hits %d code %d masked %d", usr1_hits, usr1_code, usr1_masked);
	raise(SIGUSR2);
	if (usr2_hits != 1 || !usr2_nodefer)
		fail("SIGUSR2: hits %d nodefer %d", usr2_hits, usr2_nodefer);
	sigaction(SIGUSR2, NULL, &after);
	if (after.sa_handler != SIG_DFL)
		fail("SA_RESETHAND did not reset SIGUSR2");
	raise(SIGHUP);
	raise(SIGPIPE); /* ignored: must not kill us */
	raise(SIGRTMIN + 9);
	if (hup_hits != 1)
		fail("SIGHUP hits %d", hup_hits);

	/* SA_RESTART: a read() interrupted by SIGUSR1 restarts and gets the data */
	int p[2];
	if (pipe(p)) {
		fail("pipe");
	} else {
		pid_t parent = getpid(), c = fork();
		if (c == 0) {
			struct timespec ts = {0, 100 * 1000 * 1000};
			nanosleep(&ts, NULL);
			kill(parent, SIGUSR1);
			nanosleep(&ts, NULL);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			_exit(0);
		}
		char c1;
		ssize_t r = read(p[0], &c1, 1);
		if (r != 1 || usr1_hits != 2)
			fail("read with SA_RESTART returned %zd, hits %d", r, usr1_hits);
		waitpid(c, NULL, 0);
	}
	pass();
	return 0;
}
