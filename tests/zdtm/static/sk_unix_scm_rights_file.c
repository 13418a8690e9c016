/* Files in flight (SCM_RIGHTS) in one message over a stream socketpair (fds 11 -> 12), received after
 * restore: a regular file held only in flight (offset 3), the read end of a pipe with 9 bytes in it (the task
 * keeps the write end, fd 21), a memfd held only in flight (contents, offset 2) and an eventfd with counter 7
 * that the task also holds (fd 20). After restore the contents and offsets are the same, the pipe is the one
 * the task writes to, the eventfd is the same open file description as fd 20 (kcmp), nothing more is queued.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>
#include "sk_unix.h"

enum { A = 11, B = 12, EV = 20, PW = 21 };

static int same_file(int a, int b)
{
	return syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, a, b) == 0;
}

static void check_file(int fd)
{
	struct stat a, b;
	char c[8] = "";
	if (lseek(fd, 0, SEEK_CUR) != 3)
		fail("regular file: offset %lld, want 3", (long long)lseek(fd, 0, SEEK_CUR));
	if (read(fd, c, 3) != 3 || memcmp(c, "345", 3))
		fail("regular file: read '%.3s', want '345'", c);
	if (fstat(fd, &a) || stat("scm_file.txt", &b) || a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		fail("regular file: not scm_file.txt");
	if ((fcntl(fd, F_GETFL) & O_ACCMODE) != O_RDWR)
		fail("regular file: access mode %#x", fcntl(fd, F_GETFL));
}

static void check_pipe(int fd)
{
	char c[16] = "";
	if (read(fd, c, 9) != 9 || memcmp(c, "pipe data", 9))
		fail("pipe: read '%.9s', want 'pipe data'", c);
	if (write(PW, "!", 1) != 1 || read(fd, c, 1) != 1 || c[0] != '!')
		fail("pipe: not the pipe of fd %d", PW);
}

static void check_memfd(int fd)
{
	char c[32] = "", path[64], link[128] = "";
	if (lseek(fd, 0, SEEK_CUR) != 2)
		fail("memfd: offset %lld, want 2", (long long)lseek(fd, 0, SEEK_CUR));
	if (pread(fd, c, 14, 0) != 14 || memcmp(c, "memfd contents", 14))
		fail("memfd: contents '%.14s'", c);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (readlink(path, link, sizeof(link) - 1) <= 0 || !strstr(link, "memfd:scm-memfd"))
		fail("memfd: link '%s'", link);
}

int main(int argc, char **argv)
{
	uint64_t v = 0;
	int fds[8];

	test_init(argc, argv);
	sk_pair(SOCK_STREAM, A, B);
	int f = sk_scm_file("scm_file.txt", 3);
	int pr = sk_scm_pipe("pipe data", PW);
	int m = memfd_create("scm-memfd", 0);
	if (m < 0 || write(m, "memfd contents", 14) != 14 || lseek(m, 2, SEEK_SET) != 2)
		fail("memfd");
	int ev = eventfd(7, EFD_NONBLOCK);
	if (ev < 0)
		fail("eventfd");
	sk_place(ev, EV, 0);
	fds[0] = f, fds[1] = pr, fds[2] = m, fds[3] = EV;
	if (sk_send_fds(A, "four", 4, fds, 4))
		fail("sendmsg");
	close(f);
	close(pr);
	close(m);
	test_daemon();
	test_waitsig();

	if (sk_recv_want(B, "four", 4, fds))
		return 1;
	check_file(fds[0]);
	check_pipe(fds[1]);
	check_memfd(fds[2]);
	if (!same_file(fds[3], EV))
		fail("eventfd: not the open file description of fd %d", EV);
	if (read(EV, &v, sizeof(v)) != sizeof(v) || v != 7)
		fail("eventfd counter %llu, want 7", (unsigned long long)v);
	if (!sk_empty(B))
		fail("more data queued");
	return test_pass();
}
