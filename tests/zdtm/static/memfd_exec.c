/* A memfd holding a copy of /bin/true, written through its first fd, then opened again read-only through
 * /proc/self/fd (fd 30) and the writable fd closed, as a loader does before execveat. After restore nothing
 * holds it open for writing: execveat(30, "", AT_EMPTY_PATH) runs it (no ETXTBSY) and it exits 0. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { XFD = 30 };

int main(int argc, char **argv)
{
	char path[64], *buf;
	test_init(argc, argv);
	ssize_t n = read_file("/bin/true", &buf);
	int fd = memfd_create("memfd_exec", MFD_CLOEXEC);
	if (n <= 0 || fd < 0 || write(fd, buf, (size_t)n) != n)
		fail("memfd with /bin/true");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int ro = open(path, O_RDONLY | O_CLOEXEC);
	if (ro < 0 || dup3(ro, XFD, O_CLOEXEC) != XFD)
		fail("reopen read-only");
	close(ro);
	close(fd);
	int r = exec_fd_true(XFD);
	if (r)
		fail("execveat before the dump: exit %d (100 + errno)", r);
	test_daemon();
	test_waitsig();

	r = exec_fd_true(XFD);
	if (r)
		fail("execveat of the memfd after restore: exit %d (100 + errno; ETXTBSY is %d)", r, ETXTBSY);
	if ((fcntl(XFD, F_GETFL) & O_ACCMODE) != O_RDONLY)
		fail("fd %d is not read-only", XFD);
	pass();
	return 0;
}
