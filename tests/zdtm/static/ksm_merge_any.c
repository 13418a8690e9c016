/* prctl(PR_SET_MEMORY_MERGE): every VMA is mergeable by KSM ("mg"), one taken out again by
 * madvise(MADV_UNMERGEABLE). After restore the prctl reads 1, the mappings keep "mg" or not as before (data
 * kept), and a new mapping is mergeable (before: the prctl was lost without a word). */
#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "zdtmtst.h"

#ifndef PR_SET_MEMORY_MERGE
#define PR_SET_MEMORY_MERGE 67
#define PR_GET_MEMORY_MERGE 68
#endif

static char *map(int seed)
{
	char *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		datagen(p, 4 * PAGE, seed);
	return p;
}

int main(int argc, char **argv)
{
	size_t bad;

	test_init(argc, argv);
	if (prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)) {
		if (errno == EINVAL) {
			test_skip("no KSM");
			return 0;
		}
		fail("prctl(PR_SET_MEMORY_MERGE)");
		return 1;
	}
	char *in = map(1), *out = map(2);
	if (in == MAP_FAILED || out == MAP_FAILED || madvise(out, 4 * PAGE, MADV_UNMERGEABLE)) {
		fail("mmap/madvise");
		return 1;
	}
	vma_flag_is(in, "mg", 1, "mergeable before the dump");
	vma_flag_is(out, "mg", 0, "unmergeable before the dump");
	test_daemon();
	test_waitsig();

	if (prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0) != 1)
		fail("PR_GET_MEMORY_MERGE: %d, want 1", prctl(PR_GET_MEMORY_MERGE, 0, 0, 0, 0));
	vma_flag_is(in, "mg", 1, "the mergeable mapping");
	vma_flag_is(out, "mg", 0, "the mapping taken out");
	if (datachk(in, 4 * PAGE, 1, &bad) || datachk(out, 4 * PAGE, 2, &bad))
		fail("data differs at %#zx", bad);
	char *n = map(3);
	if (n == MAP_FAILED)
		fail("mmap");
	else
		vma_flag_is(n, "mg", 1, "a new mapping");
	pass();
	return 0;
}
