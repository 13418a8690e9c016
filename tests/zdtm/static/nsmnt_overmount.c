/* Mounts over mounts: two tmpfs stacked on one point (the lower one's files come back when the top goes). */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	must_mount("nsmnt", "/nsmnt_over", "tmpfs", 0, NULL);
	write_file("/nsmnt_over/lower", "lower");
	must_mount("nsmnt", "/nsmnt_over", "tmpfs", 0, NULL);
	write_file("/nsmnt_over/upper", "upper");
	test_daemon();
	test_waitsig();

	CHECK(mnt_count("/nsmnt_over") == 2, "%d mounts at /nsmnt_over, want 2", mnt_count("/nsmnt_over"));
	CHECK(file_is("/nsmnt_over/upper", "upper") && access("/nsmnt_over/lower", F_OK),
	      "the top mount is not on top");
	CHECK(!umount("/nsmnt_over"), "umount the top");
	CHECK(file_is("/nsmnt_over/lower", "lower"), "the lower mount lost its file");
	pass();
	return 0;
}
