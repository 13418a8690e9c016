/* MADV_DONTFORK, MADV_DONTDUMP, MADV_WIPEONFORK, MADV_RANDOM, MADV_SEQUENTIAL
 * regions keep their VmFlags (smaps) and contents. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

static const struct {
	int advice;
	const char *flag;
} adv[] = {
    {MADV_DONTFORK, "dc"}, {MADV_DONTDUMP, "dd"},   {MADV_WIPEONFORK, "wf"},
    {MADV_RANDOM, "rr"},   {MADV_SEQUENTIAL, "sr"},
};
#define NA ARRAY_SIZE(adv)

int main(int argc, char **argv)
{
	char flags0[NA][256], lines0[NA][96], f[256], l[96];
	char *m[NA];
	size_t i, bad;

	test_init(argc, argv);
	for (i = 0; i < NA; i++) {
		/* separate mappings with a hole in between so nothing merges */
		m[i] = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m[i] == MAP_FAILED) {
			fail("mmap");
			return 1;
		}
		munmap(m[i] + 3 * PAGE, PAGE);
		datagen(m[i], 3 * PAGE, i + 100);
		/* advise only the middle page: the VMA splits */
		if (madvise(m[i] + PAGE, PAGE, adv[i].advice))
			fail("madvise %s", adv[i].flag);
		if (vma_has_flag(m[i] + PAGE, adv[i].flag) != 1)
			fail("flag %s not set before dump", adv[i].flag);
		if (vma_has_flag(m[i], adv[i].flag) != 0)
			fail("flag %s set on the neighbour before dump", adv[i].flag);
		vma_info(m[i] + PAGE, lines0[i], sizeof(lines0[i]), flags0[i], sizeof(flags0[i]));
	}
	test_daemon();
	test_waitsig();

	for (i = 0; i < NA; i++) {
		if (vma_has_flag(m[i] + PAGE, adv[i].flag) != 1)
			fail("flag %s lost", adv[i].flag);
		if (vma_has_flag(m[i], adv[i].flag) != 0)
			fail("flag %s spread to the neighbour", adv[i].flag);
		if (vma_info(m[i] + PAGE, l, sizeof(l), f, sizeof(f)) || strcmp(l, lines0[i]) ||
		    strcmp(f, flags0[i]))
			fail("%s vma: '%s' [%s], want '%s' [%s]", adv[i].flag, l, f, lines0[i], flags0[i]);
		if (datachk(m[i], 3 * PAGE, i + 100, &bad))
			fail("%s data differs at %#zx", adv[i].flag, bad);
	}
	pass();
	return 0;
}
