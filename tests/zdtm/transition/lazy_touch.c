/* Memory touched by threads and forked children all the time, made for restore --lazy-pages (mode lazy):
 * after the restore the pages come in on demand while the task runs. A 64 MiB region of known data is
 * read at random pages by three threads, each of which also rewrites a buffer of its own in stamped
 * sweeps; the main thread forks a child every few milliseconds that checks random pages of the region in
 * its copy (fork after restore: the child's missing pages come from the daemon too), and moves a scratch
 * region back and forth with mremap and drops a page of it with MADV_DONTNEED (the daemon's remap and
 * remove events), checking it each time. Everything is checked again at SIGTERM. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NP (16384UL) /* 64 MiB of known data */
#define NTHR 3
#define WP 256 /* pages of each thread's own buffer */
#define SP 512 /* pages of the scratch region */

static char *reg;
static volatile int stop;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int check_page(size_t i)
{
	size_t bad;
	if (datachk(reg + i * PAGE, PAGE, 7000 + i, &bad)) {
		fail("region page %zu differs at %zu", i, bad);
		return -1;
	}
	return 0;
}

struct thr {
	pthread_t th;
	uint64_t *buf;
	uint64_t seed, reads, sweeps;
	int bad;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	size_t words = WP * PAGE / 8;
	for (uint64_t g = 1; !stop; g++) {
		for (size_t i = 0; i < words; i++) {
			if (t->buf[i] != g - 1) {
				fail("thread buffer word %zu: %lu in sweep %lu", i, (unsigned long)t->buf[i],
				     (unsigned long)g);
				t->bad = 1;
				return NULL;
			}
			t->buf[i] = g;
			if ((i & 1023) == 0) {
				if (check_page(rnd(&t->seed) % NP)) {
					t->bad = 1;
					return NULL;
				}
				t->reads++;
			}
		}
		t->sweeps++;
	}
	return NULL;
}

static int check_scratch(const char *s, size_t dropped)
{
	size_t bad;
	for (size_t i = 0; i < SP; i++) {
		if (i == dropped) {
			const uint64_t *q = (const uint64_t *)(s + i * PAGE);
			for (size_t k = 0; k < PAGE / 8; k++)
				if (q[k]) {
					fail("scratch page %zu: not zero after MADV_DONTNEED", i);
					return -1;
				}
			continue;
		}
		if (datachk(s + i * PAGE, PAGE, 90000 + i, &bad)) {
			fail("scratch page %zu differs at %zu", i, bad);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct thr th[NTHR];
	char *s, *alt;
	uint64_t seed = 88172645463325252ull, forks = 0, moves = 0;
	size_t dropped = SP;

	test_init(argc, argv);
	reg = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s = mmap(NULL, SP * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	alt = mmap(NULL, SP * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reg == MAP_FAILED || s == MAP_FAILED || alt == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	for (size_t i = 0; i < NP; i++)
		datagen(reg + i * PAGE, PAGE, 7000 + i);
	for (size_t i = 0; i < SP; i++)
		datagen(s + i * PAGE, PAGE, 90000 + i);
	for (int k = 0; k < NTHR; k++) {
		th[k] = (struct thr){.seed = 1000003ull * (k + 1), .bad = 0};
		th[k].buf = mmap(NULL, WP * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (th[k].buf == MAP_FAILED || pthread_create(&th[k].th, NULL, thr_main, &th[k])) {
			fail("thread %d", k);
			return 1;
		}
	}
	test_daemon();
	while (test_go() && !test_failures) {
		pid_t p = fork();
		if (p == 0) { /* the child's own copy: random pages of the region, and the scratch region */
			uint64_t cs = seed ^ (uint64_t)getpid();
			for (int i = 0; i < 64; i++)
				if (check_page(rnd(&cs) % NP))
					_exit(1);
			_exit(check_scratch(s, dropped) ? 2 : 0);
		}
		int st = 0;
		pid_t w = -1;
		while (p > 0 && (w = waitpid(p, &st, 0)) < 0 && errno == EINTR)
			;
		if (p < 0 || w != p || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fail("a forked child found bad memory (status 0x%x)", p < 0 ? -1 : st);
			break;
		}
		forks++;
		/* move the scratch region to the other place and back (its old place reserved again) */
		char *n = mremap(s, SP * PAGE, SP * PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, alt);
		if (n == MAP_FAILED) {
			fail("mremap");
			break;
		}
		alt = mmap(s, SP * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
			   -1, 0);
		s = n;
		if (alt == MAP_FAILED || check_scratch(s, dropped))
			break;
		if (dropped < SP) /* the dropped page gets its data back, another one goes */
			datagen(s + dropped * PAGE, PAGE, 90000 + dropped);
		dropped = rnd(&seed) % SP;
		madvise(s + dropped * PAGE, PAGE, MADV_DONTNEED);
		moves++;
		usleep(5000);
	}
	stop = 1;
	for (int k = 0; k < NTHR; k++) {
		pthread_join(th[k].th, NULL);
		if (th[k].bad)
			return 1;
	}
	for (size_t i = 0; i < NP && !test_failures; i++)
		check_page(i);
	if (!test_failures)
		check_scratch(s, dropped);
	test_msg("%lu forks, %lu moves, %lu random reads", (unsigned long)forks, (unsigned long)moves,
		 (unsigned long)(th[0].reads + th[1].reads + th[2].reads));
	pass();
	return 0;
}
