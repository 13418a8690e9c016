/* Parts of one shared anonymous object mapped by a parent and its child at different addresses: the head
 * unmapped (the rest starts at an offset), a part moved elsewhere with mremap (in the parent), another part
 * made read-only. After restore each part is at its address with its offset (maps lines equal) and the
 * two processes still share every byte: a write through the parent's mapping of an offset is seen at the
 * child's mapping of the same offset, and back. */
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NP 32
#define OFF(p) ((size_t)(p)*PAGE)

/* The object: pages [4, 32); pages [12, 16) moved to mv; [20, 24) read-only. at(p) = where page p is. */
static char *base, *mv;
static char *at(int p)
{
	return p >= 12 && p < 16 ? mv + OFF(p - 12) : base + OFF(p);
}

static int check_data(uint64_t seed, int skip)
{
	for (int p = 4; p < NP; p++)
		if (p != skip && datachk(at(p), PAGE - 64, seed + (uint64_t)p, NULL))
			return p;
	return 0;
}

int main(int argc, char **argv)
{
	char l0[3][128], l[128];
	test_init(argc, argv);
	uint64_t seed = getpid() * 7ULL;
	base = mmap(NULL, OFF(NP), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *hole = mmap(NULL, OFF(64), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || hole == MAP_FAILED) {
		fail("mmap");
		return 1;
	}
	for (int p = 0; p < NP; p++)
		datagen(base + OFF(p), PAGE - 64, seed + (uint64_t)p);
	munmap(base, OFF(4));
	mv = mremap(base + OFF(12), OFF(4), OFF(4), MREMAP_MAYMOVE | MREMAP_FIXED, hole + OFF(30));
	if (mv == MAP_FAILED || mprotect(base + OFF(20), OFF(4), PROT_READ)) {
		fail("mremap/mprotect");
		return 1;
	}
	usr1_block();
	pid_t ch = test_fork();
	if (ch == 0) {
		/* the child moves page 30 of the object somewhere else again */
		char *c30 = mremap(base + OFF(30), PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, hole + OFF(50));
		if (c30 == MAP_FAILED)
			_exit(9);
		usr1_wait();
		int bad = check_data(seed, 30) ? 1 : 0;
		if (datachk(c30, PAGE - 64, seed + 30, NULL))
			bad |= 1;
		if (wait_byte(at(13) + PAGE - 8, 'P') || wait_byte(c30 + PAGE - 8, 'Q'))
			bad |= 2;
		at(5)[PAGE - 8] = 'C';
		_exit(bad);
	}
	if (ch < 0)
		return 1; /* test_fork failed the test */
	vma_info(base + OFF(4), l0[0], sizeof(l0[0]), NULL, 0);
	vma_info(mv, l0[1], sizeof(l0[1]), NULL, 0);
	vma_info(base + OFF(20), l0[2], sizeof(l0[2]), NULL, 0);
	test_daemon();
	test_waitsig();

	if (vma_info(base + OFF(4), l, sizeof(l), NULL, 0) || strcmp(l, l0[0]))
		fail("head part: '%s', want '%s'", l, l0[0]);
	if (vma_info(mv, l, sizeof(l), NULL, 0) || strcmp(l, l0[1]))
		fail("moved part: '%s', want '%s'", l, l0[1]);
	if (vma_info(base + OFF(20), l, sizeof(l), NULL, 0) || strcmp(l, l0[2]))
		fail("read-only part: '%s', want '%s'", l, l0[2]);
	int p = check_data(seed, 0);
	if (p)
		fail("page %d of the object differs", p);
	if (mem_probe(base + OFF(20), 1) == 0)
		fail("the read-only part is writable");
	kill(ch, SIGUSR1);
	at(13)[PAGE - 8] = 'P';
	at(30)[PAGE - 8] = 'Q';
	if (wait_byte(at(5) + PAGE - 8, 'C'))
		fail("the child's write is not seen: not shared");
	child_exit_ok(ch, "1: contents, 2: the parent's writes not seen");
	return test_pass();
}
