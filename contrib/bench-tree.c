/* bench-tree N DIR: a tree of N processes (this one, up to 20 children, the rest grandchildren spread over
 * them), all asleep; writes DIR/ready once every process is there. Checkpointed by contrib/bench-tree.sh. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, nch = 20;
	if (argc < 3 || n < 2) {
		fprintf(stderr, "usage: %s N DIR\n", argv[0]);
		return 2;
	}
	if (nch > n - 1)
		nch = n - 1;
	volatile int *count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if ((void *)count == MAP_FAILED)
		return 1;
	int rest = n - 1 - nch;
	for (int c = 0; c < nch; c++) {
		int ngc = rest / nch + (c < rest % nch);
		if (fork() == 0) {
			for (int g = 0; g < ngc; g++)
				if (fork() == 0) {
					__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
					for (;;)
						pause();
				}
			__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
			for (;;)
				pause();
		}
	}
	while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < n - 1)
		usleep(1000);
	char path[4096];
	snprintf(path, sizeof(path), "%s/ready", argv[2]);
	FILE *f = fopen(path, "w");
	if (!f || fclose(f))
		return 1;
	for (;;)
		pause();
}
