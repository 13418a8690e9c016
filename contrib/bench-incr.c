/* bench-incr: the program `make bench` pre-dumps and dumps incrementally (contrib/bench-incr.sh).
 *
 * Usage: bench-incr MIB PERCENT DIR
 *
 * Fills MIB MiB of private anonymous memory (every page written), writes DIR/ready (its pid) and waits. On
 * SIGUSR1 it writes PERCENT % of its pages (spread evenly), then writes DIR/written. On SIGUSR2 (after a
 * restore) it checks every page against what it wrote and writes "OK" or "BAD page N" to DIR/result, then
 * exits. Start it detached (setsid) with stdio on /dev/null. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* close_range (the Makefile passes -D_GNU_SOURCE; a plain `cc` build needs it too) */
#endif
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile sig_atomic_t got1, got2;
static void on1(int s)
{
	(void)s;
	got1 = 1;
}
static void on2(int s)
{
	(void)s;
	got2 = 1;
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		exit(1);
	fputs(text, f);
	fclose(f);
	rename(tmp, path);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	size_t npages = (size_t)atol(argv[1]) << 8, step = 100 / (size_t)atol(argv[2]);
	const char *dir = argv[3];
	char buf[64];
	if (close_range(3, ~0U, 0) < 0)
		return 1;
	uint64_t *m = mmap(NULL, npages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < npages; i++)
		for (size_t w = 0; w < 512; w += 64)
			m[i * 512 + w] = i * 7 + w + 1;
	signal(SIGUSR1, on1);
	signal(SIGUSR2, on2);
	snprintf(buf, sizeof(buf), "%d\n", getpid());
	put(dir, "ready", buf);
	uint64_t gen = 0;
	for (;;) {
		pause();
		if (got1) {
			got1 = 0;
			gen++;
			for (size_t i = 0; i < npages; i += step)
				m[i * 512] = i * 7 + 1 + (gen << 40);
			put(dir, "written", "1\n");
		}
		if (got2) {
			for (size_t i = 0; i < npages; i++)
				for (size_t w = 0; w < 512; w += 64) {
					uint64_t want = i * 7 + w + 1;
					if (!w && i % step == 0)
						want += gen << 40;
					if (m[i * 512 + w] != want) {
						snprintf(buf, sizeof(buf), "BAD page %zu\n", i);
						put(dir, "result", buf);
						return 1;
					}
				}
			put(dir, "result", "OK\n");
			return 0;
		}
	}
}
