/* runc's masked paths: /dev/null bound over a file, a read-only tmpfs over a directory. */
#include <sys/sysmacros.h>
#include "nsmnt.h"

int main(int argc, char **argv)
{
	test_init(argc, argv);
	write_file("/nsmnt_secret", "secret");
	mkdirs("/nsmnt_sdir");
	write_file("/nsmnt_sdir/x", "hidden");
	if (mount("/dev/null", "/nsmnt_secret", NULL, MS_BIND, NULL))
		fail("bind /dev/null");
	must_mount("tmpfs", "/nsmnt_sdir", "tmpfs", MS_RDONLY, NULL);
	test_daemon();
	test_waitsig();

	struct stat st;
	char b[8];
	int fd = open("/nsmnt_secret", O_RDONLY);
	CHECK(fd >= 0 && read(fd, b, sizeof(b)) == 0, "the masked file is not empty");
	if (fd >= 0)
		close(fd);
	CHECK(!stat("/nsmnt_secret", &st) && S_ISCHR(st.st_mode), "the masked file is not /dev/null");
	CHECK(access("/nsmnt_sdir/x", F_OK), "the masked dir shows its files");
	CHECK(open("/nsmnt_sdir/y", O_CREAT | O_WRONLY, 0644) < 0 && errno == EROFS,
	      "the masked dir is writable");
	pass();
	return 0;
}
