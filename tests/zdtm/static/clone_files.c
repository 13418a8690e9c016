/* A child created with clone(CLONE_FILES) shares its parent's fd table (files, a pipe, a dup with
 * FD_CLOEXEC). After restore kcmp says the table is still one, every fd is where it was with its offset and
 * fd flags, and it is still shared: an fd the child opens (and one it closes) is seen by the parent. */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	int pfd[2], rp[2];
	test_init(argc, argv);
	int fd = open("files.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 10) != 10 || write(10, "0123456789", 10) != 10 ||
	    lseek(10, 3, SEEK_SET) != 3 || pipe(pfd) || dup2(pfd[0], 20) != 20 || dup2(pfd[1], 21) != 21 ||
	    fcntl(10, F_DUPFD_CLOEXEC, 30) != 30 || pipe(rp)) {
		fail("setup");
		return 1;
	}
	close(fd);
	close(pfd[0]);
	close(pfd[1]);
	if (write(21, "in-flight", 9) != 9) {
		fail("write");
		return 1;
	}
	usr1_block();
	pid_t ch = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (ch == 0) { /* no test_forked(): it would close the parent's ready pipe, the table is one */
		if (write(rp[1], "r", 1) != 1)
			_exit(9);
		usr1_wait();
		int bad = lseek(10, 0, SEEK_CUR) != 3;
		int nfd = open("files.data", O_RDONLY);
		if (nfd < 0 || dup2(nfd, 40) != 40)
			bad |= 2;
		close(nfd);
		close(30);
		_exit(bad);
	}
	char c;
	if (ch < 0 || read(rp[0], &c, 1) != 1) {
		fail("clone");
		return 1;
	}
	close(rp[0]);
	close(rp[1]);
	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILES, 0, 0) != 0)
		fail("the child does not share the parent's fd table any more");
	if (lseek(10, 0, SEEK_CUR) != 3)
		fail("fd 10: offset %lld, want 3", (long long)lseek(10, 0, SEEK_CUR));
	if (fcntl(30, F_GETFD) != FD_CLOEXEC || fcntl(10, F_GETFD) != 0)
		fail("fd flags: 30 %d, 10 %d", fcntl(30, F_GETFD), fcntl(10, F_GETFD));
	char buf[16] = "";
	if (read(20, buf, sizeof(buf)) != 9 || memcmp(buf, "in-flight", 9))
		fail("pipe data '%s'", buf);
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: offset, 2: open");
	if (fcntl(40, F_GETFD) < 0)
		fail("the fd the child opened is not in the parent's table");
	if (fcntl(30, F_GETFD) >= 0)
		fail("the fd the child closed is still in the parent's table");
	return test_pass();
}
