/* Private mappings of shared-memory objects: a memfd (held at fd 30) and a POSIX shm object (/dev/shm,
 * held at fd 31), each mapped MAP_PRIVATE over 4 pages; page 0 is written through the mapping (a private
 * copy), pages 1-3 are only read. After restore page 0 keeps its private data, and a write to the object
 * through the fd is seen in the pages not copied yet (they still follow the object), not in page 0. The same
 * for a memfd held by no fd, mapped private and shared: a write through the shared mapping. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NP 4
enum { MFD = 30, SFD = 31 };

static char *setup(int fd)
{
	static char buf[NP * PAGE];
	memset(buf, 'o', sizeof(buf));
	if (ftruncate(fd, NP * PAGE) || pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return NULL;
	char *p = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	volatile char c = 0;
	for (int i = 1; i < NP; i++)
		c += p[i * PAGE]; /* present, not copied */
	(void)c;
	p[0] = 'P';
	return p;
}

static void check(int fd, char *shared, const char *p, const char *what)
{
	if (p[0] != 'P' || p[PAGE] != 'o')
		fail("%s: private data %c %c", what, p[0], p[PAGE]);
	if (shared)
		shared[0] = shared[2 * PAGE] = 'N';
	else if (pwrite(fd, "NN", 1, 0) != 1 || pwrite(fd, "N", 1, 2 * PAGE) != 1)
		fail("%s: write to the object", what);
	if (p[2 * PAGE] != 'N')
		fail("%s: a page not copied yet does not follow the object any more (%c)", what, p[2 * PAGE]);
	if (p[0] != 'P')
		fail("%s: the private copy of page 0 follows the object", what);
}

int main(int argc, char **argv)
{
	char name[64];
	test_init(argc, argv);
	snprintf(name, sizeof(name), "/dev/shm/zdtm_shm_map_private.%d", (int)getpid());
	int m = memfd_create("shm_map_private", 0);
	int s = open(name, O_RDWR | O_CREAT | O_EXCL, 0600); /* shm_open, without its O_NOFOLLOW */
	if (m < 0 || s < 0 || dup2(m, MFD) != MFD || dup2(s, SFD) != SFD)
		fail("memfd / shm_open");
	close(m);
	close(s);
	unlink(name); /* nothing left behind; the object lives on as a deleted file */
	char *pm = setup(MFD), *ps = setup(SFD);
	int q = memfd_create("shm_map_private.q", 0);
	char *qp = q < 0 ? NULL : setup(q);
	char *qs = q < 0 ? MAP_FAILED : mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, q, 0);
	close(q);
	if (!pm || !ps || !qp || qs == MAP_FAILED) {
		fail("map");
		return 1;
	}
	test_daemon();
	test_waitsig();

	check(MFD, NULL, pm, "memfd");
	check(SFD, NULL, ps, "shm object");
	check(-1, qs, qp, "memfd mapped shared and private, no fd");
	pass();
	return 0;
}
