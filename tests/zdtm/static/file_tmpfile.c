/* A file made with O_TMPFILE (no name, nlink 0) keeps its data, offset, flags, mode and (as root: chowned to
 * 1234:5678) owner after restore. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN 20000

int main(int argc, char **argv)
{
	static char buf[LEN], chk[LEN];
	struct stat st;
	test_init(argc, argv);
	int fd = open(".", O_TMPFILE | O_RDWR, 0600);
	if (fd < 0)
		test_skip("O_TMPFILE not supported here");
	datagen(buf, LEN, 31);
	if (write(fd, buf, LEN) != LEN || lseek(fd, 1000, SEEK_SET) != 1000)
		fail("write");
	int fl0 = fcntl(fd, F_GETFL);
	struct stat st0;
	if (fchmod(fd, 0751) || (!getuid() && fchown(fd, 1234, 5678)) || fstat(fd, &st0))
		fail("chmod / chown");
	test_daemon();
	test_waitsig();
	if (fstat(fd, &st) || st.st_nlink != 0 || st.st_size != LEN)
		fail("after restore: nlink %lu size %lld, want 0 %d", (unsigned long)st.st_nlink,
		     (long long)st.st_size, LEN);
	if (st.st_mode != st0.st_mode || st.st_uid != st0.st_uid || st.st_gid != st0.st_gid)
		fail("mode %o owner %d:%d, want %o %d:%d", st.st_mode, (int)st.st_uid, (int)st.st_gid,
		     st0.st_mode, (int)st0.st_uid, (int)st0.st_gid);
	if (lseek(fd, 0, SEEK_CUR) != 1000)
		fail("offset %lld", (long long)lseek(fd, 0, SEEK_CUR));
	if (fcntl(fd, F_GETFL) != fl0)
		fail("flags %#x, want %#x", fcntl(fd, F_GETFL), fl0);
	if (pread(fd, chk, LEN, 0) != LEN || memcmp(buf, chk, LEN))
		fail("contents");
	if (write(fd, "x", 1) != 1)
		fail("write after restore");
	return test_pass();
}
