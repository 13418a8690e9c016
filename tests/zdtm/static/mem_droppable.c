/* A MAP_DROPPABLE mapping (its pages may be dropped under memory pressure; Linux 6.11) with data in it. After
 * restore it is droppable again (VmFlags "dp"), not ordinary private memory, and its pages are empty (zeros:
 * they are not saved, as CRIU does and as CRIU's maps11 expects). A task that was not restored (checkpoint,
 * nocr: the inode of /proc/self/status is the same) holds the data of before or zeros, page by page. */
#include <sys/stat.h>
#include <string.h>
#include <sys/mman.h>
#include "zdtmtst.h"

#define MAP_DROPPABLE_ 0x08
#define NP 16

int main(int argc, char **argv)
{
	static char want[NP * PAGE];
	test_init(argc, argv);
	char *p = mmap(NULL, NP * PAGE, PROT_READ | PROT_WRITE, MAP_DROPPABLE_ | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		test_skip("no MAP_DROPPABLE here (errno %d)", errno);
	datagen(want, sizeof(want), 77);
	memcpy(p, want, sizeof(want));
	vma_flag_is(p, "dp", 1, "the mapping is not droppable before the dump");
	struct stat st0, st1;
	if (stat("/proc/self/status", &st0))
		fail("stat /proc/self/status");
	test_daemon();
	test_waitsig();
	if (stat("/proc/self/status", &st1))
		fail("stat /proc/self/status");
	int restored = st0.st_ino != st1.st_ino;

	vma_flag_is(p, "dp", 1, "the droppable mapping came back as ordinary memory (no \"dp\" in VmFlags)");
	static const char zero[PAGE];
	for (int i = 0; i < NP; i++)
		if (memcmp(p + i * PAGE, zero, PAGE) &&
		    (restored || memcmp(p + i * PAGE, want + i * PAGE, PAGE)))
			fail("page %d holds %s", i,
			     restored ? "data after restore" : "neither its data nor zeros");
	p[0] = 1;
	pass();
	return 0;
}
