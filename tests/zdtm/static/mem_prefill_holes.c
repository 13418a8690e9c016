/* Big private anonymous VMAs that the restore fills in crshim before clone3 (restore-pages.c prefill, with a
 * userfaultfd where the kernel has one): one of 48 MiB whose every fourth MiB holds a single page of data
 * (blocks of one page between holes), one of 20 MiB made read-only after it was written, one of 20 MiB
 * with MADV_HUGEPAGE. All contents survive, the holes read as zero and can be written (in the restored
 * process and in a child it forks), and no VMA is left registered with a userfaultfd (VmFlags "um"). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MIB (1UL << 20)
#define HOLEY (48 * MIB)
#define RO (20 * MIB)
#define HUGE (20 * MIB)
#define LONE 100 /* the page of data in a hole MiB */

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fail("mmap %zu", len);
		exit(1);
	}
	return p;
}

static int is_hole(size_t i)
{
	return i % 4 == 3;
}

static void fill_holey(char *m, uint64_t seed)
{
	for (size_t i = 0; i < HOLEY / MIB; i++)
		if (is_hole(i))
			datagen(m + i * MIB + LONE * PAGE, PAGE, seed + i);
		else
			datagen(m + i * MIB, MIB, seed + i);
}

static int zero(const char *p, size_t len)
{
	for (size_t j = 0; j < len; j++)
		if (p[j])
			return 0;
	return 1;
}

static void check_holey(char *m, uint64_t seed)
{
	size_t bad;
	for (size_t i = 0; i < HOLEY / MIB; i++) {
		char *c = m + i * MIB;
		if (!is_hole(i)) {
			if (datachk(c, MIB, seed + i, &bad))
				fail("MiB %zu of the holey VMA differs at %#zx", i, bad);
			continue;
		}
		if (datachk(c + LONE * PAGE, PAGE, seed + i, &bad))
			fail("the lone page of MiB %zu differs at %#zx", i, bad);
		if (!zero(c, LONE * PAGE) || !zero(c + (LONE + 1) * PAGE, MIB - (LONE + 1) * PAGE))
			fail("the hole in MiB %zu is not zero", i);
	}
}

/* Write into every hole (each of its pages) and read it back; 0 if all came back. */
static int write_holes(char *m, uint64_t seed)
{
	size_t bad;
	int ret = 0;
	for (size_t i = 3; i < HOLEY / MIB; i += 4) {
		datagen(m + i * MIB, LONE * PAGE, seed + i);
		if (datachk(m + i * MIB, LONE * PAGE, seed + i, &bad))
			ret = -1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	uint64_t seed, sum_ro, sum_huge;
	char *holey, *ro, *huge;
	size_t bad;
	int st;

	test_init(argc, argv);
	seed = getpid() * 2654435761ULL;
	holey = map(HOLEY);
	ro = map(RO);
	huge = map(HUGE);
	madvise(holey, HOLEY, MADV_NOHUGEPAGE); /* (the holes stay holes) */
	if (madvise(huge, HUGE, MADV_HUGEPAGE))
		test_msg("MADV_HUGEPAGE: %m (no THP here)\n");
	fill_holey(holey, seed);
	datagen(ro, RO, seed + 100);
	datagen(huge, HUGE, seed + 200);
	sum_ro = datasum(ro, RO);
	sum_huge = datasum(huge, HUGE);
	if (mprotect(ro, RO, PROT_READ)) {
		fail("mprotect");
		return 1;
	}
	test_daemon();
	test_waitsig();

	check_holey(holey, seed);
	if (datachk(ro, RO, seed + 100, &bad) || datasum(ro, RO) != sum_ro)
		fail("the read-only VMA differs at %#zx", bad);
	if (datachk(huge, HUGE, seed + 200, &bad) || datasum(huge, HUGE) != sum_huge)
		fail("the MADV_HUGEPAGE VMA differs at %#zx", bad);
	vma_flag_is(holey, "um", 0, "holey VMA registered with a userfaultfd");
	vma_flag_is(ro, "um", 0, "read-only VMA registered with a userfaultfd");
	vma_flag_is(huge, "um", 0, "MADV_HUGEPAGE VMA registered with a userfaultfd");
	if (mem_probe(ro, 1) == 0)
		fail("the read-only VMA can be written");

	pid_t pid = fork();
	if (pid < 0) {
		fail("fork");
		return 1;
	}
	if (pid == 0) { /* the child writes its copy's holes */
		alarm(60);
		_exit(write_holes(holey, seed + 300) ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the child could not write the holes (status %#x)", st);
	check_holey(holey, seed); /* the child's writes are its own */
	if (write_holes(holey, seed + 400))
		fail("the holes written after the restore read back wrong");
	pass();
	return 0;
}
