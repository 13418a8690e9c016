/* A FIFO with its ends in two processes: the test holds it read-only (O_NONBLOCK, fd 10), a child holds it
 * write-only (fd 11) and wrote 3000 bytes. After restore the data is there exactly once, new data from the
 * child comes through, and when the child closes its end the reader sees EOF: still one FIFO. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { RD = 10, WR = 11 };

int main(int argc, char **argv)
{
	static char data[3000], more[500], buf[4096];
	int ctl[2], fd, n;
	pid_t ch;

	test_init(argc, argv);
	datagen(data, sizeof(data), 5);
	datagen(more, sizeof(more), 6);
	if (mkfifo("rowo.fifo", 0600) || pipe(ctl))
		fail("setup: mkfifo");
	fd = open("rowo.fifo", O_RDONLY | O_NONBLOCK);
	if (fd < 0 || dup2(fd, RD) != RD)
		fail("setup: open read end");
	close(fd);
	ch = fork();
	if (ch == 0) {
		char c;
		test_forked();
		close(RD);
		close(ctl[1]);
		fd = open("rowo.fifo", O_WRONLY);
		if (fd < 0 || dup2(fd, WR) != WR || write(WR, data, sizeof(data)) != sizeof(data))
			_exit(1);
		close(fd);
		if (read(ctl[0], &c, 1) != 1) /* after restore: more, then close */
			_exit(2);
		_exit(write(WR, more, sizeof(more)) == sizeof(more) ? 0 : 3);
	}
	close(ctl[0]);
	for (int i = 0; i < 5000; i++) { /* the child wrote */
		int q = 0;
		if (ioctl(RD, FIONREAD, &q) == 0 && q == (int)sizeof(data))
			break;
		usleep(1000);
	}
	test_daemon();
	test_waitsig();

	n = read(RD, buf, sizeof(buf));
	if (n != (int)sizeof(data) || memcmp(buf, data, sizeof(data)))
		fail("read %d bytes, want the %zu written", n, sizeof(data));
	if (write(ctl[1], "g", 1) != 1)
		fail("write to the child");
	child_exit_ok(ch, NULL);
	n = read(RD, buf, sizeof(buf));
	if (n != (int)sizeof(more) || memcmp(buf, more, sizeof(more)))
		fail("after restore: read %d bytes, want %zu from the child", n, sizeof(more));
	n = read(RD, buf, sizeof(buf));
	if (n != 0)
		fail("no EOF when the child's write end is gone (read %d, errno %d)", n, errno);
	unlink("rowo.fifo");
	return test_pass();
}
