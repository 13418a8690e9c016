/* Private mappings of shared anonymous memory (MAP_SHARED | MAP_ANONYMOUS over 4 pages, opened again through
 * /proc/self/map_files and mapped MAP_PRIVATE at an offset of 1 page, that fd closed). Page 0 of the private
 * mapping is written (a private copy), page 1 only read. After restore the copy keeps its data, and a write
 * through the shared mapping is seen in the pages of the private one not copied yet (they still follow the
 * object: a restore that gave the private mapping a copy of the object loses that), not in page 0. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NP 4

struct obj {
	char *s, *p; /* shared (the object), private at offset 1 page */
};

static int setup(struct obj *o)
{
	char path[128];
	o->s = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (o->s == MAP_FAILED)
		return -1;
	memset(o->s, 'o', NP * PAGE);
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)o->s,
		 (unsigned long)o->s + NP * PAGE);
	int fd = open(path, O_RDWR);
	if (fd < 0)
		return -1;
	o->p = mmap(NULL, (NP - 1) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, PAGE);
	if (o->p == MAP_FAILED)
		return -1;
	close(fd);
	volatile char c = o->p[PAGE]; /* present, not copied */
	(void)c;
	o->p[0] = 'P';
	return 0;
}

static void check(struct obj *o, const char *what)
{
	if (o->p[0] != 'P' || o->p[PAGE] != 'o' || o->s[PAGE] != 'o')
		fail("%s: data %c %c %c", what, o->p[0], o->p[PAGE], o->s[PAGE]);
	o->s[PAGE] = o->s[2 * PAGE] = o->s[3 * PAGE] = 'N';
	if (o->p[PAGE] != 'N' || o->p[2 * PAGE] != 'N')
		fail("%s: a page not copied yet does not follow the object any more (%c %c)", what,
		     o->p[PAGE], o->p[2 * PAGE]);
	if (o->p[0] != 'P')
		fail("%s: the private copy of page 0 follows the object", what);
}

int main(int argc, char **argv)
{
	struct obj a, b;
	test_init(argc, argv);
	if (setup(&a) || setup(&b)) {
		fail("map");
		return 1;
	}
	test_daemon();
	test_waitsig();

	check(&a, "object 1");
	check(&b, "object 2");
	pass();
	return 0;
}
