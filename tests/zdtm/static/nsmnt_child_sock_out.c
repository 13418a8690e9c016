/* A child in a mount namespace of its own binds a unix socket on a tmpfs of its own (/nsmnt_co/sk) and
 * passes it (SCM_RIGHTS) to the test, outside that namespace: crshim binds such a socket in the child's
 * namespace once the child made it, after the test's files are set, so the dump refuses it with one line
 * (.desc dump-expect) and the tree keeps running: both still hold it, bound there. */
#include <sys/socket.h>
#include <sys/un.h>
#include "nsmnt.h"

static int sp[2] = {-1, -1}, sk = -1;

static int setup(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char cb[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = "s", .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb, .msg_controllen = sizeof(cb)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	snprintf(a.sun_path, sizeof(a.sun_path), "/nsmnt_co/sk");
	if (mount("nsmnt", "/nsmnt_co", "tmpfs", 0, "size=1m"))
		return -1;
	sk = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (sk < 0 || bind(sk, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	cm->cmsg_level = SOL_SOCKET, cm->cmsg_type = SCM_RIGHTS, cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &sk, sizeof(int));
	return sendmsg(sp[1], &mh, 0) == 1 ? 0 : -1;
}

static int check(void)
{
	struct stat st;
	return stat("/nsmnt_co/sk", &st) || !S_ISSOCK(st.st_mode) ? 1 : 0;
}

static int recv_fd(int s)
{
	char b, cb[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &b, .iov_len = 1};
	struct msghdr mh = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb, .msg_controllen = sizeof(cb)};
	int fd = -1;
	struct cmsghdr *cm = recvmsg(s, &mh, 0) == 1 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	mkdirs("/nsmnt_co");
	usr1_block();
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp))
		fail("socketpair");
	pid_t ch = nsmnt_child(setup, check);
	int fd = recv_fd(sp[0]);
	CHECK(fd >= 0, "no socket from the child");
	test_daemon();
	test_waitsig();
	struct sockaddr_un a;
	socklen_t l = sizeof(a);
	CHECK(!getsockname(fd, (struct sockaddr *)&a, &l) && !strcmp(a.sun_path, "/nsmnt_co/sk"),
	      "the socket from the child is not bound at /nsmnt_co/sk");
	CHECK(access("/nsmnt_co/sk", F_OK) < 0, "the child's socket file is in the test's namespace");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: its socket file is gone");
	return test_pass();
}
