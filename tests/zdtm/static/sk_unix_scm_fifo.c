/* A FIFO (linked, scm_fifo.fifo in the test's dir) with 40 bytes in it whose only open file description is
 * in flight (SCM_RIGHTS over a stream socketpair, fds 11 -> 12; issue 14): after restore it comes out of the
 * socket as that FIFO (the inode at its path) with the 40 bytes once, and carries data. */
#include "sk_unix.h"

#define NAME "scm_fifo.fifo"
enum { A = 11, B = 12, LEN = 40 };

int main(int argc, char **argv)
{
	char data[LEN], buf[LEN + 8];
	struct stat a, p;
	int fds[1];

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	int f = mkfifo(NAME, 0640) ? -1 : open(NAME, O_RDWR | O_NONBLOCK);
	if (f < 0 || write(f, memset(data, 'f', LEN), LEN) != LEN)
		fail("make " NAME " with its data");
	fds[0] = f;
	if (sk_send_fds(A, "fifo", 4, fds, 1))
		fail("sendmsg");
	close(f);
	test_daemon();
	test_waitsig();

	if (sk_recv_want(B, "fifo", 1, fds))
		return 1;
	if (fstat(fds[0], &a) || stat(NAME, &p) || !S_ISFIFO(a.st_mode) || a.st_ino != p.st_ino ||
	    a.st_dev != p.st_dev)
		fail("the description in flight is not the FIFO at " NAME);
	if (read(fds[0], buf, sizeof(buf)) != LEN || memcmp(buf, data, LEN))
		fail("the %d bytes in the FIFO are not there once", LEN);
	if (write(fds[0], "xyz", 3) != 3 || read(fds[0], buf, sizeof(buf)) != 3 || memcmp(buf, "xyz", 3))
		fail("the FIFO does not carry data");
	return test_pass();
}
