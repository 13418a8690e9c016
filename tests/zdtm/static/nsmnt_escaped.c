/* Mount points whose names mountinfo escapes (space, tab, backslash: \040 \011 \134): a tmpfs with a file and
 * a bind of a file onto a name with a space. Both must come back at the same names with the same contents. */
#include "nsmnt.h"

#define DIR "/nsmnt sp\ttab\\bs"
#define DIR_MI "/nsmnt\\040sp\\011tab\\134bs"
#define FILE_SRC "/nsmnt_esc_src"
#define FILE_DST "/nsmnt esc file"
#define FILE_DST_MI "/nsmnt\\040esc\\040file"

int main(int argc, char **argv)
{
	struct mnt_line m;
	test_init(argc, argv);
	must_mount("nsmnt", DIR, "tmpfs", 0, "size=1m");
	write_file(DIR "/in it", "tmpfs file\n");
	write_file(FILE_SRC, "bound file\n");
	write_file(FILE_DST, "");
	if (mount(FILE_SRC, FILE_DST, NULL, MS_BIND, NULL))
		fail("bind " FILE_SRC " on '" FILE_DST "'");
	CHECK(!mnt_find(DIR_MI, &m), "setup: mountinfo has no %s", DIR_MI);
	test_daemon();
	test_waitsig();

	CHECK(!mnt_find(DIR_MI, &m) && !strcmp(m.type, "tmpfs"), "no tmpfs at '%s'", DIR_MI);
	CHECK(file_is(DIR "/in it", "tmpfs file\n"), "the tmpfs lost its file");
	CHECK(!mnt_find(FILE_DST_MI, &m), "no bind at '%s'", FILE_DST_MI);
	CHECK(file_is(FILE_DST, "bound file\n"), "the bind on '%s' is not of %s", FILE_DST, FILE_SRC);
	pass();
	return 0;
}
