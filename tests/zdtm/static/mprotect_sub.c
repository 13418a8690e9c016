/* One 64-page mapping with mprotect-changed sub-regions (R, NONE, RX, RW, R):
 * the split VMAs, their contents and enforced protections survive. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

static const struct {
	int first, n, prot;
} subs[] = {
    {0, 8, PROT_READ | PROT_WRITE},
    {8, 4, PROT_READ},
    {12, 1, PROT_NONE},
    {13, 10, PROT_READ | PROT_EXEC},
    {23, 20, PROT_READ | PROT_WRITE},
    {43, 3, PROT_NONE},
    {46, 18, PROT_READ},
};

int main(int argc, char **argv)
{
	char lines[ARRAY_SIZE(subs)][96], l[96];
	uint64_t seed;
	char *m;
	size_t i, bad;

	test_init(argc, argv);
	seed = getpid() * 3ULL;
	m = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	datagen(m, 64 * PAGE, seed);
	for (i = 0; i < ARRAY_SIZE(subs); i++)
		if (mprotect(m + subs[i].first * PAGE, subs[i].n * PAGE, subs[i].prot))
			fail("mprotect %zu", i);
	for (i = 0; i < ARRAY_SIZE(subs); i++)
		if (vma_info(m + subs[i].first * PAGE, lines[i], sizeof(lines[i]), NULL, 0))
			fail("vma_info %zu", i);
	test_daemon();
	test_waitsig();

	for (i = 0; i < ARRAY_SIZE(subs); i++) {
		char *p = m + subs[i].first * PAGE;
		char *last = p + (subs[i].n - 1) * PAGE;
		int prot = subs[i].prot;
		if (vma_info(p, l, sizeof(l), NULL, 0) || strcmp(l, lines[i]))
			fail("sub %zu: '%s', want '%s'", i, l, lines[i]);
		if ((prot & PROT_READ) ? mem_probe(last, 0) != 0 : mem_probe(last, 0) == 0)
			fail("sub %zu: read access wrong", i);
		if ((prot & PROT_WRITE) ? mem_probe(p, 1) != 0 : mem_probe(p, 1) == 0)
			fail("sub %zu: write access wrong", i);
	}
	if (mprotect(m, 64 * PAGE, PROT_READ))
		fail("mprotect all");
	if (datachk(m, 64 * PAGE, seed, &bad))
		fail("data differs at page %zu", bad / PAGE);
	pass();
	return 0;
}
