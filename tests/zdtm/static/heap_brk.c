/* A heap grown with sbrk: same brk value, [heap] VMA, contents; brk can still
 * grow and shrink afterwards. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#define GROW (3UL << 20)

int main(int argc, char **argv)
{
	char *start, *end0, *end1, l0[96], l[96];
	uint64_t seed;
	size_t bad;

	test_init(argc, argv);
	seed = getpid() * 19ULL;
	/* keep malloc (used by the lib) off our brk area: give it a big untrimmed pool first */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	// cppcheck-suppress unusedAllocatedMemory ; allocated and freed only to grow malloc's untrimmed pool
	void *volatile pool = malloc(4 << 20);
	free(pool);
	start = sbrk(0);
	if (sbrk(GROW) == (void *)-1 || sbrk(12345) == (void *)-1) {
		fail("sbrk");
		return 1;
	}
	end0 = sbrk(0);
	datagen(start, GROW + 12345, seed);
	vma_info(start, l0, sizeof(l0), NULL, 0);
	test_daemon();
	test_waitsig();

	end1 = sbrk(0);
	if (end1 != end0)
		fail("brk %p, want %p", end1, end0);
	if ((char *)syscall(SYS_brk, 0) != end0)
		fail("SYS_brk(0) %p, want %p", (void *)syscall(SYS_brk, 0), end0);
	if (vma_info(start, l, sizeof(l), NULL, 0) || strcmp(l, l0))
		fail("heap vma '%s', want '%s'", l, l0);
	if (datachk(start, GROW + 12345, seed, &bad))
		fail("heap data differs at %#zx", bad);
	char *maps;
	if (read_file("/proc/self/maps", &maps) < 0 || !strstr(maps, "[heap]"))
		fail("no [heap] in maps");
	if (sbrk(1 << 20) == (void *)-1)
		fail("brk cannot grow after restore");
	else
		memset(end0, 0x77, 1 << 20);
	if (sbrk(-(1 << 20)) == (void *)-1 || sbrk(0) != end0)
		fail("brk cannot shrink after restore");
	pass();
	return 0;
}
