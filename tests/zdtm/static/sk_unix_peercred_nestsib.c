/* SO_PEERCRED across two sibling PID namespaces nested in the test's: children C1 and C2 each unshare
 * CLONE_NEWPID and fork N1 and N2 (PID 1 in each). N1 listens (fd 10, an abstract name) as euid 1234 egid
 * 4321; N2 connects to it (fd 20) and N1 accepts (11). After restore N1's listener names N1 (1, 1234, 4321),
 * and the accepted socket and N2's end name what they named before (a process of the other namespace: pid
 * 0; their uid and gid are not saved), and data flows both ways (the connection made in N1's namespace once
 * N1 stands, N2's end sent to N2). Before, N1's listener named crshim (pid 0 in N1's namespace): N2, outside
 * N1's namespace and not on its parent line, held a socket of N1's group; then the accepted socket named N1
 * (pid 1): the dump took N2's pid in its own namespace (1) for the one N1's namespace shows. */
#include <sched.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { LSN = 10, ACC = 11, CON = 20 };

static volatile struct shared {
	int ready1, ready2, go, done1, done2, fails, n1, n2, listening;
	char msg[256];
} * sh;
static struct sockaddr_un addr;
static socklen_t alen;
static char lname[64];

/* (ids: the uid and gid too; a socket naming a process of the other namespace has none saved: after restore
 * crshim's, in a user namespace of the tree's the overflow ids) */
static void expect_peer(int fd, const char *what, struct ucred want, bool ids)
{
	struct ucred cr = sk_peer(fd);
	if (!ids)
		cr.uid = want.uid, cr.gid = want.gid;
	if ((cr.pid != want.pid || cr.uid != want.uid || cr.gid != want.gid) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg),
			 "%s: SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", what, cr.pid, cr.uid, cr.gid,
			 want.pid, want.uid, want.gid);
}

static void n1_init(void)
{
	if (getpid() != 1 || setresgid(-1, 4321, -1) || setresuid(-1, 1234, -1))
		_exit(12);
	sk_bound(LSN, SOCK_STREAM, lname, 4, &addr);
	if (setresuid(-1, 0, -1) || setresgid(-1, 0, -1))
		_exit(13);
	sh->listening = 1;
	struct pollfd p = {.fd = LSN, .events = POLLIN};
	int a = poll(&p, 1, 10000) == 1 ? accept(LSN, NULL, NULL) : -1;
	if (a < 0)
		_exit(14);
	sk_place(a, ACC, 0);
	struct ucred acc = sk_peer(ACC);
	for (int round = 0; round < 2; round++) {
		expect_peer(LSN, "N1's listener", (struct ucred){1, 1234, 4321}, true);
		expect_peer(ACC, "N1's accepted socket", acc, false);
		if (round == 0) {
			sh->ready1 = 1;
			while (!sh->go)
				usleep(10000);
		}
	}
	if ((send(ACC, "a", 1, 0) != 1 || sk_expect(ACC, "c", 1)) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg), "N1: no data from N2");
	sh->done1 = 1;
	for (;;)
		pause();
}

static void n2_init(void)
{
	if (getpid() != 1)
		_exit(15);
	while (!sh->listening)
		usleep(1000);
	sk_connect_to(CON, SOCK_STREAM, &addr, alen);
	struct ucred con = sk_peer(CON);
	for (int round = 0; round < 2; round++) {
		expect_peer(CON, "N2's end", con, false);
		if (round == 0) {
			sh->ready2 = 1;
			while (!sh->go)
				usleep(10000);
		}
	}
	if ((send(CON, "c", 1, 0) != 1 || sk_expect(CON, "a", 1)) && !sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg), "N2: no data from N1");
	sh->done2 = 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap");
	snprintf(lname, sizeof(lname), "@crshim-nestsib-%d", (int)getpid());
	alen = sk_addr(lname, &addr);
	pid_t c1 = test_fork();
	if (c1 == 0)
		sk_nested_pidns(n1_init, &sh->n1);
	pid_t c2 = test_fork();
	if (c2 == 0)
		sk_nested_pidns(n2_init, &sh->n2);
	for (int k = 0; !(sh->ready1 && sh->ready2) && k < 10000; k++)
		usleep(1000);
	if (!sh->ready1 || !sh->ready2 || sh->fails)
		fail("setup: %d %d %s", sh->ready1, sh->ready2, (const char *)sh->msg);
	test_daemon();
	test_waitsig();
	sh->go = 1;
	for (int k = 0; !(sh->done1 && sh->done2) && k < 10000; k++)
		usleep(1000);
	if (!sh->done1 || !sh->done2 || sh->fails)
		fail("after restore: %d %d %s", sh->done1, sh->done2, (const char *)sh->msg);
	kill(c1, SIGKILL);
	kill(c2, SIGKILL);
	if (sh->n1 > 0)
		kill(sh->n1, SIGKILL);
	if (sh->n2 > 0)
		kill(sh->n2, SIGKILL);
	while (wait(NULL) > 0)
		;
	return test_pass();
}
