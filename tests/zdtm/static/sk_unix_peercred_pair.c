/* SO_PEERCRED of socketpairs not made by the holder: a dgram pair made by the test (fds 10, 11); a
 * seqpacket pair made by a child (euid 1234, egid 4321) that passed both ends to the test (SCM_RIGHTS) and
 * waits (fds 12, 13); a stream pair made by another child (euid 2345, egid 5432) that passed them and
 * exited (fds 14, 15): it names a pid that is gone. After restore each pair still names the pid, uid and
 * gid of its maker (the gone pid too: crshim takes it for a moment when it is free). */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { DG0 = 10, DG1 = 11, SP0 = 12, SP1 = 13, ST0 = 14, ST1 = 15 };

static void check(int fd, const char *what, pid_t pid, uid_t uid, gid_t gid)
{
	struct ucred cr = {-1, (uid_t)-1, (gid_t)-1};
	socklen_t l = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l))
		fail("%s (fd %d): SO_PEERCRED", what, fd);
	else if (cr.pid != pid || cr.uid != uid || cr.gid != gid)
		fail("%s (fd %d): SO_PEERCRED pid %d uid %u gid %u, want %d %u %u", what, fd, cr.pid, cr.uid,
		     cr.gid, pid, uid, gid);
}

/* Child: make a pair of type with these ids, send both ends over ctl. */
static void make_and_send(int ctl, int type, uid_t uid, gid_t gid)
{
	int sp[2];
	union {
		char b[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} cb;
	char c = 'p';
	struct iovec iov = {&c, 1};
	struct msghdr mh = {NULL, 0, &iov, 1, cb.b, sizeof(cb.b), 0};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	if (setresgid(-1, gid, -1) || setresuid(-1, uid, -1) || socketpair(AF_UNIX, type, 0, sp))
		_exit(1);
	cm->cmsg_level = SOL_SOCKET, cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cm), sp, sizeof(sp));
	if (sendmsg(ctl, &mh, 0) != 1)
		_exit(2);
	close(sp[0]);
	close(sp[1]);
}

/* Parent: receive the two ends onto fds a and b. */
static void recv_pair(int ctl, int a, int b)
{
	int sp[2];
	union {
		char b[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} cb;
	char c;
	struct iovec iov = {&c, 1};
	struct msghdr mh = {NULL, 0, &iov, 1, cb.b, sizeof(cb.b), 0};
	struct cmsghdr *cm = NULL;
	if (recvmsg(ctl, &mh, 0) != 1 || !(cm = CMSG_FIRSTHDR(&mh)) || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(2 * sizeof(int))) {
		fail("setup: receive a pair");
		return;
	}
	memcpy(sp, CMSG_DATA(cm), sizeof(sp));
	if (dup2(sp[0], a) != a || dup2(sp[1], b) != b)
		fail("setup: dup2");
	close(sp[0]);
	close(sp[1]);
}

int main(int argc, char **argv)
{
	int ctl[2], go[2], sp[2], st;
	pid_t live, gone;
	char c;

	test_init(argc, argv);
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) || dup2(sp[0], DG0) != DG0 || dup2(sp[1], DG1) != DG1 ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, ctl) || pipe(go))
		fail("setup");
	close(sp[0]);
	close(sp[1]);
	live = test_fork();
	if (live == 0) {
		make_and_send(ctl[1], SOCK_SEQPACKET, 1234, 4321);
		_exit(read(go[0], &c, 1) == 1 ? 0 : 3); /* after restore */
	}
	recv_pair(ctl[0], SP0, SP1);
	gone = test_fork();
	if (gone == 0) {
		make_and_send(ctl[1], SOCK_STREAM, 2345, 5432);
		_exit(0);
	}
	recv_pair(ctl[0], ST0, ST1);
	if (waitpid(gone, &st, 0) != gone || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("setup: the child that made the stream pair: status %#x", st);
	close(ctl[0]);
	close(ctl[1]);
	close(go[0]);
	check(DG0, "setup: dgram pair", getpid(), getuid(), getgid());
	check(SP1, "setup: seqpacket pair", live, 1234, 4321);
	check(ST0, "setup: stream pair of a gone child", gone, 2345, 5432);
	test_daemon();
	test_waitsig();

	check(DG0, "dgram pair", getpid(), getuid(), getgid());
	check(DG1, "dgram pair", getpid(), getuid(), getgid());
	check(SP0, "seqpacket pair", live, 1234, 4321);
	check(SP1, "seqpacket pair", live, 1234, 4321);
	check(ST0, "stream pair of a gone child", gone, 2345, 5432);
	check(ST1, "stream pair of a gone child", gone, 2345, 5432);
	if (send(DG0, "d", 1, 0) != 1 || recv(DG1, &c, 1, 0) != 1 || send(SP1, "s", 1, 0) != 1 ||
	    recv(SP0, &c, 1, 0) != 1 || send(ST0, "t", 1, 0) != 1 || recv(ST1, &c, 1, 0) != 1)
		fail("the pairs do not carry data");
	if (write(go[1], "g", 1) != 1 || waitpid(live, &st, 0) != live || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the child that made the seqpacket pair: status %#x", st);
	return test_pass();
}
