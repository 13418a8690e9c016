/* A memfd mapped MAP_SHARED by a parent and its child (the child at an offset, and privately too, with a
 * copy-on-write change), its fd closed: after restore it is still one memfd with the same name, size and
 * seals, the contents are there, a write in one process is seen in the other, and the private mapping
 * keeps its own change. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ ((1UL << 20) + 100)
#define MAPLEN (1UL << 20)

/* size and seals of the memfd mapped at m */
static int memfd_facts(void *m, long long *size, int *seals)
{
	char path[96];
	struct stat st;
	unsigned long s = (unsigned long)m;
	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", s, s + MAPLEN);
	int fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	*size = st.st_size;
	*seals = fcntl(fd, F_GET_SEALS);
	close(fd);
	return 0;
}

/* the /proc/self/maps line of the mapping at m names name */
static int maps_has(void *m, const char *name)
{
	char *buf, key[32];
	int r = 0;
	if (read_file("/proc/self/maps", &buf) < 0)
		return 0;
	snprintf(key, sizeof(key), "%lx-", (unsigned long)m);
	for (char *p = buf; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (!strncmp(p, key, strlen(key)) && strstr(p, name))
			r = 1;
		p = nl ? nl + 1 : NULL;
	}
	free(buf);
	return r;
}

int main(int argc, char **argv)
{
	char l0[160], l[160];
	test_init(argc, argv);
	uint64_t seed = getpid() * 5ULL;
	int fd = memfd_create("zdtm-memfd", MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, SZ)) {
		fail("memfd");
		return 1;
	}
	char *m = mmap(NULL, MAPLEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	datagen(m, MAPLEN - PAGE, seed);
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW)) {
		fail("seals");
		return 1;
	}
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		char *o = mmap(NULL, MAPLEN - PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE);
		char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		close(fd);
		if (o == MAP_FAILED || p == MAP_FAILED)
			_exit(9);
		memcpy(p, "private-cow", 11);
		usr1_wait();
		int bad = datachk(m, MAPLEN - PAGE, seed, NULL) != 0;
		bad |= memcmp(o, m + PAGE, MAPLEN - 2 * PAGE) != 0; /* o: from offset PAGE */
		bad |= memcmp(p, "private-cow", 11) || memcmp(p + PAGE, m + PAGE, PAGE);
		if (wait_byte(o + MAPLEN - 2 * PAGE + 8, 'P'))
			bad |= 2;
		o[16] = 'C'; /* offset PAGE + 16 */
		if (memcmp(p, "private-cow", 11))
			bad |= 4;
		_exit(bad);
	}
	close(fd);
	if (ch < 0)
		return 1; /* test_fork failed the test */
	vma_info(m, l0, sizeof(l0), NULL, 0);
	test_daemon();
	test_waitsig();

	long long size;
	int seals;
	if (vma_info(m, l, sizeof(l), NULL, 0) || strcmp(l, l0))
		fail("mapping '%s', want '%s'", l, l0);
	if (!maps_has(m, "/memfd:zdtm-memfd (deleted)"))
		fail("not the memfd any more");
	if (datachk(m, MAPLEN - PAGE, seed, NULL))
		fail("contents differ");
	if (memfd_facts(m, &size, &seals))
		fail("open map_files");
	else if (size != (long long)SZ || seals != (F_SEAL_SHRINK | F_SEAL_GROW))
		fail("size %lld seals %#x, want %lu %#x", size, seals, SZ, F_SEAL_SHRINK | F_SEAL_GROW);
	kill(ch, SIGUSR1);
	m[MAPLEN - PAGE + 8] = 'P';
	if (wait_byte(m + PAGE + 16, 'C'))
		fail("the child's write is not seen: not one memfd");
	child_exit_ok(ch, "1 contents, 2 parent's write not seen, 4 private");
	return test_pass();
}
