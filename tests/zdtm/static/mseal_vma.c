/* Sealed mappings (mseal, Linux 6.10): a read-only anonymous one with data and the middle page of a
 * read-write one: after restore still sealed ("sl"), their data kept, and munmap, mprotect and a MAP_FIXED
 * mmap over them still fail with EPERM; the unsealed neighbours are not sealed (before: the seal was lost
 * without a word, so a restored program could be made to change memory it had sealed). */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef SYS_mseal
#define SYS_mseal 462
#endif

static void sealed_ok(char *p, size_t len, const char *what)
{
	if (vma_has_flag(p, "sl") != 1)
		fail("%s: not sealed", what);
	errno = 0;
	if (munmap(p, len) == 0 || errno != EPERM)
		fail("%s: munmap: %d (errno %d), want EPERM", what, -1, errno);
	errno = 0;
	if (mprotect(p, len, PROT_READ | PROT_WRITE | PROT_EXEC) == 0 || errno != EPERM)
		fail("%s: mprotect: errno %d, want EPERM", what, errno);
	errno = 0;
	if (mmap(p, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED ||
	    errno != EPERM)
		fail("%s: mmap MAP_FIXED: errno %d, want EPERM", what, errno);
}

int main(int argc, char **argv)
{
	size_t bad;

	test_init(argc, argv);
	char *ro = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *rw = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED || rw == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	datagen(ro, 4 * PAGE, 11);
	datagen(rw, 3 * PAGE, 12);
	if (mprotect(ro, 4 * PAGE, PROT_READ))
		fail("mprotect");
	if (syscall(SYS_mseal, ro, 4 * PAGE, 0) || syscall(SYS_mseal, rw + PAGE, PAGE, 0)) {
		if (errno == ENOSYS) {
			test_skip("no mseal");
			return 0;
		}
		fail("mseal");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (datachk(ro, 4 * PAGE, 11, &bad))
		fail("read-only sealed data differs at %#zx", bad);
	if (datachk(rw, 3 * PAGE, 12, &bad))
		fail("read-write data differs at %#zx", bad);
	sealed_ok(ro, 4 * PAGE, "read-only");
	sealed_ok(rw + PAGE, PAGE, "middle page");
	if (vma_has_flag(rw, "sl") != 0 || vma_has_flag(rw + 2 * PAGE, "sl") != 0)
		fail("a neighbour of the sealed page is sealed");
	if (mem_probe(rw + PAGE, 1))
		fail("the sealed read-write page cannot be written");
	if (mprotect(rw, PAGE, PROT_READ))
		fail("mprotect of the unsealed neighbour");
	pass();
	return 0;
}
