/* hugetlb memory of every kind (CRIU's maps09, maps10, shm-hugetlb, memfd02-hugetlb): private and shared
 * anonymous MAP_HUGETLB memory in a parent and its child (the child wrote its copy of one private mapping
 * and reads the parent's data in another), a System V SHM_HUGETLB segment and an MFD_HUGETLB memfd mapped
 * shared and privately (its fd kept), and one held as an fd only; a SysV hugetlb segment nobody attaches.
 * After restore: the contents, each range still in huge pages (KernelPageSize) on the same device as before,
 * the shared ones still shared (a write of the child is seen by the parent, a write to the memfd by its
 * private mapping). The huge pages are reserved before the test (vm.nr_hugepages raised if fewer are free,
 * given back at the end); it skips when none can be had. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define HP (2ul << 20)
#define NEED 14 /* huge pages: 8 before the dump, 9 after the restore, some slack */
#define NR "/proc/sys/vm/nr_hugepages"

static long read_long(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!key ? sscanf(line, "%ld", &v) == 1 : !strncmp(line, key, strlen(key)))
			v = key ? strtol(line + strlen(key), NULL, 10) : v;
	if (f)
		fclose(f);
	return v;
}

static int write_long(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY), n = snprintf(buf, sizeof(buf), "%ld", v);
	int r = fd >= 0 && write(fd, buf, (size_t)n) == n ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return r;
}

/* Huge pages added to the pool by this test (given back at the end). */
static long reserve(void)
{
	long free = read_long("/proc/meminfo", "HugePages_Free:"), nr = read_long(NR, NULL);
	if (free >= NEED)
		return 0;
	if (nr < 0 || write_long(NR, nr + NEED - free) ||
	    read_long("/proc/meminfo", "HugePages_Free:") < NEED) {
		if (nr >= 0)
			write_long(NR, nr);
		return -1;
	}
	return NEED - free;
}

/* The mapping of addr: its device (maps) and KernelPageSize in KiB (smaps). */
static int mapping_of(void *addr, unsigned *maj, unsigned *min, long *kps)
{
	char line[512];
	unsigned long s, e, a = (unsigned long)addr;
	int in = 0, found = 0;
	FILE *f = fopen("/proc/self/smaps", "r");
	*kps = -1;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %*s %*s %x:%x", &s, &e, maj, min) == 4) {
			in = a >= s && a < e;
			found |= in;
			continue;
		}
		if (in && !strncmp(line, "KernelPageSize:", 15))
			*kps = strtol(line + 15, NULL, 10);
	}
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

struct area {
	const char *name;
	void *p;
	unsigned maj, min;
};

static int child(uint8_t *p, uint8_t *q, volatile uint8_t *s, int ctl, int ready)
{
	char c;
	test_forked();
	datagen(p, HP, 12); /* its own copy */
	if (write(ready, "r", 1) != 1 || read(ctl, &c, 1) != 1)
		return 1;
	if (datachk(p, HP, 12, NULL) || datachk(q, HP, 3, NULL) || datachk((void *)s, HP / 2, 4, NULL))
		return 2;
	s[HP - 1] = 0x5a; /* the parent must see it */
	return 0;
}

