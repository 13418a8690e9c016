/* VMAs of 8 MiB and more, whose pages the dump finds only as its copy comes to them (dump-mm.c cur_run, a
 * step of 32 MiB at a time): an anonymous one of 40 MiB with every third page written, across the steps; two
 * of 10 MiB back to back (RW, then R); one of 12 MiB made PROT_NONE after it was written (read through
 * /proc/PID/mem); a private file mapping of 16 MiB with every fourth page written (only those are its own,
 * the rest still shows the file). All contents and layouts survive. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zdtmtst.h"

#define MIB (1UL << 20)
#define SPARSE (40 * MIB)
#define PAIR (10 * MIB)
#define NONE (12 * MIB)
#define FILESZ (16 * MIB)

static void *map(size_t len, int prot, int flags, int fd)
{
	void *p = mmap(NULL, len, prot, flags, fd, 0);
	if (p == MAP_FAILED) {
		fail("mmap %zu", len);
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	char *sp, *pair, *none, *fm, *buf, lines[4][96], l[96];
	uint64_t seed;
	size_t i, bad;
	int fd;

	test_init(argc, argv);
	seed = getpid() * 13ULL;
	sp = map(SPARSE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	for (i = 0; i < SPARSE / PAGE; i += 3)
		datagen(sp + i * PAGE, PAGE, seed + i);
	pair = map(2 * PAIR, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	datagen(pair, 2 * PAIR, seed + 1);
	if (mprotect(pair + PAIR, PAIR, PROT_READ))
		fail("mprotect pair");
	none = map(NONE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	datagen(none, NONE, seed + 2);
	if (mprotect(none, NONE, PROT_NONE))
		fail("mprotect none");
	fd = open("mem_big_vmas.data", O_RDWR | O_CREAT | O_TRUNC, 0644);
	buf = malloc(FILESZ);
	if (fd < 0 || !buf) {
		fail("open");
		return 1;
	}
	datagen(buf, FILESZ, seed + 3);
	if (write(fd, buf, FILESZ) != (ssize_t)FILESZ)
		fail("write");
	fm = map(FILESZ, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd);
	close(fd);
	for (i = 0; i < FILESZ / PAGE; i++) /* every page read (page cache), every fourth written (its own) */
		if (i % 4 == 0)
			datagen(fm + i * PAGE, PAGE, seed + 5000 + i);
		else if (memcmp(fm + i * PAGE, buf + i * PAGE, PAGE))
			fail("setup: file page %zu", i);
	vma_info(sp, lines[0], sizeof(lines[0]), NULL, 0);
	vma_info(pair + PAIR, lines[1], sizeof(lines[1]), NULL, 0);
	vma_info(none, lines[2], sizeof(lines[2]), NULL, 0);
	vma_info(fm, lines[3], sizeof(lines[3]), NULL, 0);
	test_daemon();
	test_waitsig();

	char *at[] = {sp, pair + PAIR, none, fm};
	for (i = 0; i < 4; i++)
		if (vma_info(at[i], l, sizeof(l), NULL, 0) || strcmp(l, lines[i]))
			fail("vma %zu: '%s', want '%s'", i, l, lines[i]);
	for (i = 0; i < SPARSE / PAGE; i++) {
		static const char zero[PAGE];
		if (i % 3 ? memcmp(sp + i * PAGE, zero, PAGE) != 0
			  : datachk(sp + i * PAGE, PAGE, seed + i, &bad))
			fail("sparse page %zu differs", i);
	}
	if (datachk(pair, 2 * PAIR, seed + 1, &bad))
		fail("pair differs at %#zx", bad);
	if (mprotect(none, NONE, PROT_READ) || datachk(none, NONE, seed + 2, &bad))
		fail("PROT_NONE mapping differs at %#zx", bad);
	for (i = 0; i < FILESZ / PAGE; i++)
		if (i % 4 == 0 ? datachk(fm + i * PAGE, PAGE, seed + 5000 + i, &bad) != 0
			       : memcmp(fm + i * PAGE, buf + i * PAGE, PAGE) != 0)
			fail("file mapping page %zu differs", i);
	pass();
	return 0;
}
