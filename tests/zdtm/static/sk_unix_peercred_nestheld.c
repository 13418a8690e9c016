/* SO_PEERCRED of a listener and a connection made in a PID namespace nested in the test's, held inside it and
 * outside it too: a child C unshares CLONE_NEWPID and forks N (PID 1 there). N listens (fd 10, an abstract
 * name) and sends a copy to the test (fd 20); N's child K (PID 2, euid 1234, egid 4321) connects to it and
 * sends its end to N (13), to the test (21) and to D (31), the test's child that is not on N's parent line;
 * N accepts (11) and sends a copy to the test (22) and to D (32); N makes a stream pair, keeps one end (14)
 * and sends the other to D (30). After restore N's sockets name 1 (its own) and K (2, 1234, 4321) as N sees
 * them, the test's and D's N and K as they see them (uid, gid), and data still flows. Before, the sockets
 * held outside named crshim (pid 0 in N's namespace) or the whole group did. */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum {
	LSN = 10,
	ACC = 11,
	KCON = 13,
	NPAIR = 14,
	TLSN = 20,
	TCON = 21,
	TACC = 22,
	DPAIR = 30,
	DCON = 31,
	DACC = 32
};

static volatile struct shared {
	int nready, dready, go, ndone, ddone, fails, n, k;
	char msg[256];
} * sh;
static int ctl[2], dctl[2], kn[2]; /* to the test, to D, K to N */
static pid_t test_pid;

static void expect_peer(int fd, const char *who, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred cr = sk_peer(fd);
	if ((cr.pid != pid || cr.uid != uid || cr.gid != gid) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg),
			 "%s fd %d: SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", who, fd, cr.pid, cr.uid,
			 cr.gid, pid, uid, gid);
}

/* Receive one fd on ch (tag in *c) at number want (or any: want -1, returned). */
static int take(int ch, char *c, int want)
{
	int fds[2], nf = 0;
	struct pollfd p = {.fd = ch, .events = POLLIN};
	if (poll(&p, 1, 10000) != 1 || sk_recv_fds(ch, c, 1, fds, &nf, NULL) != 1 || nf != 1)
		_exit(30);
	if (want < 0)
		return fds[0];
	if (fds[0] != want && (dup2(fds[0], want) != want || close(fds[0])))
		_exit(31);
	return want;
}

static void k_main(const struct sockaddr_un *a, socklen_t al)
{
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || setresgid(-1, 4321, -1) || setresuid(-1, 1234, -1) ||
	    connect(c, (const struct sockaddr *)a, al) || sk_send_fds(kn[1], "k", 1, &c, 1) ||
	    sk_send_fds(ctl[1], "c", 1, &c, 1) || sk_send_fds(dctl[1], "c", 1, &c, 1))
		_exit(1);
	int chans[] = {c, kn[0], kn[1], ctl[0], ctl[1], dctl[0], dctl[1]};
	for (size_t i = 0; i < sizeof(chans) / sizeof(chans[0]); i++)
		close(chans[i]);
	for (;;)
		pause();
}

static void nested_init(void)
{
	struct sockaddr_un a;
	char name[64], c;
	uid_t u = getuid();
	gid_t g = getgid();
	int sp[2];
	snprintf(name, sizeof(name), "@crshim-nestheld-%d", (int)test_pid);
	socklen_t al = sk_bound(LSN, SOCK_STREAM, name, 4, &a);
	if (getpid() != 1 || socketpair(AF_UNIX, SOCK_DGRAM, 0, kn) ||
	    sk_send_fds(ctl[1], "l", 1, (int[]){LSN}, 1))
		_exit(12);
	pid_t k = fork();
	if (k == 0)
		k_main(&a, al);
	take(kn[0], &c, KCON);
	int acc = accept(LSN, NULL, NULL);
	if (k != 2 || acc < 0 || dup2(acc, ACC) != ACC || close(acc) ||
	    sk_send_fds(ctl[1], "a", 1, (int[]){ACC}, 1) || sk_send_fds(dctl[1], "a", 1, (int[]){ACC}, 1) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || sk_send_fds(dctl[1], "p", 1, &sp[1], 1) ||
	    dup2(sp[0], NPAIR) != NPAIR)
		_exit(13);
	close(sp[0]);
	close(sp[1]);
	close(kn[0]);
	close(kn[1]);
	close(ctl[0]);
	close(ctl[1]);
	close(dctl[0]);
	close(dctl[1]);
	for (int round = 0; round < 2; round++) {
		expect_peer(LSN, "N's listener", 1, u, g);
		expect_peer(ACC, "N's accepted socket", 2, 1234, 4321);
		expect_peer(KCON, "K's connection, N's copy", 1, u, g);
		expect_peer(NPAIR, "N's end of its pair", 1, u, g);
		if (round == 0) {
			sh->nready = 1;
			while (!sh->go)
				usleep(10000);
		}
	}
	if ((send(ACC, "a", 1, 0) != 1 || send(NPAIR, "p", 1, 0) != 1) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg), "N: send: %s", strerror(errno));
	sh->ndone = 1;
	for (;;)
		pause();
}

