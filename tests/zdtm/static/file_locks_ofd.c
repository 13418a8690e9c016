/* OFD locks (F_OFD_SETLK), dumped and restored with --file-locks: a write lock on [0, 100) through fd A and a
 * read lock on [500, 600) through fd B, another open of the same file. After restore a third open of the
 * file (another description, in this process) sees both with F_OFD_GETLK with their ranges, the range
 * between is free, B's range can be shared but not taken for writing, and the locks still belong to their
 * descriptions: unlocking through A frees [0, 100). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { A = 22, B = 23 };

static int ofd(int fd, int cmd, struct flock *fl)
{
	return fcntl(fd, cmd, fl);
}

static void expect(short type, off_t s, off_t l, short want, off_t ws, off_t wl)
{
	int fd = open("ofd.file", O_RDWR);
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = s, .l_len = l};
	if (fd < 0 || ofd(fd, F_OFD_GETLK, &fl))
		fail("F_OFD_GETLK");
	else if (fl.l_type != want || (want != F_UNLCK && (fl.l_start != ws || fl.l_len != wl)))
		fail("[%lld,+%lld): type %d start %lld len %lld, want %d %lld %lld", (long long)s,
		     (long long)l, fl.l_type, (long long)fl.l_start, (long long)fl.l_len, want, (long long)ws,
		     (long long)wl);
	close(fd);
}

static void check(void)
{
	expect(F_RDLCK, 50, 10, F_WRLCK, 0, 100);
	expect(F_WRLCK, 100, 400, F_UNLCK, 0, 0);
	expect(F_RDLCK, 550, 10, F_UNLCK, 0, 0);
	expect(F_WRLCK, 550, 10, F_RDLCK, 500, 100);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	open_at(A, "ofd.file", O_RDWR | O_CREAT, "open a");
	open_at(B, "ofd.file", O_RDONLY, "open b");
	struct flock w = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100};
	struct flock r = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 500, .l_len = 100};
	if (ofd(A, F_OFD_SETLK, &w) || ofd(B, F_OFD_SETLK, &r))
		fail("F_OFD_SETLK");
	check();
	test_daemon();
	test_waitsig();
	check();
	struct flock un = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 100};
	if (ofd(A, F_OFD_SETLK, &un))
		fail("unlock through fd %d", A);
	expect(F_WRLCK, 0, 100, F_UNLCK, 0, 0);
	pass();
	return 0;
}
