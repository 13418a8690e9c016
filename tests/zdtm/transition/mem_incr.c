/* Memory that changes in every way between pre-dumps (mode snaps): pages written, dropped (MADV_DONTNEED),
 * a region unmapped and mapped again at the same place, a region grown with mremap (and moved), new VMAs made
 * and old ones unmapped, and a MAP_SHARED region written by a child process. Each page carries a stamp and
 * data derived from it; a model (in the same address space) says which stamp each page must have, so a page
 * restored from an older image of the chain (a stale parent page) is caught. An operation in progress when
 * the task was frozen is allowed to be half done (its pend* mark says which). */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NA 1024 /* region A: pages written and dropped */
#define NB 16	/* region B: unmapped and mapped again */
#define NC 64	/* region C: grown page by page with mremap, then shrunk */
#define ND 32	/* small new VMAs, two pages each */
#define NS 64	/* shared with the child */

static uint64_t *A, *B, *C, *D[ND], *S;
static uint64_t mA[NA], mB[NB], mC[NC], mD[ND][2];
static size_t nC = 1;
static volatile int pendA = -1, pendB, pendC, pendD = -1;
static uint64_t seq = 1;

static uint64_t *pg(uint64_t *base, size_t i)
{
	return base + i * (PAGE / 8);
}

static void stamp(uint64_t *p, uint64_t s)
{
	datagen(p + 1, PAGE - 8, s);
	p[0] = s;
}

/* 0: the page holds stamp s (s == 0: a zero page) */
static int page_is(const uint64_t *p, uint64_t s)
{
	size_t bad;
	if (!s) {
		for (size_t i = 0; i < PAGE / 8; i++)
			if (p[i])
				return -1;
		return 0;
	}
	return p[0] == s && !datachk(p + 1, PAGE - 8, s, &bad) ? 0 : -1;
}

static int check(void)
{
	for (size_t i = 0; i < NA; i++)
		if ((int)i != pendA && page_is(pg(A, i), mA[i])) { /* a page being written may be torn */
			fail("region A page %zu: stamp %lu, want %lu", i, (unsigned long)pg(A, i)[0],
			     (unsigned long)mA[i]);
			return -1;
		}
	for (size_t i = 0; !pendB && i < NB; i++)
		if (page_is(pg(B, i), mB[i])) {
			fail("region B (mapped again) page %zu: stamp %lu, want %lu", i,
			     (unsigned long)pg(B, i)[0], (unsigned long)mB[i]);
			return -1;
		}
	for (size_t i = 0; !pendC && i < nC; i++)
		if (page_is(pg(C, i), mC[i])) {
			fail("region C (mremap) page %zu of %zu: stamp %lu, want %lu", i, nC,
			     (unsigned long)pg(C, i)[0], (unsigned long)mC[i]);
			return -1;
		}
	for (int k = 0; k < ND; k++)
		for (int j = 0; D[k] && k != pendD && j < 2; j++)
			if (page_is(pg(D[k], j), mD[k][j])) {
				fail("new vma %d page %d: stamp %lu, want %lu", k, j,
				     (unsigned long)pg(D[k], j)[0], (unsigned long)mD[k][j]);
				return -1;
			}
	/* the child writes page n % NS (seq n, ~n in one word), then the header S[0] = n */
	uint64_t n = S[0];
	for (size_t i = 1; i < NS; i++) {
		uint64_t w = pg(S, i)[0];
		if (w && (w >> 32) != (~w & 0xffffffffull)) {
			fail("shared page %zu torn: %#lx", i, (unsigned long)w);
			return -1;
		}
	}
	if (n && n % NS && pg(S, n % NS)[0] != ((n << 32) | (~n & 0xffffffffull))) {
		fail("shared page %lu does not hold the child's last write %lu", (unsigned long)(n % NS),
		     (unsigned long)n);
		return -1;
	}
	return 0;
}

static void child(void)
{
	for (uint64_t n = 1;; n++) {
		if (n % NS)
			pg(S, n % NS)[0] = (n << 32) | (~n & 0xffffffffull);
		S[0] = n;
		usleep(1000);
	}
}

static void step(void)
{
	size_t i = (seq * 2654435761u) % NA;
	seq++;
	pendA = (int)i;
	mA[i] = seq;
	stamp(pg(A, i), seq);
	pendA = -1;
	if (seq % 16 == 0) { /* dropped: reads as zero */
		i = (seq * 40503u) % NA;
		pendA = (int)i;
		mA[i] = 0;
		madvise(pg(A, i), PAGE, MADV_DONTNEED);
		pendA = -1;
	}
	if (seq % 32 == 0) { /* unmapped and mapped again at the same place */
		pendB = 1;
		munmap(B, NB * PAGE);
		if (mmap(B, NB * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) != B)
			fail("mmap B again");
		memset(mB, 0, sizeof(mB));
		for (i = 0; i < 4; i++)
			stamp(pg(B, (seq + i) % NB), mB[(seq + i) % NB] = seq * 100 + i);
		pendB = 0;
	}
	if (seq % 8 == 0) { /* grown by a page (it may move), or back to one page */
		size_t n = nC < NC ? nC + 1 : 1;
		pendC = 1;
		void *c = mremap(C, nC * PAGE, n * PAGE, MREMAP_MAYMOVE);
		if (c == MAP_FAILED) {
			fail("mremap");
			return;
		}
		C = c, nC = n;
		if (n > 1)
			stamp(pg(C, n - 1), mC[n - 1] = seq * 1000);
		pendC = 0;
	}
	if (seq % 24 == 0) { /* a new VMA in slot k, the old one there unmapped */
		int k = (int)(seq / 24 % ND);
		pendD = k;
		if (D[k])
			munmap(D[k], 2 * PAGE);
		D[k] = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (D[k] == MAP_FAILED) {
			fail("mmap D");
			D[k] = NULL;
			return;
		}
		stamp(pg(D[k], 0), mD[k][0] = seq * 10 + 1);
		mD[k][1] = 0;
		pendD = -1;
	}
}

int main(int argc, char **argv)
{
	pid_t pid;
	int st;

	test_init(argc, argv);
	A = mmap(NULL, NA * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	B = mmap(NULL, NB * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	C = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	S = mmap(NULL, NS * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (A == MAP_FAILED || B == MAP_FAILED || C == MAP_FAILED || S == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	for (size_t i = 0; i < NA; i++)
		stamp(pg(A, i), mA[i] = 1000000 + i);
	pid = fork();
	if (pid < 0) {
		fail("fork");
		return 1;
	}
	if (!pid) {
		test_forked();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		child();
		_exit(0);
	}
	test_daemon();
	while (test_go()) {
		step();
		if (seq % 256 == 0 && check())
			break;
		usleep(500);
	}
	check();
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (!test_failures)
		test_msg("%lu steps", (unsigned long)seq);
	pass();
	return 0;
}
