/* Files of pty pairs held with O_ASYNC while data is queued for them: A's slave (F_SETSIG SIGRTMIN) with
 * "hello" typed, B's master (F_SETSIG SIGRTMIN+1) with "world" written by the slave, C's master (plain SIGIO)
 * with "again". The dump takes the queues out and puts them back, which wakes the readers: it must not send
 * them a signal (before: each got one more, after a dump that leaves the test running, and after C/R). After
 * the checks each reads its queue, and new data brings its signal again, with si_fd its own fd number (the
 * number O_ASYNC was set through) and the owner kept. */
#include <signal.h>
#include "ptyq.h"

static volatile sig_atomic_t nsig[3], sifd[3];

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int k = sig == SIGIO ? 2 : sig - SIGRTMIN;
	if (k >= 0 && k < 3)
		nsig[k]++, sifd[k] = si->si_fd;
}

static int async(int fd, int sig)
{
	return fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, sig) ||
	       fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC | O_NONBLOCK);
}

/* Reader r gets its queue (want), then a write of "x" on w brings signal k with si_fd r. */
static void check(int k, int r, int w, const char *want, const char *what)
{
	ptyq_expect(r, want, strlen(want), 0, what);
	nsig[k] = 0, sifd[k] = -1;
	if (write(w, "x", 1) != 1)
		fail("%s: write", what);
	for (int i = 0; i < 200 && !nsig[k]; i++)
		usleep(10000);
	if (!nsig[k] || (k < 2 && sifd[k] != r)) /* (plain SIGIO: no si_fd) */
		fail("%s: %d signals after new data, si_fd %d (want %d)", what, (int)nsig[k], (int)sifd[k],
		     r);
	ptyq_expect(r, "x", 1, 0, what);
}

int main(int argc, char **argv)
{
	int am, as, bm, bs, cm, cs;
	struct termios t;
	struct sigaction sa = {.sa_sigaction = on_sig, .sa_flags = SA_SIGINFO | SA_RESTART};

	test_init(argc, argv);
	if (sigaction(SIGRTMIN, &sa, NULL) || sigaction(SIGRTMIN + 1, &sa, NULL) ||
	    sigaction(SIGIO, &sa, NULL))
		return fail("sigaction"), 1;
	if (ptyq_open(&am, &as, O_NONBLOCK) || ptyq_open(&bm, &bs, O_NONBLOCK) ||
	    ptyq_open(&cm, &cs, O_NONBLOCK) || tcgetattr(as, &t))
		return fail("pty pairs"), 1;
	cfmakeraw(&t);
	if (tcsetattr(as, TCSANOW, &t) || tcsetattr(bs, TCSANOW, &t) || tcsetattr(cs, TCSANOW, &t))
		return fail("termios"), 1;
	if (async(as, SIGRTMIN) || async(bm, SIGRTMIN + 1) || async(cm, 0))
		return fail("O_ASYNC"), 1;
	if (write(am, "hello", 5) != 5 || write(bs, "world", 5) != 5 || write(cs, "again", 5) != 5)
		return fail("write"), 1;
	ptyq_wait_inq(as, 5), ptyq_wait_inq(bm, 5), ptyq_wait_inq(cm, 5);
	usleep(100000);
	for (int k = 0; k < 3; k++)
		if (!nsig[k])
			return fail("no signal %d for the data", k), 1;
	nsig[0] = nsig[1] = nsig[2] = 0;

	test_daemon();
	test_waitsig();

	usleep(100000);
	if (nsig[0] || nsig[1] || nsig[2])
		fail("signals since the data came: A %d, B %d, C %d", (int)nsig[0], (int)nsig[1],
		     (int)nsig[2]);
	check(0, as, am, "hello", "A's slave");
	check(1, bm, bs, "world", "B's master");
	check(2, cm, cs, "again", "C's master");
	pass();
	return 0;
}
