/* An fd of shared anonymous memory, opened through /proc/self/map_files (CRIU's shmemfd, shmemfd-priv),
 * while the memory is still mapped, shared by the test and its child, and a second object only held by an
 * fd (its mapping gone, truncated, O_APPEND, at an offset). After restore the first fd is the mapped object
 * itself: a pwrite through it is seen in both processes' mappings, a write to the mapping is read through
 * it; same inode through the fd and the map_files link; the second keeps its contents, size, flags and
 * offset. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (4 * PAGE)

static int map_fd(void *a, size_t len, int flags)
{
	char path[96];
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)a,
		 (unsigned long)((char *)a + len));
	return open(path, flags);
}

int main(int argc, char **argv)
{
	int ctl[2], st = 0;
	char c, buf[8];

	test_init(argc, argv);
	volatile char *m = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	void *m2 = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd = m == MAP_FAILED ? -1 : map_fd((void *)m, SZ, O_RDWR);
	int fd2 = m2 == MAP_FAILED ? -1 : map_fd(m2, PAGE, O_RDWR);
	if (fd < 0 || fd2 < 0 || pipe(ctl) || ftruncate(fd2, 0) || munmap(m2, PAGE) ||
	    fcntl(fd2, F_SETFL, O_APPEND) || write(fd2, "hello", 5) != 5 || lseek(fd2, 3, SEEK_SET) != 3) {
		fail("setup: %m");
		return 1;
	}
	datagen((void *)m, SZ, 7);
	pid_t ch = fork();
	if (ch == 0) {
		test_forked();
		if (read(ctl[0], &c, 1) != 1)
			_exit(1);
		_exit(memcmp((void *)(m + PAGE), "through", 7) ? 2 : 0); /* the parent's pwrite */
	}
	test_daemon();
	test_waitsig();

	struct stat sf, sm;
	int fdm = map_fd((void *)m, SZ, O_RDONLY);
	if (fdm < 0 || fstat(fd, &sf) || fstat(fdm, &sm) || sf.st_ino != sm.st_ino || sf.st_dev != sm.st_dev)
		fail("the fd is not the mapped object: inode %lu, the mapping's %lu",
		     (unsigned long)sf.st_ino, (unsigned long)sm.st_ino);
	if (datachk((void *)m, SZ, 7, NULL))
		fail("the mapping's contents changed");
	if (pwrite(fd, "through", 7, PAGE) != 7 || memcmp((void *)(m + PAGE), "through", 7))
		fail("a pwrite through the fd is not seen in the mapping");
	memcpy((void *)(m + 2 * PAGE), "mapping", 7);
	if (pread(fd, buf, 7, 2 * PAGE) != 7 || memcmp(buf, "mapping", 7))
		fail("a write to the mapping is not read through the fd");
	if (write(ctl[1], "g", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the child does not see the pwrite through the fd (status %#x)", st);
	if (fstat(fd2, &sf) || sf.st_size != 5 || lseek(fd2, 0, SEEK_CUR) != 3 ||
	    !(fcntl(fd2, F_GETFL) & O_APPEND) || pread(fd2, buf, 5, 0) != 5 || memcmp(buf, "hello", 5))
		fail("the unmapped object: size %lld, offset, O_APPEND or contents changed",
		     (long long)sf.st_size);
	return test_pass();
}
