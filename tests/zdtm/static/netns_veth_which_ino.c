/* --external veth[INO/IFNAME]:OUTNAME, the qualified form: two network namespaces of the tree each have a
 * veth ve0 whose other end is the host's (netns_which.h); the test writes, to test.opts in its dir, one
 * --external per namespace naming it by its inode (only the running test knows them: .desc test-opts), and
 * the dump and restore take them. After C/R each ve0 is again the end of its own host veth (the first
 * namespace's of nvwINOa, the second's of nvwINOb). Before: the qualified form had no test of its own. */
#include "netns_which.h"

int main(int argc, char **argv)
{
	unsigned long home, other;
	struct stat st;
	FILE *f;

	nsw_which_setup(argc, argv);
	home = nsw_ino("net");
	if (fstat(nsw_which_other, &st))
		fail("stat the second network namespace");
	other = (unsigned long)st.st_ino;
	f = fopen("test.opts", "w");
	if (!f ||
	    fprintf(f, "--external=veth[%lu/ve0]:%s\n--external=veth[%lu/ve0]:%s\n", home, nsw_out_a, other,
		    nsw_out_b) < 0 ||
	    fclose(f))
		fail("write test.opts");
	test_daemon();
	test_waitsig();
	nsw_which_check();
	return test_pass();
}
