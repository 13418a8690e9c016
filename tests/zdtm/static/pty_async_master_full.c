/* A pty master held with O_ASYNC (SIGIO to this process) whose nonblocking writes filled the slave's input
 * (raw) until EAGAIN: the kernel owes the master's owner a SIGIO once the slave reads its input down. The
 * dump would read that input (and put it back), which sends the SIGIO at once, so it must refuse with one
 * line (dump-expect) before it moves a byte. After the failed dump no SIGIO came, the master is still not
 * writable, the slave reads every byte in order, and then the owed SIGIO comes. Before, the dump went on
 * and sent it. */
#include <signal.h>
#include "ptyq.h"

static volatile sig_atomic_t sigio;

static void on_sigio(int sig)
{
	(void)sig;
	sigio++;
}

static unsigned char data[1 << 20];

int main(int argc, char **argv)
{
	int m, s;
	size_t n = 0;
	struct termios t;

	test_init(argc, argv);
	signal(SIGIO, on_sigio);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + i / 251);
	if (ptyq_open(&m, &s, O_NONBLOCK) || tcgetattr(s, &t))
		return fail("pty pair"), 1;
	cfmakeraw(&t);
	if (tcsetattr(s, TCSANOW, &t) || fcntl(m, F_SETOWN, getpid()) ||
	    fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_ASYNC))
		return fail("O_ASYNC"), 1;
	for (;;) {
		ssize_t w = write(m, data + n, 1000);
		if (w > 0) {
			n += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EAGAIN && !ptyq_writable(m, 100))
			break;
		if (w < 0 && errno == EAGAIN)
			continue;
		return fail("write"), 1;
	}
	test_msg("%zu bytes queued for the slave\n", n);
	sigio = 0;

	test_daemon();
	test_waitsig();

	if (sigio)
		fail("%d SIGIO before the slave read", (int)sigio);
	if (ptyq_writable(m, 0))
		fail("the master is writable");
	static unsigned char back[sizeof(data)];
	int k = ptyq_readn(s, back, n);
	if ((size_t)k != n || memcmp(back, data, n) || ptyq_ready(s, 200))
		return fail("the slave read %d bytes of %zu, or others", k, n), 1;
	for (int i = 0; i < 200 && !sigio; i++)
		usleep(10000);
	if (!sigio)
		fail("no SIGIO once the slave read its input");
	pass();
	return 0;
}
