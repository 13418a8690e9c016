/* Private file mappings: a RW one with written (COW) pages, a read-only one at
 * an offset. Written pages keep the new data, untouched pages show the file,
 * the file itself is never modified. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NP 16

int main(int argc, char **argv)
{
	char *buf, *m, *r, l0[96], l1[96], l[96];
	uint64_t seed;
	size_t bad;
	int fd, i;

	test_init(argc, argv);
	seed = getpid() * 11ULL;
	fd = open("file_map_private.data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = malloc(NP * PAGE);
	if (fd < 0 || !buf) {
		fail("open");
		return 1;
	}
	datagen(buf, NP * PAGE, seed);
	if (write(fd, buf, NP * PAGE) != (ssize_t)(NP * PAGE))
		fail("write");
	m = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	r = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE, fd, 4 * PAGE);
	if (m == MAP_FAILED || r == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	close(fd);
	/* COW every odd page, read every even one */
	for (i = 1; i < NP; i += 2)
		datagen(m + i * PAGE, PAGE, seed + 1000 + i);
	for (i = 0; i < NP; i += 2)
		if (memcmp(m + i * PAGE, buf + i * PAGE, PAGE))
			fail("setup page %d", i);
	vma_info(m, l0, sizeof(l0), NULL, 0);
	vma_info(r, l1, sizeof(l1), NULL, 0);
	test_daemon();
	test_waitsig();

	if (vma_info(m, l, sizeof(l), NULL, 0) || strcmp(l, l0))
		fail("rw mapping '%s', want '%s'", l, l0);
	if (vma_info(r, l, sizeof(l), NULL, 0) || strcmp(l, l1))
		fail("ro mapping '%s', want '%s'", l, l1);
	for (i = 0; i < NP; i++) {
		if (i & 1) {
			if (datachk(m + i * PAGE, PAGE, seed + 1000 + i, &bad))
				fail("COW page %d lost its private data (at %#zx)", i, bad);
		} else if (memcmp(m + i * PAGE, buf + i * PAGE, PAGE)) {
			fail("clean page %d differs from the file", i);
		}
	}
	if (memcmp(r, buf + 4 * PAGE, 4 * PAGE))
		fail("read-only mapping at offset differs from the file");
	/* the file must not contain the private writes */
	fd = open("file_map_private.data", O_RDONLY);
	char *f = malloc(NP * PAGE);
	if (fd < 0 || pread(fd, f, NP * PAGE, 0) != (ssize_t)(NP * PAGE))
		fail("reread");
	else if (memcmp(f, buf, NP * PAGE))
		fail("private writes reached the file");
	/* still private: a new write does not reach the file */
	m[0] ^= 0x5a;
	if (pread(fd, f, 1, 0) != 1 || f[0] != buf[0])
		fail("mapping became shared");
	pass();
	return 0;
}