int main(int argc, char **argv)
{
	long added = reserve();
	int ctl[2], rdy[2], st = 0, id, mfd;
	pid_t ch;

	test_init(argc, argv);
	if (added < 0)
		test_skip("no %d huge pages of 2 MiB free and vm.nr_hugepages cannot be raised", NEED);
	int pa = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, sa = MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB;
	uint8_t *p = mmap(NULL, HP, PROT_READ | PROT_WRITE, pa, -1, 0);
	uint8_t *q = mmap(NULL, HP, PROT_READ | PROT_WRITE, pa, -1, 0);
	volatile uint8_t *s = mmap(NULL, HP, PROT_READ | PROT_WRITE, sa, -1, 0);
	/* SHM_HUGETLB needs CAP_IPC_LOCK of the first user namespace (or vm.hugetlb_shm_group): not in uns */
	id = shmget(IPC_PRIVATE, HP, IPC_CREAT | SHM_HUGETLB | 0600);
	uint8_t *y = id < 0 ? (void *)-1 : shmat(id, NULL, 0);
	/* and one no process attaches, of a size that is no multiple of its pages (mode ns: the tree's own
	 * IPC namespace, where the dump saves it through an attach of its own) */
	int did = shmget(IPC_PRIVATE, HP / 2 + PAGE, IPC_CREAT | SHM_HUGETLB | 0600);
	uint8_t *d = did < 0 ? (void *)-1 : shmat(did, NULL, 0);
	if (d != (void *)-1)
		datagen(d, HP / 2 + PAGE, 9), shmdt(d);
	if (id < 0 && errno == EPERM)
		y = mmap(NULL, HP, PROT_READ | PROT_WRITE, sa, -1, 0), test_msg("no SHM_HUGETLB here\n");
	mfd = memfd_create("hugetlb_mem", MFD_HUGETLB);
	int ufd = memfd_create("hugetlb_fd_only", MFD_HUGETLB); /* held as an fd only: contents via a map */
	uint8_t *u = ufd < 0 || ftruncate(ufd, HP)
			 ? MAP_FAILED
			 : mmap(NULL, HP, PROT_READ | PROT_WRITE, MAP_SHARED, ufd, 0);
	if (u != MAP_FAILED)
		datagen(u, HP, 8), munmap(u, HP);
	if (p == MAP_FAILED || q == MAP_FAILED || s == MAP_FAILED || y == (void *)-1 || y == MAP_FAILED ||
	    mfd < 0 || ftruncate(mfd, HP) || u == MAP_FAILED)
		test_skip("hugetlb memory cannot be had (%m)");
	uint8_t *ms = mmap(NULL, HP, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	volatile uint8_t *mp = mmap(NULL, HP, PROT_READ | PROT_WRITE, MAP_PRIVATE, mfd, 0);
	if (ms == MAP_FAILED || mp == MAP_FAILED || pipe(ctl) || pipe(rdy))
		test_skip("hugetlb memfd cannot be mapped (%m)");
	datagen(p, HP, 1);
	datagen(q, HP, 3);
	datagen((void *)s, HP / 2, 4);
	datagen(y, HP, 5);
	datagen(ms, HP, 6);
	if (mp[0] != ms[0])
		fail("the private memfd mapping does not follow the shared one");
	ch = fork();
	if (ch == 0)
		_exit(child(p, q, s, ctl[0], rdy[1]));
	struct area ar[] = {{"private", p, 0, 0},	 {"private (shared with the child)", q, 0, 0},
			    {"shared", (void *)s, 0, 0}, {"SysV", y, 0, 0},
			    {"memfd shared", ms, 0, 0},	 {"memfd private", (void *)mp, 0, 0}};
	long kps;
	for (size_t i = 0; i < sizeof(ar) / sizeof(ar[0]); i++)
		if (mapping_of(ar[i].p, &ar[i].maj, &ar[i].min, &kps) || kps != (long)(HP >> 10))
			fail("%s: not in huge pages before the dump (%ld KiB)", ar[i].name, kps);
	char c;
	if (read(rdy[0], &c, 1) != 1) /* the child wrote its copy */
		fail("child: not ready");
	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < sizeof(ar) / sizeof(ar[0]); i++) {
		unsigned maj, min;
		if (mapping_of(ar[i].p, &maj, &min, &kps) || kps != (long)(HP >> 10))
			fail("%s: not in huge pages any more (KernelPageSize %ld KiB)", ar[i].name, kps);
		else if (maj != ar[i].maj || min != ar[i].min)
			fail("%s: device %x:%x, was %x:%x", ar[i].name, maj, min, ar[i].maj, ar[i].min);
	}
	if (datachk(p, HP, 1, NULL) || datachk(q, HP, 3, NULL) || datachk((void *)s, HP / 2, 4, NULL) ||
	    datachk(y, HP, 5, NULL) || datachk(ms, HP, 6, NULL) || datachk((void *)mp, HP, 6, NULL))
		fail("contents changed");
	struct shmid_ds ds;
	if (id >= 0 && (shmctl(id, IPC_STAT, &ds) || ds.shm_segsz != HP || ds.shm_nattch != 2)) /* +child */
		fail("SysV segment %d: size %zu nattch %lu", id, (size_t)ds.shm_segsz,
		     (unsigned long)ds.shm_nattch);
	ms[10] ^= 0xff;
	if (mp[10] != ms[10])
		fail("the private memfd mapping does not follow the shared one any more");
	mp[11] ^= 0xff;
	if (mp[11] == ms[11])
		fail("a write to the private memfd mapping went to the memfd");
	uint8_t b;
	if (pread(mfd, &b, 1, 10) != 1 || b != ms[10])
		fail("the memfd fd is not the mapped memfd");
	u = mmap(NULL, HP, PROT_READ, MAP_SHARED, ufd, 0);
	if (u == MAP_FAILED || datachk(u, HP, 8, NULL) || mapping_of(u, &ar[0].maj, &ar[0].min, &kps) ||
	    kps != (long)(HP >> 10))
		fail("the memfd held as an fd only: not in huge pages or contents changed (%m)");
	if (write(ctl[1], "g", 1) != 1 || waitpid(ch, &st, 0) != ch || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("child: status %#x", st);
	if (s[HP - 1] != 0x5a)
		fail("the child's write to shared hugetlb memory is not seen: not shared any more");
	if (id >= 0)
		shmdt(y), shmctl(id, IPC_RMID, NULL);
	d = did < 0 ? (void *)-1 : shmat(did, NULL, SHM_RDONLY);
	if (did >= 0 && (d == (void *)-1 || datachk(d, HP / 2 + PAGE, 9, NULL)))
		fail("the SysV hugetlb segment nobody attached: gone or contents changed (%m)");
	if (did >= 0)
		shmdt(d), shmctl(did, IPC_RMID, NULL);
	munmap(p, HP), munmap(q, HP), munmap((void *)s, HP), munmap(ms, HP), munmap((void *)mp, HP);
	close(mfd);
	if (added > 0)
		write_long(NR, read_long(NR, NULL) - added); /* (may be refused in a namespace: left as is) */
	return test_pass();
}
