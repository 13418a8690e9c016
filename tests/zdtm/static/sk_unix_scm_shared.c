/* One file carried (SCM_RIGHTS) by the sockets of two processes, held by neither: the parent makes an
 * eventfd (counter 1), a signalfd, a timerfd (armed), an inotify instance (a watch on its dir), a memfd
 * ("abc"), an epoll instance (watching the write end of a pipe the parent keeps), the read end of that pipe
 * and a regular file (offset 3), and one end of a socketpair whose other end it keeps; it forks; the child
 * sends them all over a socketpair of its own, the parent over another one, and both close them. After
 * restore both receive them: each file the parent received is the child's (kcmp KCMP_FILE), and 2 added to
 * the eventfd by the parent is read by the child (3). The child's socketpair is placed by sk_pair at the
 * second number socketpair() itself returns (sk_pair used to close that end). */
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <linux/kcmp.h>
#include "sk_unix.h"

enum { A = 40, B = 41, NF = 9 };
static const char *const kinds[NF] = {"eventfd", "signalfd", "timerfd", "inotify",    "memfd",
				      "epoll",	 "pipe",     "file",	"unix socket"};

/* Receive the NF files (8 in the first message, the socket in the second) from socket s into f. */
static int recv_all(int s, int *f)
{
	char buf[8];
	int n = 0, m = 0;
	if (sk_recv_fds(s, buf, sizeof(buf), f, &n, NULL) != 2 || n != NF - 1)
		return -1;
	if (sk_recv_fds(s, buf, sizeof(buf), f + NF - 1, &m, NULL) != 2 || m != 1)
		return -1;
	return 0;
}

static int send_all(int s, const int *f)
{
	return sk_send_fds(s, "f1", 2, f, NF - 1) || sk_send_fds(s, "f2", 2, f + NF - 1, 1) ? -1 : 0;
}

int main(int argc, char **argv)
{
	int f[NF], got[NF], cf[NF], pp[2], sp[2], ctl[2], ack[2], rep[2];
	struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = 9};
	struct itimerspec its = {.it_value = {1000, 0}};
	sigset_t ss;
	uint64_t v = 0;
	char c;

	test_init(argc, argv);
	sigemptyset(&ss);
	sigaddset(&ss, SIGUSR2);
	if (pipe(pp) || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) || pipe(ctl) || pipe(ack) || pipe(rep))
		fail("setup");
	f[0] = eventfd(1, 0);
	f[1] = signalfd(-1, &ss, 0);
	f[2] = timerfd_create(CLOCK_MONOTONIC, 0);
	f[3] = inotify_init1(0);
	f[4] = memfd_create("scm_shared", 0);
	f[5] = epoll_create1(0);
	f[6] = pp[0];
	f[7] = sk_scm_file("scm_shared.txt", 3);
	f[8] = sp[0];
	if (f[0] < 0 || f[1] < 0 || f[2] < 0 || f[3] < 0 || f[4] < 0 || f[5] < 0 ||
	    timerfd_settime(f[2], 0, &its, NULL) || inotify_add_watch(f[3], ".", IN_CREATE) < 0 ||
	    write(f[4], "abc", 3) != 3 || epoll_ctl(f[5], EPOLL_CTL_ADD, pp[1], &ev))
		fail("the files");
	pid_t pid = test_fork();
	if (pid == 0) { /* sends them to itself; once told, receives them, reports their numbers */
		int lo = dup(0), lo2 = dup(0); /* what socketpair() gives: sk_pair must keep both ends */
		close(lo);
		close(lo2);
		sk_pair(SOCK_STREAM, lo2, lo2 + 64);
		if (send_all(lo2, f))
			_exit(2);
		for (int i = 0; i < NF; i++)
			close(f[i]);
		if (write(ack[1], "s", 1) != 1 || read(ctl[0], &c, 1) != 1)
			_exit(3);
		if (recv_all(lo2 + 64, cf))
			_exit(4);
		if (write(rep[1], cf, sizeof(cf)) != sizeof(cf) || read(ctl[0], &c, 1) != 1)
			_exit(5);
		if (read(cf[0], &v, sizeof(v)) != sizeof(v))
			_exit(6);
		_exit(write(rep[1], &v, sizeof(v)) == sizeof(v) ? 0 : 7);
	}
	sk_pair(SOCK_STREAM, A, B);
	if (send_all(A, f))
		fail("sendmsg");
	for (int i = 0; i < NF; i++)
		close(f[i]);
	if (read(ack[0], &c, 1) != 1)
		fail("the child did not send");
	test_daemon();
	test_waitsig();

	if (recv_all(B, got))
		fail("the parent's files in flight are lost");
	if (write(ctl[1], "g", 1) != 1 || read(rep[0], cf, sizeof(cf)) != sizeof(cf))
		fail("the child did not receive its files in flight");
	for (int i = 0; i < NF; i++)
		if (syscall(SYS_kcmp, getpid(), pid, KCMP_FILE, got[i], cf[i]))
			fail("the %s the parent received (fd %d) is not the child's (fd %d): two files",
			     kinds[i], got[i], cf[i]);
	v = 2;
	if (write(got[0], &v, sizeof(v)) != sizeof(v) || write(ctl[1], "g", 1) != 1 ||
	    read(rep[0], &v, sizeof(v)) != sizeof(v) || v != 3)
		fail("the child read %llu from its eventfd, want 3 (1, and 2 from the parent's)",
		     (unsigned long long)v);
	child_exit_ok(pid, NULL);
	return test_pass();
}
