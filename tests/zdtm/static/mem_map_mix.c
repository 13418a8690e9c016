/* The dump's pages read straight into mappings of the pages file (engine/mem/dump-copy.c; the .desc sets
 * CRSHIM_DUMP_COPY=map: every buffer that way, not only while the writer is behind): a 72 MiB VMA (past
 * the 32 MiB window mapped at a time and the 64 MiB the file grows by), 16 MiB with every other 64 KiB
 * touched (holes between the blocks), a PROT_NONE VMA with data (read through /proc/PID/mem into the
 * mapping) and a read-only one. Every byte checked after the restore, the holes zero. */
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define BIG (72UL << 20)
#define HOLEY (16UL << 20)
#define STEP (64UL << 10)
#define NONE (1UL << 20)
#define RO (2UL << 20)

static char *map(size_t len)
{
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static int check(const char *what, const char *m, size_t len, uint64_t seed)
{
	size_t bad;
	if (!datachk(m, len, seed, &bad))
		return 0;
	fail("%s differs at %zu", what, bad);
	return -1;
}

static int check_holey(const char *h)
{
	for (size_t i = 0; i < HOLEY / STEP; i++) {
		if (i % 2 == 0) {
			if (check("a touched block", h + i * STEP, STEP, 10 + i))
				return -1;
			continue;
		}
		for (size_t j = 0; j < STEP; j += PAGE)
			if (h[i * STEP + j] || h[i * STEP + j + PAGE - 1]) {
				fail("hole at %zu not zero", i * STEP + j);
				return -1;
			}
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *big, *holey, *none, *ro;
	int bad = 0;

	test_init(argc, argv);
	big = map(BIG), holey = map(HOLEY), none = map(NONE), ro = map(RO);
	if (!big || !holey || !none || !ro) {
		fail("mmap");
		return 1;
	}
	madvise(holey, HOLEY, MADV_NOHUGEPAGE);
	datagen(big, BIG, 1);
	for (size_t i = 0; i < HOLEY / STEP; i += 2)
		datagen(holey + i * STEP, STEP, 10 + i);
	datagen(none, NONE, 2);
	datagen(ro, RO, 3);
	if (mprotect(none, NONE, PROT_NONE) || mprotect(ro, RO, PROT_READ)) {
		fail("mprotect");
		return 1;
	}
	test_daemon();
	test_waitsig();

	bad |= check("the 72 MiB", big, BIG, 1);
	bad |= check_holey(holey);
	bad |= check("the read-only VMA", ro, RO, 3);
	if (mprotect(none, NONE, PROT_READ))
		bad = 1, fail("mprotect");
	else
		bad |= check("the PROT_NONE VMA", none, NONE, 2);
	if (!bad)
		pass();
	return 0;
}
