/* Receive queues of unix sockets that several processes hold (the dump peeks each socket's queue once and
 * copies it into the entry of each holder, dump-sk-unix.c queue_once): a stream pair A-B ("one", "two",
 * OOB '!', "three" to B; "back" to A), a seqpacket pair C-D (messages "m1", "m2" to D) and a dgram socket
 * R bound to a name that X (bound to a name too) sent "d1" and "d2" to, all held by the test and its three
 * children (forked after the data was queued). After restore the test reads each queue: its data is there
 * once and in order, the reads of B stop at the mark before the OOB byte, each dgram message comes from X's
 * name; each child still holds the test's sockets (the same inode). */
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include "sk_unix.h"

enum { A = 40, B, C, D, R, X };
#define KIDS 3

static char rname[64], xname[64];

/* One read of fd gives exactly want. */
static int rd(int fd, const char *want)
{
	char buf[64];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n);
}

/* The next dgram of R is want, sent from X's name. */
static int rd_from_x(const char *want)
{
	char buf[64];
	struct sockaddr_un from;
	socklen_t fl = sizeof(from);
	ssize_t n = recvfrom(R, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	struct sockaddr_un x;
	socklen_t xl = sk_addr(xname, &x);
	return n == (ssize_t)strlen(want) && !memcmp(buf, want, (size_t)n) && fl == xl &&
	       !memcmp(from.sun_path, x.sun_path, xl - offsetof(struct sockaddr_un, sun_path));
}

/* Child ch holds fd as the test's socket (the same inode). */
static int same_sk(pid_t ch, int fd)
{
	char path[64];
	struct stat a, b;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", ch, fd);
	return !stat(path, &a) && !fstat(fd, &b) && a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

int main(int argc, char **argv)
{
	pid_t kid[KIDS];
	struct sockaddr_un ra;

	test_init(argc, argv);
	sk_need_oob();
	snprintf(rname, sizeof(rname), "@zdtm-shq-r-%d", getpid());
	snprintf(xname, sizeof(xname), "@zdtm-shq-x-%d", getpid());
	sk_pair(SOCK_STREAM, A, B);
	sk_pair(SOCK_SEQPACKET, C, D);
	socklen_t rl = sk_bound(R, SOCK_DGRAM, rname, 0, &ra);
	struct sockaddr_un xa;
	sk_bound(X, SOCK_DGRAM, xname, 0, &xa);
	sk_put(A, "one", 0);
	sk_put(A, "two", 0);
	sk_put(A, "!", MSG_OOB);
	sk_put(A, "three", 0);
	sk_put(B, "back", 0);
	sk_put(C, "m1", 0);
	sk_put(C, "m2", 0);
	if (sendto(X, "d1", 2, 0, (struct sockaddr *)&ra, rl) != 2 ||
	    sendto(X, "d2", 2, 0, (struct sockaddr *)&ra, rl) != 2)
		fail("sendto R");
	for (int i = 0; i < KIDS; i++) {
		kid[i] = test_fork();
		if (kid[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			tree_sleep();
		}
	}
	test_daemon();
	test_waitsig();

	for (int i = 0; i < KIDS; i++)
		for (int fd = A; fd <= X; fd++)
			if (!same_sk(kid[i], fd))
				fail("child %d: fd %d is not the test's socket", i, fd);
	if (sk_atmark(B) != 0 || !rd(B, "onetwo") || sk_atmark(B) != 1)
		fail("B: the reads do not stop at the mark after \"onetwo\"");
	char c = 0;
	if (recv(B, &c, 1, MSG_OOB | MSG_DONTWAIT) != 1 || c != '!')
		fail("B: no OOB '!'");
	if (!rd(B, "three") || !sk_empty(B))
		fail("B: \"three\" not there once after the OOB byte");
	if (!rd(A, "back") || !sk_empty(A))
		fail("A: \"back\" not there once");
	if (!rd(D, "m1") || !rd(D, "m2") || !sk_empty(D))
		fail("D: the messages m1, m2 not there once");
	if (!rd_from_x("d1") || !rd_from_x("d2") || !sk_empty(R))
		fail("R: the messages d1, d2 from X not there once");
	for (int i = 0; i < KIDS; i++)
		kill(kid[i], SIGKILL);
	return test_pass();
}
