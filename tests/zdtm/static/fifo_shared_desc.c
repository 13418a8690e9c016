/* One open file description of a FIFO (opened O_RDWR by the test, fd 50) held by the test and a forked
 * child, with 100 bytes in it. After restore the two fds are still one description (kcmp KCMP_FILE), so a
 * status flag set by one is seen by the other (O_NONBLOCK set by the test, seen by the child), and the data
 * is there once. FIFO_UNLINK 1 (fifo_shared_unl): the FIFO is unlinked once open. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef KCMP_FILE
#define KCMP_FILE 0
#endif

#ifndef FIFO_UNLINK
#define FIFO_UNLINK 0
#endif

enum { F = 50 };

int main(int argc, char **argv)
{
	char buf[256];
	int p[2];
	test_init(argc, argv);
	if (mkfifo("f.fifo", 0600) || pipe(p))
		fail("setup");
	int fd = open("f.fifo", O_RDWR);
	if (fd < 0 || (FIFO_UNLINK && unlink("f.fifo")) || dup2(fd, F) != F || close(fd) ||
	    write(F, memset(buf, 'q', 100), 100) != 100)
		fail("open f.fifo at fd %d", F);
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) { /* after the test set O_NONBLOCK: 1 it is not seen here */
		usr1_wait();
		_exit(!(fcntl(F, F_GETFL) & O_NONBLOCK));
	}
	test_daemon();
	test_waitsig();

	if (syscall(SYS_kcmp, getpid(), ch, KCMP_FILE, F, F) != 0)
		fail("the test's fd %d and the child's are not one open file description", F);
	if (fcntl(F, F_SETFL, fcntl(F, F_GETFL) | O_NONBLOCK))
		fail("O_NONBLOCK");
	ssize_t n = read(F, buf, sizeof(buf));
	if (n != 100 || read(F, buf, sizeof(buf)) != -1 || errno != EAGAIN)
		fail("the data: %zd bytes, want 100 once", n);
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: the child does not see the test's O_NONBLOCK");
	return test_pass();
}
