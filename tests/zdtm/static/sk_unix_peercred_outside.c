/* SO_PEERCRED that names a process outside the holder's PID namespace: pid 0 there, with uid and gid. A child
 * C unshares CLONE_NEWPID and forks N (PID 1 there); the test, as euid 1234 egid 4321, makes a stream pair
 * and a dgram pair and sends all four ends to N, which alone holds them (the test closes its own). N sees pid
 * 0 (the test is not in its namespace), uid 1234, gid 4321 on each end; after restore the same, and data
 * flows. Before: uid and gid 0 (crshim's: the dump saved no credentials with a pid it could not name there).
 */
#include <sched.h>
#include "sk_unix.h"
#include "sk_unix_peercred_nest.h"

enum { S0 = 10, S1 = 11, D0 = 12, D1 = 13 };

static int ch[2]; /* the test sends the ends to N on [0] */

static void expect_peer(int fd, const char *what)
{
	struct ucred cr = sk_peer(fd);
	if (cr.pid != 0 || cr.uid != 1234 || cr.gid != 4321)
		nest_fail("%s: SO_PEERCRED pid %d uid %u gid %u, want 0 1234 4321", what, cr.pid, cr.uid,
			  cr.gid);
}

static void flows(int a, int b, const char *what)
{
	char buf[8] = "";
	if (write(a, "ping", 4) != 4 || read(b, buf, sizeof(buf)) != 4 || memcmp(buf, "ping", 4))
		nest_fail("%s: no data through it", what);
}

/* N's ends, before the dump and after restore */
static void n_check(void)
{
	expect_peer(S0, "stream pair, end 0");
	expect_peer(S1, "stream pair, end 1");
	expect_peer(D0, "dgram pair, end 0");
	expect_peer(D1, "dgram pair, end 1");
	flows(S0, S1, "stream pair");
	flows(D1, D0, "dgram pair");
}

static void nested_init(void)
{
	int fds[4], nf = 0;
	char c[4];
	struct pollfd p = {.fd = ch[1], .events = POLLIN};
	if (getpid() != 1 || poll(&p, 1, 10000) != 1 ||
	    sk_recv_fds(ch[1], c, sizeof(c), fds, &nf, NULL) != 4 || nf != 4)
		_exit(12);
	for (int k = 0; k < 4; k++)
		sk_place(fds[k], S0 + k, 0);
	close(ch[0]);
	close(ch[1]);
	nest_rounds(n_check);
}

int main(int argc, char **argv)
{
	int sp[2], dp[2];
	test_init(argc, argv);
	nest_shared_map();
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, ch))
		fail("socketpair");
	pid_t c = test_fork();
	if (c == 0)
		sk_nested_pidns(nested_init, &sh->n);
	uid_t eu = geteuid();
	gid_t eg = getegid();
	if (setresgid(-1, 4321, -1) || setresuid(-1, 1234, -1))
		fail("setresuid 1234 4321");
	int r = socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || socketpair(AF_UNIX, SOCK_DGRAM, 0, dp);
	if (setresuid(-1, eu, -1) || setresgid(-1, eg, -1) || r)
		fail("socketpairs as 1234 4321");
	if (sk_send_fds(ch[0], "sdsd", 4, (int[]){sp[0], sp[1], dp[0], dp[1]}, 4))
		fail("send the ends to N");
	close(sp[0]), close(sp[1]), close(dp[0]), close(dp[1]);
	close(ch[0]);
	close(ch[1]);
	int ready = nest_ready();
	if (ready != 1)
		fail("setup: %s", ready ? (const char *)sh->msg : "N did not answer");
	test_daemon();
	test_waitsig();
	nest_check_again();
	nest_end(c);
	return test_pass();
}
