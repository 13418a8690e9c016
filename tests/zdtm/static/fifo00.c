/* A FIFO opened by path three times (O_RDWR, O_RDONLY|O_NONBLOCK, O_WRONLY|O_CLOEXEC) with data in flight
 * and a changed pipe size: after restore all three fds are opens of the same FIFO (same inode as the path),
 * with their flags, the data reads back exactly and the three still share one pipe. */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN 2000
#define PATH "fifo00.fifo"
enum { RW, RO, WO, N };
static const int fdno[N] = {50, 51, 52};
static const int oflags[N] = {O_RDWR, O_RDONLY | O_NONBLOCK, O_WRONLY | O_CLOEXEC};

int main(int argc, char **argv)
{
	struct stat st0, st;
	char data[LEN], buf[LEN + 16];
	int fl[N], fdfl[N], i, n;

	test_init(argc, argv);
	datagen(data, LEN, 5);
	if (mkfifo(PATH, 0600) || stat(PATH, &st0))
		fail("mkfifo");
	for (i = 0; i < N; i++) {
		int fd = open(PATH, oflags[i]);
		if (fd < 0 || dup3(fd, fdno[i], oflags[i] & O_CLOEXEC) != fdno[i])
			fail("open %s", PATH);
		close(fd);
		fl[i] = fcntl(fdno[i], F_GETFL);
		fdfl[i] = fcntl(fdno[i], F_GETFD);
	}
	if (fcntl(fdno[RW], F_SETPIPE_SZ, 8192) != 8192 || write(fdno[WO], data, LEN) != LEN)
		fail("size/write");
	test_daemon();
	test_waitsig();

	for (i = 0; i < N; i++) {
		if (fstat(fdno[i], &st) || !S_ISFIFO(st.st_mode) || st.st_ino != st0.st_ino ||
		    st.st_dev != st0.st_dev)
			fail("fd %d is not an open of %s any more", fdno[i], PATH);
		if (fcntl(fdno[i], F_GETFL) != fl[i] || fcntl(fdno[i], F_GETFD) != fdfl[i])
			fail("fd %d: flags %#o/%d, want %#o/%d", fdno[i], fcntl(fdno[i], F_GETFL),
			     fcntl(fdno[i], F_GETFD), fl[i], fdfl[i]);
	}
	if (fcntl(fdno[RO], F_GETPIPE_SZ) != 8192)
		fail("pipe size %d, want 8192", fcntl(fdno[RO], F_GETPIPE_SZ));
	if (ioctl(fdno[RO], FIONREAD, &n) || n != LEN)
		fail("%d bytes in flight, want %d", n, LEN);
	n = read(fdno[RO], buf, sizeof(buf));
	if (n != LEN || memcmp(buf, data, LEN))
		fail("data in flight: read %d bytes, want %d", n, LEN);
	if (read(fdno[RO], buf, 1) != -1 || errno != EAGAIN)
		fail("the FIFO is not empty after the data");
	if (write(fdno[WO], "x1", 2) != 2 || read(fdno[RW], buf, 16) != 2 || memcmp(buf, "x1", 2))
		fail("write end -> O_RDWR open: not one pipe");
	if (write(fdno[RW], "y2", 2) != 2 || read(fdno[RO], buf, 16) != 2 || memcmp(buf, "y2", 2))
		fail("O_RDWR open -> read end: not one pipe");
	pass();
	return 0;
}
