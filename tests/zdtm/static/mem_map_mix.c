/* The dump's pages read straight into mappings of the pages file (engine/mem/dump-copy.c; the .desc sets
 * CRSHIM_DUMP_COPY=map: every buffer that way, not only while the writer is behind): a 72 MiB VMA (past
 * the 32 MiB window mapped at a time and the 64 MiB the file grows by), 16 MiB with every other 64 KiB
 * touched (holes between the blocks), a PROT_NONE VMA with data (read through /proc/PID/mem into the
 * mapping) and a read-only one. Every byte checked after the restore, the holes zero. */
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define BIG (72UL << 20)
#define HOLEY (16UL << 20)
#define STEP (64UL << 10)
#define NONE (1UL << 20)
#define RO (2UL << 20)

struct part {
	const char *what;
	size_t len;
	uint64_t seed; /* 0: filled by main itself */
	char *m;
};

static struct part parts[] = {{"the 72 MiB", BIG, 1, NULL},
			      {"the holey VMA", HOLEY, 0, NULL},
			      {"the PROT_NONE VMA", NONE, 2, NULL},
			      {"the read-only VMA", RO, 3, NULL}};

/* Map and fill each part; 0 or -1. */
static int setup(void)
{
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		struct part *p = &parts[i];
		p->m = mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->m == MAP_FAILED)
			return -1;
		if (p->seed)
			datagen(p->m, p->len, p->seed);
	}
	return 0;
}

/* Whether the len bytes at m are not those of seed (then failed, naming them what). */
static int differs(const char *what, const char *m, size_t len, uint64_t seed)
{
	size_t at;
	int bad = datachk(m, len, seed, &at) != 0;
	if (bad)
		fail("%s differs at %zu", what, at);
	return bad;
}

static int check_holey(const char *h)
{
	for (size_t i = 0; i < HOLEY / STEP; i++) {
		if (i % 2 == 0) {
			if (differs("a touched block", h + i * STEP, STEP, 10 + i))
				return -1;
			continue;
		}
		for (size_t j = 0; j < STEP; j += PAGE)
			if (h[i * STEP + j] || h[i * STEP + j + PAGE - 1]) {
				fail("hole at %zu not zero", i * STEP + j);
				return -1;
			}
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *holey, *none, *ro;
	int bad = 0;

	test_init(argc, argv);
	if (setup()) {
		fail("mmap");
		return 1;
	}
	holey = parts[1].m, none = parts[2].m, ro = parts[3].m;
	madvise(holey, HOLEY, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < HOLEY / STEP; i += 2)
		datagen(holey + i * STEP, STEP, 10 + i);
	if (mprotect(none, NONE, PROT_NONE) || mprotect(ro, RO, PROT_READ)) {
		fail("mprotect");
		return 1;
	}
	test_daemon();
	test_waitsig();

	if (mprotect(none, NONE, PROT_READ)) {
		fail("mprotect");
		return 1;
	}
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].seed)
			bad |= differs(parts[i].what, parts[i].m, parts[i].len, parts[i].seed);
	bad |= check_holey(holey);
	if (!bad)
		pass();
	return 0;
}
