/* Hundreds of small VMAs with mixed permissions separated by PROT_NONE guard
 * pages: same layout (maps lines), same contents, protections enforced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define N 320
static const int prots[] = {
    PROT_READ, PROT_READ | PROT_WRITE, PROT_READ | PROT_EXEC, PROT_WRITE, PROT_READ | PROT_WRITE | PROT_EXEC,
    PROT_NONE};

int main(int argc, char **argv)
{
	static char lines[N][96], glines[N][96];
	size_t npages = 0, off[N], len[N];
	uint64_t seed;
	char *base;
	int i;

	test_init(argc, argv);
	seed = getpid();
	for (i = 0; i < N; i++) {
		off[i] = npages + 1; /* one guard page before each */
		len[i] = 1 + i % 3;
		npages += 1 + len[i];
	}
	npages++;
	base = mmap(NULL, npages * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	for (i = 0; i < N; i++) {
		char *p = base + off[i] * PAGE;
		if (mprotect(p, len[i] * PAGE, PROT_READ | PROT_WRITE))
			fail("mprotect rw %d", i);
		datagen(p, len[i] * PAGE, seed + i);
		if (mprotect(p, len[i] * PAGE, prots[i % ARRAY_SIZE(prots)]))
			fail("mprotect %d", i);
	}
	for (i = 0; i < N; i++) {
		if (vma_info(base + off[i] * PAGE, lines[i], sizeof(lines[i]), NULL, 0))
			fail("no vma %d", i);
		if (vma_info(base + (off[i] - 1) * PAGE, glines[i], sizeof(glines[i]), NULL, 0))
			fail("no guard vma %d", i);
	}
	test_daemon();
	test_waitsig();

	for (i = 0; i < N; i++) {
		char l[96], *p = base + off[i] * PAGE;
		int prot = prots[i % ARRAY_SIZE(prots)];
		size_t bad;

		if (vma_info(p, l, sizeof(l), NULL, 0) || strcmp(l, lines[i]))
			fail("vma %d: '%s', want '%s'", i, l, lines[i]);
		if (vma_info(p - PAGE, l, sizeof(l), NULL, 0) || strcmp(l, glines[i]))
			fail("guard %d: '%s', want '%s'", i, l, glines[i]);
		if (mem_probe(p - PAGE, 0) == 0)
			fail("guard page before vma %d is readable", i);
		if ((prot & PROT_READ) && mem_probe(p, 0))
			fail("vma %d not readable", i);
		if (!(prot & PROT_WRITE) && mem_probe(p, 1) == 0)
			fail("vma %d (prot %d) writable", i, prot);
		if (mprotect(p, len[i] * PAGE, PROT_READ | PROT_WRITE))
			fail("mprotect back %d", i);
		if (datachk(p, len[i] * PAGE, seed + i, &bad))
			fail("vma %d data differs at %#zx", i, bad);
		if (test_failures > 10)
			break;
	}
	pass();
	return 0;
}