/* D: a child of the test, not on N's parent line */
static void d_main(void)
{
	char c;
	uid_t u = getuid();
	gid_t g = getgid();
	close(ctl[0]);
	close(ctl[1]);
	for (int i = 0; i < 3; i++) {
		int fd = take(dctl[0], &c, -1);
		sk_place(fd, c == 'p' ? DPAIR : c == 'c' ? DCON : DACC, 0);
	}
	close(dctl[0]);
	close(dctl[1]);
	while (!sh->k) /* (the test reads it once N is ready) */
		usleep(1000);
	for (int round = 0; round < 2; round++) {
		expect_peer(DPAIR, "D's end of N's pair", sh->n, u, g);
		expect_peer(DCON, "D's copy of K's connection", sh->n, u, g);
		expect_peer(DACC, "D's copy of the accepted socket", sh->k, 1234, 4321);
		if (round == 0) {
			sh->dready = 1;
			while (!sh->go)
				usleep(10000);
		}
	}
	while (!sh->ndone)
		usleep(1000);
	if (sk_expect(DPAIR, "p", 1) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg), "D: nothing from N's pair");
	sh->ddone = 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char c;
	test_init(argc, argv);
	test_pid = getpid();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || socketpair(AF_UNIX, SOCK_DGRAM, 0, ctl) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, dctl))
		fail("mmap, socketpair");
	pid_t d = test_fork();
	if (d == 0)
		d_main();
	pid_t cp = test_fork();
	if (cp == 0)
		sk_nested_pidns(nested_init, &sh->n);
	for (int i = 0; i < 3; i++) {
		int fd = take(ctl[0], &c, -1);
		sk_place(fd, c == 'l' ? TLSN : c == 'c' ? TCON : TACC, 0);
	}
	close(ctl[0]);
	close(ctl[1]);
	close(dctl[0]);
	close(dctl[1]);
	for (int k = 0; !sh->nready && k < 10000; k++)
		usleep(1000);
	sh->k = sk_peer(TACC).pid;
	for (int k = 0; !sh->dready && k < 10000; k++)
		usleep(1000);
	if (!sh->nready || !sh->dready || sh->fails || sh->k <= 0 || sk_peer(TLSN).pid != sh->n ||
	    sk_peer(TCON).pid != sh->n)
		fail("setup: %d %d %s; the test's sockets name %d %d %d, N is %d", sh->nready, sh->dready,
		     (const char *)sh->msg, sk_peer(TLSN).pid, sk_peer(TCON).pid, sh->k, sh->n);
	test_daemon();
	test_waitsig();
	struct ucred l = sk_peer(TLSN), cn = sk_peer(TCON), ac = sk_peer(TACC);
	sh->go = 1;
	for (int k = 0; !(sh->ndone && sh->ddone) && k < 10000; k++)
		usleep(1000);
	if (l.pid != sh->n || l.uid != getuid() || cn.pid != sh->n || cn.uid != getuid())
		fail("after restore: the test's listener names %d %u, its connection %d %u, want %d %u",
		     l.pid, l.uid, cn.pid, cn.uid, sh->n, getuid());
	else if (ac.pid != sh->k || ac.uid != 1234 || ac.gid != 4321)
		fail("after restore: the test's accepted socket names %d %u %u, want %d 1234 4321", ac.pid,
		     ac.uid, ac.gid, sh->k);
	else if (!sh->ndone || !sh->ddone || sh->fails)
		fail("after restore: %d %d %s", sh->ndone, sh->ddone, (const char *)sh->msg);
	else if (sk_expect(TCON, "a", 1))
		fail("after restore: no data from N's accepted socket");
	kill(cp, SIGKILL);
	kill(d, SIGKILL);
	if (sh->n > 0)
		kill(sh->n, SIGKILL);
	while (wait(NULL) > 0)
		;
	return test_pass();
}
