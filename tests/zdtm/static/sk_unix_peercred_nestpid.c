/* SO_PEERCRED inside a PID namespace nested in the test's: a child C unshares CLONE_NEWPID and forks N (PID 1
 * there), then sets its children's PID namespace back to its own (the dump refuses a process whose new
 * children go elsewhere). N holds a dgram pair it made (fds 10, 11: names N, pid 1), a seqpacket pair made
 * by its child K (PID 2, euid 1234, egid 4321), which stays (12, 13), a stream pair made by a child that
 * exited (PID 3, euid 2345, egid 5432: 14, 15), its listener (17, an abstract name) and the connection K
 * made to it as 1234/4321: the accepted end (16) and K's end (18), which K sent to N. After restore N reads
 * each again (pid as N's namespace sees it, uid, gid) and tells the test through shared memory. */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "sk_unix.h"

enum { DG0 = 10, DG1 = 11, SP0 = 12, SP1 = 13, ST0 = 14, ST1 = 15, ACC = 16, LSN = 17, CON = 18 };

static volatile struct shared {
	int ready, go, done, fails, n;
	char msg[512];
} * sh;
static int ctl[2];
static pid_t test_pid; /* (N's parent is outside its namespace: getppid() is 0) */

/* N's side: one check, the first failure kept for the test. */
static void check(int fd, const char *what, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred cr = sk_peer(fd);
	if (cr.pid == pid && cr.uid == uid && cr.gid == gid)
		return;
	if (!sh->fails++)
		snprintf((char *)sh->msg, sizeof(sh->msg),
			 "%s (fd %d): SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", what, fd, cr.pid,
			 cr.uid, cr.gid, pid, uid, gid);
}

/* A child of N: as uid/gid, a pair of type sent to N; a connection to N's listener too (conn). */
static void child(int type, uid_t uid, gid_t gid, const struct sockaddr_un *a, socklen_t al, bool conn)
{
	int sp[2];
	if (setresgid(-1, gid, -1) || setresuid(-1, uid, -1) || socketpair(AF_UNIX, type, 0, sp) ||
	    sk_send_fds(ctl[1], "p", 1, sp, 2))
		_exit(1);
	close(sp[0]);
	close(sp[1]);
	if (!conn)
		_exit(0);
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (const struct sockaddr *)a, al) || sk_send_fds(ctl[1], "c", 1, &c, 1))
		_exit(2);
	close(c);
	for (;;)
		pause();
}

/* N: receive the two ends (or one) of a message onto a (and b). */
static void take(int a, int b)
{
	int fds[8], n = 0;
	char c;
	struct pollfd p = {.fd = ctl[0], .events = POLLIN};
	if (poll(&p, 1, 10000) != 1 || sk_recv_fds(ctl[0], &c, 1, fds, &n, NULL) != 1 ||
	    n != (b >= 0 ? 2 : 1))
		_exit(10);
	if (dup2(fds[0], a) != a || (b >= 0 && dup2(fds[1], b) != b))
		_exit(11);
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

static void nested_init(void)
{
	struct sockaddr_un a;
	char name[64];
	uid_t u = getuid();
	gid_t g = getgid();
	int st;
	snprintf(name, sizeof(name), "@crshim-nestpid-%d", (int)test_pid);
	socklen_t al = sk_bound(LSN, SOCK_STREAM, name, 4, &a);
	sk_pair(SOCK_DGRAM, DG0, DG1);
	if (getpid() != 1 || socketpair(AF_UNIX, SOCK_DGRAM, 0, ctl))
		_exit(12);
	pid_t k = fork();
	if (k == 0)
		child(SOCK_SEQPACKET, 1234, 4321, &a, al, true);
	take(SP0, SP1);
	take(CON, -1);
	int acc = accept(LSN, NULL, NULL);
	if (acc < 0 || dup2(acc, ACC) != ACC)
		_exit(13);
	close(acc);
	pid_t gone = fork();
	if (gone == 0)
		child(SOCK_STREAM, 2345, 5432, NULL, 0, false);
	take(ST0, ST1);
	if (k != 2 || gone != 3 || waitpid(gone, &st, 0) != gone || !WIFEXITED(st) || WEXITSTATUS(st))
		_exit(14);
	close(ctl[0]);
	close(ctl[1]);
	for (int round = 0; round < 2; round++) {
		check(DG0, "N's dgram pair", 1, u, g);
		check(DG1, "N's dgram pair", 1, u, g);
		check(SP0, "K's seqpacket pair", 2, 1234, 4321);
		check(SP1, "K's seqpacket pair", 2, 1234, 4321);
		check(ST0, "the stream pair of a gone child", 3, 2345, 5432);
		check(ST1, "the stream pair of a gone child", 3, 2345, 5432);
		check(LSN, "N's listener", 1, u, g);
		check(ACC, "N's accepted connection from K", 2, 1234, 4321);
		check(CON, "K's connection to N", 1, u, g);
		if (round == 0) {
			sh->ready = 1 + sh->fails;
			while (!sh->go)
				usleep(10000);
		}
	}
	if (send(DG0, "d", 1, 0) != 1 || send(SP1, "s", 1, 0) != 1 || send(ST0, "t", 1, 0) != 1 ||
	    send(CON, "c", 1, 0) != 1 || sk_expect(DG1, "d", 1) || sk_expect(SP0, "s", 1) ||
	    sk_expect(ST1, "t", 1) || sk_expect(ACC, "c", 1))
		sh->fails++;
	sh->done = 1;
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	test_pid = getpid();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		fail("mmap");
	pid_t c = test_fork();
	if (c == 0) {
		sk_nested_pidns(nested_init, &sh->n);
	}
	for (int k = 0; c > 0 && !sh->ready && k < 10000; k++)
		usleep(1000);
	if (sh->ready != 1)
		fail("setup: the nested init did not get ready (%d): %s", sh->ready, (const char *)sh->msg);
	test_daemon();
	test_waitsig();
	sh->go = 1;
	for (int k = 0; !sh->done && k < 10000; k++)
		usleep(1000);
	if (!sh->done)
		fail("after restore: the nested init did not answer");
	else if (sh->fails)
		fail("after restore: %d wrong: %s", sh->fails, (const char *)sh->msg);
	kill(c, SIGKILL);
	if (sh->n > 0)
		kill(sh->n, SIGKILL); /* (reparented to the test when C goes; K goes with N's namespace) */
	while (wait(NULL) > 0)
		;
	return test_pass();
}
