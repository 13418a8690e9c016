/* A stopped pty slave held with O_ASYNC (SIGIO to this process), IXON on, stopped by tcflow(TCOOFF), a
 * nonblocking write refused (EAGAIN: the kernel sends SIGIO when the output starts): telling the stop's kind
 * would start the output for a moment and send that SIGIO, so the dump refuses with one line
 * (dump-expect). After the failed dump no SIGIO came, the slave is still
 * stopped, and TCOON brings the SIGIO. Before, the dump went on and the process got a SIGIO at once. */
#include <signal.h>
#include "ptyq.h"

static volatile sig_atomic_t sigio;

static void on_sigio(int sig)
{
	(void)sig;
	sigio++;
}

int main(int argc, char **argv)
{
	int m, s;
	struct termios t;

	test_init(argc, argv);
	signal(SIGIO, on_sigio);
	if (ptyq_open(&m, &s, O_NONBLOCK) || tcgetattr(s, &t))
		return fail("pty pair"), 1;
	cfmakeraw(&t);
	t.c_iflag |= IXON;
	if (tcsetattr(s, TCSANOW, &t) || fcntl(s, F_SETOWN, getpid()) ||
	    fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_ASYNC | O_NONBLOCK))
		return fail("O_ASYNC"), 1;
	if (tcflow(s, TCOOFF) || write(s, "x", 1) != -1 || errno != EAGAIN)
		return fail("stop, write"), 1;
	sigio = 0;

	test_daemon();
	test_waitsig();

	if (sigio)
		fail("%d SIGIO while stopped", (int)sigio);
	if (ptyq_writable(s, 0))
		fail("the slave runs");
	if (tcflow(s, TCOON) || !ptyq_writable(s, 2000))
		fail("TCOON did not start it");
	for (int i = 0; i < 200 && !sigio; i++)
		usleep(10000);
	if (!sigio)
		fail("no SIGIO after TCOON");
	pass();
	return 0;
}
