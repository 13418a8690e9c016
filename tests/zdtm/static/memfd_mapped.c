/* A memfd held as an fd (offset 5) and mapped MAP_SHARED in the same process: after restore the fd and
 * the mapping are still one memfd (same inode; a write through the mapping is read through the fd and
 * the other way round), with its contents, name and offset. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN (2 * 4096)

/* inode of the mapping at addr, from /proc/self/maps */
static unsigned long map_ino(void *addr)
{
	char *buf, *p;
	unsigned long start, ino = 0;
	if (read_file("/proc/self/maps", &buf) < 0)
		return 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (sscanf(p, "%lx-%*x %*s %*s %*s %lu", &start, &ino) == 2 && start == (unsigned long)addr)
			break;
		else
			ino = 0;
	free(buf);
	return ino;
}

int main(int argc, char **argv)
{
	char buf[16];
	struct stat st;
	char *m;
	int fd;

	test_init(argc, argv);
	fd = memfd_create("mapped", MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, LEN))
		fail("memfd");
	m = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		fail("mmap");
	memcpy(m, "through the map", 15);
	if (pwrite(fd, "through the fd", 14, 4096) != 14 || lseek(fd, 5, SEEK_SET) != 5)
		fail("pwrite");
	test_daemon();
	test_waitsig();

	if (fstat(fd, &st) || (unsigned long)st.st_ino != map_ino(m))
		fail("fd inode %lu, mapping inode %lu: not one memfd", (unsigned long)st.st_ino, map_ino(m));
	if (pread(fd, buf, 15, 0) != 15 || memcmp(buf, "through the map", 15) ||
	    memcmp(m + 4096, "through the fd", 14))
		fail("contents lost");
	m[100] = 'M';
	if (pread(fd, buf, 1, 100) != 1 || buf[0] != 'M')
		fail("a write through the mapping is not read through the fd");
	if (pwrite(fd, "F", 1, 200) != 1 || m[200] != 'F')
		fail("a write through the fd is not seen in the mapping");
	if (lseek(fd, 0, SEEK_CUR) != 5)
		fail("offset %lld, want 5", (long long)lseek(fd, 0, SEEK_CUR));
	pass();
	return 0;
}
