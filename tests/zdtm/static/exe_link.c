/* /proc/self/exe: same link target, same inode, and it opens our binary
 * (ELF header equal to the mapped one). */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zdtmtst.h"

int main(int argc, char **argv)
{
	char l0[PATH_MAX], l1[PATH_MAX], hdr[64];
	struct stat s0, s1;
	ssize_t n;

	test_init(argc, argv);
	n = readlink("/proc/self/exe", l0, sizeof(l0) - 1);
	if (n <= 0 || stat("/proc/self/exe", &s0)) {
		fail("readlink");
		return 1;
	}
	l0[n] = 0;
	test_daemon();
	test_waitsig();

	n = readlink("/proc/self/exe", l1, sizeof(l1) - 1);
	if (n <= 0) {
		fail("readlink after");
		return 1;
	}
	l1[n] = 0;
	if (strcmp(l0, l1))
		fail("exe -> '%s', want '%s'", l1, l0);
	if (stat("/proc/self/exe", &s1) || s1.st_ino != s0.st_ino || s1.st_dev != s0.st_dev)
		fail("exe is another file");
	int fd = open("/proc/self/exe", O_RDONLY);
	if (fd < 0 || read(fd, hdr, sizeof(hdr)) != sizeof(hdr) || memcmp(hdr, "\177ELF", 4)) {
		fail("exe not an ELF file");
	} else {
		/* the ELF header mapped at the load base (AT_ENTRY - e_entry) is the file's */
		Elf64_Ehdr *eh = (Elf64_Ehdr *)hdr;
		unsigned long base = getauxval(AT_ENTRY) - eh->e_entry;
		if (memcmp((void *)base, hdr, sizeof(hdr)))
			fail("/proc/self/exe is not the mapped binary");
	}
	if (strcmp(l1, argv[0]) && !strstr(l1, strrchr(argv[0], '/') ? strrchr(argv[0], '/') : argv[0]))
		fail("exe '%s' unrelated to argv[0] '%s'", l1, argv[0]);
	pass();
	return 0;
}
