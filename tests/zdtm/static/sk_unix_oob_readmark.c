/* The mark of an out-of-band byte already read (recv(MSG_OOB)) at the very end of a unix stream socket's
 * queue, all its data read too: the kernel keeps an empty message there, so SIOCATMARK says 1 and poll()
 * POLLIN until a read (EAGAIN) drops it. A->B "ab", OOB 'c', 'c' and "ab" read; C->D OOB 'x' at the head,
 * read; E->F as A->B, then E closed (the read gives 0). After restore each as before, and new data from C
 * ("yz") is read whole. Before: the mark was lost (SIOCATMARK 0, no POLLIN).
 */
#include "sk_unix.h"

enum { A = 20, B, C, D, E, F };

static short events(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLPRI};
	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

/* fd holds only the mark of a read OOB byte; a read drops it (EAGAIN, or 0 once its peer is closed). */
static int only_mark(int fd, int closed)
{
	char b[8];
	short ev = events(fd);
	if (sk_atmark(fd) != 1 || !(ev & POLLIN) || (ev & POLLPRI))
		return 0;
	ssize_t n = recv(fd, b, sizeof(b), MSG_DONTWAIT);
	if (closed)
		return n == 0;
	return n < 0 && errno == EAGAIN && sk_atmark(fd) == 0 && !(events(fd) & POLLIN);
}

static void setup(void)
{
	char b[8];
	for (int fd = A; fd <= E; fd += 2)
		sk_pair(SOCK_STREAM, fd, fd + 1);
	sk_put(A, "ab", 0), sk_put(A, "c", MSG_OOB);
	sk_put(C, "x", MSG_OOB);
	sk_put(E, "ab", 0), sk_put(E, "c", MSG_OOB);
	if (recv(B, b, 1, MSG_OOB) != 1 || b[0] != 'c' || recv(B, b, sizeof(b), 0) != 2)
		fail("B: OOB 'c', then \"ab\"");
	if (recv(D, b, 1, MSG_OOB) != 1 || b[0] != 'x')
		fail("D: OOB 'x'");
	if (recv(F, b, 1, MSG_OOB) != 1 || b[0] != 'c' || recv(F, b, sizeof(b), 0) != 2)
		fail("F: OOB 'c', then \"ab\"");
	close(E);
}

static void check(const char *when)
{
	int bad = 0;
	char b[8];
	if (!only_mark(B, 0) && ++bad)
		test_msg("%s: B: not the mark alone (at mark %d, poll %#x)\n", when, sk_atmark(B), events(B));
	if (!only_mark(D, 0) && ++bad)
		test_msg("%s: D: not the mark alone (at mark %d, poll %#x)\n", when, sk_atmark(D), events(D));
	sk_put(C, "yz", 0);
	if ((recv(D, b, sizeof(b), MSG_DONTWAIT) != 2 || memcmp(b, "yz", 2)) && ++bad)
		test_msg("%s: D: not \"yz\" after the mark\n", when);
	if (!only_mark(F, 1) && ++bad)
		test_msg("%s: F: not the mark alone (at mark %d, poll %#x)\n", when, sk_atmark(F), events(F));
	if (bad)
		fail("%s: %d wrong", when, bad);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	sk_need_oob();
	/* the checks, without C/R: they pass on the kernel as it is */
	setup();
	check("before C/R");
	for (int fd = A; fd <= F; fd++)
		close(fd);
	setup();
	test_daemon();
	test_waitsig();
	check("after restore");
	return test_pass();
}
