/* Memfds: one with a name, sparse contents (4 KiB at 0, 8 KiB at 1 MiB, size 4 MiB), seals
 * F_SEAL_SHRINK|F_SEAL_GROW, offset 100, and a second read-only open file description of it (its own
 * offset); one made without MFD_ALLOW_SEALING (F_SEAL_SEAL); one sealed with F_SEAL_WRITE. After restore
 * the names (link), sizes, contents, holes, seals, offsets and access modes are the same. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

#define SZ (4 << 20)

static void link_of(int fd, char *out, size_t len)
{
	char path[64];
	ssize_t n;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
}

int main(int argc, char **argv)
{
	static char a[4096], b[8192], buf[8192];
	char l1[256], l2[256], l3[256], path[64], n1[256], n2[256], n3[256];
	struct stat st;
	int m1, ro, m2, m3;
	size_t bad;

	test_init(argc, argv);
	datagen(a, sizeof(a), 1);
	datagen(b, sizeof(b), 2);
	m1 = memfd_create("crshim-memfd00 one", MFD_ALLOW_SEALING);
	m2 = memfd_create("two", 0);
	m3 = memfd_create("three", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (m1 < 0 || m2 < 0 || m3 < 0)
		fail("memfd_create");
	if (ftruncate(m1, SZ) || pwrite(m1, a, sizeof(a), 0) != sizeof(a) ||
	    pwrite(m1, b, sizeof(b), 1 << 20) != sizeof(b) || lseek(m1, 100, SEEK_SET) != 100)
		fail("fill one");
	if (fcntl(m1, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
		fail("seal one");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", m1);
	ro = open(path, O_RDONLY);
	if (ro < 0 || lseek(ro, 7, SEEK_SET) != 7)
		fail("reopen one");
	if (write(m2, "two", 3) != 3 || write(m3, "three", 5) != 5 || fcntl(m3, F_ADD_SEALS, F_SEAL_WRITE))
		fail("fill two/three");
	link_of(m1, l1, sizeof(l1));
	link_of(m2, l2, sizeof(l2));
	link_of(m3, l3, sizeof(l3));
	test_daemon();
	test_waitsig();

	link_of(m1, n1, sizeof(n1));
	link_of(m2, n2, sizeof(n2));
	link_of(m3, n3, sizeof(n3));
	if (strcmp(l1, n1) || strcmp(l2, n2) || strcmp(l3, n3))
		fail("names %s %s %s, want %s %s %s", n1, n2, n3, l1, l2, l3);
	if (fstat(m1, &st) || st.st_size != SZ)
		fail("size of one");
	if (st.st_blocks * 512 > 64 * 1024)
		fail("one has %lld bytes allocated: the holes were filled", (long long)st.st_blocks * 512);
	if (pread(m1, buf, sizeof(a), 0) != sizeof(a) || datachk(buf, sizeof(a), 1, &bad))
		fail("contents at 0");
	if (pread(m1, buf, sizeof(b), 1 << 20) != sizeof(b) || datachk(buf, sizeof(b), 2, &bad))
		fail("contents at 1 MiB");
	if (pread(m1, buf, 16, 2 << 20) != 16 || memcmp(buf, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16))
		fail("a hole is not zero");
	if (fcntl(m1, F_GET_SEALS) != (F_SEAL_SHRINK | F_SEAL_GROW))
		fail("seals of one %#x", fcntl(m1, F_GET_SEALS));
	if (lseek(m1, 0, SEEK_CUR) != 100 || lseek(ro, 0, SEEK_CUR) != 7)
		fail("offsets %lld %lld, want 100 7", (long long)lseek(m1, 0, SEEK_CUR),
		     (long long)lseek(ro, 0, SEEK_CUR));
	if ((fcntl(ro, F_GETFL) & O_ACCMODE) != O_RDONLY || write(ro, "x", 1) != -1)
		fail("the second open of one is not read-only");
	if (fstat(ro, &st) || st.st_size != SZ || pwrite(m1, "Z", 1, 5) != 1 || pread(ro, buf, 1, 5) != 1 ||
	    buf[0] != 'Z')
		fail("the two opens of one are not one memfd");
	if (fcntl(m2, F_GET_SEALS) != F_SEAL_SEAL || pread(m2, buf, 8, 0) != 3 || memcmp(buf, "two", 3))
		fail("two: seals %#x", fcntl(m2, F_GET_SEALS));
	if (fcntl(m3, F_GET_SEALS) != F_SEAL_WRITE || write(m3, "x", 1) != -1 ||
	    fcntl(m3, F_GETFD) != FD_CLOEXEC)
		fail("three: seals %#x", fcntl(m3, F_GET_SEALS));
	if (pread(m3, buf, 8, 0) != 5 || memcmp(buf, "three", 5))
		fail("three: contents");
	pass();
	return 0;
}
