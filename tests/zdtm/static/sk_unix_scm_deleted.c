/* A deleted file in flight (SCM_RIGHTS) over a stream socketpair (fds 11 -> 12), held nowhere else, next to
 * a deleted file the task still holds (fd 20) that is in flight too. After restore both are received with
 * their data and offsets, still unlinked; the one the task holds is the same inode as fd 20. In mode ns the
 * deleted files are on the tree's own root, so the restore makes the one in flight before that root's mounts
 * stand (crshim sends it) and the other in it. */
#include "sk_unix.h"

enum { A = 11, B = 12, HELD = 20 };

static void check_deleted(int fd, const char *data, off_t at)
{
	struct stat st;
	char c[16] = "";
	size_t len = strlen(data);
	if (lseek(fd, 0, SEEK_CUR) != at)
		fail("offset %lld, want %lld", (long long)lseek(fd, 0, SEEK_CUR), (long long)at);
	if (pread(fd, c, len, 0) != (ssize_t)len || memcmp(c, data, len))
		fail("contents '%.*s', want '%s'", (int)len, c, data);
	if (fstat(fd, &st) || st.st_nlink != 0)
		fail("%lu links, want 0 (deleted)", (unsigned long)st.st_nlink);
}

int main(int argc, char **argv)
{
	int fds[4];
	struct stat a, b;

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	int f = sk_scm_file("scm_deleted.txt", 3);
	int h = sk_scm_file("scm_held.txt", 5);
	sk_place(h, HELD, 0);
	if (unlink("scm_deleted.txt") || unlink("scm_held.txt"))
		fail("unlink");
	fds[0] = f, fds[1] = HELD;
	if (sk_send_fds(A, "two", 3, fds, 2))
		fail("sendmsg");
	close(f);
	test_daemon();
	test_waitsig();

	if (sk_recv_want(B, "two", 2, fds))
		return 1;
	check_deleted(fds[0], "0123456789", 3);
	check_deleted(fds[1], "0123456789", 5);
	if (fstat(fds[1], &a) || fstat(HELD, &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		fail("the held deleted file in flight is not fd %d's inode", HELD);
	return test_pass();
}
