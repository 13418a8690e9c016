/* Unix sockets between processes of a tree: a stream socketpair with one end in the parent and the other in
 * the child (data queued both ways), a dgram socketpair whose both ends both processes keep (as after
 * fork; messages queued), and a listener the child inherited (the parent accepts what the child connects
 * after restore). After restore each socket is one socket again, shared where it was, the data there once;
 * the child answers over the stream pair. */
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { P = 90, C = 91, DA = 92, DB = 93, L = 94 };
static volatile sig_atomic_t got_usr1;
static char name[64];

static void on_usr1(int s)
{
	(void)s;
	got_usr1 = 1;
}

__attribute__((noreturn)) static void child_main(void)
{
	sigset_t empty;
	int bad = 0;
	struct sockaddr_un a;
	test_forked();
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(P);
	if (sk_send(C, "child to parent", 15) || sk_send(DB, "dgram from child", 16))
		_exit(2);
	sigemptyset(&empty);
	while (!got_usr1)
		sigsuspend(&empty);
	bad |= sk_expect(C, "parent to child", 15) ? 1 : 0;
	bad |= sk_send(C, "pong", 4) ? 4 : 0;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	socklen_t al = sk_addr(name, &a);
	bad |= connect(s, (struct sockaddr *)&a, al) || sk_send(s, "via listener", 12) ? 8 : 0;
	_exit(bad);
}

int main(int argc, char **argv)
{
	sigset_t m;
	struct sockaddr_un a;
	pid_t ch;

	test_init(argc, argv);
	signal(SIGUSR1, on_usr1);
	usr1_mask(&m);
	snprintf(name, sizeof(name), "@zdtm-sk-tree-%d", getpid());
	sk_pair(SOCK_STREAM, P, C);
	sk_pair(SOCK_DGRAM, DA, DB);
	sk_place(socket(AF_UNIX, SOCK_STREAM, 0), L, 0);
	socklen_t al = sk_addr(name, &a);
	if (bind(L, (struct sockaddr *)&a, al) || listen(L, 4))
		fail("listener");
	ch = test_fork();
	if (ch == 0)
		child_main();
	close(C);
	if (sk_send(P, "parent to child", 15) || sk_send(DA, "dgram from parent", 17))
		fail("send");
	struct pollfd pf = {.fd = P, .events = POLLIN};
	if (poll(&pf, 1, 10000) != 1)
		fail("the child did not send");
	usleep(100000); /* the child's dgram message too */
	test_daemon();
	test_waitsig();

	if (sk_expect(P, "child to parent", 15) || !sk_empty(P))
		fail("stream pair: the child's data is not there once and exactly");
	if (sk_expect_msg(DA, "dgram from child", 16) || !sk_empty(DA))
		fail("dgram pair: the child's message is not there once");
	if (sk_expect_msg(DB, "dgram from parent", 17) || !sk_empty(DB))
		fail("dgram pair: the parent's message is not there once");
	kill(ch, SIGUSR1);
	if (sk_expect(P, "pong", 4))
		fail("no pong from the child");
	int s = accept(L, NULL, NULL);
	if (s < 0 || sk_expect(s, "via listener", 12))
		fail("the child does not reach the shared listener");
	child_exit_ok(ch, "1: stream data, 4: pong, 8: listener");
	return test_pass();
}
