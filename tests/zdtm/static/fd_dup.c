/* dup()ed fds of pipes and files: a regular file fd with a dup and an F_DUPFD_CLOEXEC copy (one open file
 * description, different fd flags), a pipe read end with a dup, the write end. After restore kcmp says the
 * same descriptions are shared as before (and the two ends are not), offsets and O_NONBLOCK move together,
 * and data written to the pipe is read through the dup. */
#include <fcntl.h>
#include <linux/kcmp.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { F = 60, FD = 61, FC = 62, PR = 63, PRD = 64, PW = 65 };

static int same(int a, int b)
{
	pid_t p = getpid();
	return syscall(SYS_kcmp, p, p, KCMP_FILE, a, b) == 0;
}

int main(int argc, char **argv)
{
	char data[4096], buf[64];
	int p[2], fd;

	test_init(argc, argv);
	datagen(data, sizeof(data), 9);
	fd = open("fd_dup.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, sizeof(data)) != sizeof(data) || dup2(fd, F) != F)
		fail("file");
	close(fd);
	if (dup2(F, FD) != FD || fcntl(F, F_DUPFD_CLOEXEC, FC) != FC)
		fail("dup");
	lseek(F, 1000, SEEK_SET);
	if (pipe(p) || dup2(p[0], PR) != PR || dup2(p[1], PW) != PW || dup2(PR, PRD) != PRD)
		fail("pipe");
	close(p[0]);
	close(p[1]);
	if (write(PW, "abc", 3) != 3)
		fail("write");
	test_daemon();
	test_waitsig();

	if (!same(F, FD) || !same(F, FC) || !same(PR, PRD))
		fail("dup'ed fds do not share their open file description any more");
	if (same(PR, PW) || same(F, PR))
		fail("different descriptions became one");
	if (fcntl(F, F_GETFD) != 0 || fcntl(FD, F_GETFD) != 0 || fcntl(FC, F_GETFD) != FD_CLOEXEC)
		fail("fd flags");
	if (lseek(FD, 0, SEEK_CUR) != 1000 || lseek(FC, 0, SEEK_CUR) != 1000)
		fail("offset %ld, want 1000", (long)lseek(FD, 0, SEEK_CUR));
	lseek(FC, 2000, SEEK_SET);
	if (lseek(F, 0, SEEK_CUR) != 2000 || read(FD, buf, 10) != 10 || memcmp(buf, data + 2000, 10))
		fail("the offset is not shared");
	fcntl(PRD, F_SETFL, O_NONBLOCK);
	if (!(fcntl(PR, F_GETFL) & O_NONBLOCK))
		fail("status flags are not shared by the pipe dups");
	if (read(PRD, buf, sizeof(buf)) != 3 || memcmp(buf, "abc", 3))
		fail("data in flight through the dup");
	if (write(PW, "de", 2) != 2 || read(PR, buf, sizeof(buf)) != 2 || memcmp(buf, "de", 2))
		fail("the pipe does not carry data any more");
	pass();
	return 0;
}
