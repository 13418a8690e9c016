/* SO_PEERCRED of socketpairs made inside a nested PID namespace with one end held outside it: a child C
 * unshares CLONE_NEWPID and forks N (PID 1 there); N makes a stream socketpair, keeps one end (fd 10) and
 * sends the other to the test (fd 20), N's ancestor outside its namespace; N's child K (PID 2, euid 1234,
 * egid 4321) makes a seqpacket pair, sends one end to the test (fd 21) and the other to N (fd 12). After
 * restore the test's ends name N and K as the test's namespace sees them (the pids they named before, uid,
 * gid), N's ends name N (1) and K (2) as N sees them. Before: N's ends named crshim (pid 0 there). */
#include <sched.h>
#include <sys/mount.h>
#include "sk_unix.h"
#include "sk_unix_peercred_nest.h"

enum { NEND = 10, KEND = 12, TEND = 20, TK = 21, TB = 22 };

static int ctl[2];

static void expect_peer(int fd, const char *what, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred cr = sk_peer(fd);
	if (cr.pid != pid || cr.uid != uid || cr.gid != gid)
		nest_fail("%s: SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", what, cr.pid, cr.uid, cr.gid,
			  pid, uid, gid);
}

/* N's ends, before the dump and after restore */
static void n_check(void)
{
	expect_peer(NEND, "N's end of its pair", 1, getuid(), getgid());
	expect_peer(KEND, "N's end of K's pair", 2, 1234, 4321);
}

/* K: a pair made as 1234/4321, one end to the test, the other to N (on kn) */
static void k_main(int kn)
{
	int q[2];
	if (setresgid(-1, 4321, -1) || setresuid(-1, 1234, -1) || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, q) ||
	    sk_send_fds(ctl[1], "k", 1, &q[0], 1) || sk_send_fds(kn, "k", 1, &q[1], 1))
		_exit(1);
	close(q[0]);
	close(q[1]);
	for (;;)
		pause();
}

#ifndef NESTOUT_MNT
#define NESTOUT_MNT 0
#endif

static void nested_init(void)
{
	int sp[2], kn[2], fds[2], nf = 0;
	char c;
	if (NESTOUT_MNT && (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
			    mount("nestmnt", "/sk_nestout_mnt", "tmpfs", 0, "size=1m")))
		_exit(11);
	struct sockaddr_un ba; /* NESTOUT_MNT 2: a socket bound on N's tmpfs, held by N and the test; 3: by
				* the test only */
	if (NESTOUT_MNT >= 2 && (!sk_bound(30, SOCK_DGRAM, "/sk_nestout_mnt/sk", 0, &ba) ||
				 sk_send_fds(ctl[1], "b", 1, (int[]){30}, 1)))
		_exit(11);
	if (NESTOUT_MNT == 3)
		close(30);
	if (getpid() != 1 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, kn) || sk_send_fds(ctl[1], "p", 1, &sp[1], 1))
		_exit(12);
	sk_place(sp[0], NEND, 0);
	close(sp[1]);
	pid_t k = fork();
	if (k == 0)
		k_main(kn[1]);
	struct pollfd p = {.fd = kn[0], .events = POLLIN};
	if (k != 2 || poll(&p, 1, 10000) != 1 || sk_recv_fds(kn[0], &c, 1, fds, &nf, NULL) != 1 || nf != 1)
		_exit(13);
	sk_place(fds[0], KEND, 0);
	close(kn[0]);
	close(kn[1]);
	nest_rounds(n_check);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	nest_shared_map();
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, ctl))
		fail("socketpair");
	if (NESTOUT_MNT && mkdir("/sk_nestout_mnt", 0755) && errno != EEXIST)
		fail("mkdir /sk_nestout_mnt");
	pid_t c = test_fork();
	if (c == 0) {
		sk_nested_pidns(nested_init, &sh->n);
	}
	for (int i = 0; i < 2 + (NESTOUT_MNT >= 2); i++) {
		int fds[2], nf = 0;
		char ch;
		struct pollfd p = {.fd = ctl[0], .events = POLLIN};
		if (poll(&p, 1, 10000) != 1 || sk_recv_fds(ctl[0], &ch, 1, fds, &nf, NULL) != 1 || nf != 1)
			fail("setup: no end from N or K");
		sk_place(fds[0], ch == 'k' ? TK : ch == 'b' ? TB : TEND, 0);
	}
	close(ctl[0]);
	close(ctl[1]);
	int ready = nest_ready();
	struct ucred kc = sk_peer(TK);
	if (ready != 1 || sk_peer(TEND).pid != sh->n || kc.pid <= 0 || kc.uid != 1234 || kc.gid != 4321)
		fail("setup: %d %s; the test's ends name %d and %d, want %d and K", ready,
		     (const char *)sh->msg, sk_peer(TEND).pid, kc.pid, sh->n);
	test_daemon();
	test_waitsig();
	struct ucred cr = sk_peer(TEND), ck = sk_peer(TK);
	nest_check_again();
	if (cr.pid != sh->n || cr.uid != getuid())
		fail("after restore: the test's end names %d uid %u, want %d %u", cr.pid, cr.uid, sh->n,
		     getuid());
	if (ck.pid != kc.pid || ck.uid != 1234 || ck.gid != 4321)
		fail("after restore: the test's end of K's pair names %d %u %u, want %d 1234 4321", ck.pid,
		     ck.uid, ck.gid, kc.pid);
	nest_end(c);
	return test_pass();
}
