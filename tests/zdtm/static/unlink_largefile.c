/* An unlinked file with 2 MiB of data (above the default --ghost-limit of 1 MiB) on fd 7: the dump must fail
 * with one line naming the fd, the deleted file and the limit, and the task keeps running unchanged.
 * Checked by tests/zdtm/unlink_largefile.sh (C/R modes skip it). The file is also still readable. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NAME "unlink_largefile.file"
#define LEN (2 << 20)
enum { FD = 7 };

int main(int argc, char **argv)
{
	char *data = malloc(LEN), *buf = malloc(LEN);
	int fd;

	test_init(argc, argv);
	if (!data || !buf)
		fail("malloc");
	datagen(data, LEN, 41);
	fd = open(NAME, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || dup2(fd, FD) != FD)
		fail("open");
	close(fd);
	if (write(FD, data, LEN) != LEN || unlink(NAME))
		fail("write/unlink");
	test_daemon();
	test_waitsig();
	if (pread(FD, buf, LEN, 0) != LEN || memcmp(buf, data, LEN))
		fail("data differs");
	if (lseek(FD, 0, SEEK_CUR) != LEN)
		fail("offset %lld", (long long)lseek(FD, 0, SEEK_CUR));
	pass();
	return 0;
}
