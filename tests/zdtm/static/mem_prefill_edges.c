/* Neighbouring private anonymous VMAs that the dump packs into shared page blocks (a block holds the end of
 * one VMA and the start of the next): A (4 MiB) | B (4 MiB, MADV_NOHUGEPAGE) | C (256 KiB, too small to be
 * prefilled: the blob fills it) | D (4 MiB, MADV_NOHUGEPAGE, a page of it never written) | E (2 MiB, made
 * read-only after it was written). The restore prefills A, B, D and E in crshim and puts the part of each
 * shared block that lies in them there, after checksumming the whole block (restore-pages.c fill_edge); C
 * keeps its part from the blob. All contents survive, the hole reads as zero, no VMA is left registered
 * with a userfaultfd (VmFlags "um"), E cannot be written, and a child forked after the restore writes its
 * own copy without changing ours. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define KIB (1UL << 10)
#define MIB (1UL << 20)

static const size_t len[] = {4 * MIB, 4 * MIB, 256 * KIB, 4 * MIB, 2 * MIB};
#define NV 5
#define HOLE (3 * NV) /* the page of D never written (its index in D) */

static char *at[NV];

static void fill(uint64_t seed)
{
	for (int i = 0; i < NV; i++) {
		if (i != 3) {
			datagen(at[i], len[i], seed + (uint64_t)i);
			continue;
		}
		datagen(at[i], HOLE * PAGE, seed + (uint64_t)i);
		datagen(at[i] + (HOLE + 1) * PAGE, len[i] - (HOLE + 1) * PAGE, seed + 10);
	}
}

static int check(uint64_t seed)
{
	size_t bad;
	int ret = 0;
	for (int i = 0; i < NV; i++) {
		if (i != 3) {
			if (datachk(at[i], len[i], seed + (uint64_t)i, &bad)) {
				fail("VMA %c differs at %#zx", 'A' + i, bad);
				ret = -1;
			}
			continue;
		}
		if (datachk(at[i], HOLE * PAGE, seed + (uint64_t)i, &bad) ||
		    datachk(at[i] + (HOLE + 1) * PAGE, len[i] - (HOLE + 1) * PAGE, seed + 10, &bad)) {
			fail("VMA D differs at %#zx", bad);
			ret = -1;
		}
		for (size_t j = 0; j < PAGE; j++)
			if (at[i][HOLE * PAGE + j]) {
				fail("the page never written in D is not zero");
				ret = -1;
				break;
			}
	}
	return ret;
}

int main(int argc, char **argv)
{
	size_t total = 0;
	int st;

	test_init(argc, argv);
	for (int i = 0; i < NV; i++)
		total += len[i];
	char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fail("mmap %zu", total);
		return 1;
	}
	for (int i = 0; i < NV; i++)
		at[i] = i ? at[i - 1] + len[i - 1] : m;
	/* B and D differ from their neighbours in their flags, which keeps the five VMAs apart */
	if (madvise(at[1], len[1], MADV_NOHUGEPAGE) || madvise(at[3], len[3], MADV_NOHUGEPAGE)) {
		fail("madvise");
		return 1;
	}
	uint64_t seed = getpid() * 2654435761ULL;
	fill(seed);
	if (mprotect(at[4], len[4], PROT_READ)) {
		fail("mprotect");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (check(seed))
		return 1;
	for (int i = 0; i < NV; i++)
		vma_flag_is(at[i], "um", 0, "a VMA registered with a userfaultfd");
	if (mem_probe(at[4], 1) == 0)
		fail("the read-only VMA E can be written");
	pid_t pid = fork();
	if (pid < 0) {
		fail("fork");
		return 1;
	}
	if (pid == 0) { /* the child's copy of A..D changes, ours not */
		alarm(60);
		for (int i = 0; i < 4; i++)
			memset(at[i], 0x5a, len[i]);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("the child failed (status %#x)", st);
	if (check(seed))
		return 1;
	pass();
	return 0;
}
