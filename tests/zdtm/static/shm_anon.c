/* Shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS): contents survive, the
 * VMA is still shared ("sh" in VmFlags; a forked child's writes are seen). */
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (2UL << 20)

int main(int argc, char **argv)
{
	char *m, l0[96], l[96];
	uint64_t seed;
	size_t bad;
	pid_t pid;
	int st;

	test_init(argc, argv);
	seed = getpid() * 17ULL;
	m = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	datagen(m, SZ - PAGE, seed); /* last page left untouched */
	vma_info(m, l0, sizeof(l0), NULL, 0);
	vma_flag_is(m, "sh", 1, "not shared before dump");
	test_daemon();
	test_waitsig();

	if (vma_info(m, l, sizeof(l), NULL, 0) || strcmp(l, l0))
		fail("mapping '%s', want '%s'", l, l0);
	vma_flag_is(m, "sh", 1, "VMA lost VM_SHARED");
	if (datachk(m, SZ - PAGE, seed, &bad))
		fail("data differs at %#zx", bad);
	for (size_t i = SZ - PAGE; i < SZ; i++)
		if (m[i]) {
			fail("untouched page not zero");
			break;
		}
	pid = fork();
	if (pid == 0) {
		memcpy(m + SZ - PAGE, "child-wrote", 11);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		fail("fork");
	else if (memcmp(m + SZ - PAGE, "child-wrote", 11))
		fail("memory not shared with a forked child");
	pass();
	return 0;
}
