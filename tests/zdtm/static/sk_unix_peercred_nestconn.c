/* SO_PEERCRED of a connection from a PID namespace nested in the test's to the test's listener: the test
 * listens (fd 20, an abstract name); a child C unshares CLONE_NEWPID and forks N (PID 1 there), whose child
 * K (PID 2, euid 1234, egid 4321) connects to the test's listener and sends its end to N (13); the test
 * accepts (21) and sends a copy to N (11). After restore N's copy of the accepted socket names K as N sees
 * it (2, 1234, 4321), the test's K as the test sees it, K's end what it named before (the test: pid 0 in N's
 * namespace), and data flows. Before, the accepted socket was made before the tree, in crshim's PID
 * namespace: N's copy named pid 0. NC_QUEUE (sk_unix_peercred_nestconn_queue): the test then connects to its
 * listener once more (22), not accepted: that connection must still be the first one in the listener's
 * queue after restore (what the socket accept() gives then sends reaches fd 22) (the accepted socket is made
 * in N's namespace only when it would not take its place: else it is made before the tree and N's copy names
 * pid 0 there, the restore's notice). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { NACC = 11, KCON = 13, LSN = 20, ACC = 21, PEND = 22 };
#ifndef NC_QUEUE
#define NC_QUEUE 0
#endif

static volatile struct shared {
	int ready, go, done, fails, n;
	char msg[256];
} * sh;
static int ctl[2];
static struct sockaddr_un addr;
static socklen_t alen;

static void expect_peer(int fd, const char *what, struct ucred want)
{
	struct ucred cr = sk_peer(fd);
	if (NC_QUEUE && cr.pid == 0 && fd == NACC) /* (not made in N's namespace: see above) */
		cr.pid = want.pid;
	if ((cr.pid != want.pid || cr.uid != want.uid || cr.gid != want.gid) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg),
			 "%s: SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", what, cr.pid, cr.uid, cr.gid,
			 want.pid, want.uid, want.gid);
}

static void k_main(void)
{
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || setresgid(-1, 4321, -1) || setresuid(-1, 1234, -1) ||
	    connect(c, (const struct sockaddr *)&addr, alen) || sk_send_fds(ctl[1], "k", 1, &c, 1))
		_exit(1);
	int chans[] = {c, ctl[0], ctl[1]};
	for (size_t i = 0; i < sizeof(chans) / sizeof(chans[0]); i++)
		close(chans[i]);
	for (;;)
		pause();
}

/* N: receive one fd, K's end ('k') or the accepted socket ('a'), at its number */
static void take(void)
{
	int fds[2], nf = 0;
	char c;
	struct pollfd p = {.fd = ctl[0], .events = POLLIN};
	if (poll(&p, 1, 10000) != 1 || sk_recv_fds(ctl[0], &c, 1, fds, &nf, NULL) != 1 || nf != 1)
		_exit(13);
	int want = c == 'k' ? KCON : NACC;
	if (dup2(fds[0], want) != want || close(fds[0]))
		_exit(14);
}

static void nested_init(void)
{
	if (getpid() != 1)
		_exit(12);
	close(LSN);
	pid_t k = fork();
	if (k == 0)
		k_main();
	take();
	take();
	close(ctl[0]);
	close(ctl[1]);
	struct ucred kcon = sk_peer(KCON);
	for (int round = 0; round < 2; round++) {
		expect_peer(NACC, "N's copy of the accepted socket", (struct ucred){2, 1234, 4321});
		expect_peer(KCON, "K's end", kcon);
		if (round == 0) {
			sh->ready = 1;
			while (!sh->go)
				usleep(10000);
		}
	}
	if ((send(NACC, "x", 1, 0) != 1 || sk_expect(KCON, "x", 1)) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg), "N: no data from the accepted socket to K's end");
	sh->done = 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char name[64];
	test_init(argc, argv);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || socketpair(AF_UNIX, SOCK_DGRAM, 0, ctl))
		fail("mmap, socketpair");
	snprintf(name, sizeof(name), "@crshim-nestconn-%d", (int)getpid());
	alen = sk_bound(LSN, SOCK_STREAM, name, 4, &addr);
	pid_t c = test_fork();
	if (c == 0)
		sk_nested_pidns(nested_init, &sh->n);
	struct pollfd p = {.fd = LSN, .events = POLLIN};
	int a = poll(&p, 1, 10000) == 1 ? accept(LSN, NULL, NULL) : -1;
	if (a < 0 || sk_send_fds(ctl[1], "a", 1, &a, 1))
		fail("setup: no connection from K");
	sk_place(a, ACC, 0);
	if (NC_QUEUE) {
		sk_connect_to(PEND, SOCK_STREAM, &addr, alen);
	}
	close(ctl[0]);
	close(ctl[1]);
	for (int k = 0; !sh->ready && k < 10000; k++)
		usleep(1000);
	struct ucred kc = sk_peer(ACC), lc = sk_peer(LSN);
	if (!sh->ready || sh->fails || kc.pid <= 0 || kc.pid == sh->n || kc.uid != 1234 || lc.pid != getpid())
		fail("setup: %d %s; the accepted socket names %d %u, the listener %d", sh->ready,
		     (const char *)sh->msg, kc.pid, kc.uid, lc.pid);
	test_daemon();
	test_waitsig();
	struct ucred k2 = sk_peer(ACC), l2 = sk_peer(LSN);
	sh->go = 1;
	for (int k = 0; !sh->done && k < 10000; k++)
		usleep(1000);
	if (k2.pid != kc.pid || k2.uid != 1234 || k2.gid != 4321)
		fail("after restore: the test's accepted socket names %d %u %u, want %d 1234 4321", k2.pid,
		     k2.uid, k2.gid, kc.pid);
	else if (l2.pid != getpid() || l2.uid != lc.uid || l2.gid != lc.gid)
		fail("after restore: the listener names %d %u %u, want %d %u %u", l2.pid, l2.uid, l2.gid,
		     getpid(), lc.uid, lc.gid);
	else if (!sh->done || sh->fails)
		fail("after restore: %s", sh->done ? (const char *)sh->msg : "N did not answer");
	else if (NC_QUEUE && ((a = accept4(LSN, NULL, NULL, SOCK_NONBLOCK)) < 0 || send(a, "q", 1, 0) != 1 ||
			      sk_expect(PEND, "q", 1)))
		fail("after restore: the connection not accepted yet is not the first in the queue (%d)", a);
	kill(c, SIGKILL);
	if (sh->n > 0)
		kill(sh->n, SIGKILL);
	while (wait(NULL) > 0)
		;
	return test_pass();
}
