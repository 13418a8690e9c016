/* A deleted name of a file still linked in the same directory, on a tmpfs of the tree's own mount tree (a
 * path the dumper cannot see from its own root): fd 7 was opened as /nsmnt_ul/f, which was hard-linked as
 * /nsmnt_ul/f.link and unlinked. After restore fd 7 is the file f.link (one inode, not a ghost copy), with
 * its offset, and a write through it is seen through f.link. */
#include "nsmnt.h"

#define FD 7

int main(int argc, char **argv)
{
	struct stat a, b;
	char ch;
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_ul", "tmpfs", 0, NULL);
	open_at(FD, "/nsmnt_ul/f", O_RDWR | O_CREAT, "open /nsmnt_ul/f");
	if (link("/nsmnt_ul/f", "/nsmnt_ul/f.link") || unlink("/nsmnt_ul/f") || write(FD, "ffff", 4) != 4)
		fail("setup");
	test_daemon();
	test_waitsig();

	if (fstat(FD, &a) || stat("/nsmnt_ul/f.link", &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		fail("fd %d is not the file f.link any more (a copy?)", FD);
	if (lseek(FD, 0, SEEK_CUR) != 4)
		fail("offset");
	int l = open("/nsmnt_ul/f.link", O_RDONLY);
	if (write(FD, "Z", 1) != 1 || l < 0 || pread(l, &ch, 1, 4) != 1 || ch != 'Z')
		fail("a write through fd %d is not seen through f.link", FD);
	if (access("/nsmnt_ul/f", F_OK) == 0)
		fail("the deleted name came back");
	return test_pass();
}
