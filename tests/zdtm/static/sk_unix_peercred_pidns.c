/* SO_PEERCRED inside the test's own PID namespace (test_init_pidns: the test is its init; in mode cr without
 * a mount tree of its own, as under `unshare --pid --fork --mount-proc`): a child (euid 1234, egid 4321)
 * connects to the test's listener and makes a socketpair of its own. After restore the accepted socket names
 * the child's pid as the namespace sees it, uid and gid, and both ends of the child's pair name the child. A
 * socketpair the init (the test) made names it (pid 1) after restore too: the restored init makes it again
 * itself (pid 1 is not free for crshim's helper); so does the init's listener (its listen() made by the
 * restored init, at crshim's request), and the child's connection to it names the init too. Before, they
 * named crshim (pid 0 there; in mode cr, until the root's sockets were made once it stood, as a nested PID
 * namespace's init makes its own: crshim, pid 0 too). */
#include "sk_unix.h"
#include "sk_unix_peercred.h"

enum { LS = 10, AC = 11, CL = 12, P0 = 13, P1 = 14, Q0 = 15, Q1 = 16 };

int main(int argc, char **argv)
{
	struct pc_test t;
	char c;

	test_init_pidns(argc, argv);
	pc_listen(&t, LS, "@crshim-peercred-pidns", 1);
	pid_t ch = test_fork();
	if (ch == 0) {
		if (pc_ids(1234, 4321))
			_exit(4);
		sk_connect_to(CL, SOCK_STREAM, &t.a, t.al);
		sk_pair(SOCK_STREAM, P0, P1);
		if (read(t.go[0], &c, 1) != 1) /* after restore */
			_exit(2);
		struct ucred p0 = sk_peer(P0), p1 = sk_peer(P1), cl = sk_peer(CL);
		if (cl.pid != 1) /* its connection names the listener's maker: the init */
			_exit(5);
		_exit(p0.pid == getpid() && p1.pid == getpid() && p0.uid == 1234 && p1.gid == 4321 ? 0 : 3);
	}
	sk_pair(SOCK_DGRAM, Q0, Q1);
	sk_place(accept(LS, NULL, NULL), AC, 0);
	if (getpid() != 1)
		fail("setup: pid %d, want 1", getpid());
	pc_expect(AC, "setup: accepted socket", ch, 1234, 4321);
	test_daemon();
	test_waitsig();

	struct ucred ls = sk_peer(LS);
	if (ls.pid != 1 || ls.uid != geteuid())
		fail("the init's listener: SO_PEERCRED %d %u, want the init 1 %u", ls.pid, ls.uid, geteuid());
	pc_expect(Q0, "the init's pair", 1, geteuid(), getegid());
	pc_expect(Q1, "the init's pair", 1, geteuid(), getegid());
	pc_expect(AC, "accepted socket (the child)", ch, 1234, 4321);
	if (write(t.go[1], "g", 1) != 1)
		fail("go");
	pc_reap(ch, "child: its pair's SO_PEERCRED does not name it (0x500: its connection does not name the "
		    "init)");
	return test_pass();
}
