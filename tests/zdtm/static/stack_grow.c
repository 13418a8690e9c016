/* A stack grown by deep recursion with data in every frame: the frames and
 * the [stack] VMA (still growsdown, "gd") survive, and it can grow further. */
#include <stdio.h>
#include <string.h>
#include "zdtmtst.h"

#define DEPTH 600
#define FRAME 4000

static uint64_t seed;
static char l0[96];

static unsigned long lowest;

static __attribute__((noinline)) int deeper(int n)
{
	volatile char pad[FRAME];
	if (n == 0)
		return 0;
	memset((char *)pad, n & 0xff, sizeof(pad));
	lowest = (unsigned long)pad;
	return deeper(n - 1) + (pad[n % FRAME] != (char)(n & 0xff));
}

static __attribute__((noinline)) int recurse(int depth)
{
	char frame[FRAME];
	int ret;
	size_t bad;

	datagen(frame, sizeof(frame), seed + depth);
	if (depth == DEPTH) {
		char l[96];
		vma_info(frame, l0, sizeof(l0), NULL, 0);
		vma_flag_is(frame, "gd", 1, "stack not growsdown before dump");
		test_daemon();
		test_waitsig();
		/* the SIGTERM frame may have grown it a little: same top, same perms */
		unsigned long s0, e0, s1, e1;
		if (vma_info(frame, l, sizeof(l), NULL, 0) || sscanf(l, "%lx-%lx", &s1, &e1) != 2 ||
		    sscanf(l0, "%lx-%lx", &s0, &e0) != 2 || e1 != e0 || s1 > s0 ||
		    strcmp(strchr(l, ' '), strchr(l0, ' ')))
			fail("stack vma '%s', want '%s'", l, l0);
		vma_flag_is(frame, "gd", 1, "stack not growsdown after restore");
		/* grow the stack by another ~2 MiB below the restored part */
		if (deeper(500))
			fail("deeper frames corrupted");
		else if (vma_info((void *)lowest, l, sizeof(l), NULL, 0) ||
			 sscanf(l, "%lx-%lx", &s1, &e1) != 2 || e1 != e0 || s1 > lowest)
			fail("stack did not grow down after restore: '%s' lowest %#lx top %#lx", l, lowest,
			     e0);
		ret = 0;
	} else {
		ret = recurse(depth + 1);
	}
	if (datachk(frame, sizeof(frame), seed + depth, &bad)) {
		fail("frame %d differs at %zu", depth, bad);
		return 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	char *maps;

	test_init(argc, argv);
	seed = (uint64_t)argc * 7 + 12345;
	if (recurse(0) == 0 && test_failures == 0) {
		if (read_file("/proc/self/maps", &maps) < 0 || !strstr(maps, "[stack]"))
			fail("no [stack] in maps");
		pass();
	}
	return 0;
}
