/* SO_PEERCRED inside the test's own PID namespace (test_init_pidns: the test is its init; in mode cr without
 * a mount tree of its own, as under `unshare --pid --fork --mount-proc`): a child (euid 1234, egid 4321)
 * connects to the test's listener and makes a socketpair of its own. After restore the accepted socket names
 * the child's pid as the namespace sees it, uid and gid, and both ends of the child's pair name the child. A
 * socketpair the init (the test) made names it (pid 1) after restore too: the restored init makes it again
 * itself (pid 1 is not free for crshim's helper); so does the init's listener (its listen() made by the
 * restored init, at crshim's request), and the child's connection to it names the init too. Before, they
 * named crshim (pid 0 there; in mode cr, until the root's sockets were made once it stood, as a nested PID
 * namespace's init makes its own: crshim, pid 0 too). */
#include <sys/wait.h>
#include "sk_unix.h"

enum { LS = 10, AC = 11, CL = 12, P0 = 13, P1 = 14, Q0 = 15, Q1 = 16 };

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	int ctl[2];
	char c;

	test_init_pidns(argc, argv);
	socklen_t al = sk_bound(LS, SOCK_STREAM, "@crshim-peercred-pidns", 1, &a);
	if (pipe(ctl))
		fail("pipe");
	pid_t ch = test_fork();
	if (ch == 0) {
		if (setresgid(-1, 4321, -1) || setresuid(-1, 1234, -1))
			_exit(4);
		sk_connect_to(CL, SOCK_STREAM, &a, al);
		sk_pair(SOCK_STREAM, P0, P1);
		if (read(ctl[0], &c, 1) != 1) /* after restore */
			_exit(2);
		struct ucred p0 = sk_peer(P0), p1 = sk_peer(P1), cl = sk_peer(CL);
		if (cl.pid != 1) /* its connection names the listener's maker: the init */
			_exit(5);
		_exit(p0.pid == getpid() && p1.pid == getpid() && p0.uid == 1234 && p1.gid == 4321 ? 0 : 3);
	}
	sk_pair(SOCK_DGRAM, Q0, Q1);
	sk_place(accept(LS, NULL, NULL), AC, 0);
	struct ucred cr = sk_peer(AC);
	if (getpid() != 1 || cr.pid != ch || cr.uid != 1234 || cr.gid != 4321)
		fail("setup: pid %d, peer %d %u %u, want 1 and %d 1234 4321", getpid(), cr.pid, cr.uid,
		     cr.gid, ch);
	test_daemon();
	test_waitsig();

	struct ucred ls = sk_peer(LS);
	if (ls.pid != 1 || ls.uid != geteuid())
		fail("the init's listener: SO_PEERCRED %d %u, want the init 1 %u", ls.pid, ls.uid, geteuid());
	struct ucred q0 = sk_peer(Q0), q1 = sk_peer(Q1);
	if (q0.pid != 1 || q1.pid != 1 || q0.uid != geteuid() || q1.gid != getegid())
		fail("the init's pair: SO_PEERCRED %d %u %u / %d, want the init 1 %u %u", q0.pid, q0.uid,
		     q0.gid, q1.pid, geteuid(), getegid());
	cr = sk_peer(AC);
	if (cr.pid != ch || cr.uid != 1234 || cr.gid != 4321)
		fail("accepted socket: SO_PEERCRED %d %u %u, want the child %d 1234 4321", cr.pid, cr.uid,
		     cr.gid, ch);
	int st = 0;
	if (write(ctl[1], "g", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: its pair's SO_PEERCRED does not name it (status %#x; 0x500: its connection does "
		     "not "
		     "name the init)",
		     st);
	return test_pass();
}
