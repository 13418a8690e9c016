/* bench-tree N DIR [KIB [f]]: a tree of N processes (this one, up to 20 children, the rest grandchildren
 * spread over them), all asleep, each with KIB KiB of private memory of its own (written, distinct; default
 * 0); with f, each opens /dev/null itself as its fds 0-2 (N open file descriptions of one inode, as daemons
 * started by a shell have); writes DIR/ready once every process is there. Checkpointed by
 * contrib/bench-tree.sh. */
#include <fcntl.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t mem_kib;
static int own_files;

/* This process's private memory: written after the fork, so not shared with the parent. */
static void own_memory(void)
{
	if (own_files) {
		int fd = open("/dev/null", O_RDWR);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			exit(1);
		if (fd > 2)
			close(fd);
	}
	if (!mem_kib)
		return;
	size_t len = mem_kib << 10;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	unsigned x = (unsigned)getpid() * 2654435761u;
	for (size_t i = 0; i < len; i += 64) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (unsigned char)x;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, nch = 20;
	mem_kib = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
	own_files = argc > 4 && !strcmp(argv[4], "f");
	if (argc < 3 || n < 2) {
		fprintf(stderr, "usage: %s N DIR [KIB [f]]\n", argv[0]);
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
					own_memory();
					__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
					for (;;)
						pause();
				}
			own_memory();
			__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
			for (;;)
				pause();
		}
	}
	own_memory();
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
