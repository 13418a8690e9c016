/* O_APPEND opens: a write-only one and a read-write one whose offset was moved back to the middle, on the
 * same file (two descriptions), and a dup of the first. After restore the flags and offsets are the same,
 * and writes through either land at the end of the file (not at the offset), one after the other. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { W = 70, RW = 71, WD = 72 };

int main(int argc, char **argv)
{
	char buf[64];
	struct stat st;
	test_init(argc, argv);
	open_at(W, "append.file", O_WRONLY | O_CREAT | O_APPEND, "open w");
	if (dup2(W, WD) != WD)
		fail("open w");
	open_at(RW, "append.file", O_RDWR | O_APPEND, "open rw");
	if (write(W, "0123456789", 10) != 10 || write(RW, "abcdef", 6) != 6 || lseek(RW, 3, SEEK_SET) != 3)
		fail("fill");
	test_daemon();
	test_waitsig();

	if ((fcntl(W, F_GETFL) & (O_ACCMODE | O_APPEND)) != (O_WRONLY | O_APPEND) ||
	    (fcntl(RW, F_GETFL) & (O_ACCMODE | O_APPEND)) != (O_RDWR | O_APPEND))
		fail("flags %#o %#o", fcntl(W, F_GETFL), fcntl(RW, F_GETFL));
	if (lseek(W, 0, SEEK_CUR) != 10 || lseek(RW, 0, SEEK_CUR) != 3)
		fail("offsets %lld %lld", (long long)lseek(W, 0, SEEK_CUR),
		     (long long)lseek(RW, 0, SEEK_CUR));
	if (write(RW, "XY", 2) != 2 || write(WD, "Z", 1) != 1)
		fail("write");
	if (fstat(RW, &st) || st.st_size != 19 || pread(RW, buf, 19, 0) != 19 ||
	    memcmp(buf, "0123456789abcdefXYZ", 19))
		fail("contents after appends (size %lld)", (long long)st.st_size);
	if (lseek(W, 0, SEEK_CUR) != 19 || lseek(RW, 0, SEEK_CUR) != 18)
		fail("offsets after appends %lld %lld", (long long)lseek(W, 0, SEEK_CUR),
		     (long long)lseek(RW, 0, SEEK_CUR));
	pass();
	return 0;
}
