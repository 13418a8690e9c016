/* A child in a mount namespace of its own binds unix sockets on a tmpfs of its own (/nsmnt_cs; CRIU's
 * sk-unix-mntns shape): a dgram socket with a connected client and a message queued, a stream listener with
 * an accepted connection and one pending. After restore each is bound at its path in the child's namespace
 * (getsockname, and SIOCUNIXFILE gives the file at that path there), not in the test's, the message is
 * there, and both names take new connections; a dgram pair one end of which it bound there names the child
 * (SO_PEERCRED: the child makes it again itself, its pid being taken), and one bound to a relative name in
 * its cwd there is bound there again. Before, the dump refused them (crshim bound the tree's sockets in the
 * root's mount namespace only). */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/sockios.h>
#include "nsmnt.h"
#include "sk_unix_at.h"

#ifndef SIOCUNIXFILE
#define SIOCUNIXFILE (SIOCPROTOPRIVATE + 0)
#endif

static int sk = -1, csk = -1, lsk = -1, acc = -1, cli = -1, pend = -1, dp[2] = {-1, -1}, rel = -1;

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_cs", "tmpfs", 0, "size=1m"))
		return -1;
	sk = sock_at(SOCK_DGRAM, "/nsmnt_cs/sk", 1);
	csk = sock_at(SOCK_DGRAM, "/nsmnt_cs/sk", 0);
	lsk = sock_at(SOCK_STREAM, "/nsmnt_cs/l", 1);
	if (sk < 0 || csk < 0 || lsk < 0 || listen(lsk, 8) || send(csk, "before", 6, 0) != 6)
		return -1;
	cli = sock_at(SOCK_STREAM, "/nsmnt_cs/l", 0);
	acc = cli < 0 ? -1 : accept(lsk, NULL, NULL);
	pend = sock_at(SOCK_STREAM, "/nsmnt_cs/l", 0);
	struct sockaddr_un a;
	socklen_t l = addr(&a, "/nsmnt_cs/pr");
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, dp) || bind(dp[0], (struct sockaddr *)&a, l))
		return -1;
	/* a relative name, in its cwd there (kept) */
	if (chdir("/nsmnt_cs") || (rel = sock_at(SOCK_DGRAM, "rel", 1)) < 0)
		return -1;
	return acc < 0 || pend < 0 ? -1 : 0;
}

/* fd is bound at path, to the socket file at path in this mount namespace */
static int bound_here(int fd, const char *path)
{
	struct sockaddr_un a;
	socklen_t l = sizeof(a);
	struct stat fs, ps;
	int f = ioctl(fd, SIOCUNIXFILE);
	int ok = !getsockname(fd, (struct sockaddr *)&a, &l) && !strcmp(a.sun_path, path) && f >= 0 &&
		 !fstat(f, &fs) && !stat(path, &ps) && S_ISSOCK(ps.st_mode) && fs.st_ino == ps.st_ino &&
		 fs.st_dev == ps.st_dev;
	if (f >= 0)
		close(f);
	return ok;
}

static int check(void)
{
	int bad = 0;
	if (!bound_here(sk, "/nsmnt_cs/sk") || !bound_here(lsk, "/nsmnt_cs/l"))
		bad |= 1;
	if (!got(sk, "before") || send(csk, "after", 5, 0) != 5 || !got(sk, "after"))
		bad |= 2;
	int n1 = sock_at(SOCK_DGRAM, "/nsmnt_cs/sk", 0);
	if (n1 < 0 || send(n1, "new", 3, 0) != 3 || !got(sk, "new"))
		bad |= 4;
	int a2 = accept(lsk, NULL, NULL), n2 = sock_at(SOCK_STREAM, "/nsmnt_cs/l", 0);
	int a3 = n2 < 0 ? -1 : accept(lsk, NULL, NULL);
	if (write(cli, "c", 1) != 1 || !got(acc, "c") || a2 < 0 || write(pend, "p", 1) != 1 ||
	    !got(a2, "p") || a3 < 0 || write(n2, "n", 1) != 1 || !got(a3, "n"))
		bad |= 8;
	/* a pair one end of which it bound there: made by the child itself (its SO_PEERCRED names it) */
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	if (!bound_here(dp[0], "/nsmnt_cs/pr") || getsockopt(dp[0], SOL_SOCKET, SO_PEERCRED, &cr, &cl) ||
	    cr.pid != getpid() || send(dp[1], "d", 1, 0) != 1 || !got(dp[0], "d"))
		bad |= 16;
	int n3 = sock_at(SOCK_DGRAM, "/nsmnt_cs/rel", 0);
	if (!bound_here(rel, "rel") || n3 < 0 || send(n3, "r", 1, 0) != 1 || !got(rel, "r"))
		bad |= 32;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_cs");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	CHECK(access("/nsmnt_cs/sk", F_OK) < 0 && access("/nsmnt_cs/l", F_OK) < 0,
	      "the child's socket files are in the test's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: not bound at their paths in its namespace, 2: the queued message, 4: no new "
			  "dgram client, 8: the stream connections, 16: its pair (name, SO_PEERCRED, data), "
			  "32: its socket of a relative name");
	return test_pass();
}
