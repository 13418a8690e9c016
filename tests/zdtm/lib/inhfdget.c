/* zdtm_inhfd SOCK FD CMD...: get the test's end from the keeper of an inhfd test (lib/inhfd.c) listening on
 * the unix socket SOCK, put it at fd FD (inheritable) and exec CMD (crshim restore --inherit-fd fd[FD]:KEY).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int get_fd(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) || write(s, "G", 1) != 1)
		return -1;
	char c;
	struct iovec iov = {&c, 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
	int fd = -1;
	if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) == 1) {
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		if (cm && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	}
	close(s);
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: zdtm_inhfd SOCK FD CMD...\n");
		return 2;
	}
	int want = atoi(argv[2]);
	int fd = get_fd(argv[1]);
	if (fd < 0 || dup2(fd, want) < 0) {
		perror("zdtm_inhfd: get the fd from the keeper");
		return 1;
	}
	if (fd != want)
		close(fd);
	execvp(argv[3], argv + 3);
	perror("zdtm_inhfd: exec");
	return 127;
}
