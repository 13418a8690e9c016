/* Memfds holding a copy of /bin/true, each held by the fd memfd_create gave (read-write, which does not count
 * as a writer: execveat of it works): fd 30 alone; fd 31 also mapped MAP_SHARED and, through a read-only open
 * of it (fd 32), MAP_PRIVATE (CRIU's memfd04 and memfd05). After restore execveat of fds 30 and 31 still runs
 * it (no ETXTBSY: the restore opened no memfd for writing again), both are still read-write with their
 * offsets, and a write through fd 31 is seen in its shared mapping. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { AFD = 30, BFD = 31, RFD = 32 };

static void make(int at, const char *buf, ssize_t n)
{
	int fd = memfd_create("memfd_exec_rw", 0);
	if (fd < 0 || write(fd, buf, (size_t)n) != n || dup2(fd, at) != at)
		fail("memfd with /bin/true");
	close(fd); /* (dup2 keeps the same file) */
	if (lseek(at, 100, SEEK_SET) != 100)
		fail("seek");
}

int main(int argc, char **argv)
{
	char path[64], *buf;
	test_init(argc, argv);
	ssize_t n = read_file("/bin/true", &buf);
	if (n <= 0)
		fail("read /bin/true");
	make(AFD, buf, n);
	make(BFD, buf, n);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", BFD);
	int ro = open(path, O_RDONLY);
	if (ro < 0 || dup2(ro, RFD) != RFD)
		fail("reopen read-only");
	close(ro);
	char *s = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, BFD, 0);
	char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, RFD, 0);
	if (s == MAP_FAILED || p == MAP_FAILED)
		fail("mmap");
	if (exec_fd_true(AFD) || exec_fd_true(BFD))
		fail("execveat before the dump: exit %d %d (100 + errno)", exec_fd_true(AFD),
		     exec_fd_true(BFD));
	test_daemon();
	test_waitsig();

	int ra = exec_fd_true(AFD), rb = exec_fd_true(BFD);
	if (ra || rb)
		fail("execveat of the memfds after restore: exit %d %d (100 + errno; ETXTBSY is %d)", ra, rb,
		     ETXTBSY);
	for (int fd = AFD; fd <= BFD; fd++)
		if ((fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDWR || lseek(fd, 0, SEEK_CUR) != 100)
			fail("fd %d: flags %#x offset %lld", fd, fcntl(fd, F_GETFL),
			     (long long)lseek(fd, 0, SEEK_CUR));
	if ((fcntl(RFD, F_GETFL) & O_ACCMODE) != O_RDONLY)
		fail("fd %d is not read-only", RFD);
	if (pwrite(BFD, "Z", 1, 1) != 1 || s[1] != 'Z')
		fail("a write through fd %d is not seen in its shared mapping", BFD);
	return test_pass();
}
