/* memhog MIB: fill MIB MiB of anonymous memory with pseudo-random data (incompressible, every page present),
 * say "ready" on stdout, then sleep until killed. For the checkpoint benchmark. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	size_t n = mib << 17; /* uint64_t words */
	uint64_t *p = malloc(n * sizeof(*p)), x = 0x9e3779b97f4a7c15ull;
	if (!p)
		return 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = x;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
