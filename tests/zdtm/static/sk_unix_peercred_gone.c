/* SO_PEERCRED of accepted unix stream sockets whose connecting process has exited: the kernel keeps the
 * connector's pid (a dead one), euid and egid on the accepted socket. The test listens on an abstract name;
 * K1 (the test's ids) connects, the test accepts, K1 exits (AC1); K2 (euid 1234, egid 4321) connects, sends
 * "k2", exits, then the test accepts (AC2). The test reaps both. After restore AC1 and AC2 name K1 and K2
 * (pid, uid, gid), and AC2 still holds "k2", then end of file, as AC1. */
#include <stdio.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { LS = 10, AC1 = 11, AC2 = 12 };

static void check(int fd, const char *what, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred cr = sk_peer(fd);
	if (cr.pid != pid || cr.uid != uid || cr.gid != gid)
		fail("%s (fd %d): SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", what, fd, cr.pid, cr.uid,
		     cr.gid, pid, uid, gid);
}

/* A child that connects to a as euid uid and egid gid (-1: its own), sends msg (NULL: nothing), waits for a
 * byte on go when go >= 0 and exits; the test reaps it. */
static pid_t connector(const struct sockaddr_un *a, socklen_t al, uid_t uid, gid_t gid, const char *msg,
		       int go)
{
	pid_t k = test_fork();
	if (k)
		return k;
	char c;
	if ((gid != (gid_t)-1 && setresgid(-1, gid, -1)) || (uid != (uid_t)-1 && setresuid(-1, uid, -1)))
		_exit(1);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)a, al))
		_exit(2);
	if (msg && send(fd, msg, strlen(msg), 0) != (ssize_t)strlen(msg))
		_exit(3);
	if (go >= 0 && read(go, &c, 1) != 1)
		_exit(4);
	_exit(0);
}

static void reap(pid_t k, const char *what)
{
	int st = 0;
	if (waitpid(k, &st, 0) != k || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("setup: %s: status %#x", what, st);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a;
	int go[2];
	char c;

	test_init(argc, argv);
	socklen_t al = sk_bound(LS, SOCK_STREAM, "@zdtm_peercred_gone", 4, &a);
	if (pipe(go))
		fail("setup: pipe");
	pid_t k1 = connector(&a, al, (uid_t)-1, (gid_t)-1, NULL, go[0]);
	sk_place_new(accept(LS, NULL, NULL), AC1);
	if (write(go[1], "g", 1) != 1)
		fail("setup: pipe write");
	reap(k1, "K1");
	pid_t k2 = connector(&a, al, 1234, 4321, "k2", -1);
	reap(k2, "K2");
	sk_place_new(accept(LS, NULL, NULL), AC2);
	close(go[0]);
	close(go[1]);
	check(AC1, "setup: accepted, then its connector exited", k1, getuid(), getgid());
	check(AC2, "setup: its connector exited, then accepted", k2, 1234, 4321);
	test_daemon();
	test_waitsig();

	check(AC1, "accepted, then its connector exited", k1, getuid(), getgid());
	check(AC2, "its connector exited, then accepted", k2, 1234, 4321);
	if (sk_expect(AC2, "k2", 2))
		fail("AC2: the data of its gone connector is not back");
	if (recv(AC2, &c, 1, MSG_DONTWAIT) != 0 || recv(AC1, &c, 1, MSG_DONTWAIT) != 0)
		fail("the accepted sockets do not read end of file");
	return test_pass();
}
