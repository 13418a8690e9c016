/* The dump's pages through the task's code (engine/mem/dump-splice.c) in a mix: 24 MiB in a row, 8 MiB with
 * every other page touched (over a thousand blocks: several runs of the code), a PROT_NONE VMA with data
 * (crshim reads it through /proc/PID/mem, between the others), a read-only one, and a second thread asleep.
 * Every byte checked after the restore. */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define ROW (24UL << 20)
#define SPARSE (8UL << 20)
#define NONE (1UL << 20)
#define RO (2UL << 20)

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static char *map(size_t len)
{
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static int check(const char *what, const char *m, size_t len, uint64_t seed)
{
	size_t bad;
	if (!datachk(m, len, seed, &bad))
		return 0;
	fail("%s differs at %zu", what, bad);
	return -1;
}

int main(int argc, char **argv)
{
	pthread_t th;
	char *row, *sp, *none, *ro;
	size_t i;
	int bad = 0;

	test_init(argc, argv);
	row = map(ROW), sp = map(SPARSE), none = map(NONE), ro = map(RO);
	if (!row || !sp || !none || !ro) {
		fail("mmap");
		return 1;
	}
	madvise(sp, SPARSE, MADV_NOHUGEPAGE);
	datagen(row, ROW, 1);
	for (i = 0; i < SPARSE / PAGE; i += 2)
		datagen(sp + i * PAGE, PAGE, 100 + i);
	datagen(none, NONE, 2);
	datagen(ro, RO, 3);
	if (mprotect(none, NONE, PROT_NONE) || mprotect(ro, RO, PROT_READ) ||
	    pthread_create(&th, NULL, sleeper, NULL)) {
		fail("mprotect or pthread_create");
		return 1;
	}
	test_daemon();
	test_waitsig();

	bad |= check("the 24 MiB", row, ROW, 1);
	for (i = 0; i < SPARSE / PAGE && !bad; i++) {
		const uint64_t *q = (const uint64_t *)(sp + i * PAGE);
		if (i % 2 == 0)
			bad |= check("a touched page", sp + i * PAGE, PAGE, 100 + i);
		else if (q[0] || q[PAGE / 8 - 1])
			bad = 1, fail("untouched page %zu not zero", i);
	}
	bad |= check("the read-only VMA", ro, RO, 3);
	if (mprotect(none, NONE, PROT_READ))
		bad = 1, fail("mprotect");
	else
		bad |= check("the PROT_NONE VMA", none, NONE, 2);
	if (!bad)
		pass();
	return 0;
}
