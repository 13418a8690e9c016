/* Deleted names of files that are still linked elsewhere (nlink > 0): fd A was opened as "a", which was then
 * hard-linked as "a.link" (also open as fd B) and unlinked; fd C was opened as "c", hard-linked as
 * "c.other" in the same directory (not open) and unlinked. After restore A is the same file as B (one
 * inode, a write through A is seen through B) and C is the file "c.other" (not a copy): offsets kept. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A = 33, B = 34, C = 35 };

int main(int argc, char **argv)
{
	struct stat a, b, c, o;
	char ch;
	test_init(argc, argv);
	open_at(A, "a", O_RDWR | O_CREAT, "open a");
	open_at(C, "c", O_RDWR | O_CREAT, "open c");
	if (write(A, "aaaa", 4) != 4 || write(C, "cccccc", 6) != 6 || link("a", "a.link") || unlink("a") ||
	    link("c", "c.other") || unlink("c") || lseek(C, 2, SEEK_SET) != 2)
		fail("setup");
	open_at(B, "a.link", O_RDONLY, "open a.link");
	test_daemon();
	test_waitsig();

	if (fstat(A, &a) || fstat(B, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		fail("fds %d and %d are not one file", A, B);
	if (fstat(C, &c) || stat("c.other", &o) || c.st_ino != o.st_ino || c.st_nlink != 1)
		fail("fd %d is not the file c.other", C);
	if (lseek(A, 0, SEEK_CUR) != 4 || lseek(C, 0, SEEK_CUR) != 2)
		fail("offsets");
	if (write(A, "Z", 1) != 1 || pread(B, &ch, 1, 4) != 1 || ch != 'Z')
		fail("a write through fd %d is not seen through fd %d", A, B);
	if (access("a", F_OK) == 0 || access("c", F_OK) == 0)
		fail("a deleted name came back");
	pass();
	return 0;
}
