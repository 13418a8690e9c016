/* A big tree: --n=N processes (default 100; the root, up to 20 children, the rest grandchildren), each
 * asleep. After restore every process is there with the same PID and parent (compared with a table the
 * tree wrote into shared memory before the dump), and the tree ends cleanly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

struct ent {
	int pid, ppid;
};

static int ppid_of(pid_t pid)
{
	char path[64], *buf;
	int ppid = -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, &buf) < 0)
		return -1;
	char *p = strrchr(buf, ')');
	if (p)
		sscanf(p + 2, "%*c %d", &ppid);
	free(buf);
	return ppid;
}

__attribute__((noreturn)) static void sleeper(void)
{
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const char *o;
	int n = 100, nch = 20;
	test_init(argc, argv);
	if ((o = test_opt("n")) && *o)
		n = atoi(o);
	if (n < 2)
		n = 2;
	if (nch > n - 1)
		nch = n - 1;
	struct ent *tab =
	    mmap(NULL, (size_t)n * sizeof(*tab), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	volatile int *count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tab == MAP_FAILED || (void *)count == MAP_FAILED)
		fail("mmap");
	int per = (n - 1 - nch + nch - 1) / nch; /* grandchildren per child */
	int idx = 1;
	for (int c = 0; c < nch; c++) {
		int my = idx++;
		int ngc = per;
		if (idx + ngc > n)
			ngc = n - idx;
		int first = idx;
		idx += ngc;
		pid_t p = test_fork();
		if (p == 0) {
			tab[my] = (struct ent){getpid(), getppid()};
			for (int g = 0; g < ngc; g++) {
				pid_t q = fork();
				if (q == 0) {
					tab[first + g] = (struct ent){getpid(), getppid()};
					__sync_fetch_and_add(count, 1);
					sleeper();
				}
			}
			__sync_fetch_and_add(count, 1);
			sleeper();
		}
	}
	tab[0] = (struct ent){getpid(), getppid()};
	while (*count < n - 1)
		usleep(10000);
	test_daemon();
	test_waitsig();
	int bad = 0;
	for (int i = 1; i < n; i++) {
		int pp = ppid_of(tab[i].pid);
		if (pp != tab[i].ppid && bad++ < 5)
			fail("task %d: parent %d, want %d", tab[i].pid, pp, tab[i].ppid);
	}
	for (int i = 1; i < n; i++)
		kill(tab[i].pid, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0)
		;
	return test_pass();
}
