/* SO_PEERCRED of connections a child in a mount namespace of its own made to its own listeners bound on a
 * tmpfs of that namespace (/nsmnt_cp/l, and "rl" relative to its cwd there): each listen() as euid 1234 egid
 * 4321, each connect() as euid 2345 egid 5432, accepted. After restore the accepted sockets name the child,
 * 2345 and 5432, the connected ones the child, 1234 and 4321: the restored child makes those listen() and
 * connect() calls again itself, at crshim's request, while crshim makes its namespace's sockets. Before,
 * crshim's helper could not take the child's pid (the child exists then) and they named crshim (pid 0 in the
 * test's PID namespace, crshim's pid in cr mode). */
#include <sys/socket.h>
#include <sys/un.h>
#include "nsmnt.h"
#include "sk_unix_at.h"

static int lsk = -1, cli = -1, acc = -1, rl = -1, rcli = -1, racc = -1;

static int as(uid_t u, gid_t g)
{
	return setresuid(-1, 0, -1) || setresgid(-1, g, -1) || setresuid(-1, u, -1) ? -1 : 0;
}

/* a listener at path (as 1234), a connection to it (as 2345), accepted: *l, *c, *a */
static int shape(const char *path, int *l, int *c, int *a)
{
	if ((*l = sock_at(SOCK_STREAM, path, 1)) < 0 || chmod(path, 0777) || as(1234, 4321) ||
	    listen(*l, 4) || as(2345, 5432) || (*c = sock_at(SOCK_STREAM, path, 0)) < 0 || as(0, 0))
		return -1;
	*a = accept(*l, NULL, NULL);
	return *a < 0 ? -1 : 0;
}

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_cp", "tmpfs", 0, "size=1m,mode=0777") || chdir("/nsmnt_cp"))
		return -1;
	return shape("/nsmnt_cp/l", &lsk, &cli, &acc) || shape("rl", &rl, &rcli, &racc) ? -1 : 0;
}

static int peer_is(int fd, uid_t u, gid_t g)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	return !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) && cr.pid == getpid() && cr.uid == u &&
	       cr.gid == g;
}

static int check(void)
{
	int bad = 0;
	if (!peer_is(cli, 1234, 4321))
		bad |= 1;
	if (!peer_is(acc, 2345, 5432))
		bad |= 2;
	if (!peer_is(rcli, 1234, 4321))
		bad |= 4;
	if (!peer_is(racc, 2345, 5432))
		bad |= 8;
	if (write(cli, "c", 1) != 1 || !got(acc, "c") || write(rcli, "r", 1) != 1 || !got(racc, "r"))
		bad |= 16;
	return bad;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_cp");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "SO_PEERCRED does not name the child as it was: 1: the connected socket, 2: the "
			  "accepted one, 4, 8: the same of the relative name; 16: no data through them");
	return test_pass();
}
