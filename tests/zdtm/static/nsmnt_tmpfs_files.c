/* tmpfs contents: files, dirs, symlinks, hard links, a fifo, device nodes, modes, owners, times, holes. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_tf", "tmpfs", 0, "mode=711,uid=0");
	write_file_p("/nsmnt_tf/dir/file", "contents");
	if (chown("/nsmnt_tf/dir/file", 1234, 5678) || chmod("/nsmnt_tf/dir/file", 04751))
		fail("chmod/chown");
	if (symlink("dir/file", "/nsmnt_tf/link") || link("/nsmnt_tf/dir/file", "/nsmnt_tf/hard"))
		fail("links");
	if (mkfifo("/nsmnt_tf/fifo", 0640) || mknod("/nsmnt_tf/null", S_IFCHR | 0600, makedev(1, 3)))
		fail("mknod");
	int fd = open("/nsmnt_tf/sparse", O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || pwrite(fd, "head", 4, 0) != 4 || pwrite(fd, "tail", 4, 64 << 20) != 4 || close(fd))
		fail("sparse");
	struct timespec ts[2] = {{.tv_sec = 1000000000, .tv_nsec = 123},
				 {.tv_sec = 1200000000, .tv_nsec = 456789}};
	if (utimensat(AT_FDCWD, "/nsmnt_tf/dir/file", ts, 0) || utimensat(AT_FDCWD, "/nsmnt_tf/dir", ts, 0))
		fail("utimensat");
	test_daemon();
	test_waitsig();

	struct stat st, h;
	char buf[64];
	ssize_t n;
	CHECK(!stat("/nsmnt_tf", &st) && (st.st_mode & 07777) == 0711, "root mode %o", st.st_mode & 07777);
	CHECK(!lstat("/nsmnt_tf/dir/file", &st) && (st.st_mode & 07777) == 04751 && st.st_uid == 1234 &&
		  st.st_gid == 5678,
	      "file mode %o owner %d:%d", st.st_mode & 07777, st.st_uid, st.st_gid);
	CHECK(st.st_mtim.tv_sec == 1200000000 && st.st_mtim.tv_nsec == 456789 &&
		  st.st_atim.tv_sec == 1000000000,
	      "file times %ld.%ld", (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	CHECK(!stat("/nsmnt_tf/dir", &st) && st.st_mtim.tv_sec == 1200000000, "dir mtime %ld",
	      (long)st.st_mtim.tv_sec);
	CHECK(file_is("/nsmnt_tf/dir/file", "contents"), "file contents");
	n = readlink("/nsmnt_tf/link", buf, sizeof(buf) - 1);
	CHECK(n == 8 && !memcmp(buf, "dir/file", 8), "symlink");
	CHECK(!stat("/nsmnt_tf/hard", &h) && !stat("/nsmnt_tf/dir/file", &st) && h.st_ino == st.st_ino &&
		  st.st_nlink == 2,
	      "hard link lost (nlink %lu)", (unsigned long)st.st_nlink);
	CHECK(!lstat("/nsmnt_tf/fifo", &st) && S_ISFIFO(st.st_mode) && (st.st_mode & 0777) == 0640, "fifo");
	CHECK(!lstat("/nsmnt_tf/null", &st) && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3),
	      "device node");
	CHECK(!stat("/nsmnt_tf/sparse", &st) && st.st_size == (64 << 20) + 4 && st.st_blocks < 1024,
	      "sparse file: size %ld, %ld blocks", (long)st.st_size, (long)st.st_blocks);
	int rfd = open("/nsmnt_tf/sparse", O_RDONLY);
	CHECK(rfd >= 0 && pread(rfd, buf, 4, 64 << 20) == 4 && !memcmp(buf, "tail", 4), "sparse file tail");
	if (rfd >= 0)
		close(rfd);
	pass();
	return 0;
}
