/* Output flow control of ptys (tcflow, IXON). Pair A: the slave wrote "before" (queued for the master),
 * then its output was stopped with tcflow(TCOOFF), then a child wrote "during" to it and waits in write(2).
 * Pair B: the slave's output stopped by its VSTOP char (IXON, ^S typed on the master). Pair C: the master's
 * output stopped with tcflow(TCOOFF) on the master. After restore: A's master reads "before" and nothing
 * more, its slave is not writable, VSTART typed does not start it (a TCOOFF stop), TCOON does: the child's
 * "during" comes next, in order; B's slave stays stopped after TCOON (a VSTOP stop) and VSTART typed on
 * the master starts it; C's master is not writable (EAGAIN) until TCOON, then its bytes reach the slave.
 * Before, each came back with its output running (and the dump of A failed: the queue put back found its
 * slave stopped). */
#include <signal.h>
#include <sys/wait.h>
#include "ptyq.h"

static int writable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	return poll(&p, 1, ms) == 1 && (p.revents & POLLOUT);
}

/* Until fd is not writable (a typed char on its way), bounded: 1 if so. */
static int wait_stopped(int fd)
{
	for (int i = 0; i < 500; i++) {
		if (!writable(fd, 0))
			return 1;
		usleep(10000);
	}
	return 0;
}

static int ixon(int s)
{
	struct termios t;
	if (tcgetattr(s, &t))
		return -1;
	t.c_iflag |= IXON;
	t.c_iflag &= ~(tcflag_t)IXANY;
	t.c_lflag &= ~(tcflag_t)(ECHO | ICANON);
	t.c_oflag &= ~(tcflag_t)OPOST;
	t.c_cc[VSTOP] = 0x13, t.c_cc[VSTART] = 0x11;
	return tcsetattr(s, TCSANOW, &t);
}

int main(int argc, char **argv)
{
	int am, as, bm, bs, cm, cs, st;
	char c;

	test_init(argc, argv);
	if (ptyq_open(&am, &as, 0) || ptyq_open(&bm, &bs, 0) || ptyq_open(&cm, &cs, O_NONBLOCK))
		return fail("pty pairs"), 1;
	if (ixon(as) || ixon(bs) || ixon(cs))
		return fail("tcsetattr"), 1;
	if (write(as, "before", 6) != 6)
		return fail("write before"), 1;
	ptyq_wait_inq(am, 6);
	if (tcflow(as, TCOOFF) || writable(as, 0))
		return fail("tcflow(TCOOFF) on A's slave"), 1;
	pid_t pid = test_fork();
	if (pid < 0)
		return fail("fork"), 1;
	if (pid == 0) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGTERM);
		sigprocmask(SIG_BLOCK, &set, NULL);
		_exit(write(as, "during", 6) == 6 ? 0 : 1);
	}
	if (write(bm, "\x13", 1) != 1 || !wait_stopped(bs))
		return fail("^S on B"), 1;
	if (tcflow(cm, TCOOFF) || writable(cm, 0))
		return fail("tcflow(TCOOFF) on C's master"), 1;
	usleep(100000); /* the child in write(2) */

	test_daemon();
	test_waitsig();

	ptyq_expect(am, "before", 6, 0, "A's master");
	if (writable(as, 0))
		fail("A's slave: output runs");
	if (write(am, "\x11", 1) != 1 || writable(as, 300))
		fail("A's slave: VSTART started a TCOOFF stop");
	if (tcflow(as, TCOON) || !writable(as, 2000))
		fail("A's slave: TCOON did not start it");
	ptyq_expect(am, "during", 6, 0, "A's master after TCOON");
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the writer: status %#x", st);

	if (writable(bs, 0))
		fail("B's slave: output runs");
	if (tcflow(bs, TCOON) || writable(bs, 300))
		fail("B's slave: TCOON started a VSTOP stop");
	if (write(bm, "\x11", 1) != 1 || !writable(bs, 2000))
		fail("B's slave: VSTART did not start it");
	if (write(bs, "b", 1) != 1)
		fail("B's slave: write");
	ptyq_expect(bm, "b", 1, 0, "B's master");

	if (writable(cm, 0) || write(cm, "x", 1) != -1 || errno != EAGAIN)
		fail("C's master: output runs");
	if (tcflow(cm, TCOON) || !writable(cm, 2000) || write(cm, "c", 1) != 1)
		fail("C's master: TCOON did not start it");
	if (read_exact(cs, &c, 1, 5000) || c != 'c')
		fail("C's slave: no byte");
	if (writable(as, 0) != 1 || ptyq_ready(as, 0) || ptyq_ready(bs, 0) || ptyq_ready(cs, 0))
		fail("something left");
	pass();
	return 0;
}
