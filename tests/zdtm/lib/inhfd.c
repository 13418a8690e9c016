/* The keeper of an inhfd test (see zdtmtst.h): a process outside the test's tree that holds the test's end
 * of a pipe, socket, file or terminal (and the other end), and hands the test's end to the runner's restore
 * (build/zdtm/zdtm_inhfd) over the unix socket inhfd.sock in the test's dir. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zdtmtst.h"

#define KEEPER_TFD 3
#define KEEPER_OFD 4
#define KEEPER_LFD 5

static int write_text(const char *path, const char *text)
{
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int bad = fprintf(f, "%s\n", text) < 0;
	if (fclose(f) || bad)
		return -1;
	return rename(tmp, path);
}

static int send_fd(int sk, int fd)
{
	char c = 'F';
	struct iovec iov = {&c, 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof(u));
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sk, &m, 0) == 1 ? 0 : -1;
}

/* 'G': a restore wants the test's end (count it in inhfd.gets, then on_get); 'Q': the test is done. */
static void __attribute__((noreturn)) serve(void (*on_get)(int ofd, int tfd))
{
	int gets = 0;
	char num[16];
	for (;;) {
		struct pollfd pf = {.fd = KEEPER_LFD, .events = POLLIN};
		if (poll(&pf, 1, 300 * 1000) != 1)
			_exit(1);
		int c = accept4(KEEPER_LFD, NULL, NULL, SOCK_CLOEXEC);
		char cmd = 0;
		if (c < 0)
			continue;
		if (read(c, &cmd, 1) == 1 && cmd == 'G') {
			snprintf(num, sizeof(num), "%d", ++gets);
			if (on_get)
				on_get(KEEPER_OFD, KEEPER_TFD);
			if (write_text("inhfd.gets", num) == 0)
				send_fd(c, KEEPER_TFD);
		}
		close(c);
		if (cmd == 'Q') {
			unlink("inhfd.sock");
			_exit(0);
		}
	}
}

/* The keeper's fds: tfd at 3, ofd at 4, the listener at 5, nothing else (not the ready pipe either). */
static void keeper_fds(int tfd, int ofd, int lfd)
{
	int t = fcntl(tfd, F_DUPFD_CLOEXEC, 100), o = fcntl(ofd, F_DUPFD_CLOEXEC, 100),
	    l = fcntl(lfd, F_DUPFD_CLOEXEC, 100);
	if (t < 0 || o < 0 || l < 0 || dup2(t, KEEPER_TFD) < 0 || dup2(o, KEEPER_OFD) < 0 ||
	    dup2(l, KEEPER_LFD) < 0)
		_exit(1);
	syscall(SYS_close_range, KEEPER_LFD + 1, ~0U, 0);
	int nul = open("/dev/null", O_RDWR);
	if (nul >= 0 && (dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0))
		_exit(1);
	if (nul > 2)
		close(nul);
}

int inhfd_keeper(int tfd, int ofd, const char *key, const char *ext, void (*on_get)(int ofd, int tfd))
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "inhfd.sock");
	unlink(a.sun_path);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4))
		return -1;
	if (write_text("inhfd.key", key) || write_text("inhfd.ext", ext ? ext : "") ||
	    write_text("inhfd.gets", "0"))
		return -1;
	int r = test_outside();
	if (r == 0) {
		keeper_fds(tfd, ofd, lfd);
		serve(on_get);
	}
	close(lfd);
	return r < 0 ? -1 : 0;
}

int inhfd_gets(void)
{
	FILE *f = fopen("inhfd.gets", "r");
	int n = -1;
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

void inhfd_stop(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "inhfd.sock");
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && !connect(s, (struct sockaddr *)&a, sizeof(a)) && write(s, "Q", 1) == 1) {
		char c;
		while (read(s, &c, 1) > 0)
			;
	}
	if (s >= 0)
		close(s);
}

static int same_file(int fd, const struct stat *st0)
{
	struct stat st;
	return !fstat(fd, &st) && st.st_ino == st0->st_ino && st.st_dev == st0->st_dev &&
	       st.st_rdev == st0->st_rdev;
}

pid_t inhfd_hold(int fd, struct stat *st0)
{
	if (fstat(fd, st0) || dup2(fd, INHFD_FD) < 0 || dup3(fd, INHFD_FD + 1, O_CLOEXEC) < 0)
		return -1;
	if (fd != INHFD_FD)
		close(fd);
	pid_t pid = fork();
	if (pid == 0) { /* a second process holding it */
		test_forked();
		close(INHFD_FD + 1);
		test_waitsig();
		_exit(same_file(INHFD_FD, st0) ? 0 : 1);
	}
	return pid;
}

int inhfd_check(pid_t child, const struct stat *st0)
{
	int st;
	kill(child, SIGTERM);
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fail("the child's fd %d is not the same file any more (status %#x)", INHFD_FD, st);
		return -1;
	}
	for (int fd = INHFD_FD; fd <= INHFD_FD + 1; fd++) {
		if (!same_file(fd, st0)) {
			fail("fd %d is not the same file (inode %lu) any more", fd,
			     (unsigned long)st0->st_ino);
			return -1;
		}
		int fl = fcntl(fd, F_GETFD);
		if (fl < 0 || (fl & FD_CLOEXEC) != (fd == INHFD_FD ? 0 : FD_CLOEXEC)) {
			fail("fd %d: fd flags %#x", fd, fl);
			return -1;
		}
	}
	return 0;
}

int inhfd_run(int tfd, int ofd, const char *key, const char *ext, void (*on_get)(int ofd, int tfd),
	      const char *what)
{
	struct stat st0;
	if (inhfd_keeper(tfd, ofd, key, ext, on_get)) {
		fail("start the keeper");
		return -1;
	}
	if (ofd != tfd)
		close(ofd);
	pid_t child = inhfd_hold(tfd, &st0);
	if (child < 0) {
		fail("hold the %s", what);
		return -1;
	}
	test_daemon();
	test_waitsig();
	return inhfd_check(child, &st0);
}

int inhfd_expect(const char *data, int len, const char *what)
{
	char buf[64] = "";
	int n = 0;
	if (len > (int)sizeof(buf) || ioctl(INHFD_FD, FIONREAD, &n) || n != len ||
	    read(INHFD_FD, buf, (size_t)len) != len || memcmp(buf, data, (size_t)len)) {
		fail("%s: %d bytes, '%.*s' (want '%.*s')", what, n, len, buf, len, data);
		return -1;
	}
	return 0;
}
