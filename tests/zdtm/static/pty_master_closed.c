/* A pty slave whose master was closed (hung up, its /dev/pts node gone): after restore it is a hung-up pty
 * slave again: read gives end of file and write EIO, as before the dump, and it is still a pty slave (major
 * 136). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "zdtmtst.h"

static void check_hung_up(int s, const char *when)
{
	char c;
	struct stat st;
	errno = 0;
	ssize_t r = read(s, &c, 1);
	if (r != 0)
		fail("%s: read from a hung-up slave: %zd (errno %d), want 0 (end of file)", when, r, errno);
	errno = 0;
	r = write(s, "x", 1);
	if (r != -1 || errno != EIO)
		fail("%s: write to a hung-up slave: %zd (errno %d), want EIO", when, r, errno);
	if (fstat(s, &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) < 136 || major(st.st_rdev) > 143)
		fail("%s: not a pty slave", when);
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	int s, m = pty_pair(O_RDWR | O_NOCTTY, O_RDWR | O_NOCTTY, &s);
	if (m < 0)
		fail("posix_openpt");
	close(m);
	check_hung_up(s, "before the dump");
	test_daemon();
	test_waitsig();
	check_hung_up(s, "after restore");
	pass();
	return 0;
}
