/* Regular file fds: offsets, access modes and status flags (RDWR, RDONLY,
 * WRONLY, O_APPEND, O_NONBLOCK), FD_CLOEXEC, fixed fd numbers, a directory fd.
 * After restore: same inode, offset, flags; reads/writes land at the right place. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

enum { F_RW, F_APP, F_RO, F_WO, F_DIR, NF };
static const int fdno[NF] = {3, 17, 100, 201, 42};

static void mkfile(const char *name, size_t len, uint64_t seed)
{
	char buf[8192];
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	datagen(buf, len, seed);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		fail("create %s", name);
	close(fd);
}

static void place(int fd, int want)
{
	if (fd != want) {
		if (dup2(fd, want) != want)
			fail("dup2 %d", want);
		close(fd);
	}
}

int main(int argc, char **argv)
{
	struct stat st0[NF], st;
	off_t off0[NF];
	int fl0[NF], fdfl0[NF], i;
	char buf[8192], ref[8192];

	test_init(argc, argv);
	mkfile("fd_rw.data", 8192, 1);
	mkfile("fd_app.data", 100, 2);
	mkfile("fd_ro.data", 8192, 3);
	mkfile("fd_wo.data", 4096, 4);
	mkdir("fd_dir", 0755);
	mkfile("fd_dir/inside", 10, 5);

	place(open("fd_rw.data", O_RDWR), fdno[F_RW]);
	place(open("fd_app.data", O_WRONLY | O_APPEND | O_CLOEXEC), fdno[F_APP]);
	place(open("fd_ro.data", O_RDONLY | O_NONBLOCK), fdno[F_RO]);
	place(open("fd_wo.data", O_WRONLY), fdno[F_WO]);
	place(open("fd_dir", O_RDONLY | O_DIRECTORY), fdno[F_DIR]);
	fcntl(fdno[F_WO], F_SETFD, FD_CLOEXEC); /* after dup2 */
	fcntl(fdno[F_APP], F_SETFD, FD_CLOEXEC);

	lseek(fdno[F_RW], 5000, SEEK_SET);
	if (write(fdno[F_APP], "appended-before\n", 16) != 16)
		fail("append");
	lseek(fdno[F_RO], 1234, SEEK_SET);
	lseek(fdno[F_WO], 777, SEEK_SET);
	for (i = 0; i < NF; i++) {
		if (fstat(fdno[i], &st0[i]))
			fail("fstat %d", fdno[i]);
		off0[i] = lseek(fdno[i], 0, SEEK_CUR);
		fl0[i] = fcntl(fdno[i], F_GETFL);
		fdfl0[i] = fcntl(fdno[i], F_GETFD);
	}
	test_daemon();
	test_waitsig();

	for (i = 0; i < NF; i++) {
		if (fstat(fdno[i], &st)) {
			fail("fd %d is gone", fdno[i]);
			continue;
		}
		if (st.st_ino != st0[i].st_ino || st.st_dev != st0[i].st_dev || st.st_mode != st0[i].st_mode)
			fail("fd %d: another file (ino %lu, want %lu)", fdno[i], (unsigned long)st.st_ino,
			     (unsigned long)st0[i].st_ino);
		if (lseek(fdno[i], 0, SEEK_CUR) != off0[i])
			fail("fd %d: offset %ld, want %ld", fdno[i], (long)lseek(fdno[i], 0, SEEK_CUR),
			     (long)off0[i]);
		if (fcntl(fdno[i], F_GETFL) != fl0[i])
			fail("fd %d: flags %#o, want %#o", fdno[i], fcntl(fdno[i], F_GETFL), fl0[i]);
		if (fcntl(fdno[i], F_GETFD) != fdfl0[i])
			fail("fd %d: fd flags %d, want %d", fdno[i], fcntl(fdno[i], F_GETFD), fdfl0[i]);
	}
	/* rw: read continues at 5000 */
	datagen(ref, 8192, 1);
	if (read(fdno[F_RW], buf, 100) != 100 || memcmp(buf, ref + 5000, 100))
		fail("rw fd read at offset");
	if (write(fdno[F_RW], "XY", 2) != 2 || pread(fdno[F_RW], buf, 2, 5100) != 2 || memcmp(buf, "XY", 2))
		fail("rw fd write at offset");
	/* append: goes to the end even if the file grew meanwhile */
	int other = open("fd_app.data", O_WRONLY | O_APPEND);
	if (other < 0 || write(other, "grown\n", 6) != 6)
		fail("grow");
	close(other);
	if (write(fdno[F_APP], "appended-after\n", 15) != 15)
		fail("append after");
	other = open("fd_app.data", O_RDONLY);
	ssize_t n = read(other, buf, sizeof(buf));
	close(other);
	if (n != 100 + 16 + 6 + 15 || memcmp(buf + 100, "appended-before\ngrown\nappended-after\n", 37))
		fail("O_APPEND file content wrong (%zd bytes)", n);
	/* ro: read at 1234; writing fails */
	datagen(ref, 8192, 3);
	if (read(fdno[F_RO], buf, 50) != 50 || memcmp(buf, ref + 1234, 50))
		fail("ro fd read at offset");
	if (write(fdno[F_RO], "x", 1) != -1)
		fail("ro fd is writable");
	/* wo: write at 777; reading fails */
	if (write(fdno[F_WO], "WO", 2) != 2)
		fail("wo write");
	if (read(fdno[F_WO], buf, 1) != -1)
		fail("wo fd is readable");
	other = open("fd_wo.data", O_RDONLY);
	if (pread(other, buf, 2, 777) != 2 || memcmp(buf, "WO", 2))
		fail("wo fd wrote at the wrong offset");
	close(other);
	/* dir: openat relative to it, getdents */
	other = openat(fdno[F_DIR], "inside", O_RDONLY);
	if (other < 0)
		fail("openat via dir fd");
	close(other);
	DIR *d = fdopendir(dup(fdno[F_DIR]));
	int found = 0;
	struct dirent *de;
	rewinddir(d);
	while (d && (de = readdir(d)))
		found |= !strcmp(de->d_name, "inside");
	if (!found)
		fail("readdir via dir fd");
	pass();
	return 0;
}
