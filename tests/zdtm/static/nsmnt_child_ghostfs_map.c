/* nsmnt_child_ghostfs with the deleted file mapped too (MAP_SHARED): the process makes such a ghost again
 * on its own tmpfs from crshim's, but its mappings are made from crshim's (another inode), so the dump
 * refuses it with one line (.desc dump-expect) and the tree keeps running, the mapping and the fd one file
 * still. Before, the fd came back on the root's filesystem, the mapping a copy of its own. */
#include <sys/mman.h>

#include "nsmnt.h"

#define GFD 7

static char *gmap;

static int setup(void)
{
	if (mount("nsmnt", "/nsmnt_gm/m", "tmpfs", 0, "size=1m"))
		return 1;
	write_file("/nsmnt_gm/m/f", "ghost");
	open_at(GFD, "/nsmnt_gm/m/f", O_RDWR, "open /nsmnt_gm/m/f in the child");
	gmap = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, GFD, 0);
	return gmap == MAP_FAILED || unlink("/nsmnt_gm/m/f");
}

static int check(void)
{
	char buf[8] = "";
	gmap[0] = 'G';
	return pread(GFD, buf, 5, 0) != 5 || strcmp(buf, "Ghost");
}

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_gm", "tmpfs", 0, "size=1m");
	mkdirs("/nsmnt_gm/m");
	usr1_block();
	pid_t ch = nsmnt_child(setup, check);
	test_daemon();
	test_waitsig();
	kill(ch, SIGUSR1);
	child_exit_ok(ch, "1: a write through the mapping is not seen through the fd");
	return test_pass();
}
