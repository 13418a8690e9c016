/* NUMA memory policies of address ranges (mbind): parts of one 18-page private anonymous mapping with bind,
 * interleave with MPOL_F_RELATIVE_NODES, prefer with MPOL_F_STATIC_NODES, local, prefer (many), weighted
 * interleave, bind with MPOL_F_NUMA_BALANCING, bind with MPOL_F_STATIC_NODES over a node the host may not
 * have (the nodemask mbind was given is what the kernel keeps and answers), and parts left at the default;
 * a second mapping interleaved whole (mbind with MPOL_MF_STRICT | MPOL_MF_MOVE, which are not state), a part
 * of shared anonymous memory and a private file mapping bound. The task has a policy of its own
 * (set_mempolicy), which the default parts must not take. After restore get_mempolicy(MPOL_F_ADDR) answers
 * the same mode, flags and nodes at the first and last page of each part, each part is one VMA with the same
 * bounds as before (mbind splits them), and the data is intact. Before: every policy was lost without a word
 * (the default everywhere, the parts merged into one VMA). Node 0 is used, which every host has. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "zdtmtst.h"

#define BIND 2
#define PREF 1
#define INTER 3
#define LOCAL 4
#define PREF_MANY 5
#define WINTER 6
#define STATIC 0x8000
#define RELATIVE 0x4000
#define BALANCING 0x2000
#define MF_STRICT 1
#define MF_MOVE 2

struct part {
	int map, first, n, mode;
	unsigned long nodes;
	unsigned flags;
	int skip; /* this kernel refused the mode (older than the mode): not checked */
	char line[96];
};

static struct part parts[] = {
    {0, 0, 2, BIND, 1, 0, 0, ""},
    {0, 2, 2, 0, 0, 0, 0, ""},
    {0, 4, 2, INTER | RELATIVE, 3, 0, 0, ""},
    {0, 6, 2, PREF | STATIC, 1, 0, 0, ""},
    {0, 8, 1, LOCAL, 0, 0, 0, ""},
    {0, 9, 2, PREF_MANY, 1, 0, 0, ""},
    {0, 11, 2, WINTER, 1, 0, 0, ""},
    {0, 13, 1, BIND | BALANCING, 1, 0, 0, ""},
    {0, 14, 2, BIND | STATIC, 3, 0, 0, ""},
    {0, 16, 2, 0, 0, 0, 0, ""},
    {1, 0, 4, INTER, 1, MF_STRICT | MF_MOVE, 0, ""},
    {2, 0, 1, 0, 0, 0, 0, ""},
    {2, 1, 2, BIND, 1, 0, 0, ""},
    {2, 3, 1, 0, 0, 0, 0, ""},
    {3, 1, 2, PREF, 1, 0, 0, ""},
};
static const int npages[] = {18, 4, 4, 4};

static long get_pol(void *addr, int *mode, unsigned long *nodes)
{
	unsigned long n[1024 / 64] = {0};
	long r = syscall(SYS_get_mempolicy, mode, n, 1024, addr, 2 /* MPOL_F_ADDR */);
	*nodes = n[0];
	return r;
}

static void check_part(char *const *m, struct part *p, const char *when)
{
	char line[96];
	for (int k = 0; k < 2; k++) {
		char *a = m[p->map] + (p->first + (k ? p->n - 1 : 0)) * PAGE;
		int mode = -1;
		unsigned long nodes = 0;
		if (get_pol(a, &mode, &nodes))
			fail("%s: get_mempolicy(MPOL_F_ADDR) of map %d page %d: %m", when, p->map, p->first);
		else if (mode != p->mode || nodes != p->nodes)
			fail("%s: map %d page %d: policy %#x nodes %#lx, want %#x nodes %#lx", when, p->map,
			     p->first, mode, nodes, p->mode, p->nodes);
	}
	if (vma_info(m[p->map] + p->first * PAGE, line, sizeof(line), NULL, 0))
		fail("%s: no vma at map %d page %d", when, p->map, p->first);
	else if (*p->line && strcmp(line, p->line))
		fail("%s: map %d page %d: vma '%s', was '%s'", when, p->map, p->first, line, p->line);
	else
		strcpy(p->line, line);
}

static char *map_file(size_t len)
{
	int fd = open("mbind_vma.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *m = MAP_FAILED;
	if (fd >= 0 && !ftruncate(fd, (off_t)len))
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	return m;
}

int main(int argc, char **argv)
{
	char *m[4];
	unsigned long node0 = 1;
	uint64_t seed = 77;
	size_t bad;

	test_init(argc, argv);
	/* the task's own policy: numa_maps shows it for the VMAs without one */
	if (syscall(SYS_set_mempolicy, PREF, &node0, 64))
		fail("set_mempolicy: %m");
	/* one PROT_NONE page around each, so that none merges with a neighbour */
	for (int i = 0; i < 4; i++) {
		size_t len = (size_t)npages[i] * PAGE;
		char *g = mmap(NULL, len + 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fl = i == 2 ? MAP_SHARED | MAP_ANONYMOUS : MAP_PRIVATE | MAP_ANONYMOUS;
		m[i] = g == MAP_FAILED ? MAP_FAILED
		       : i == 3	       ? map_file(len)
				       : mmap(g + PAGE, len, PROT_READ | PROT_WRITE, fl | MAP_FIXED, -1, 0);
		if (i == 3 && m[i] != MAP_FAILED)
			m[i] = mremap(m[i], len, len, MREMAP_MAYMOVE | MREMAP_FIXED, g + PAGE);
		if (m[i] == MAP_FAILED) {
			fail("mmap %d: %m", i);
			return 1;
		}
		datagen(m[i], len, seed + (uint64_t)i);
	}
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		struct part *p = &parts[i];
		if (!p->mode)
			continue;
		if (syscall(SYS_mbind, m[p->map] + p->first * PAGE, p->n * PAGE, p->mode,
			    p->nodes ? &p->nodes : NULL, p->nodes ? 64 : 0, p->flags)) {
			if (errno == EINVAL && (p->mode == WINTER || p->mode == PREF_MANY ||
						(p->mode & BALANCING))) { /* an older kernel */
				test_msg("mbind mode %#x: %m (not checked)\n", p->mode);
				p->skip = 1;
				continue;
			}
			fail("mbind part %zu (mode %#x): %m", i, p->mode);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (!parts[i].skip)
			check_part(m, &parts[i], "before");
	test_daemon();
	test_waitsig();

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (!parts[i].skip)
			check_part(m, &parts[i], "after");
	for (int i = 0; i < 4; i++)
		if (datachk(m[i], (size_t)npages[i] * PAGE, seed + (uint64_t)i, &bad))
			fail("map %d: data differs at page %zu", i, bad / PAGE);
	pass();
	return 0;
}
