/* An unlinked FIFO opened twice (two open file descriptions: the second through /proc/self/fd) and held by
 * the test and a forked child, each with a description of its own: after restore it is still one FIFO,
 * 40 bytes in flight once, and bytes the child writes through its description are read by the test
 * through its own (the same inode: fstat of both). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A = 50, B = 51 };

int main(int argc, char **argv)
{
	char buf[128], p[64];
	test_init(argc, argv);
	if (mkfifo("u.fifo", 0600))
		fail("mkfifo");
	int fd = open("u.fifo", O_RDWR | O_NONBLOCK);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", A);
	if (fd < 0 || dup2(fd, A) != A || close(fd) || (fd = open(p, O_RDWR | O_NONBLOCK)) < 0 ||
	    dup2(fd, B) != B || close(fd) || unlink("u.fifo") || write(A, memset(buf, 'w', 40), 40) != 40)
		fail("open u.fifo twice at fds %d, %d", A, B);
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) { /* the child keeps only B, the test only A */
		close(A);
		usr1_wait();
		_exit(write(B, "child", 5) != 5);
	}
	close(B);
	test_daemon();
	test_waitsig();

	struct stat sa;
	char cp[64];
	snprintf(cp, sizeof(cp), "/proc/%d/fd/%d", (int)ch, B);
	struct stat sb;
	if (fstat(A, &sa) || stat(cp, &sb))
		fail("fstat");
	else if (sa.st_ino != sb.st_ino || sa.st_dev != sb.st_dev || sa.st_nlink)
		fail("the test's fd %d (ino %lu) and the child's fd %d (ino %lu) are not one unlinked FIFO",
		     A, (unsigned long)sa.st_ino, B, (unsigned long)sb.st_ino);
	ssize_t n = read(A, buf, sizeof(buf));
	if (n != 40)
		fail("the data in flight: %zd bytes, want 40", n);
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "the child's write");
	n = read(A, buf, sizeof(buf));
	if (n != 5 || memcmp(buf, "child", 5))
		fail("the child's 5 bytes through its own description: read %zd", n);
	return test_pass();
}
