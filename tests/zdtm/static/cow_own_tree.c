/* A tree whose processes each hold private memory of their own besides what they share with their parent
 * (the way engine/mem/restore-cow.c's rst_cow_own fills a process's own large VMAs itself, before the blob,
 * through a userfaultfd). The parent fills 2 MiB (S) and forks three children, the first of which forks a
 * grandchild; each child writes 16 pages of S of its own after the fork, the grandchild one; then every
 * process (the parent too) maps 512 KiB of its own (O, at the same address in each: mmap after the forks)
 * and writes every other run of 8 pages of it, with contents of its own. After the restore each process
 * checks S (its pages, the rest the parent's), that at least 1.5 MiB of S are still shared copy on write
 * (Shared_Dirty), O's contents (the runs not written read as zeros), that none of O is shared and that the
 * Rss of O's VMA is what it was (the holes are not filled in). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (2UL << 20)
#define OWN (512UL << 10)
#define RUN (8 * PAGE)
#define SHARED_MIN_KB 1536L
#define NCHILD 3

static uint64_t seed;

/* Process w (0 the parent, 1-3 the children, 4 the grandchild) wrote pages [16 (w + 3), 16 (w + 4)) of S
 * (the grandchild page 200): not the first 64 KiB, which decide whether a child keeps what it inherits
 * (restore-cow.c, COW_SAMPLE). */
static int s_mine(int w, size_t pg)
{
	if (w == 4)
		return pg == 200;
	return w > 0 && pg >= 16 * (size_t)(w + 3) && pg < 16 * (size_t)(w + 4);
}

static void s_write(char *s, int w)
{
	for (size_t pg = 0; pg < SZ / PAGE; pg++)
		if (s_mine(w, pg))
			datagen(s + pg * PAGE, PAGE, seed + 1000 + (uint64_t)w * 100 + pg);
}

static int s_ok(const char *s, int w)
{
	for (size_t pg = 0; pg < SZ / PAGE; pg++)
		if (s_mine(w, pg) ? datachk(s + pg * PAGE, PAGE, seed + 1000 + (uint64_t)w * 100 + pg, NULL)
				  : datachk(s + pg * PAGE, PAGE, seed + pg, NULL))
			return 0;
	return 1;
}

/* len bytes of private anonymous memory with a hole on each side (no VMA merged with it), or NULL. */
static char *map_apart(size_t len)
{
	char *m = mmap(NULL, len + 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m, PAGE) || munmap(m + PAGE + len, PAGE))
		return NULL;
	return m + PAGE;
}

/* O of process w: the even runs written, the odd ones never touched. */
static char *o_make(int w)
{
	char *o = map_apart(OWN);
	if (!o)
		return NULL;
	for (size_t r = 0; r < OWN / RUN; r += 2)
		datagen(o + r * RUN, RUN, seed + 5000 + (uint64_t)w * 1000 + r);
	return o;
}

static const char zero[RUN];
static long o_rss; /* the Rss of O's VMA (it may be merged with a neighbour) before the dump */

/* Rss first: reading a run never written maps a page of zeros, which some kernels count in Rss (a VM whose
 * kernel runs with pvm_no_zero_page=1 gives each such read a page of its own). */
static int o_ok(const char *o, int w, const char **why)
{
	if (vma_smaps_kb(0, o, "Rss") != o_rss)
		return *why = "its own memory's Rss is not what it was", 0;
	if (vma_smaps_kb(0, o, "Shared_Dirty") != 0 || vma_smaps_kb(0, o, "Shared_Clean") != 0)
		return *why = "its own memory is shared", 0;
	for (size_t r = 0; r < OWN / RUN; r++)
		if (r % 2 ? memcmp(o + r * RUN, zero, RUN)
			  : datachk(o + r * RUN, RUN, seed + 5000 + (uint64_t)w * 1000 + r, NULL))
			return *why = "its own memory differs", 0;
	return 1;
}

/* A process of the tree after its SIGUSR1: its checks, as its exit code (1 S, 2 O, 3 its child). */
static int proc_check(const char *s, const char *o, int w, pid_t kid)
{
	const char *why = "";
	int ret = 0, st;
	if (kid > 0) {
		kill(kid, SIGUSR1);
		if (waitpid(kid, &st, 0) != kid || !WIFEXITED(st) || WEXITSTATUS(st))
			ret = 3;
	}
	if (!s_ok(s, w))
		ret = 1;
	else if (!o_ok(o, w, &why))
		ret = 2;
	if (ret == 2)
		test_msg("process %d: %s (Rss %ld kB, was %ld kB)\n", w, why, vma_smaps_kb(0, o, "Rss"),
			 o_rss);
	if (vma_smaps_kb(0, s, "Shared_Dirty") < SHARED_MIN_KB)
		ret = 1;
	return ret;
}

static pid_t fork_one(char *s, int w, int with_kid)
{
	int pfd[2];
	if (pipe(pfd))
		return -1;
	pid_t ch = test_fork();
	if (ch)
		return ch < 0 || child_started(pfd) ? -1 : ch;
	pid_t kid = with_kid ? fork_one(s, 4, 0) : 0;
	s_write(s, w);
	char *o = o_make(w);
	o_rss = o ? vma_smaps_kb(0, o, "Rss") : -1;
	if (kid < 0 || !o || o_rss < (long)(OWN / 2 / 1024) || child_ready(pfd))
		_exit(5);
	usr1_wait();
	_exit(proc_check(s, o, w, kid));
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	seed = getpid() * 7919ULL;
	char *s = map_apart(SZ);
	pid_t ch[NCHILD];
	if (!s) {
		fail("mmap");
		return 1;
	}
	for (size_t pg = 0; pg < SZ / PAGE; pg++)
		datagen(s + pg * PAGE, PAGE, seed + pg);
	usr1_block();
	for (int i = 0; i < NCHILD; i++)
		if ((ch[i] = fork_one(s, i + 1, i == 0)) < 0) {
			fail("child not ready");
			return 1;
		}
	char *o = o_make(0);
	o_rss = o ? vma_smaps_kb(0, o, "Rss") : -1;
	if (!o || o_rss < (long)(OWN / 2 / 1024)) {
		fail("mmap own");
		return 1;
	}
	vma_shared_ok(0, s, SHARED_MIN_KB, "parent (before)");
	test_daemon();
	test_waitsig();

	const char *why = "";
	if (!s_ok(s, 0))
		fail("the parent's shared memory differs");
	if (!o_ok(o, 0, &why))
		fail("parent: %s", why);
	vma_shared_ok(0, s, SHARED_MIN_KB, "parent");
	for (int i = 0; i < NCHILD; i++)
		vma_shared_ok(ch[i], s, SHARED_MIN_KB, "child");
	for (int i = 0; i < NCHILD; i++) {
		kill(ch[i], SIGUSR1);
		child_exit_ok(ch[i],
			      "1: S differs or is not shared, 2: its own memory, 3: its child's check");
	}
	return test_pass();
}
