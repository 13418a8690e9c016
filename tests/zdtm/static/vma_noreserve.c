/* A private anonymous MAP_NORESERVE mapping (VmFlags "nr") next to a normal one: after restore the first
 * still has "nr" and its data, the second still has no "nr" (CRIU's zdtm maps02 checks the same bit). */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define LEN (4 * 4096)

int main(int argc, char **argv)
{
	char *nr, *plain;
	size_t bad;

	test_init(argc, argv);
	nr = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	plain = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (nr == MAP_FAILED || plain == MAP_FAILED)
		fail("mmap");
	datagen(nr, LEN, 7);
	datagen(plain, LEN, 8);
	if (vma_has_flag(nr, "nr") != 1)
		test_skip("no VM_NORESERVE on MAP_NORESERVE here (overcommit_memory=2?)");
	vma_flag_is(plain, "nr", 0, "nr set on the plain mapping before dump");
	test_daemon();
	test_waitsig();

	vma_flag_is(nr, "nr", 1, "MAP_NORESERVE mapping lost its nr flag");
	vma_flag_is(plain, "nr", 0, "the plain mapping got the nr flag");
	if (datachk(nr, LEN, 7, &bad) || datachk(plain, LEN, 8, &bad))
		fail("data differs at %#zx", bad);
	pass();
	return 0;
}
