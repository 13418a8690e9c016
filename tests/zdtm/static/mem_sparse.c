/* A 1 GiB anonymous reservation with only a few pages touched: the touched
 * pages keep their data, untouched ones read as zero, and the restore did not
 * populate the whole region (Rss of the VMA stays small). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (1UL << 30)
static const size_t touched[] = {0, 1, 4096, 100000, 262143};

int main(int argc, char **argv)
{
	char *m;
	size_t i, bad;
	long rss0, rss1;

	test_init(argc, argv);
	m = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	madvise(m, SZ, MADV_NOHUGEPAGE);
	for (i = 0; i < ARRAY_SIZE(touched); i++)
		datagen(m + touched[i] * PAGE, PAGE, 500 + i);
	rss0 = vma_smaps_kb(0, m, "Rss");
	test_daemon();
	test_waitsig();

	rss1 = vma_smaps_kb(0, m, "Rss");
	if (rss1 < 0 || rss1 > rss0 + 1024)
		fail("Rss of the sparse VMA %ld kB, was %ld kB: restore populated it", rss1, rss0);
	for (i = 0; i < ARRAY_SIZE(touched); i++)
		if (datachk(m + touched[i] * PAGE, PAGE, 500 + i, &bad))
			fail("touched page %zu differs at %zu", touched[i], bad);
	/* a sample of untouched pages reads as zero */
	for (i = 2; i < SZ / PAGE; i += 997) {
		size_t j;
		int is_touched = 0;
		for (j = 0; j < ARRAY_SIZE(touched); j++)
			is_touched |= touched[j] == i;
		if (is_touched)
			continue;
		const uint64_t *q = (const uint64_t *)(m + i * PAGE);
		for (j = 0; j < PAGE / 8; j++)
			if (q[j]) {
				fail("untouched page %zu not zero", i);
				i = SZ;
				break;
			}
	}
	pass();
	return 0;
}
