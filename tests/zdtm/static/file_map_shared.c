/* A shared file mapping: writes made before the dump are in the file, and the
 * mapping is still shared with the file after restore (both directions). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NP 32

int main(int argc, char **argv)
{
	char *m, *f, l0[96], l[96];
	uint64_t seed;
	size_t bad;
	int fd;

	test_init(argc, argv);
	seed = getpid() * 13ULL;
	fd = open("file_map_shared.data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, NP * PAGE)) {
		fail("open");
		return 1;
	}
	m = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	close(fd);
	datagen(m, NP / 2 * PAGE, seed); /* second half stays zero (holes) */
	vma_info(m, l0, sizeof(l0), NULL, 0);
	test_daemon();
	test_waitsig();

	f = calloc(1, NP * PAGE);
	fd = open("file_map_shared.data", O_RDWR);
	if (vma_info(m, l, sizeof(l), NULL, 0) || strcmp(l, l0))
		fail("mapping '%s', want '%s'", l, l0);
	if (datachk(m, NP / 2 * PAGE, seed, &bad))
		fail("mapping differs at %#zx", bad);
	for (size_t i = NP / 2 * PAGE; i < NP * PAGE; i++)
		if (m[i]) {
			fail("hole not zero at %#zx", i);
			break;
		}
	if (fd < 0 || pread(fd, f, NP * PAGE, 0) != NP * PAGE)
		fail("read file");
	else if (datachk(f, NP / 2 * PAGE, seed, &bad))
		fail("file lacks the mapped writes at %#zx", bad);
	/* new writes through the mapping reach the file, file writes show in the mapping */
	memcpy(m + 20 * PAGE, "after-restore", 13);
	if (pread(fd, f, 13, 20 * PAGE) != 13 || memcmp(f, "after-restore", 13))
		fail("mapping no longer shared with the file (write via mapping)");
	if (pwrite(fd, "via-file", 8, 21 * PAGE) != 8 || memcmp(m + 21 * PAGE, "via-file", 8))
		fail("mapping no longer shared with the file (write via file)");
	pass();
	return 0;
}
