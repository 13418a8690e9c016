/* An unlinked file with data, open twice (O_RDWR at an offset, O_RDONLY): sparse (two data extents, a hole
 * between them and a hole at the end), mode 0640, owned by 1234:2345. After restore both fds are one file
 * again, still unlinked (nlink 0, same "(deleted)" link, the path free), with size, mode, owner, data,
 * holes, offsets; a write through one fd is seen through the other. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define NAME "unlink_fstat00.file"
#define A_OFF 0
#define A_LEN 5000
#define B_OFF 300000
#define B_LEN 3000
#define SIZE 400000
enum { RW = 40, RO = 41 };

static char data_a[A_LEN], data_b[B_LEN];

static void check_data(void)
{
	static char buf[SIZE];
	if (pread(RO, buf, SIZE, 0) != SIZE)
		fail("read %d bytes", SIZE);
	if (memcmp(buf + A_OFF, data_a, A_LEN) || memcmp(buf + B_OFF, data_b, B_LEN))
		fail("data differs");
	for (size_t i = 0; i < SIZE; i++) {
		int in_data = i < A_OFF + A_LEN || (i >= B_OFF && i < B_OFF + B_LEN);
		if (!in_data && buf[i]) {
			fail("byte %zu in a hole is %#x", i, buf[i] & 0xff);
			break;
		}
	}
}

int main(int argc, char **argv)
{
	char want[4200], cwd[4000];
	struct stat a;

	test_init(argc, argv);
	datagen(data_a, A_LEN, 31);
	datagen(data_b, B_LEN, 32);
	if (!getcwd(cwd, sizeof(cwd)))
		fail("getcwd");
	open_at(RW, NAME, O_RDWR | O_CREAT | O_EXCL, "open rw");
	open_at(RO, NAME, O_RDONLY, "open ro");
	if (pwrite(RW, data_a, A_LEN, A_OFF) != A_LEN || pwrite(RW, data_b, B_LEN, B_OFF) != B_LEN ||
	    ftruncate(RW, SIZE) || fchown(RW, 1234, 2345) || fchmod(RW, 0640))
		fail("fill");
	if (lseek(RW, 1234, SEEK_SET) != 1234 || lseek(RO, 4321, SEEK_SET) != 4321 || unlink(NAME))
		fail("seek/unlink");
	snprintf(want, sizeof(want), "%s/%s (deleted)", cwd, NAME);
	test_daemon();
	test_waitsig();

	unlinked_check(RW, RO, S_IFREG, NAME, want, &a, "file");
	if ((a.st_mode & 07777) != 0640 || a.st_uid != 1234 || a.st_gid != 2345 || a.st_size != SIZE)
		fail("mode %o owner %d:%d size %lld", a.st_mode & 07777, a.st_uid, a.st_gid,
		     (long long)a.st_size);
	if (lseek(RW, 0, SEEK_CUR) != 1234 || lseek(RO, 0, SEEK_CUR) != 4321)
		fail("offsets %lld %lld", (long long)lseek(RW, 0, SEEK_CUR),
		     (long long)lseek(RO, 0, SEEK_CUR));
	if ((fcntl(RW, F_GETFL) & O_ACCMODE) != O_RDWR || (fcntl(RO, F_GETFL) & O_ACCMODE) != O_RDONLY)
		fail("access modes");
	check_data();
	char c = 0;
	if (pwrite(RW, "Q", 1, 100000) != 1 || pread(RO, &c, 1, 100000) != 1 || c != 'Q')
		fail("a write through fd %d is not seen through fd %d", RW, RO);
	DIR *d = opendir(".");
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, "crshim"))
			fail("left behind: %s", de->d_name);
	if (d)
		closedir(d);
	pass();
	return 0;
}
