/* Processes keep writing one shared anonymous object while the dump runs: the parent and two children
 * each rewrite their own part of it in sweeps (every word of sweep g holds g; the rest of the part must
 * still hold g-1), and the generation each is at lives in its private memory. After restore every part is
 * one consistent sweep that matches what its writer remembers (the object was dumped once, with all the
 * writers frozen), and the object is still shared: the parent stops the children through it and reads
 * their last generation from it. */
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NW 3
#define WORDS (128 * 1024)

struct ctl {
	volatile int stop;
	volatile uint64_t final[NW];
	volatile int done[NW];
};

static struct ctl *ctl;
static uint64_t *part[NW];

/* Sweeps until *stop (or the parent is gone); returns the last complete generation, 0 if a check failed. */
static uint64_t churn(volatile uint64_t *buf, volatile int *stop, pid_t parent)
{
	uint64_t g = 1;
	for (;;) {
		if (getppid() != parent)
			return 0; /* a parent that failed and exited: do not spin forever */
		for (size_t i = 0; i < WORDS; i++) {
			if (buf[i] != g - 1)
				return 0;
			buf[i] = g;
		}
		for (size_t i = 0; i < WORDS; i++)
			if (buf[i] != g)
				return 0;
		if (*stop)
			return g;
		g++;
	}
}

static int wait_for(const volatile int *p)
{
	for (int i = 0; i < 10000; i++) {
		if (*p)
			return 0;
		usleep(1000);
	}
	return -1;
}

int main(int argc, char **argv)
{
	pid_t ch[NW];
	test_init(argc, argv);
	size_t len = PAGE + NW * WORDS * sizeof(uint64_t);
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	ctl = (struct ctl *)m;
	for (int w = 0; w < NW; w++)
		part[w] = (uint64_t *)(m + PAGE) + (size_t)w * WORDS;
	for (int w = 1; w < NW; w++) {
		ch[w] = fork();
		if (ch[w] == 0) {
			test_forked();
			uint64_t g = churn(part[w], &ctl->stop, getppid());
			ctl->final[w] = g;
			ctl->done[w] = 1;
			_exit(g ? 0 : 1);
		}
		if (ch[w] < 0) {
			fail("fork");
			return 1;
		}
	}
	test_daemon();
	/* the parent churns too; test_go() turns 0 at SIGTERM */
	uint64_t g = 1;
	for (;;) {
		for (size_t i = 0; i < WORDS; i++) {
			if (part[0][i] != g - 1) {
				fail("the parent's part: word %zu is %llu, want %llu", i,
				     (unsigned long long)part[0][i], (unsigned long long)(g - 1));
				g = 0;
				break;
			}
			part[0][i] = g;
		}
		if (!g || !test_go())
			break;
		g++;
	}
	ctl->stop = 1;
	for (int w = 1; w < NW; w++) {
		int st;
		if (wait_for(&ctl->done[w]))
			fail("child %d did not stop: the object is not shared with it any more", w);
		if (waitpid(ch[w], &st, 0) != ch[w] || !WIFEXITED(st) || WEXITSTATUS(st))
			fail("child %d: status %#x (its part was not one consistent sweep)", w, st);
		for (size_t i = 0; i < WORDS && ctl->done[w]; i++)
			if (part[w][i] != ctl->final[w]) {
				fail("child %d's part: word %zu is %llu, the child says %llu", w, i,
				     (unsigned long long)part[w][i], (unsigned long long)ctl->final[w]);
				break;
			}
	}
	if (!test_failures)
		pass();
	return 0;
}
