/* Pipes between processes of a tree: A (parent writes, child reads) and B (child writes, parent reads)
 * with a message in flight each, and C whose two ends both processes keep (as after fork), with data in
 * flight. After restore: the messages arrive once and exactly, C's data is there once, and A, B and C
 * still connect parent and child (ping over A, data over C, pong back over B). */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { AR = 40, AW = 41, BR = 42, BW = 43, CR = 44, CW = 45 };
#define MA "A: parent to child, in flight"
#define MB "B: child to parent, in flight"
#define MC "C: shared, in flight"

static volatile sig_atomic_t got_usr1;

static void on_usr1(int s)
{
	(void)s;
	got_usr1 = 1;
}

/* Read exactly len bytes (10 s at most); 0 if they are want. */
static int expect(int fd, const char *want, size_t len)
{
	char buf[128] = {0};
	return len <= sizeof(buf) && !read_exact(fd, buf, len, 10000) && !memcmp(buf, want, len) ? 0 : -1;
}

__attribute__((noreturn)) static void child_main(void)
{
	sigset_t empty;
	int bad = 0;
	test_forked();
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed parent */
	close(AW);
	close(BR);
	if (write(BW, MB, strlen(MB)) != (ssize_t)strlen(MB))
		_exit(2);
	sigemptyset(&empty);
	while (!got_usr1)
		sigsuspend(&empty);
	bad |= expect(AR, MA "ping", strlen(MA) + 4) ? 1 : 0;
	bad |= expect(CR, "c2", 2) ? 2 : 0;
	if (write(BW, "pong", 4) != 4)
		bad |= 4;
	_exit(bad);
}

int main(int argc, char **argv)
{
	sigset_t m;
	pid_t ch;
	int n;

	test_init(argc, argv);
	signal(SIGUSR1, on_usr1);
	usr1_mask(&m);
	pipe_at(AR, AW, 0);
	pipe_at(BR, BW, 0);
	pipe_at(CR, CW, 0);
	ch = test_fork();
	if (ch == 0)
		child_main();
	close(AR);
	close(BW);
	if (write(AW, MA, strlen(MA)) != (ssize_t)strlen(MA) ||
	    write(CW, MC, strlen(MC)) != (ssize_t)strlen(MC))
		fail("write");
	struct pollfd p = {.fd = BR, .events = POLLIN};
	for (int i = 0; i < 100 && (ioctl(BR, FIONREAD, &n) || n < (int)strlen(MB)); i++)
		poll(&p, 1, 100);
	test_daemon();
	test_waitsig();

	if (ioctl(BR, FIONREAD, &n) || n != (int)strlen(MB) || expect(BR, MB, strlen(MB)))
		fail("B: the child's message in flight is not there once and exactly (%d bytes)", n);
	if (ioctl(CR, FIONREAD, &n) || n != (int)strlen(MC) || expect(CR, MC, strlen(MC)))
		fail("C: the data in flight is not there once and exactly (%d bytes)", n);
	if (write(CW, "c2", 2) != 2 || write(AW, "ping", 4) != 4)
		fail("write after restore");
	kill(ch, SIGUSR1);
	if (expect(BR, "pong", 4))
		fail("no pong from the child over B");
	child_exit_ok(ch, "1: A's data or ping, 2: C's data, 4: write B");
	return test_pass();
}
