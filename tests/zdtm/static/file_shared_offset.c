/* One open file description of a regular file held by a parent and its child (inherited through fork; the
 * child also has a dup of it at another number), next to a file each of them opened on its own. The child
 * moved the shared offset before the dump. After restore kcmp says the description is still one, the offset
 * is where the child left it, and writes of both processes go one after the other through it; the files
 * each opened on its own keep their own offsets. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include "zdtmtst.h"

#define SHFD 7
#define DUPFD 12
#define OWNFD 9

static int own_file(const char *name, off_t at)
{
	int fd = open(name, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || dup2(fd, OWNFD) != OWNFD || lseek(OWNFD, at, SEEK_SET) != at)
		return -1;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[256];
	int pfd[2];
	test_init(argc, argv);
	int fd = open("shared.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, SHFD) != SHFD || pipe(pfd)) {
		fail("open");
		return 1;
	}
	close(fd);
	memset(buf, 'x', 100);
	if (write(SHFD, buf, 100) != 100) {
		fail("write");
		return 1;
	}
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		if (dup2(SHFD, DUPFD) != DUPFD || lseek(SHFD, 50, SEEK_SET) != 50 ||
		    own_file("child.data", 11))
			_exit(9);
		if (child_ready(pfd))
			_exit(9);
		usr1_wait();
		int bad = 0;
		if (lseek(SHFD, 0, SEEK_CUR) != 54) /* the parent wrote 4 bytes at 50 */
			bad |= 1;
		if (write(DUPFD, "CCCC", 4) != 4)
			bad |= 2;
		if (lseek(OWNFD, 0, SEEK_CUR) != 11)
			bad |= 4;
		_exit(bad);
	}
	if (ch < 0 || child_started(pfd) || own_file("parent.data", 22)) {
		fail("child not ready");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, SHFD, SHFD) != 0)
		fail("the parent's fd %d and the child's are not one description any more", SHFD);
	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, SHFD, DUPFD) != 0)
		fail("the child's dup is not the parent's description");
	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, OWNFD, OWNFD) == 0)
		fail("the files each opened on its own became one description");
	off_t off = lseek(SHFD, 0, SEEK_CUR);
	if (off != 50)
		fail("shared offset %lld, want 50 (where the child moved it)", (long long)off);
	if (write(SHFD, "PPPP", 4) != 4)
		fail("write");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: offset not shared, 2: write, 4: own offset");
	if (lseek(SHFD, 0, SEEK_CUR) != 58)
		fail("shared offset %lld after the child's write, want 58",
		     (long long)lseek(SHFD, 0, SEEK_CUR));
	if (pread(SHFD, buf, 8, 50) != 8 || memcmp(buf, "PPPPCCCC", 8))
		fail("file contents at 50: '%.8s', want PPPPCCCC", buf);
	if (lseek(OWNFD, 0, SEEK_CUR) != 22)
		fail("the parent's own offset %lld, want 22", (long long)lseek(OWNFD, 0, SEEK_CUR));
	return test_pass();
}
