/* An unlinked FIFO in flight (SCM_RIGHTS over a stream socketpair, fds 11 -> 12; issue 14): the test holds
 * it at fd 20 (O_RDWR) with 40 bytes in it; one message carries a second description of it (opened through
 * /proc/self/fd, then closed: held nowhere else) and fd 20's own description. After restore both come out of
 * the socket: the second is the same FIFO (inode of fd 20), still unlinked, the first fd 20's description
 * (kcmp); the 40 bytes are there once, and bytes written through either are read through fd 20. */
#include <linux/kcmp.h>
#include <sys/syscall.h>
#include "sk_unix.h"

#define NAME "scm_fifo_unl.fifo"
enum { A = 11, B = 12, HELD = 20, LEN = 40 };

static int same_file(int a, int b)
{
	return syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, a, b) == 0;
}

/* fd is a FIFO of no link, the inode of HELD */
static void check_fifo(int fd, const char *what)
{
	struct stat a, b;
	if (fstat(fd, &a) || fstat(HELD, &b) || !S_ISFIFO(a.st_mode) || a.st_nlink != 0 ||
	    a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		fail("%s: not the unlinked FIFO of fd %d (mode %o, %lu links)", what, HELD, a.st_mode,
		     (unsigned long)a.st_nlink);
}

/* len bytes written through w, read back through HELD */
static void carry(int w, const char *what)
{
	char buf[8] = "", c;
	if (write(w, "xyz", 3) != 3 || read(HELD, buf, sizeof(buf)) != 3 || memcmp(buf, "xyz", 3) ||
	    read(HELD, &c, 1) != -1)
		fail("%s does not carry data to fd %d", what, HELD);
}

int main(int argc, char **argv)
{
	char data[LEN], buf[LEN + 8];
	int fds[2];

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	if (mkfifo(NAME, 0640))
		fail("mkfifo " NAME);
	int h = open(NAME, O_RDWR | O_NONBLOCK);
	if (h < 0)
		fail("open " NAME);
	sk_place(h, HELD, 0);
	int second = open("/proc/self/fd/20", O_RDWR | O_NONBLOCK);
	if (second < 0 || write(HELD, memset(data, 'f', LEN), LEN) != LEN || unlink(NAME))
		fail("second open, write or unlink of " NAME);
	fds[0] = second, fds[1] = HELD;
	if (sk_send_fds(A, "fifo", 4, fds, 2))
		fail("sendmsg");
	close(second);
	test_daemon();
	test_waitsig();

	if (sk_recv_want(B, "fifo", 2, fds))
		return 1;
	check_fifo(fds[0], "the description in flight alone");
	check_fifo(fds[1], "fd 20's description in flight");
	if (!same_file(fds[1], HELD))
		fail("fd 20's description in flight is another description");
	if (read(fds[0], buf, sizeof(buf)) != LEN || memcmp(buf, data, LEN))
		fail("the %d bytes in the FIFO are not there", LEN);
	if (read(HELD, buf, 1) != -1)
		fail("more bytes in the FIFO than were written");
	carry(fds[0], "the description in flight alone");
	carry(fds[1], "fd 20's description in flight");
	if (!access(NAME, F_OK))
		fail(NAME " is back");
	return test_pass();
}
