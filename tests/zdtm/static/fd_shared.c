/* Open file descriptions: dup()ed fds share one (offset and flags move
 * together), two open()s of the same file do not; a high fd number (4000,
 * above the default soft NOFILE limit); a 64-bit offset (5 GiB) in a sparse file. */
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "zdtmtst.h"

#define BIG (5ULL << 30)

int main(int argc, char **argv)
{
	struct rlimit rl = {8192, 8192};
	int a, b, c, hi, big;
	char buf[8];

	test_init(argc, argv);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fail("setrlimit");
	a = open("fd_shared.data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (a < 0 || write(a, "0123456789abcdef", 16) != 16) {
		fail("create");
		return 1;
	}
	b = dup(a);
	c = open("fd_shared.data", O_RDONLY);
	hi = fcntl(a, F_DUPFD, 4000);
	big = open("fd_shared.big", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (b < 0 || c < 0 || hi != 4000 || big < 0 || ftruncate(big, BIG + 4096) ||
	    pwrite(big, "far", 3, BIG) != 3) {
		fail("setup");
		return 1;
	}
	lseek(a, 4, SEEK_SET); /* a, b, hi share offset 4 */
	lseek(c, 10, SEEK_SET);
	lseek(big, BIG, SEEK_SET);
	test_daemon();
	test_waitsig();

	if (lseek(b, 0, SEEK_CUR) != 4 || lseek(hi, 0, SEEK_CUR) != 4 || lseek(c, 0, SEEK_CUR) != 10)
		fail("offsets %ld/%ld/%ld, want 4/4/10", (long)lseek(b, 0, SEEK_CUR),
		     (long)lseek(hi, 0, SEEK_CUR), (long)lseek(c, 0, SEEK_CUR));
	/* reading through a moves b and hi, not c */
	if (read(a, buf, 2) != 2 || memcmp(buf, "45", 2))
		fail("read a");
	if (lseek(b, 0, SEEK_CUR) != 6 || lseek(hi, 0, SEEK_CUR) != 6)
		fail("dup()ed fds no longer share the offset (%ld, %ld, want 6)", (long)lseek(b, 0, SEEK_CUR),
		     (long)lseek(hi, 0, SEEK_CUR));
	if (lseek(c, 0, SEEK_CUR) != 10)
		fail("separately opened fd shares the offset");
	/* status flags are per description too */
	fcntl(a, F_SETFL, O_APPEND);
	if (!(fcntl(b, F_GETFL) & O_APPEND) || (fcntl(c, F_GETFL) & O_APPEND))
		fail("O_APPEND via a: b %#o c %#o", fcntl(b, F_GETFL), fcntl(c, F_GETFL));
	if (fcntl(hi, F_GETFD) != 0)
		fail("fd 4000 flags");
	if ((unsigned long long)lseek(big, 0, SEEK_CUR) != BIG)
		fail("5 GiB offset now %lld", (long long)lseek(big, 0, SEEK_CUR));
	if (read(big, buf, 3) != 3 || memcmp(buf, "far", 3))
		fail("read at 5 GiB");
	pass();
	return 0;
}
