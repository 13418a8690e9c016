/* nsmnt_child_fifo_unl with two children, each in a mount namespace of its own, each holding a description
 * of its own of the unlinked FIFO (fds 51, 52), the test none: the openers of the descriptions are only
 * processes of nested mount namespaces, siblings (which of them comes first is not known). After restore
 * both children hold one FIFO (the same inode, no link), the 40 bytes in flight are there once, and what
 * each child writes through its description the test reads through a new open of the other's. */
#include "nsmnt_fifo_unl.h"

static int setup_b(void)
{
	return fifo_reopen(A, B) || close(A);
}

static int setup_c(void)
{
	return fifo_reopen(A, C) || close(A);
}

static int check_b(void)
{
	return fifo_check_kid(B);
}

static int check_c(void)
{
	return fifo_check_kid(C);
}

/* The child's 5 bytes, read through fd */
static void read_kid(int fd, const char *who)
{
	char buf[16];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n != 5 || memcmp(buf, "child", 5))
		fail("%s's 5 bytes through the other's description: read %zd", who, n);
}

int main(int argc, char **argv)
{
	char buf[128];
	test_init(argc, argv);
	fifo_unl_make(A);
	usr1_block();
	pid_t b = nsmnt_child(setup_b, check_b), c = nsmnt_child(setup_c, check_c);
	close(A);
	fifo_unl_unlink();
	test_daemon();
	test_waitsig();

	struct stat sb;
	fifo_kid_open(b, B, A);
	fifo_kid_open(c, C, B);
	if (fstat(A, &sb) || sb.st_nlink || !S_ISFIFO(sb.st_mode))
		fail("the first child's fd %d is not an unlinked FIFO", B);
	else if (!fifo_kid_is(c, C, &sb))
		fail("the children's fds %d and %d are not one FIFO", B, C);
	ssize_t n = read(A, buf, sizeof(buf));
	if (n != FIFO_INFLIGHT)
		fail("the data in flight: %zd bytes, want %d", n, FIFO_INFLIGHT);
	if (read(B, buf, sizeof(buf)) >= 0 || errno != EAGAIN)
		fail("the data in flight is there twice");
	kill(b, SIGUSR1);
	child_exit_ok(b, "1: its fd not an unlinked FIFO, 2: its write");
	read_kid(B, "the first child");
	kill(c, SIGUSR1);
	child_exit_ok(c, "1: its fd not an unlinked FIFO, 2: its write");
	read_kid(A, "the second child");
	return test_pass();
}
