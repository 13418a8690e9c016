/* Guard pages (madvise MADV_GUARD_INSTALL, Linux 6.13+; told by PAGEMAP_SCAN since 6.14) among pages with
 * data: in an anonymous mapping (pages 1-2, and 4 with MADV_WIPEONFORK), a private file mapping (its pages 0
 * and 3; the others written) and a 16 MiB anonymous mapping (one page in the middle, the dump scans it a
 * step at a time as it copies). After restore the same pages are guard pages (pagemap bit 58, and a write
 * to each faults), the others keep their data, and a child forked then has the guards but the
 * MADV_WIPEONFORK one (CRIU's maps12). Before, the dump failed: "guard pages ... not supported yet". */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

static sigjmp_buf jb;
static long ps;

static void on_segv(int s)
{
	(void)s;
	siglongjmp(jb, 1);
}

/* 1 if a write to p faults. */
static int faults(volatile char *p)
{
	if (sigsetjmp(jb, 1))
		return 1;
	char v = p[0]; /* (the same data written back) */
	p[0] = v;
	return 0;
}

/* pagemap bit 58: a guard region's page */
static int guard_bit(int pm, const char *p)
{
	uint64_t e = 0;
	if (pread(pm, &e, 8, (off_t)((uintptr_t)p / (uintptr_t)ps * 8)) != 8)
		return -1;
	return (int)(e >> 58 & 1);
}

static struct {
	char *base;
	int npages;
	const char *guards; /* per page: 'g' guard, 'w' guard and MADV_WIPEONFORK, '.' data */
} maps[3];

/* the data pages written (those of the big map only here and there: the rest reads as zeros) */
static int written(int m, int i)
{
	return m < 2 || i % 64 == 0 || i == 2047 || i == 2049;
}

/* 0 if every page is as it should be (in_child: after fork, the 'w' guards gone and their pages zero) */
static int check(int pm, int in_child)
{
	int bad = 0;
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < maps[m].npages; i++) {
			char *p = maps[m].base + (long)i * ps, g = maps[m].guards[i];
			int want = g == 'g' || (g == 'w' && !in_child);
			if (guard_bit(pm, p) != want || faults(p) != want) {
				test_msg("map %d page %d: guard bit %d, faults %d, want %d\n", m, i,
					 guard_bit(pm, p), faults(p), want);
				bad++;
			} else if (g == '.' &&
				   (p[0] != (written(m, i) ? (char)('a' + m) : 0) || p[ps - 1] != p[0])) {
				test_msg("map %d page %d lost its data\n", m, i);
				bad++;
			}
		}
	return bad;
}

static int child_check(void)
{
	pid_t c = fork();
	if (c == 0) {
		int pm = open("/proc/self/pagemap", O_RDONLY);
		_exit(pm < 0 || check(pm, 1) ? 1 : 0);
	}
	int st = 0;
	return c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	static const char g0[] = ".gg.w.", g1[] = "g..g";
	static char g2[4096 + 1];
	ps = sysconf(_SC_PAGESIZE);
	test_init(argc, argv);
	int fd = open("maps_guard.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4 * ps))
		fail("test file");
	maps[0].base = mmap(NULL, 6 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	maps[1].base = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	maps[2].base = mmap(NULL, 4096 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (maps[0].base == MAP_FAILED || maps[1].base == MAP_FAILED || maps[2].base == MAP_FAILED)
		fail("mmap");
	memset(g2, '.', 4096);
	g2[2048] = 'g';
	maps[0].npages = 6, maps[0].guards = g0;
	maps[1].npages = 4, maps[1].guards = g1;
	maps[2].npages = 4096, maps[2].guards = g2;
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < maps[m].npages; i++) {
			char *p = maps[m].base + (long)i * ps, g = maps[m].guards[i];
			if (g == '.' && written(m, i))
				memset(p, 'a' + m, (size_t)ps);
			if (g == 'w' && madvise(p, (size_t)ps, MADV_WIPEONFORK))
				fail("MADV_WIPEONFORK");
			if (g != '.' && madvise(p, (size_t)ps, MADV_GUARD_INSTALL))
				test_skip("madvise(MADV_GUARD_INSTALL) on map %d: %m", m);
		}
	int pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0 || guard_bit(pm, maps[0].base + ps) != 1)
		test_skip("pagemap tells no guard pages (Linux 6.14+)");
	signal(SIGSEGV, on_segv);
	if (check(pm, 0) || child_check())
		fail("setup: the guard pages are not as made");
	test_daemon();
	test_waitsig();

	if (check(pm, 0))
		fail("after the restore the guard pages or the data are not as before");
	if (child_check())
		fail("after the restore a child's guard pages are not as they should be");
	return test_pass();
}
