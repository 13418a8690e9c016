/* 256 MiB of pseudo-random data in a private anonymous mapping (plus a
 * malloc'ed 8 MiB block), checked byte for byte and by checksum. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (256UL << 20)
#define SZ2 (8UL << 20)

int main(int argc, char **argv)
{
	uint64_t seed, sum, sum2;
	size_t bad;
	char *m, *h;

	test_init(argc, argv);
	seed = getpid() * 2654435761ULL;
	m = mmap(NULL, SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h = malloc(SZ2);
	if (m == MAP_FAILED || !h) {
		fail("alloc");
		return 1;
	}
	datagen(m, SZ, seed);
	datagen(h, SZ2, seed + 1);
	sum = datasum(m, SZ);
	sum2 = datasum(h, SZ2);
	test_daemon();
	test_waitsig();

	if (datachk(m, SZ, seed, &bad))
		fail("256 MiB region differs at offset %#zx", bad);
	if (datasum(m, SZ) != sum)
		fail("256 MiB checksum");
	if (datachk(h, SZ2, seed + 1, &bad))
		fail("malloc block differs at offset %#zx", bad);
	if (datasum(h, SZ2) != sum2)
		fail("malloc checksum");
	pass();
	return 0;
}
