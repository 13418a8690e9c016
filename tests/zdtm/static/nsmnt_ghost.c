/* Deleted files on a tmpfs of the tree's own mount tree: one whose directory was removed too, and one that a
 * parent and its child each opened before it was unlinked. After restore they are on that tmpfs again (same
 * device as its mount point), unlinked, with their data, the removed directory is not made again, and the
 * parent and the child still hold one inode (the child's write is seen by the parent). */
#include <sys/wait.h>
#include "nsmnt.h"

#define GFD 7 /* /nsmnt_gh/dir/file */
#define SFD 8 /* /nsmnt_gh/both, opened by each */

int main(int argc, char **argv)
{
	int pfd[2];
	char buf[32] = "";
	struct stat mp, st;
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_gh", "tmpfs", 0, NULL);
	write_file_p("/nsmnt_gh/dir/file", "ghost-data");
	write_file("/nsmnt_gh/both", "parent");
	open_at(GFD, "/nsmnt_gh/dir/file", O_RDWR, "open /nsmnt_gh/dir/file");
	if (pipe(pfd))
		fail("pipe");
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		open_at(SFD, "/nsmnt_gh/both", O_RDWR, "child: open /nsmnt_gh/both");
		if (child_ready(pfd))
			_exit(9);
		usr1_wait();
		_exit(pwrite(SFD, "child!", 6, 0) == 6 ? 0 : 1);
	}
	if (ch < 0 || child_started(pfd))
		fail("child not ready");
	open_at(SFD, "/nsmnt_gh/both", O_RDWR, "open /nsmnt_gh/both");
	if (unlink("/nsmnt_gh/dir/file") || rmdir("/nsmnt_gh/dir") || unlink("/nsmnt_gh/both"))
		fail("unlink");
	test_daemon();
	test_waitsig();

	CHECK(!stat("/nsmnt_gh", &mp) && !fstat(GFD, &st) && st.st_dev == mp.st_dev,
	      "the deleted file is not on the tree's tmpfs any more");
	CHECK(!fstat(GFD, &st) && st.st_nlink == 0, "the deleted file has %lu links",
	      (unsigned long)st.st_nlink);
	CHECK(pread(GFD, buf, 10, 0) == 10 && !memcmp(buf, "ghost-data", 10), "deleted file reads '%.10s'",
	      buf);
	CHECK(access("/nsmnt_gh/dir", F_OK) && errno == ENOENT, "the removed directory is there again");
	CHECK(!fstat(SFD, &st) && st.st_dev == mp.st_dev, "the shared deleted file is not on the tmpfs");
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: write");
	CHECK(pread(SFD, buf, 6, 0) == 6 && !memcmp(buf, "child!", 6),
	      "the child's write is not seen by the parent ('%.6s'): two files", buf);
	return test_pass();
}
