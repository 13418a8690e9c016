/* A child created with clone(CLONE_FILES) shares its parent's fd table (files, a pipe, a dup with
 * FD_CLOEXEC). After restore kcmp says the table is still one, every fd is where it was with its offset and
 * fd flags, and it is still shared: an fd the child opens (and one it closes) is seen by the parent. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "zdtmtst.h"

static int child_check(void)
{
	int bad = lseek(10, 0, SEEK_CUR) != 3;
	int nfd = open("files.data", O_RDONLY);
	if (nfd < 0 || dup2(nfd, 40) != 40)
		bad |= 2;
	close(nfd);
	close(30);
	return bad;
}

int main(int argc, char **argv)
{
	int pfd[2];
	test_init(argc, argv);
	int fd = open("files.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 10) != 10 || write(10, "0123456789", 10) != 10 ||
	    lseek(10, 3, SEEK_SET) != 3 || pipe(pfd) || dup2(pfd[0], 20) != 20 || dup2(pfd[1], 21) != 21 ||
	    fcntl(10, F_DUPFD_CLOEXEC, 30) != 30) {
		fail("setup");
		return 1;
	}
	close(fd);
	close(pfd[0]);
	close(pfd[1]);
	if (write(21, "in-flight", 9) != 9) {
		fail("write");
		return 1;
	}
	pid_t ch = files_sharer_start(NULL, child_check);
	if (ch < 0)
		return 1;
	test_daemon();
	test_waitsig();

	if (lseek(10, 0, SEEK_CUR) != 3)
		fail("fd 10: offset %lld, want 3", (long long)lseek(10, 0, SEEK_CUR));
	if (fcntl(30, F_GETFD) != FD_CLOEXEC || fcntl(10, F_GETFD) != 0)
		fail("fd flags: 30 %d, 10 %d", fcntl(30, F_GETFD), fcntl(10, F_GETFD));
	char buf[16] = "";
	if (read(20, buf, sizeof(buf)) != 9 || memcmp(buf, "in-flight", 9))
		fail("pipe data '%s'", buf);
	files_sharer_end(ch, "1: offset, 2: open");
	if (fcntl(40, F_GETFD) < 0)
		fail("the fd the child opened is not in the parent's table");
	if (fcntl(30, F_GETFD) >= 0)
		fail("the fd the child closed is still in the parent's table");
	return test_pass();
}
