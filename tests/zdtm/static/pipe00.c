/* A pipe with both ends in the task and data in flight (plus an empty O_CLOEXEC|O_NONBLOCK pipe):
 * after restore the data reads back exactly, both fds are still the two ends of one pipe (same inode),
 * flags and fd flags are kept, and the pipe still carries data written after the restore. */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN 3000
enum { R = 10, W = 11, ER = 12, EW = 13 };

static void place(int fd, int want, int cloexec)
{
	if (dup3(fd, want, cloexec ? O_CLOEXEC : 0) != want)
		fail("dup3 %d", want);
	close(fd);
}

static void check_pair(int r, int w, const char *what)
{
	struct stat sr, sw;
	if (fstat(r, &sr) || fstat(w, &sw) || !S_ISFIFO(sr.st_mode) || sr.st_ino != sw.st_ino)
		fail("%s: fds %d and %d are not the ends of one pipe", what, r, w);
	if ((fcntl(r, F_GETFL) & O_ACCMODE) != O_RDONLY || (fcntl(w, F_GETFL) & O_ACCMODE) != O_WRONLY)
		fail("%s: wrong ends (flags %#o %#o)", what, fcntl(r, F_GETFL), fcntl(w, F_GETFL));
}

int main(int argc, char **argv)
{
	char data[LEN], buf[LEN + 16];
	int p[2], fl[4], fdfl[4], fds[4] = {R, W, ER, EW}, n, i;

	test_init(argc, argv);
	datagen(data, LEN, 42);
	if (pipe(p))
		fail("pipe");
	place(p[0], R, 0);
	place(p[1], W, 1);
	if (pipe2(p, O_NONBLOCK))
		fail("pipe2");
	place(p[0], ER, 1);
	place(p[1], EW, 0);
	/* in several writes: the kernel merges them into its buffers */
	for (i = 0; i < LEN; i += 1000)
		if (write(W, data + i, 1000) != 1000)
			fail("write");
	for (i = 0; i < 4; i++) {
		fl[i] = fcntl(fds[i], F_GETFL);
		fdfl[i] = fcntl(fds[i], F_GETFD);
	}
	test_daemon();
	test_waitsig();

	check_pair(R, W, "data pipe");
	check_pair(ER, EW, "empty pipe");
	for (i = 0; i < 4; i++)
		if (fcntl(fds[i], F_GETFL) != fl[i] || fcntl(fds[i], F_GETFD) != fdfl[i])
			fail("fd %d: flags %#o/%d, want %#o/%d", fds[i], fcntl(fds[i], F_GETFL),
			     fcntl(fds[i], F_GETFD), fl[i], fdfl[i]);
	if (ioctl(R, FIONREAD, &n) || n != LEN)
		fail("%d bytes in flight, want %d", n, LEN);
	n = read(R, buf, sizeof(buf));
	if (n != LEN || memcmp(buf, data, LEN))
		fail("data in flight: read %d bytes, want %d, %s", n, LEN, n == LEN ? "different" : "");
	if (read(ER, buf, 1) != -1 || errno != EAGAIN)
		fail("the empty non-blocking pipe is not empty or blocks");
	if (write(W, "ping", 4) != 4 || read(R, buf, 16) != 4 || memcmp(buf, "ping", 4))
		fail("the data pipe does not carry data any more");
	if (write(EW, "pong", 4) != 4 || read(ER, buf, 16) != 4 || memcmp(buf, "pong", 4))
		fail("the empty pipe does not carry data any more");
	pass();
	return 0;
}
