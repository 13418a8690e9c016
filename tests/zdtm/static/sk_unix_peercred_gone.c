/* SO_PEERCRED of accepted unix stream sockets whose connecting process has exited: the kernel keeps the
 * connector's pid (a dead one), euid and egid on the accepted socket. The test listens on an abstract name;
 * K1 (the test's ids) connects, the test accepts, K1 exits (AC1); K2 (euid 1234, egid 4321) connects, sends
 * "k2", exits, then the test accepts (AC2). The test reaps both. After restore AC1 and AC2 name K1 and K2
 * (pid, uid, gid), and AC2 still holds "k2", then end of file, as AC1. */
#include "sk_unix.h"
#include "sk_unix_peercred.h"

enum { LS = 10, AC1 = 11, AC2 = 12 };

/* A child that connects to a as euid uid and egid gid (-1: its own), sends msg (NULL: nothing), waits for a
 * byte on go when go >= 0 and exits; the test reaps it. */
static pid_t connector(const struct sockaddr_un *a, socklen_t al, uid_t uid, gid_t gid, const char *msg,
		       int go)
{
	pid_t k = test_fork();
	if (k)
		return k;
	char c;
	if (pc_ids(uid, gid))
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

int main(int argc, char **argv)
{
	struct pc_test t;
	char c;

	test_init(argc, argv);
	pc_listen(&t, LS, "@zdtm_peercred_gone", 4);
	pid_t k1 = connector(&t.a, t.al, (uid_t)-1, (gid_t)-1, NULL, t.go[0]);
	sk_place_new(accept(LS, NULL, NULL), AC1);
	if (write(t.go[1], "g", 1) != 1)
		fail("setup: pipe write");
	pc_reap(k1, "setup: K1");
	pid_t k2 = connector(&t.a, t.al, 1234, 4321, "k2", -1);
	pc_reap(k2, "setup: K2");
	sk_place_new(accept(LS, NULL, NULL), AC2);
	close(t.go[0]);
	close(t.go[1]);
	pc_expect(AC1, "setup: accepted, then its connector exited", k1, getuid(), getgid());
	pc_expect(AC2, "setup: its connector exited, then accepted", k2, 1234, 4321);
	test_daemon();
	test_waitsig();

	pc_expect(AC1, "accepted, then its connector exited", k1, getuid(), getgid());
	pc_expect(AC2, "its connector exited, then accepted", k2, 1234, 4321);
	if (sk_expect(AC2, "k2", 2))
		fail("AC2: the data of its gone connector is not back");
	if (recv(AC2, &c, 1, MSG_DONTWAIT) != 0 || recv(AC1, &c, 1, MSG_DONTWAIT) != 0)
		fail("the accepted sockets do not read end of file");
	return test_pass();
}
