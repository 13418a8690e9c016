/* A FIFO on a tmpfs of the tree's own mount tree (/nsmnt_fifo/dir/p: no such path where crshim runs), held
 * open read-write with data in it. The restore's check of a FIFO looked its path up where crshim runs, so
 * both the restore and its check refused it ("FIFO /nsmnt_fifo/dir/p: No such file or directory"), and the
 * dump's check, once it ran for such trees, too. After restore: fd 40 is an open of the FIFO at that path
 * again (the same inode as the path, on the tmpfs), its flags kept and the data reads back. */
#include "nsmnt.h"

#define FFD 40
#define DATA "fifo-in-the-tree"

int main(int argc, char **argv)
{
	struct stat mp, st, pst;
	char buf[64] = "";
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_fifo", "tmpfs", 0, NULL);
	mkdirs("/nsmnt_fifo/dir");
	if (mkfifo("/nsmnt_fifo/dir/p", 0600))
		fail("mkfifo");
	open_at(FFD, "/nsmnt_fifo/dir/p", O_RDWR | O_NONBLOCK, "open /nsmnt_fifo/dir/p");
	if (write(FFD, DATA, strlen(DATA)) != (ssize_t)strlen(DATA))
		fail("write the FIFO");
	int fl = fcntl(FFD, F_GETFL);
	test_daemon();
	test_waitsig();

	CHECK(!stat("/nsmnt_fifo", &mp) && !stat("/nsmnt_fifo/dir/p", &pst) && S_ISFIFO(pst.st_mode),
	      "/nsmnt_fifo/dir/p is not a FIFO on the tmpfs");
	CHECK(!fstat(FFD, &st) && S_ISFIFO(st.st_mode) && st.st_ino == pst.st_ino && st.st_dev == mp.st_dev,
	      "fd %d is not an open of /nsmnt_fifo/dir/p", FFD);
	CHECK(fcntl(FFD, F_GETFL) == fl, "fd %d: flags %#o, want %#o", FFD, fcntl(FFD, F_GETFL), fl);
	CHECK(read(FFD, buf, sizeof(buf) - 1) == (ssize_t)strlen(DATA) && !strcmp(buf, DATA),
	      "the FIFO reads '%s', want '%s'", buf, DATA);
	return test_pass();
}
