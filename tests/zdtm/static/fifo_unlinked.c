/* An unlinked FIFO, open twice (O_RDWR and O_RDONLY|O_NONBLOCK), mode 0640, with data in flight: after
 * restore both fds are one FIFO again, still unlinked (nlink 0, "(deleted)" link, the path is free), with
 * the mode and the data, and it still carries data. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN 1500
#define NAME "fifo_unlinked.fifo"
enum { RW = 70, RO = 71 };

int main(int argc, char **argv)
{
	char data[LEN], buf[LEN + 16], want[4200], cwd[4000];
	struct stat a;
	int n;

	test_init(argc, argv);
	datagen(data, LEN, 21);
	if (!getcwd(cwd, sizeof(cwd)) || mkfifo(NAME, 0600) || chmod(NAME, 0640))
		fail("mkfifo");
	open_at(RW, NAME, O_RDWR, "open rw");
	open_at(RO, NAME, O_RDONLY | O_NONBLOCK, "open ro");
	if (write(RW, data, LEN) != LEN || unlink(NAME))
		fail("write/unlink");
	snprintf(want, sizeof(want), "%s/%s (deleted)", cwd, NAME);
	test_daemon();
	test_waitsig();

	unlinked_check(RW, RO, S_IFIFO, NAME, want, &a, "FIFO");
	if ((a.st_mode & 07777) != 0640)
		fail("mode %o, want 640", a.st_mode & 07777);
	if ((fcntl(RW, F_GETFL) & O_ACCMODE) != O_RDWR ||
	    (fcntl(RO, F_GETFL) & (O_ACCMODE | O_NONBLOCK)) != (O_RDONLY | O_NONBLOCK))
		fail("flags %#o %#o", fcntl(RW, F_GETFL), fcntl(RO, F_GETFL));
	if (ioctl(RO, FIONREAD, &n) || n != LEN)
		fail("%d bytes in flight, want %d", n, LEN);
	n = read(RO, buf, sizeof(buf));
	if (n != LEN || memcmp(buf, data, LEN))
		fail("data in flight: read %d bytes, want %d", n, LEN);
	if (write(RW, "z", 1) != 1 || read(RO, buf, 4) != 1 || buf[0] != 'z')
		fail("the FIFO does not carry data any more");
	pass();
	return 0;
}
