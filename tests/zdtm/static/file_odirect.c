/* An O_DIRECT open (read-write, offset at 8 KiB) of a file in the test dir: after restore O_DIRECT is still
 * set, the offset kept, and aligned direct reads and writes work. Skipped where the filesystem of the test
 * dir refuses O_DIRECT (tmpfs). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { D = 80 };
#define BS 4096

int main(int argc, char **argv)
{
	void *buf = NULL, *data = NULL;
	test_init(argc, argv);
	int fd = open("odirect.file", O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0 && errno == EINVAL)
		test_skip("the filesystem of the test dir has no O_DIRECT");
	if (fd < 0 || dup2(fd, D) != D || posix_memalign(&buf, BS, 4 * BS) ||
	    posix_memalign(&data, BS, 4 * BS))
		fail("setup");
	close(fd);
	datagen(data, 4 * BS, 61);
	if (pwrite(D, data, 4 * BS, 0) != 4 * BS || lseek(D, 2 * BS, SEEK_SET) != 2 * BS)
		fail("write");
	test_daemon();
	test_waitsig();

	if (!(fcntl(D, F_GETFL) & O_DIRECT) || (fcntl(D, F_GETFL) & O_ACCMODE) != O_RDWR)
		fail("flags %#o", fcntl(D, F_GETFL));
	if (lseek(D, 0, SEEK_CUR) != 2 * BS)
		fail("offset %lld", (long long)lseek(D, 0, SEEK_CUR));
	if (read(D, buf, BS) != BS || memcmp(buf, (char *)data + 2 * BS, BS))
		fail("direct read");
	if (pread(D, (char *)buf + 1, BS, 0) != -1 || errno != EINVAL)
		fail("an unaligned read works: not O_DIRECT");
	if (pwrite(D, data, BS, 3 * BS) != BS || pread(D, buf, BS, 3 * BS) != BS || memcmp(buf, data, BS))
		fail("direct write");
	pass();
	return 0;
}
