/* SO_PEERCRED of a connection the test made to its own listener of a relative name (ns: always; the test is
 * its PID namespace's init): the listener bound to "rl" in its cwd (d in its dir), listen() as euid 1234 egid
 * 4321, a connect() to "rl" as euid 2345 egid 5432, accepted. After restore the accepted socket names the
 * init (pid 1), 2345 and 5432, and the connected one the init, 1234 and 4321: the restored init makes the
 * connect() again itself, at crshim's request, in the directory crshim sends it. Before, crshim's helper made
 * that connect() (the name is relative to the cwd crshim had: pid 1 is not free for a helper), and the
 * accepted socket named crshim (pid 0 there). */
#include "sk_unix.h"

enum { LS = 10, AC = 11, CL = 12 };

static void as(uid_t u, gid_t g)
{
	if (setresuid(-1, 0, -1) || setresgid(-1, g, -1) || setresuid(-1, u, -1))
		fail("euid %u egid %u", u, g);
}

static void peer_is(int fd, const char *what, uid_t u, gid_t g)
{
	struct ucred cr = sk_peer(fd);
	if (cr.pid != getpid() || cr.uid != u || cr.gid != g)
		fail("%s: SO_PEERCRED %d %u %u, want the test %d %u %u", what, cr.pid, cr.uid, cr.gid,
		     getpid(), u, g);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;

	test_init(argc, argv);
	/* (a directory all may search, and a socket file all may connect to, for the euids below) */
	if (mkdir("d", 0777) || chmod("d", 0777) || chdir("d"))
		fail("directory d");
	socklen_t al = sk_bound(LS, SOCK_STREAM, "rl", 0, &a);
	if (chmod("rl", 0777))
		fail("chmod rl");
	as(1234, 4321);
	if (listen(LS, 4))
		fail("listen");
	as(2345, 5432);
	sk_connect_to(CL, SOCK_STREAM, &a, al);
	as(0, 0);
	sk_place(accept(LS, NULL, NULL), AC, 0);
	peer_is(AC, "setup: accepted socket", 2345, 5432);
	test_daemon();
	test_waitsig();

	peer_is(CL, "connected socket", 1234, 4321);
	peer_is(AC, "accepted socket", 2345, 5432);
	char c = 0;
	if (write(CL, "x", 1) != 1 || read(AC, &c, 1) != 1 || c != 'x')
		fail("the connection carries no data");
	return test_pass();
}
