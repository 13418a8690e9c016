/* Character device fds: /dev/null (rw), /dev/zero (ro), /dev/urandom (ro,
 * cloexec), /dev/full (wo): same rdev and flags, and they still behave. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "zdtmtst.h"

static const struct {
	const char *path;
	int flags, fd;
} devs[] = {
    {"/dev/null", O_RDWR, 20},
    {"/dev/zero", O_RDONLY, 21},
    {"/dev/urandom", O_RDONLY | O_CLOEXEC, 22},
    {"/dev/full", O_WRONLY | O_NONBLOCK, 23},
};

int main(int argc, char **argv)
{
	struct stat st0[ARRAY_SIZE(devs)], st;
	int fl0[ARRAY_SIZE(devs)], fd0[ARRAY_SIZE(devs)];
	char buf[64], zero[64] = {0};
	size_t i;

	test_init(argc, argv);
	for (i = 0; i < ARRAY_SIZE(devs); i++) {
		int fd = open(devs[i].path, devs[i].flags);
		if (fd < 0 || dup3(fd, devs[i].fd, devs[i].flags & O_CLOEXEC) != devs[i].fd)
			fail("open %s", devs[i].path);
		close(fd);
		fstat(devs[i].fd, &st0[i]);
		fl0[i] = fcntl(devs[i].fd, F_GETFL);
		fd0[i] = fcntl(devs[i].fd, F_GETFD);
	}
	test_daemon();
	test_waitsig();

	for (i = 0; i < ARRAY_SIZE(devs); i++) {
		int fd = devs[i].fd;
		if (fstat(fd, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != st0[i].st_rdev)
			fail("fd %d: not %s any more (rdev %u:%u)", fd, devs[i].path, major(st.st_rdev),
			     minor(st.st_rdev));
		if (fcntl(fd, F_GETFL) != fl0[i] || fcntl(fd, F_GETFD) != fd0[i])
			fail("fd %d (%s): flags %#o/%d, want %#o/%d", fd, devs[i].path, fcntl(fd, F_GETFL),
			     fcntl(fd, F_GETFD), fl0[i], fd0[i]);
	}
	if (read(20, buf, sizeof(buf)) != 0 || write(20, "x", 1) != 1)
		fail("/dev/null behaviour");
	memset(buf, 1, sizeof(buf));
	if (read(21, buf, sizeof(buf)) != sizeof(buf) || memcmp(buf, zero, sizeof(buf)))
		fail("/dev/zero behaviour");
	if (read(22, buf, 32) != 32 || !memcmp(buf, zero, 32))
		fail("/dev/urandom behaviour");
	if (write(23, "x", 1) != -1 || errno != ENOSPC)
		fail("/dev/full behaviour");
	pass();
	return 0;
}
